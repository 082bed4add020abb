"""``analyze_all``: a moderator over many texts, in batches, through the store."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from .._params import Int, Str, validate_params
from .._registry import Moderator
from .._types import Analysis
from ..errors import BackendError
from ._sqlite import ResultStore

__all__ = ["analyze_all"]

_CONSTRAINTS = {"batch_size": Int(1), "description": Str()}


def _check_count(moderator: Moderator, got: Sequence[Analysis], n: int) -> None:
    if len(got) != n:
        name = getattr(moderator, "name", type(moderator).__name__)
        raise BackendError(f"Moderator {name!r} returned {len(got)} analyses for {n} texts.")


def analyze_all(
    moderator: Moderator,
    texts: Sequence[str],
    *,
    store: ResultStore | str | os.PathLike[str] | None = None,
    batch_size: int = 64,
    progress: bool = False,
    description: str = "analyzing",
    check_first: Callable[[Sequence[Analysis]], None] | None = None,
) -> list[Analysis]:
    """``moderator.analyze`` over ``texts`` in batches, through the result store.

    Parameters
    ----------
    moderator : Moderator
        Any registered or hand-built moderator.
    texts : sequence of str
        The texts, answered in order.
    store : ResultStore or path-like, optional
        Keep every answer in this store (a path opens, or creates, an SQLite
        store there). Texts the store already answered for this moderator's
        config are not asked again; each batch is committed before the next.
        Without a store, every text goes to the moderator.
    batch_size : int, default=64
        Texts per ``analyze`` call (and per commit), >= 1.
    progress : bool, default=False
        Show a rich progress bar on stderr.
    description : str, default="analyzing"
        Label of the progress bar.
    check_first : callable, optional
        Called with the first batch's answers, so that a moderator without a
        needed head fails before the whole data set runs.

    Returns
    -------
    list of Analysis
        One per text, in order.

    Raises
    ------
    BackendError
        If the moderator returns a different number of analyses than texts.
    """
    p = validate_params("analyze_all", _CONSTRAINTS, batch_size=batch_size, description=description)
    batch_size = p["batch_size"]
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=not progress,
    )
    checked = check_first is None

    def analyze(batch: Sequence[str]) -> list[Analysis]:
        nonlocal checked
        got = list(moderator.analyze(list(batch)))
        _check_count(moderator, got, len(batch))
        if not checked and got:
            assert check_first is not None
            check_first(got)
            checked = True
        return got

    with bar:
        job = bar.add_task(description, total=len(texts))
        if store is None:
            out: list[Analysis] = []
            for start in range(0, len(texts), batch_size):
                out.extend(analyze(texts[start : start + batch_size]))
                bar.advance(job, min(batch_size, len(texts) - start))
            return out
        own = not isinstance(store, ResultStore)
        db = ResultStore(Path(store)) if own else store  # type: ignore[arg-type]
        try:
            wrapped = _Checked(moderator, analyze)
            return db.analyze_cached(
                wrapped, texts, batch_size=batch_size, progress=lambda n: bar.advance(job, n)
            )
        finally:
            if own:
                db.close()


class _Checked:
    """``moderator`` with its ``analyze`` routed through the count and first-batch checks;
    same name, version and config, hence the same store key."""

    def __init__(self, moderator: Moderator, analyze: Callable[[Sequence[str]], list[Analysis]]):
        self._moderator = moderator
        self.name = moderator.name
        self.version = moderator.version
        self.analyze = analyze

    def config(self) -> dict[str, object]:
        return self._moderator.config()
