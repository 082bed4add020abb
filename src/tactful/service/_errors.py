"""The app's error handlers: every error is one answer in OpenAI's error shape."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import (
    BackendError,
    ConfigError,
    DataError,
    ModelError,
    RateLimitedError,
    TactfulError,
)
from ._batcher import OverloadedError
from ._service import (
    EMPTY_BODY_MESSAGE,
    INPUT_TYPE_MESSAGE,
    INVALID_JSON_MESSAGE,
    INVALID_UTF8_MESSAGE,
    NOT_AN_OBJECT_MESSAGE,
    _error,
    _Problem,
    log,
)

__all__ = ["install_errors"]


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


def install_errors(app: FastAPI) -> None:
    """Answer every error raised in ``app``'s routes in OpenAI's error shape."""

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
