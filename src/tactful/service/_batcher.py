"""Micro-batching: texts of concurrent requests merged into one ``analyze`` call.

Requests wait in a bounded queue (counted in texts). A consumer takes the
oldest requests, up to ``max_batch`` texts, once ``max_batch`` texts wait or the
oldest has waited ``max_wait`` seconds, and runs the call in a worker thread;
while it runs the next batch fills, so under load batches grow by themselves
and at rest a request waits at most ``max_wait``.

A request's answer never depends on its batch-mates: the moderators tactful
serves answer each text alone (the builtin model runs one onnxruntime call per
text), and a batch that fails is re-run one request at a time, so one
client's bad text fails that client only.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import ClassVar

from .._types import Analysis
from ..errors import BackendError
from ..params import Bool, Constraints, Float, Int, validate_arguments

__all__ = ["BatcherStats", "MicroBatcher", "OverloadedError"]

Analyze = Callable[[list[str]], Sequence[Analysis]]


class OverloadedError(Exception):
    """The queue is full (or closing): answer 503 and ask the client to retry later."""

    def __init__(self, message: str, retry_after: int = 1) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class BatcherStats:
    """Counts since start: requests and texts answered, calls made, the largest call."""

    requests: int
    texts: int
    batches: int
    largest_batch: int
    rejected: int


@dataclass(slots=True)
class _Request:
    texts: list[str]
    future: asyncio.Future[list[Analysis]]
    arrived: float


class MicroBatcher:
    """A bounded queue in front of one moderator's ``analyze``.

    Parameters
    ----------
    analyze : callable
        ``list[str] -> list[Analysis]``, run in worker threads.
    max_batch : int, default=32
        Most texts merged into one call; a request with more runs alone.
    max_wait : float, default=0.002
        Seconds the oldest request waits for batch-mates.
    max_queue : int, default=256
        Most texts waiting; :meth:`submit` raises :class:`OverloadedError` past it.
    merge : bool, default=True
        Merge requests; ``False`` makes each request its own call (the
        baseline the load test compares with).
    concurrency : int, default=1
        Calls in flight at once.
    """

    _parameter_constraints: ClassVar[Constraints] = {
        "max_batch": Int(1),
        "max_wait": Float(0, 1),
        "max_queue": Int(1),
        "merge": Bool(),
        "concurrency": Int(1),
    }

    def __init__(
        self,
        analyze: Analyze,
        *,
        max_batch: int = 32,
        max_wait: float = 0.002,
        max_queue: int = 256,
        merge: bool = True,
        concurrency: int = 1,
    ) -> None:
        p = validate_arguments("MicroBatcher", self._parameter_constraints, locals())
        self._analyze = analyze
        self.max_batch: int = p["max_batch"]
        self.max_wait: float = p["max_wait"]
        self.max_queue: int = p["max_queue"]
        self.merge: bool = p["merge"]
        self.concurrency: int = p["concurrency"]
        self._pending: deque[_Request] = deque()
        self._queued = 0  # texts in _pending
        self._wake: asyncio.Event | None = None
        self._full: asyncio.Event | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._executor: ThreadPoolExecutor | None = None
        self._closing = False
        self._requests = self._texts = self._batches = self._largest = self._rejected = 0

    # -- life cycle ---------------------------------------------------------------
    async def start(self) -> None:
        """Start the consumers (on the running event loop)."""
        if self._tasks:
            return
        self._wake, self._full = asyncio.Event(), asyncio.Event()
        self._executor = ThreadPoolExecutor(self.concurrency, thread_name_prefix="tactful-batch")
        self._tasks = [asyncio.create_task(self._consume()) for _ in range(self.concurrency)]

    async def close(self) -> None:
        """Refuse new requests, fail waiting ones with 503, stop the consumers."""
        self._closing = True
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []
        while self._pending:
            req = self._pending.popleft()
            if not req.future.done():
                req.future.set_exception(OverloadedError("The server is shutting down."))
        self._queued = 0
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    @property
    def stats(self) -> BatcherStats:
        """Counts since start."""
        return BatcherStats(
            self._requests, self._texts, self._batches, self._largest, self._rejected
        )

    @property
    def queued(self) -> int:
        """Texts waiting for the model now."""
        return self._queued

    # -- requests -----------------------------------------------------------------
    async def submit(self, texts: Sequence[str]) -> list[Analysis]:
        """One :class:`Analysis` per text, in order, once the model has answered.

        Raises
        ------
        OverloadedError
            If the queue holds ``max_queue`` texts already (or the batcher is closing).
        TactfulError
            What the moderator raised for this request's texts.
        """
        if self._closing or not self._tasks:
            raise OverloadedError("The server is not accepting requests now.", retry_after=5)
        texts = list(texts)
        if not texts:
            return []
        if self._queued + len(texts) > self.max_queue:
            self._rejected += 1
            raise OverloadedError(
                f"The server is busy: {self._queued} texts are waiting for the model "
                f"(at most {self.max_queue}). Retry later."
            )
        loop = asyncio.get_running_loop()
        req = _Request(texts, loop.create_future(), loop.time())
        self._pending.append(req)
        self._queued += len(texts)
        assert self._wake is not None and self._full is not None
        self._wake.set()
        if self._queued >= self.max_batch:
            self._full.set()
        return await req.future

    def _take(self) -> list[_Request]:
        batch: list[_Request] = []
        n = 0
        while self._pending:
            req = self._pending[0]
            if req.future.done():  # the client went away
                self._pending.popleft()
                self._queued -= len(req.texts)
                continue
            if batch and (not self.merge or n + len(req.texts) > self.max_batch):
                break
            self._pending.popleft()
            self._queued -= len(req.texts)
            batch.append(req)
            n += len(req.texts)
            if not self.merge:
                break
        return batch

    async def _consume(self) -> None:
        assert self._wake is not None and self._full is not None
        loop = asyncio.get_running_loop()
        while True:
            while not self._pending:
                self._wake.clear()
                await self._wake.wait()
            if self.merge and self._queued < self.max_batch:
                delay = self._pending[0].arrived + self.max_wait - loop.time()
                if delay > 0:
                    self._full.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._full.wait(), delay)
            batch = self._take()
            if batch:
                await self._run(batch)

    async def _call(self, texts: list[str]) -> list[Analysis]:
        loop = asyncio.get_running_loop()
        out = list(await loop.run_in_executor(self._executor, self._analyze, texts))
        if len(out) != len(texts):
            raise BackendError(
                f"The moderator returned {len(out)} analyses for {len(texts)} texts."
            )
        return out

    async def _run(self, batch: list[_Request]) -> None:
        texts = [t for req in batch for t in req.texts]
        self._batches += 1
        self._largest = max(self._largest, len(texts))
        try:
            answers = await self._call(texts)
        except asyncio.CancelledError:
            for req in batch:
                if not req.future.done():
                    req.future.set_exception(OverloadedError("The server is shutting down."))
            raise
        except Exception as exc:  # noqa: BLE001  (handed to the waiting request, raised there)
            if len(batch) == 1:
                _settle(batch[0], exc=exc)
                return
            # Re-run each request alone, so that one client's failing text fails
            # that client only.
            for req in batch:
                try:
                    _settle(req, await self._call(req.texts))
                except asyncio.CancelledError:
                    raise
                except Exception as one:  # noqa: BLE001  (as above)
                    _settle(req, exc=one)
            self._count(batch)
            return
        start = 0
        for req in batch:
            _settle(req, answers[start : start + len(req.texts)])
            start += len(req.texts)
        self._count(batch)

    def _count(self, batch: list[_Request]) -> None:
        self._requests += len(batch)
        self._texts += sum(len(r.texts) for r in batch)


def _settle(
    req: _Request, answers: list[Analysis] | None = None, exc: BaseException | None = None
) -> None:
    if req.future.done():
        return
    if exc is not None:
        req.future.set_exception(exc)
    else:
        req.future.set_result(answers or [])
