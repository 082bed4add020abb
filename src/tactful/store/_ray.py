"""The ``ray`` engine: a moderator over texts on Ray Data, answers written to the store.

:func:`analyze_ray` cuts the texts into the same batches the local engine
would (``batch_size`` texts each, in order), and runs them through
``ray.data.Dataset.map_batches`` with one moderator per actor. Each actor builds
its own moderator with ``tactful.load(moderator.name, **moderator.config())``,
so a remote moderator's key is read from the environment of the actor's node
(never shipped with the task). A batch that raises a
:class:`~tactful.errors.BackendError` is asked again one text at a time, as
locally; a text that fails alone comes back as failed.

Only the driver writes to the SQLite store (one writer, as the store wants):
it commits each batch's answers and failures as soon as Ray hands them back,
so a killed run keeps every batch that came back before the kill.

On a cluster: start it with ``ray start --head`` (and ``ray start
--address=HEAD:6379`` on the other nodes), then run tactful with
``RAY_ADDRESS=HEAD:6379`` set; without it, a local Ray is started with the
machine's CPUs. Set the API key's environment variable on every node.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._registry import Moderator, load
from .._types import Analysis
from ..errors import BackendError, TactfulError
from ._run import _call
from ._sqlite import ResultStore, analysis_from_json, analysis_to_json

__all__ = ["analyze_ray"]

# Texts and answers cross Ray as UTF-8 bytes: Arrow strings must be valid UTF-8,
# and a Python str (hence a text or a raw answer) may hold lone surrogates.
_CODEC = ("utf-8", "surrogatepass")


def _encode(text: str) -> bytes:
    return text.encode(*_CODEC)


def _decode(data: Any) -> str:
    return bytes(data).decode(*_CODEC)


class _Worker:
    """A Ray Data actor: one moderator, built in the actor from its name and config.

    A tactful error that is not a backend failure (a refused key, a missing key
    on this node) is returned in the row, not raised: Ray Data's wrapping keeps
    only the traceback text of an actor's exception, and the driver should
    raise the error itself, with its code and exit code.
    """

    def __init__(self, name: str, config: dict[str, Any]) -> None:
        self.fatal: str | None = None
        try:
            self.moderator = load(name, **config)
        except TactfulError as exc:
            self.fatal = _describe(exc)

    def __call__(self, rows: dict[str, Any]) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {"start": [], "answers": [], "errors": [], "fatal": []}
        for start, texts in zip(rows["start"], rows["texts"], strict=True):
            got: list[Analysis | None] = []
            errs: list[str | None] = []
            fatal = self.fatal
            if fatal is None:
                try:
                    got, errs = _call(self.moderator, [_decode(t) for t in texts])
                except TactfulError as exc:
                    fatal = _describe(exc)
            out["start"].append(int(start))
            out["answers"].append(
                [None if a is None else _encode(analysis_to_json(a)) for a in got]
            )
            out["errors"].append(errs)
            out["fatal"].append(fatal)
        return out


def _describe(exc: TactfulError) -> str:
    cls = type(exc)
    return json.dumps({"class": f"{cls.__module__}:{cls.__qualname__}", "message": exc.args[0]})


def _revive(fatal: str) -> TactfulError:
    """The error an actor described, as its own class when that is a tactful error class."""
    d = json.loads(fatal)
    module, _, qualname = d["class"].partition(":")
    cls: Any = None
    if module.split(".")[0] == "tactful":
        cls = getattr(importlib.import_module(module), qualname, None)
    if isinstance(cls, type) and issubclass(cls, TactfulError):
        try:
            return cls(d["message"])
        except TypeError:  # a class whose constructor wants more than a message
            pass
    return BackendError(d["message"])


def _init_ray() -> None:
    import ray

    if ray.is_initialized():
        return
    if os.environ.get("RAY_ADDRESS"):
        ray.init()
    else:
        ray.init(include_dashboard=False)


def analyze_ray(
    moderator: Moderator,
    texts: Sequence[str],
    store_path: str | os.PathLike[str],
    *,
    batch_size: int,
    num_actors: int | None = None,
) -> None:
    """Answer ``texts`` with ``moderator`` on Ray Data; write answers and failures to the store.

    Parameters
    ----------
    moderator : Moderator
        A registered moderator (actors rebuild it from ``name`` and ``config()``).
    texts : sequence of str
        The texts to ask, each once (the store's unanswered texts, in order).
    store_path : path-like
        The SQLite result store; only this process writes to it.
    batch_size : int
        Texts per ``analyze`` call: the batches are those of the local engine.
    num_actors : int, optional
        Actors (moderators) at once; default: the cluster's CPU count, one CPU each.

    Raises
    ------
    TactfulError
        The first tactful error an actor met other than a backend failure (e.g. a
        refused key), of the same class and message; failed texts are stored, not
        raised.
    """
    if not texts:
        return
    import ray
    import ray.data

    _init_ray()
    # The caller shows its own progress; Ray's would interleave with it on stderr.
    ray.data.DataContext.get_current().enable_progress_bars = False
    if num_actors is None:
        num_actors = max(1, int(ray.cluster_resources().get("CPU", 1)))  # type: ignore[no-untyped-call,unused-ignore]
    starts = range(0, len(texts), batch_size)
    batches = ray.data.from_items(
        [{"start": s, "texts": [_encode(t) for t in texts[s : s + batch_size]]} for s in starts],
        override_num_blocks=min(len(starts), 4 * num_actors),
    )
    outcomes = batches.map_batches(
        _Worker,
        fn_constructor_kwargs={"name": moderator.name, "config": moderator.config()},
        batch_size=1,  # one row is one analyze call
        batch_format="numpy",
        compute=ray.data.ActorPoolStrategy(size=min(num_actors, len(starts))),
        num_cpus=1,
    )
    with ResultStore(Path(store_path)) as store:
        for row in outcomes.iter_rows():
            if row["fatal"] is not None:
                raise _revive(row["fatal"])
            start = int(row["start"])
            batch = texts[start : start + batch_size]
            answers: list[Analysis | None] = [
                None if a is None else analysis_from_json(_decode(a)) for a in row["answers"]
            ]
            store.put_outcomes(moderator, batch, answers, list(row["errors"]))
