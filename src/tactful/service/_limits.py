"""Pure ASGI gates in front of the routes: API keys, body size, console headers.

They run before FastAPI reads a body, so an unauthenticated or oversized
request costs no parsing, and their answers have the same OpenAI error shape
as the routes'.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable, Mapping
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ApiKeyGate", "BodyLimit", "ConsoleHeaders", "error_body"]

#: Past this many bytes an oversized body is no longer read (to answer 413 on a
#: connection the client can still read from): the connection is closed instead.
_DRAIN_LIMIT = 64 << 20

#: The console's pages load only from this server and run no inline script.
CONSOLE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)


#: Error messages (tests format these).
API_KEY_MISSING_MESSAGE = "An API key is required: send the header Authorization: Bearer <key>."
API_KEY_INVALID_MESSAGE = "Invalid API key."
BODY_TOO_LARGE_MESSAGE = "The request body is larger than {limit:,} bytes."


def error_body(
    message: str,
    *,
    type: str = "invalid_request_error",
    code: str | None = None,
    param: str | None = None,
) -> bytes:
    """OpenAI's error shape as JSON bytes (ASCII)."""
    return json.dumps(
        {"error": {"message": message, "type": type, "param": param, "code": code}}
    ).encode("ascii")


async def _send_error(
    send: Send,
    status: int,
    body: bytes,
    headers: Mapping[str, str] | None = None,
    *,
    close: bool = False,
) -> None:
    raw = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    raw += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    if close:
        raw.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def _protected(path: str) -> bool:
    return path.startswith(("/v1/", "/console/api/"))


class ApiKeyGate:
    """``Authorization: Bearer <key>`` on the API and the console's data (401 otherwise).

    ``keys`` maps each key to its name; the caller's name is put in
    ``scope["state"]["caller"]`` (``request.state.caller``) for the labels.
    With no keys the gate lets everything through.
    """

    def __init__(self, app: ASGIApp, keys: Mapping[str, str]) -> None:
        self.app = app
        self._keys = [(k.encode(), name) for k, name in keys.items()]

    def _name(self, token: str) -> str | None:
        got = token.encode("latin-1", "replace")
        found = None
        for key, name in self._keys:  # every key compared, in constant time each
            if hmac.compare_digest(key, got):
                found = name
        return found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self._keys or not _protected(scope["path"]):
            await self.app(scope, receive, send)
            return
        header = ""
        for k, v in scope["headers"]:
            if k == b"authorization":
                header = v.decode("latin-1")
        scheme, _, token = header.strip().partition(" ")
        name = self._name(token.strip()) if scheme.lower() == "bearer" and token.strip() else None
        if name is None:
            message = API_KEY_INVALID_MESSAGE if header else API_KEY_MISSING_MESSAGE
            await _send_error(
                send,
                401,
                error_body(message, code="invalid_api_key"),
                {"WWW-Authenticate": "Bearer"},
            )
            return
        scope.setdefault("state", {})["caller"] = name
        await self.app(scope, receive, send)


class _TooLarge(Exception):
    pass


class BodyLimit:
    """413 for a request body over ``limit_for(path)`` bytes, before any parsing.

    A declared ``Content-Length`` over the limit is refused at once; a body
    without one is counted as it streams in. The rest of an oversized body is
    read and dropped (up to 64 MiB) so that the client, still sending, reads
    the 413 instead of a reset connection; past that the connection is closed.
    """

    def __init__(self, app: ASGIApp, limit_for: Callable[[str], int]) -> None:
        self.app = app
        self.limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope["path"])
        declared: int | None = None
        for k, v in scope["headers"]:
            if k == b"content-length":
                try:
                    declared = int(v)
                except ValueError:
                    declared = None
        if declared is not None and declared > limit:
            more = True
            if declared <= _DRAIN_LIMIT:
                while more:
                    message = await receive()
                    more = message.get("more_body", False) and message["type"] == "http.request"
            await self._refuse(send, limit, close=more or declared > _DRAIN_LIMIT)
            return

        received = 0
        state: dict[str, Any] = {"started": False, "refused": False}

        async def counting_receive() -> Message:
            nonlocal received
            if state["refused"]:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    drained, more = received, message.get("more_body", False)
                    while more and drained <= _DRAIN_LIMIT:
                        message = await receive()
                        drained += len(message.get("body", b""))
                        more = message.get("more_body", False) and message["type"] == "http.request"
                    state["refused"] = True
                    if not state["started"]:
                        state["started"] = True
                        await self._refuse(send, limit, close=more)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            if state["refused"]:
                return  # the 413 is already out: drop what the app says after it
            if message["type"] == "http.response.start":
                state["started"] = True
            await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except Exception:
            if not state["refused"]:
                raise
            # The app saw a disconnect where its body was cut: the 413 is the answer.

    @staticmethod
    async def _refuse(send: Send, limit: int, *, close: bool) -> None:
        await _send_error(
            send,
            413,
            error_body(BODY_TOO_LARGE_MESSAGE.format(limit=limit), code="body_too_large"),
            close=close,
        )


class ConsoleHeaders:
    """Content-Security-Policy and no-sniff headers on every response (defence in depth)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"x-content-type-options", b"nosniff"))
                if not _protected(scope["path"]):
                    headers.append((b"content-security-policy", CONSOLE_CSP.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
