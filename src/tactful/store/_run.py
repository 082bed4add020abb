"""Running a moderator over texts: batches, concurrent calls, failed items.

The store and :func:`~tactful.store.analyze_all` share this engine. It calls
``moderator.analyze`` on batches (several at once when the moderator asks for
``concurrency`` > 1, in worker threads) and hands each call's outcome to a
``sink`` in the calling thread as soon as that call returns, so the caller can
commit it (SQLite connections stay in the thread that opened them).

A batch whose call raises :class:`~tactful.errors.BackendError` is asked again
one text at a time; a text that fails alone is a *failed item* with the error's
text. Any other exception is a bug, not a failure, and propagates.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, ClassVar

from .._types import Analysis
from ..errors import (
    FAILED_ITEMS_MESSAGE,
    FAILED_ITEMS_STORED,
    FAILED_ITEMS_UNSTORED,
    BackendError,
    FailedItemsError,
)
from ..params import Constraints, Int, check_param

__all__ = ["Hints", "failed_items_error", "moderator_name", "run_batches"]

#: Texts per ``analyze`` call when neither the caller nor the moderator says.
DEFAULT_BATCH_SIZE = 64

#: ``(start, batch, answers, errors)``: ``batch`` is ``texts[start : start + len(batch)]``;
#: ``answers[i]`` is ``None`` exactly where ``errors[i]`` is set.
Outcome = tuple[list[Analysis | None], list[str | None]]
Sink = Callable[[int, Sequence[str], list[Analysis | None], list[str | None]], None]


def moderator_name(moderator: Any) -> str:
    return str(getattr(moderator, "name", type(moderator).__name__))


class Hints:
    """The batch size and concurrency to run ``moderator`` with.

    An explicit value wins (checked as a parameter of ``owner``); else the
    moderator's own ``batch_size`` / ``concurrency`` attribute; else 64 texts
    per call, one call at a time.
    """

    _parameter_constraints: ClassVar[Constraints] = {"batch_size": Int(1), "concurrency": Int(1)}
    _defaults: ClassVar[dict[str, int]] = {"batch_size": DEFAULT_BATCH_SIZE, "concurrency": 1}

    def __init__(
        self,
        moderator: Any,
        *,
        batch_size: int | None = None,
        concurrency: int | None = None,
        owner: str = "analyze_all",
    ) -> None:
        given = {"batch_size": batch_size, "concurrency": concurrency}
        chosen: dict[str, int] = {}
        for name, rule in self._parameter_constraints.items():
            value, who = given[name], owner
            if value is None:
                value, who = (
                    getattr(moderator, name, None),
                    f"moderator {moderator_name(moderator)!r}",
                )
            chosen[name] = (
                self._defaults[name] if value is None else check_param(who, name, value, rule)
            )
        self.batch_size = chosen["batch_size"]
        self.concurrency = chosen["concurrency"]


def _check_count(moderator: Any, got: Sequence[Analysis], n: int) -> None:
    if len(got) != n:
        raise BackendError(
            f"Moderator {moderator_name(moderator)!r} returned {len(got)} analyses for {n} texts."
        )


def _call(moderator: Any, batch: Sequence[str]) -> Outcome:
    """One ``analyze`` call, then each text alone if the backend failed."""
    try:
        got = list(moderator.analyze(list(batch)))
    except BackendError as exc:
        if len(batch) == 1:  # it already failed alone
            return [None], [str(exc)]
    else:
        _check_count(moderator, got, len(batch))
        return list(got), [None] * len(batch)
    answers: list[Analysis | None] = []
    errors: list[str | None] = []
    for text in batch:
        try:
            one = list(moderator.analyze([text]))
        except BackendError as exc:
            answers.append(None)
            errors.append(str(exc))
            continue
        _check_count(moderator, one, 1)
        answers.append(one[0])
        errors.append(None)
    return answers, errors


def run_batches(
    moderator: Any,
    texts: Sequence[str],
    sink: Sink,
    *,
    hints: Hints,
    check_first: Callable[[Sequence[Analysis]], None] | None = None,
) -> None:
    """Ask ``moderator`` about ``texts`` in batches; give each outcome to ``sink``.

    ``sink`` runs in the calling thread, once per call, as soon as the call
    returns (in completion order when calls run concurrently). ``check_first``
    sees the first answers before ``sink`` does. When a call raises something
    other than a :class:`BackendError`, the calls still in flight are waited for
    and handed to ``sink`` (they may have cost money), then the error propagates.
    """
    size = hints.batch_size
    starts = range(0, len(texts), size)
    checked = check_first is None

    def deliver(start: int, outcome: Outcome) -> None:
        nonlocal checked
        answers, errors = outcome
        if not checked:
            ok = [a for a in answers if a is not None]
            if ok:
                assert check_first is not None
                check_first(ok)
                checked = True
        sink(start, texts[start : start + size], answers, errors)

    if hints.concurrency == 1 or len(starts) <= 1:
        for start in starts:
            deliver(start, _call(moderator, texts[start : start + size]))
        return

    todo = iter(starts)
    in_flight: dict[Future[Outcome], int] = {}
    with ThreadPoolExecutor(hints.concurrency, thread_name_prefix="tactful-analyze") as pool:

        def submit() -> None:
            start = next(todo, None)
            if start is not None:
                in_flight[pool.submit(_call, moderator, texts[start : start + size])] = start

        for _ in range(hints.concurrency):
            submit()
        try:
            while in_flight:
                done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in done:
                    start = in_flight.pop(future)
                    deliver(start, future.result())
                    submit()
        except BaseException:
            # Keep what the calls still in flight bring back (they may have cost
            # money); the first error is the one raised.
            for future in wait(in_flight).done:
                if future.exception() is None:
                    start = in_flight[future]
                    with contextlib.suppress(Exception):
                        sink(start, texts[start : start + size], *future.result())
            raise


def failed_items_error(
    moderator: Any,
    hashes: Sequence[str],
    answers: dict[str, Analysis],
    failed: dict[str, str],
    store_path: object | None,
) -> FailedItemsError:
    """The :class:`FailedItemsError` for texts (by hash, in input order) that failed."""
    by_index = {i: failed[h] for i, h in enumerate(hashes) if h in failed}
    where = (
        FAILED_ITEMS_UNSTORED if store_path is None else FAILED_ITEMS_STORED.format(path=store_path)
    )
    message = FAILED_ITEMS_MESSAGE.format(
        k=len(by_index),
        n=len(hashes),
        name=moderator_name(moderator),
        error=by_index[min(by_index)],
        where=where,
    )
    return FailedItemsError(message, by_index, [answers.get(h) for h in hashes])
