"""``analyze_all``: a moderator over many texts, in batches, through the store."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

from .._registry import Moderator
from .._types import Analysis
from ..errors import BackendError, ConfigError
from ..params import Constraints, Nullable, OneOf, PathLike, Str, validate_params
from ._keys import text_sha256
from ._run import Hints, failed_items_error, moderator_name, run_batches
from ._sqlite import ResultStore

__all__ = ["ENGINES", "RAY_EXTRA_MESSAGE", "analyze_all"]

#: The engines :func:`analyze_all` runs on.
ENGINES = ("local", "ray")

#: The error when ``engine="ray"`` is asked for without Ray installed.
RAY_EXTRA_MESSAGE = "The ray engine needs the 'scale' extra: pip install -e '.[scale]'."


class _AnalyzeAll:
    # Only a holder of the constraints: analyze_all is a function.
    _parameter_constraints: ClassVar[Constraints] = {
        "description": Str(),
        "engine": OneOf(ENGINES),
        "store": Nullable(PathLike()),
    }


def analyze_all(
    moderator: Moderator,
    texts: Sequence[str],
    *,
    store: ResultStore | str | os.PathLike[str] | None = None,
    batch_size: int | None = None,
    concurrency: int | None = None,
    engine: str = "local",
    progress: bool = False,
    description: str = "analyzing",
    check_first: Callable[[Sequence[Analysis]], None] | None = None,
) -> list[Analysis]:
    """``moderator.analyze`` over ``texts`` in batches, through the result store.

    Parameters
    ----------
    moderator : Moderator
        Any registered or hand-built moderator. Its optional ``batch_size``,
        ``concurrency`` and ``runtime_options`` attributes are honoured (see
        :class:`tactful.Moderator`).
    texts : sequence of str
        The texts, answered in order.
    store : ResultStore or path-like, optional
        Keep every answer in this store (a path opens, or creates, an SQLite
        store there). Texts the store already answered for this moderator's
        config are not asked again, duplicates are asked once, and each call's
        answers are committed as soon as it returns. Without a store, every
        text goes to the moderator.
    batch_size : int, optional
        Texts per ``analyze`` call, >= 1; default: the moderator's
        ``batch_size``, else 64.
    concurrency : int, optional
        ``analyze`` calls in flight at once (in worker threads), >= 1; default:
        the moderator's ``concurrency``, else 1.
    engine : {"local", "ray"}, default="local"
        ``"ray"`` sends the unanswered texts to Ray Data actors that write to
        the store (needs a store and the ``scale`` extra); the answers are then
        read back exactly as for ``"local"``.
    progress : bool, default=False
        Show a rich progress bar on stderr.
    description : str, default="analyzing"
        Label of the progress bar.
    check_first : callable, optional
        Called with the first call's answers, so that a moderator without a
        needed head fails before the whole data set runs.

    Returns
    -------
    list of Analysis
        One per text, in order.

    Raises
    ------
    FailedItemsError
        After every text was tried, when some failed even when asked alone (a
        call that raised :class:`BackendError` is retried one text at a time).
        It carries ``failed`` (index → error) and ``analyses`` (``None`` where
        failed); with a store, the failed texts are kept as failed and a re-run
        asks only for them.
    BackendError
        If the moderator returns a different number of analyses than texts.
    ConfigError
        Bad parameters; ``engine="ray"`` without a store or without Ray.
    """
    p = validate_params(
        "analyze_all",
        _AnalyzeAll._parameter_constraints,
        description=description,
        engine=engine,
        store=None if isinstance(store, ResultStore) else store,
    )
    hints = Hints(moderator, batch_size=batch_size, concurrency=concurrency)
    if engine == "ray" and store is None:
        raise ConfigError(
            "The ray engine writes its answers to a result store: give one (--store PATH)."
        )
    with _progress_bar(progress, description, len(texts)) as advance:
        if store is None:
            return _without_store(moderator, texts, hints, advance, check_first)
        db = store if isinstance(store, ResultStore) else ResultStore(p["store"])
        try:
            if p["engine"] == "ray":
                computed, failed = _on_ray(db, moderator, texts, hints)
                advance(len(texts))
                if check_first is not None and computed:
                    check_first(list(computed.values())[: hints.batch_size])
            else:
                computed, failed = db._ensure(
                    moderator, texts, hints=hints, progress=advance, check_first=check_first
                )
            if failed:
                raise db._failed_error(moderator, texts, failed)
            return db._read_back(moderator, texts, computed)
        finally:
            if db is not store:
                db.close()


def _without_store(
    moderator: Any,
    texts: Sequence[str],
    hints: Hints,
    advance: Callable[[int], None],
    check_first: Callable[[Sequence[Analysis]], None] | None,
) -> list[Analysis]:
    """Every text to the moderator, in order; answers kept in memory only."""
    answers: list[Analysis | None] = [None] * len(texts)
    errors: dict[int, str] = {}

    def sink(
        start: int, batch: Sequence[str], got: list[Analysis | None], errs: list[str | None]
    ) -> None:
        for j, (a, e) in enumerate(zip(got, errs, strict=True)):
            answers[start + j] = a
            if a is None:
                errors[start + j] = str(e)
        advance(len(batch))

    run_batches(moderator, texts, sink, hints=hints, check_first=check_first)
    if errors:
        # Without a store, a text's position is its key.
        keys = [str(i) for i in range(len(texts))]
        raise failed_items_error(
            moderator,
            keys,
            {str(i): a for i, a in enumerate(answers) if a is not None},
            {str(i): e for i, e in errors.items()},
            None,
        )
    return answers  # type: ignore[return-value]  # no None is left without errors


def _on_ray(
    db: ResultStore, moderator: Any, texts: Sequence[str], hints: Hints
) -> tuple[dict[str, Analysis], dict[str, str]]:
    """Answer the unanswered texts on Ray; then what the store holds for them."""
    try:
        import ray  # noqa: F401
    except ImportError:
        raise ConfigError(RAY_EXTRA_MESSAGE) from None
    from ._ray import analyze_ray

    todo = db.unanswered(moderator, texts)
    if todo:
        db._remember(moderator)
        analyze_ray(moderator, todo, db.path, batch_size=hints.batch_size)
    hashes = [text_sha256(t) for t in todo]
    answers = db.get_many(moderator, todo)
    failed = db.get_failed(moderator, todo)
    lost = [i for i in range(len(todo)) if i not in answers and i not in failed]
    if lost:
        raise BackendError(
            f"The ray engine left {len(lost)} of {len(todo)} texts of moderator "
            f"{moderator_name(moderator)!r} neither answered nor failed in the store {db.path}."
        )
    return (
        {hashes[i]: a for i, a in answers.items()},
        {hashes[i]: e for i, e in failed.items()},
    )


@contextmanager
def _progress_bar(show: bool, description: str, total: int) -> Iterator[Callable[[int], None]]:
    """A rich progress bar on stderr (a no-op when ``show`` is false); yields ``advance(n)``."""
    if not show:
        yield lambda n: None
        return
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
    )
    with bar:
        job = bar.add_task(description, total=total)
        yield lambda n: bar.advance(job, n)
