"""The micro-batcher alone: merging, bounds, overload, failures kept to their request."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence

import pytest

import tactful
from tactful.errors import PARAM_MESSAGE, BackendError, ConfigError
from tactful.params import Bool, Int
from tactful.service import MicroBatcher, OverloadedError


class Recorder:
    """A real moderator (lexicon) that records the batches it is called with."""

    def __init__(self, fail_on: str | None = None, gate: threading.Event | None = None) -> None:
        self.calls: list[list[str]] = []
        self.fail_on = fail_on
        self.gate = gate
        self.lexicon = tactful.load("lexicon")

    def __call__(self, texts: Sequence[str]) -> list[tactful.Analysis]:
        if self.gate is not None:
            self.gate.wait(30)
        self.calls.append(list(texts))
        if self.fail_on is not None and self.fail_on in texts:
            raise BackendError(f"cannot analyze {self.fail_on!r}")
        return self.lexicon.analyze(texts)


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


def test_concurrent_requests_share_calls_and_get_their_own_answers() -> None:
    rec = Recorder()

    async def main() -> list[list[tactful.Analysis]]:
        b = MicroBatcher(rec, max_batch=8, max_wait=0.05)
        await b.start()
        try:
            return await asyncio.gather(
                *(b.submit([f"text {i}", "you idiot" if i % 2 else "hello"]) for i in range(6))
            )
        finally:
            await b.close()

    answers = run(main())
    alone = tactful.load("lexicon")
    for i, got in enumerate(answers):
        assert got == alone.analyze([f"text {i}", "you idiot" if i % 2 else "hello"])
    assert sorted(len(c) for c in rec.calls) == [4, 8]  # 12 texts, at most 8 per call
    assert all(len(c) % 2 == 0 for c in rec.calls)  # a request is never split


def test_a_big_request_runs_alone() -> None:
    rec = Recorder()

    async def main() -> None:
        b = MicroBatcher(rec, max_batch=2, max_wait=0.01, max_queue=10)
        await b.start()
        got = await b.submit(["a", "b", "c", "d", "e"])
        assert len(got) == 5
        await b.close()

    run(main())
    assert rec.calls == [["a", "b", "c", "d", "e"]]


def test_without_merging_each_request_is_one_call() -> None:
    rec = Recorder()

    async def main() -> None:
        b = MicroBatcher(rec, max_batch=32, max_wait=0.05, merge=False)
        await b.start()
        await asyncio.gather(*(b.submit([str(i), str(i)]) for i in range(5)))
        assert (b.stats.requests, b.stats.batches, b.stats.largest_batch) == (5, 5, 2)
        await b.close()

    run(main())
    assert sorted(rec.calls) == [[str(i), str(i)] for i in range(5)]


def test_a_failing_text_fails_only_its_request() -> None:
    rec = Recorder(fail_on="poison")

    async def main() -> list[object]:
        b = MicroBatcher(rec, max_batch=16, max_wait=0.05)
        await b.start()
        try:
            return await asyncio.gather(
                b.submit(["fine 1"]),
                b.submit(["poison", "x"]),
                b.submit(["fine 2"]),
                return_exceptions=True,
            )
        finally:
            await b.close()

    first, bad, last = run(main())
    assert isinstance(bad, BackendError)
    assert first == tactful.load("lexicon").analyze(["fine 1"])
    assert last == tactful.load("lexicon").analyze(["fine 2"])
    # The merged call failed; each request was then asked alone.
    assert rec.calls[0] == ["fine 1", "poison", "x", "fine 2"]
    assert sorted(map(tuple, rec.calls[1:])) == [("fine 1",), ("fine 2",), ("poison", "x")]


def test_the_queue_is_bounded() -> None:
    gate = threading.Event()
    rec = Recorder(gate=gate)

    async def main() -> None:
        b = MicroBatcher(rec, max_batch=2, max_wait=0, max_queue=3)
        await b.start()
        first = asyncio.create_task(b.submit(["a", "b"]))  # taken by the model, blocked
        while b.stats.batches < 1:
            await asyncio.sleep(0.005)
        queued = asyncio.create_task(b.submit(["c", "d", "e"]))  # fills the queue
        await asyncio.sleep(0.01)
        assert b.queued == 3
        with pytest.raises(OverloadedError) as info:
            await b.submit(["f"])
        assert info.value.retry_after == 1
        assert b.stats.rejected == 1
        gate.set()
        assert len(await first) == 2 and len(await queued) == 3
        assert b.queued == 0
        await b.close()

    run(main())


async def busy_and_waiting(
    rec: Recorder,
) -> tuple[
    MicroBatcher, asyncio.Task[list[tactful.Analysis]], asyncio.Task[list[tactful.Analysis]]
]:
    """A batcher whose model call on "a" is blocked by the gate, and a request "b" waiting."""
    b = MicroBatcher(rec, max_batch=1, max_wait=0)
    await b.start()
    busy = asyncio.create_task(b.submit(["a"]))
    while b.stats.batches < 1:
        await asyncio.sleep(0.005)
    waiting = asyncio.create_task(b.submit(["b"]))
    await asyncio.sleep(0.01)
    return b, busy, waiting


def test_closing_fails_waiting_requests_and_refuses_new_ones() -> None:
    gate = threading.Event()
    rec = Recorder(gate=gate)

    async def main() -> None:
        b, busy, waiting = await busy_and_waiting(rec)
        await b.close()
        gate.set()
        for task in (busy, waiting):
            with pytest.raises(OverloadedError):
                await task
        with pytest.raises(OverloadedError):
            await b.submit(["c"])

    run(main())


def test_a_client_that_went_away_is_skipped() -> None:
    gate = threading.Event()
    rec = Recorder(gate=gate)

    async def main() -> None:
        b, busy, gone = await busy_and_waiting(rec)
        gone.cancel()
        gate.set()
        await busy
        assert await b.submit(["c"])
        await b.close()

    run(main())
    assert ["b"] not in rec.calls


def test_empty_request_needs_no_call() -> None:
    rec = Recorder()

    async def main() -> None:
        b = MicroBatcher(rec)
        await b.start()
        assert await b.submit([]) == []
        await b.close()

    run(main())
    assert rec.calls == []


@pytest.mark.parametrize(
    ("name", "value", "rule"),
    [("max_batch", 0, Int(1)), ("max_queue", True, Int(1)), ("merge", 1, Bool())],
)
def test_parameters_are_checked(name: str, value: object, rule: object) -> None:
    with pytest.raises(ConfigError) as info:
        MicroBatcher(Recorder(), **{name: value})  # type: ignore[arg-type]
    assert str(info.value).endswith(
        PARAM_MESSAGE.format(name=name, owner="MicroBatcher", rule=rule.describe(), value=value)  # type: ignore[attr-defined]
    )
