"""The FastAPI app: ``create_app(settings)``; routes only call the library.

Routes
------
``POST /v1/moderations``   OpenAI's moderation request and response shapes
``POST /v1/analyze``       full :class:`tactful.Analysis` records
``GET  /v1/models``        the served moderators (OpenAI's list shape)
``GET  /healthz``          the process answers
``GET  /readyz``           every served moderator is loaded (503 until then)
``GET  /openapi.json``     the schema
``GET  /``                 the moderator console (static HTML/CSS/JS)
``/console/api/...``       the console's data: analyze, uploads, review queue, labels
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

import tactful

from .._registry import Moderator
from .._types import Analysis
from ..errors import (
    BackendError,
    ConfigError,
    DataError,
    ModelError,
    RateLimitedError,
    TactfulError,
    UnknownNameError,
)
from ..store import analyze_all
from ._batcher import MicroBatcher, OverloadedError
from ._labels import LabelStore, parse_texts_file
from ._limits import ApiKeyGate, BodyLimit, ConsoleHeaders, error_body
from ._schemas import (
    AnalyzeResponse,
    ErrorResponse,
    ItemList,
    JobOut,
    LabelIn,
    LabelList,
    LabelOut,
    ModelList,
    ModerationRequest,
    ModerationResponse,
    moderation_result,
    new_id,
)
from ._settings import ServiceSettings, read_api_keys

__all__ = ["Service", "app_from_env", "create_app"]

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
_UPLOAD_PATH = "/console/api/jobs"
_STATIC = Path(str(resources.files("tactful") / "service" / "static"))
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


# ------------------------------------------------------------------------------ errors


def _error(status: int, message: str, **details: Any) -> Response:
    """The response of ``_Problem(status, message, **details)``."""
    return _Problem(status, message, **details).response()


def _validation_message(errors: Sequence[Any]) -> tuple[str, str | None]:
    e = errors[0]
    kind = e.get("type")
    loc = [p for p in e.get("loc", ()) if p not in ("body", "query", "path")]
    if kind == "json_invalid":
        detail = (e.get("ctx") or {}).get("error", "invalid JSON")
        return INVALID_JSON_MESSAGE.format(detail=detail, pos=loc[0]), None
    if not loc:
        if kind == "missing":
            return EMPTY_BODY_MESSAGE, None
        return NOT_AN_OBJECT_MESSAGE, None
    name = str(loc[0])
    if kind == "missing":
        return f"The field {name!r} is required.", name
    if kind == "extra_forbidden":
        return f"Unknown field {name!r}.", name
    if name == "input":
        return INPUT_TYPE_MESSAGE, "input"
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc[1:])
    return f"{name}{where}: {e.get('msg', 'invalid value')}.", name


def _install_errors(app: FastAPI) -> None:
    @app.exception_handler(_Problem)
    async def problem(request: Request, exc: _Problem) -> Response:
        return exc.response()

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        message, param = _validation_message(exc.errors())
        return _error(400, message, code="invalid_request", param=param)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        cause = exc.__cause__
        if isinstance(cause, UnicodeDecodeError):
            message = INVALID_UTF8_MESSAGE.format(
                byte=bytes(cause.object)[cause.start], pos=cause.start
            )
            return _error(400, message, code="invalid_utf8")
        if exc.status_code == 404:
            return _error(404, f"No route {request.url.path}.", code="not_found")
        if exc.status_code == 405:
            return _error(
                405,
                f"{request.method} is not allowed on {request.url.path}.",
                code="method_not_allowed",
                headers=exc.headers,
            )
        return _error(exc.status_code, str(exc.detail), headers=exc.headers)

    @app.exception_handler(OverloadedError)
    async def overloaded(request: Request, exc: OverloadedError) -> Response:
        return _error(
            503,
            str(exc),
            code="overloaded",
            type="server_error",
            headers={"Retry-After": str(exc.retry_after)},
        )

    @app.exception_handler(Exception)
    async def bug(request: Request, exc: Exception) -> Response:
        # A bug, not the caller's mistake: a JSON 500 without details (they may hold texts).
        log.error("%s %s failed with %s.", request.method, request.url.path, type(exc).__name__)
        return _error(500, "Internal server error.", code="internal_error", type="server_error")

    @app.exception_handler(TactfulError)
    async def tactful_error(request: Request, exc: TactfulError) -> Response:
        # The code travels in the "code" field; the message is the sentence alone.
        text = str(exc)
        prefix = f"[{exc.code}] "
        message = " ".join((text.removeprefix(prefix)).split())
        if isinstance(exc, (ConfigError, DataError)):
            return _error(400, message, code=exc.code)
        if isinstance(exc, RateLimitedError):
            return _error(
                429, message, code=exc.code, type="server_error", headers={"Retry-After": "5"}
            )
        if isinstance(exc, ModelError):
            return _error(503, message, code=exc.code, type="server_error")
        if isinstance(exc, BackendError):
            return _error(502, message, code=exc.code, type="server_error")
        return _error(500, message, code=exc.code, type="server_error")


# ------------------------------------------------------------------------------ app


def create_app(settings: ServiceSettings | None = None) -> FastAPI:
    """The moderation service and console as a FastAPI app (serve it with uvicorn).

    Moderators are built now (an unknown name or bad option raises
    :class:`~tactful.errors.ConfigError` here) and loaded in the background once
    the server starts: ``/readyz`` answers 200 from then on.

    Parameters
    ----------
    settings : ServiceSettings, optional
        Default: ``ServiceSettings()`` (the builtin model).

    Raises
    ------
    ConfigError
        Unknown moderator, bad options, API keys asked for but not set.
    """
    settings = settings or ServiceSettings()
    keys = read_api_keys(settings.api_keys_env)
    served = {}
    for name in settings.moderators:
        moderator = tactful.load(name, **dict(settings.options.get(name, {})))
        batcher = MicroBatcher(
            _analyze_fn(moderator),
            max_batch=settings.max_batch,
            max_wait=settings.max_wait_ms / 1000.0,
            max_queue=settings.max_queue,
            merge=settings.micro_batching,
            concurrency=settings.concurrency,
        )
        served[name] = _Served(name, moderator, batcher)
    service = Service(settings, served, LabelStore(settings.labels))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.stop()

    app = FastAPI(
        title="tactful",
        version=tactful.__version__,
        summary="Offline text moderation: OpenAI-compatible /v1/moderations, "
        "full analyses, and a moderator console.",
        docs_url=None,  # Swagger UI loads its assets from a CDN; the schema is at /openapi.json
        redoc_url=None,
        lifespan=lifespan,
        default_response_class=_JSON,
    )
    app.state.tactful = service
    _install_errors(app)
    _api_routes(app, service)
    _console_routes(app, service)
    app.add_middleware(ConsoleHeaders)
    app.add_middleware(
        BodyLimit,
        limit_for=lambda path: (
            settings.max_upload_bytes if path == _UPLOAD_PATH else settings.max_body_bytes
        ),
    )
    app.add_middleware(ApiKeyGate, keys=keys)  # outermost: no body is read for a stranger
    return app


def app_from_env() -> FastAPI:
    """``create_app`` with settings from the environment (uvicorn's ``--factory`` for workers)."""
    return create_app(ServiceSettings.from_env())


def _api_routes(app: FastAPI, service: Service) -> None:
    @app.get("/healthz", tags=["health"])
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz", tags=["health"], responses={503: {"model": ErrorResponse}})
    async def readyz() -> Response:
        if service.ready:
            return _JSON({"status": "ready", "models": list(service.served)})
        if service.load_error:
            return _error(503, service.load_error, code="model_unavailable", type="server_error")
        return _error(
            503,
            "The model is loading.",
            code="not_ready",
            type="server_error",
            headers={"Retry-After": "5"},
        )

    @app.get("/v1/models", response_model=ModelList, tags=["api"])
    async def models() -> Response:
        return _JSON(
            {
                "object": "list",
                "data": [
                    {
                        "id": s.name,
                        "object": "model",
                        "created": 0,
                        "owned_by": "tactful",
                        "version": s.version,
                    }
                    for s in service.served.values()
                ],
            }
        )

    def analysis_route(
        path: str,
        kind: str,
        response_model: type[BaseModel],
        summary: str,
        prefix: str,
        result: Callable[[Analysis], dict[str, Any]],
        *,
        with_version: bool,
    ) -> None:
        """POST ``path``: the texts of a :class:`ModerationRequest`, one result each."""

        async def handler(body: ModerationRequest) -> Response:
            served, analyses = await service.analyze(body, kind)
            payload: dict[str, Any] = {"id": new_id(prefix), "model": served.name}
            if with_version:
                payload["version"] = served.version
            payload["results"] = [result(a) for a in analyses]
            return _JSON(payload)

        app.post(
            path,
            response_model=response_model,
            responses=_ERRORS,
            tags=["api"],
            summary=summary,
            name=kind,
        )(handler)

    analysis_route(
        "/v1/moderations",
        "moderations",
        ModerationResponse,
        "Classify texts (OpenAI's moderation shape)",
        "modr",
        moderation_result,
        with_version=False,
    )
    analysis_route(
        "/v1/analyze",
        "analyze",
        AnalyzeResponse,
        "Full analyses: scores, spans, jailbreak, delicate, flags",
        "anlz",
        Analysis.to_dict,
        with_version=True,
    )


def _who(request: Request, given: str | None) -> str:
    for candidate in (
        given,
        request.headers.get("x-moderator-name"),
        getattr(request.state, "caller", None),
    ):
        if candidate is not None and candidate.strip():
            name = " ".join(candidate.split())
            if len(name) > 100:
                raise _Problem(400, "A moderator name has at most 100 characters.", param="who")
            return name
    return "anonymous"


def _console_routes(app: FastAPI, service: Service) -> None:
    labels = service.labels

    @app.get("/", include_in_schema=False)
    async def console() -> FileResponse:
        return FileResponse(_STATIC / "index.html", media_type="text/html")

    app.mount("/console/static", StaticFiles(directory=_STATIC), name="console-static")

    @app.get("/console/api/info", tags=["console"])
    async def info() -> dict[str, Any]:
        s = service.settings
        return {
            "version": tactful.__version__,
            "ready": service.ready,
            "models": [
                {"id": x.name, "version": x.version, "threshold": x.threshold}
                for x in service.served.values()
            ],
            "review_head": s.review_head,
            "limits": {
                "max_texts": s.max_texts,
                "max_chars": s.max_chars,
                "max_upload_bytes": s.max_upload_bytes,
            },
        }

    @app.post("/console/api/analyze", tags=["console"], response_model=ItemList, responses=_ERRORS)
    async def console_analyze(body: ModerationRequest) -> Response:
        served, analyses = await service.analyze(body, "console")
        ids = await run_in_threadpool(
            labels.add_items,
            model=served.name,
            source="paste",
            rows=[(None, t) for t in body.texts()],
            analyses=analyses,
            head=service.settings.review_head,
            threshold=served.threshold,
        )
        return _JSON({"items": await run_in_threadpool(labels.items, ids)})

    @app.post(
        _UPLOAD_PATH,
        tags=["console"],
        response_model=JobOut,
        status_code=202,
        responses=_ERRORS,
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "text/csv": {"schema": {"type": "string"}},
                    "application/jsonl": {"schema": {"type": "string"}},
                },
            }
        },
    )
    async def upload(
        request: Request,
        name: str = Query("upload", description="The file's name (its suffix picks CSV or JSONL)."),
        model: str | None = Query(None),
    ) -> Response:
        served = service.pick(model)
        data = await request.body()
        job = await service.start_job(served, data, name)
        return _JSON(job, status_code=202)

    @app.get("/console/api/jobs/{job_id}", tags=["console"], response_model=JobOut)
    async def job(job_id: int) -> Response:
        try:
            return _JSON(await run_in_threadpool(labels.job, job_id))
        except KeyError:
            raise _Problem(404, f"No job {job_id}.", code="not_found") from None

    @app.get("/console/api/jobs/{job_id}/items", tags=["console"], response_model=ItemList)
    async def job_items(
        job_id: int, offset: int = Query(0, ge=0), limit: int = Query(500, ge=1, le=5000)
    ) -> Response:
        items = await run_in_threadpool(labels.job_items, job_id, offset=offset, limit=limit)
        return _JSON({"items": items})

    @app.get("/console/api/queue", tags=["console"], response_model=ItemList)
    async def queue(
        model: str | None = Query(None), limit: int = Query(50, ge=1, le=1000)
    ) -> Response:
        items = await run_in_threadpool(labels.queue, model=model, limit=limit)
        return _JSON({"items": items})

    @app.post("/console/api/labels", tags=["console"], response_model=LabelOut, responses=_ERRORS)
    async def add_label(body: LabelIn, request: Request) -> Response:
        who = _who(request, body.who)
        caller = getattr(request.state, "caller", None)
        try:
            row = await run_in_threadpool(
                labels.add_label, body.item_id, body.label, who=who, key=caller
            )
        except KeyError:
            raise _Problem(
                404, f"No item {body.item_id}.", code="not_found", param="item_id"
            ) from None
        return _JSON(row)

    @app.get("/console/api/labels", tags=["console"], response_model=LabelList)
    async def list_labels() -> Response:
        return _JSON({"labels": await run_in_threadpool(labels.export_rows)})

    def labels_file(suffix: str, media_type: str, charset: str, export: Callable[[], str]) -> None:
        """GET /console/api/labels.{suffix}: every label as a download."""

        async def download() -> Response:
            text = await run_in_threadpool(export)
            return Response(
                text.encode(charset),
                media_type=media_type,
                headers={"Content-Disposition": f'attachment; filename="labels.{suffix}"'},
            )

        app.get(f"/console/api/labels.{suffix}", tags=["console"], name=f"labels_{suffix}")(
            download
        )

    labels_file("csv", "text/csv; charset=utf-8", "utf-8", labels.export_csv)
    labels_file("jsonl", "application/jsonl", "ascii", labels.export_jsonl)
