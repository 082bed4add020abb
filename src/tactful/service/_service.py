"""What one app serves: the moderators, their micro-batchers and the labels store
(:class:`Service`), and the error answers every route shares."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from .._registry import Moderator
from .._types import Analysis
from ..errors import (
    TactfulError,
    UnknownNameError,
)
from ..store import analyze_all
from ._batcher import MicroBatcher, OverloadedError
from ._labels import LabelStore, parse_texts_file
from ._limits import error_body
from ._schemas import (
    ErrorResponse,
    ModerationRequest,
)
from ._settings import ServiceSettings

__all__ = ["Service"]

log = logging.getLogger("tactful.service")

#: Error messages (tests format these; the "code" field names each case).
INVALID_JSON_MESSAGE = "The request body is not valid JSON: {detail} (at character {pos})."
EMPTY_BODY_MESSAGE = "The request body is empty: send a JSON object."
NOT_AN_OBJECT_MESSAGE = "The request body must be a JSON object (Content-Type: application/json)."
INPUT_TYPE_MESSAGE = (
    "'input' must be a string, a list of strings, or a list of "
    '{"type": "text", "text": ...} parts.'
)
EMPTY_INPUT_MESSAGE = "'input' must not be empty."
TOO_MANY_TEXTS_MESSAGE = "'input' holds {n:,} texts; at most {limit:,} per request."
TEXT_TOO_LONG_MESSAGE = "Text {i} has {n:,} characters; at most {limit:,} per text."
INVALID_UTF8_MESSAGE = "The request body is not valid UTF-8 (byte 0x{byte:02x} at position {pos})."
NOT_READY_MESSAGE = "The model is loading. Retry shortly."

#: Texts per step of a console upload: the progress moves by this much.
_JOB_CHUNK = 16
_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse, "description": what}
    for status, what in (
        (400, "Invalid request (the message says what)"),
        (401, "Missing or invalid API key"),
        (413, "Request body too large"),
        (503, "Overloaded or not ready (see Retry-After)"),
    )
}


class _Problem(Exception):
    """An HTTP error answered in OpenAI's error shape."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        code: str | None = None,
        param: str | None = None,
        type: str = "invalid_request_error",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.code, self.param = status, message, code, param
        self.type, self.headers = type, dict(headers or {})

    def response(self) -> Response:
        return Response(
            error_body(self.message, type=self.type, code=self.code, param=self.param),
            status_code=self.status,
            media_type="application/json",
            headers=self.headers,
        )


class _JSON(Response):
    """JSON with ``\\u`` escapes, so any Python str (lone surrogates too) is sent as given."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return json.dumps(content, allow_nan=False, separators=(",", ":")).encode("ascii")


@dataclass(slots=True)
class _Served:
    name: str
    moderator: Moderator
    batcher: MicroBatcher
    threshold: float = 0.5
    version: str = ""


@dataclass
class Service:
    """What one app serves: the moderators, their batchers, the labels store.

    Reached from a request as ``request.app.state.tactful``.
    """

    settings: ServiceSettings
    served: dict[str, _Served]
    labels: LabelStore
    ready: bool = False
    load_error: str | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def default(self) -> str:
        return self.settings.moderators[0]

    def batcher(self, name: str) -> MicroBatcher:
        """The micro-batcher in front of the served moderator ``name``."""
        return self.served[name].batcher

    def pick(self, model: str | None) -> _Served:
        if not self.ready:
            if self.load_error:
                raise _Problem(503, self.load_error, code="model_unavailable", type="server_error")
            raise _Problem(
                503,
                NOT_READY_MESSAGE,
                code="not_ready",
                type="server_error",
                headers={"Retry-After": "5"},
            )
        try:
            return self.served[model or self.default]
        except KeyError:
            raise UnknownNameError("model", str(model), self.served) from None

    def check_texts(self, texts: Sequence[str]) -> None:
        s = self.settings
        if not texts:
            raise _Problem(400, EMPTY_INPUT_MESSAGE, code="empty_input", param="input")
        if len(texts) > s.max_texts:
            raise _Problem(
                400,
                TOO_MANY_TEXTS_MESSAGE.format(n=len(texts), limit=s.max_texts),
                code="too_many_inputs",
                param="input",
            )
        for i, t in enumerate(texts):
            if len(t) > s.max_chars:
                raise _Problem(
                    400,
                    TEXT_TOO_LONG_MESSAGE.format(i=i, n=len(t), limit=s.max_chars),
                    code="input_too_long",
                    param=f"input[{i}]",
                )

    async def analyze(self, body: ModerationRequest, route: str) -> tuple[_Served, list[Analysis]]:
        """The moderator the request names, and its answers for the request's texts."""
        served = self.pick(body.model)
        texts = body.texts()
        self.check_texts(texts)
        if self.settings.log_texts:
            log.info("%s %s texts=%r", route, served.name, texts)
        return served, await served.batcher.submit(texts)

    # -- life cycle -----------------------------------------------------------------
    def _load_all(self) -> None:
        for s in self.served.values():
            load = getattr(s.moderator, "load", None)
            if callable(load):
                load()
            s.version = str(s.moderator.version)
            s.threshold = _threshold(self.settings, s.moderator)

    async def start(self) -> None:
        for s in self.served.values():
            await s.batcher.start()
        await run_in_threadpool(self.labels.interrupt_running_jobs)
        self.spawn(self._load())

    async def _load(self) -> None:
        try:
            await run_in_threadpool(self._load_all)
        except TactfulError as exc:
            self.load_error = f"The moderators could not be loaded: {exc}"
            log.error("%s", self.load_error)
            return
        self.ready = True
        path = self.settings.needs_human
        if path is not None:
            try:
                data = await run_in_threadpool(Path(path).read_bytes)
                await self.start_job(self.served[self.default], data, Path(path).name)
            except (OSError, TactfulError) as exc:
                log.error("The needs_human file %s was not queued: %s", path, exc)

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for s in self.served.values():
            await s.batcher.close()

    def spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- console uploads ------------------------------------------------------------
    async def start_job(self, served: _Served, data: bytes, name: str) -> dict[str, Any]:
        rows = await run_in_threadpool(
            parse_texts_file, data, name, max_chars=self.settings.max_chars
        )
        job_id, new = await run_in_threadpool(
            self.labels.start_job,
            model=served.name,
            source=name,
            total=len(rows),
            digest=hashlib.sha256(data).hexdigest(),
        )
        if new:
            self.spawn(self._run_job(job_id, served, rows, name))
        return await run_in_threadpool(self.labels.job, job_id)

    async def _run_job(
        self, job_id: int, served: _Served, rows: list[tuple[str | None, str]], name: str
    ) -> None:
        try:
            for start in range(0, len(rows), _JOB_CHUNK):
                chunk = rows[start : start + _JOB_CHUNK]
                analyses = await self._submit_patiently(served, [t for _, t in chunk])
                await run_in_threadpool(
                    self.labels.add_items,
                    model=served.name,
                    source=name,
                    rows=chunk,
                    analyses=analyses,
                    head=self.settings.review_head,
                    threshold=served.threshold,
                    job_id=job_id,
                )
        except TactfulError as exc:
            await run_in_threadpool(self.labels.finish_job, job_id, str(exc))
            return
        except Exception as exc:  # noqa: BLE001  (a background job has no caller to raise to)
            # A bug, not the user's file: say so in the job, log no text.
            log.error("Upload job %d failed with %s.", job_id, type(exc).__name__)
            await run_in_threadpool(
                self.labels.finish_job, job_id, f"Internal error ({type(exc).__name__})."
            )
            return
        await run_in_threadpool(self.labels.finish_job, job_id)

    @staticmethod
    async def _submit_patiently(served: _Served, texts: list[str]) -> list[Analysis]:
        # An upload yields to API traffic: when the queue is full it waits its turn.
        while True:
            try:
                return await served.batcher.submit(texts)
            except OverloadedError:
                await asyncio.sleep(0.05)


def _threshold(settings: ServiceSettings, moderator: Moderator) -> float:
    """The review head's operating point: the setting, else the moderator's card, else 0.5."""
    if settings.review_threshold is not None:
        return settings.review_threshold
    thresholds: dict[str, Any] = {}
    card = getattr(moderator, "card", None)
    if isinstance(card, Mapping):
        thresholds.update(card.get("thresholds") or {})
    thresholds.update(moderator.config().get("thresholds") or {})
    value = thresholds.get(settings.review_head, 0.5)
    return float(value)


def _analyze_fn(moderator: Moderator) -> Callable[[list[str]], list[Analysis]]:
    def analyze(texts: list[str]) -> list[Analysis]:
        # One call per batch: the batcher already chose the batch.
        return analyze_all(moderator, texts, batch_size=max(1, len(texts)), concurrency=1)

    return analyze


def _error(status: int, message: str, **details: Any) -> Response:
    """The response of ``_Problem(status, message, **details)``."""
    return _Problem(status, message, **details).response()
