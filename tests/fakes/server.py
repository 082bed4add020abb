"""A real HTTP server on 127.0.0.1 that speaks the remote moderators' wire formats.

:class:`FakeServer` runs a ``ThreadingHTTPServer`` on a free port in a thread.
It answers like each provider (see :mod:`tests.fakes.providers`), checks the
key when one is set, logs every request, and plays scripted faults, one per
request, in order::

    with FakeServer(key="sk-test") as server:
        server.script(Fault.status(429, headers={"Retry-After": "0"}), Fault.status(500))
        ...  # the first request gets 429, the second 500, the third a real answer

Faults: an HTTP status with headers and body, a delay longer than the client's
timeout, a truncated body (Content-Length larger than what is sent), a body
that is not JSON, a JSON body of the wrong shape, a verdict text the model
would never give, and a dropped connection. :meth:`FakeServer.hold_when` holds
requests (never answering them) once a condition on the answered count is met,
so that a test can kill a client while nothing is in flight that the server
already answered.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from . import providers

__all__ = ["FakeServer", "Fault"]


@dataclass(frozen=True)
class Fault:
    """What the server does to one request instead of answering it normally."""

    kind: str
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    seconds: float = 0.0

    @classmethod
    def status_code(
        cls, status: int, *, headers: dict[str, str] | None = None, body: Any = None
    ) -> Fault:
        return cls("status", status=status, headers=headers or {}, body=body)

    @classmethod
    def delay(cls, seconds: float) -> Fault:
        """Answer normally, but only after ``seconds`` (longer than the client's timeout)."""
        return cls("delay", seconds=seconds)

    @classmethod
    def truncated(cls) -> Fault:
        """Promise more bytes than are sent, then close the connection."""
        return cls("truncate")

    @classmethod
    def not_json(cls) -> Fault:
        return cls("raw", body=b'{"results": [ this is not json')

    @classmethod
    def wrong_shape(cls, body: Any) -> Fault:
        """A 200 with this JSON body instead of the real answer."""
        return cls("json", body=body)

    @classmethod
    def output(cls, text: str) -> Fault:
        """A chat/completions answer whose generated text is ``text`` (no logprobs)."""
        return cls("output", body=text)

    @classmethod
    def drop(cls) -> Fault:
        """Close the connection without answering."""
        return cls("drop")


class FakeServer:
    """Provider wire formats on ``http://127.0.0.1:PORT`` (see the module docstring).

    Parameters
    ----------
    key : str, optional
        When set, every request must carry it in the provider's header
        (``Authorization: Bearer``, ``x-goog-api-key`` or ``x-api-key``), else 401.
    port : int, default=0
        0 picks a free port.
    """

    def __init__(self, *, key: str | None = None, port: int = 0) -> None:
        self.key = key
        self.log: list[dict[str, Any]] = []
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._hold: Callable[[int], bool] | None = None
        self._held_now = 0
        #: A request holding a text that contains this string gets a 500, every time.
        self.poison: str | None = None
        self.held = threading.Event()
        self._release = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    # -- life cycle -----------------------------------------------------------------------

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting ------------------------------------------------------------------------

    def script(self, *faults: Fault) -> None:
        """Play ``faults`` on the next requests, one each, in order."""
        with self._lock:
            self._faults.extend(faults)

    def hold_when(self, condition: Callable[[int], bool] | None) -> None:
        """Hold (never answer) every request that arrives once ``condition(answered)`` holds,
        where ``answered`` counts the texts answered so far; ``None`` stops holding."""
        self._hold = condition

    def wait_held(self, n: int, timeout: float) -> bool:
        """Wait until ``n`` requests are held at once; False when ``timeout`` s pass first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if self._held_now >= n:
                    return True
            time.sleep(0.05)
        return False

    def release(self) -> None:
        """Let held requests go: their connections are closed unanswered."""
        self._release.set()

    def reset(self) -> None:
        with self._lock:
            self.log.clear()
            self._faults.clear()

    # -- what happened --------------------------------------------------------------------

    def answered_texts(self) -> list[str]:
        """Every text the server answered, once per time it was answered."""
        with self._lock:
            return [t for entry in self.log if entry["answered"] for t in entry["texts"]]

    def requests(self, path_suffix: str = "") -> list[dict[str, Any]]:
        with self._lock:
            return [dict(e) for e in self.log if e["path"].endswith(path_suffix)]

    # -- the handler ----------------------------------------------------------------------

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                server._serve(self)

        return Handler

    def _next_fault(self) -> Fault | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

    def _serve(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length)
        path = h.path.split("?", 1)[0]
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        texts = providers.texts_of(path, body)
        entry: dict[str, Any] = {
            "path": path,
            "texts": texts,
            "status": None,
            "answered": False,
            "fault": None,
            "headers": {k.lower(): v for k, v in h.headers.items()},
        }
        with self._lock:
            self.log.append(entry)
            answered = sum(len(e["texts"]) for e in self.log if e["answered"])
        hold = self._hold
        if hold is not None and hold(answered):
            entry["fault"] = "held"
            with self._lock:
                self._held_now += 1
            self.held.set()
            self._release.wait()
            with self._lock:
                self._held_now -= 1
            self._close(h)
            return
        fault = self._next_fault()
        if fault is None and self.poison is not None and any(self.poison in t for t in texts):
            fault = Fault.status_code(500)
        entry["fault"] = fault.kind if fault else None
        refused = providers.check_key(path, entry["headers"], self.key)
        if refused is not None:
            self._send(h, entry, *refused)
            return
        if fault is None or fault.kind == "delay":
            if fault is not None:
                time.sleep(fault.seconds)
                if self._peer_closed(h):  # the client timed out: nobody to answer
                    entry["fault"] = "timed out"
                    return
            self._send(h, entry, *providers.answer(path, body))
        elif fault.kind == "status":
            payload = (
                fault.body if fault.body is not None else providers.error_body(path, fault.status)
            )
            self._send(h, entry, fault.status, payload, fault.headers)
        elif fault.kind == "json":
            self._send(h, entry, 200, fault.body)
        elif fault.kind == "output":
            self._send(h, entry, 200, providers.generation(path, body, fault.body, logprobs=False))
        elif fault.kind == "raw":
            self._write(h, entry, 200, fault.body, {}, answered=False)
        elif fault.kind == "truncate":
            full = json.dumps(providers.answer(path, body)[1]).encode()
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(full)))
            h.end_headers()
            h.wfile.write(full[: len(full) // 2])
            h.wfile.flush()
            entry["status"] = 200
            self._close(h)
        elif fault.kind == "drop":
            self._close(h)
        else:  # pragma: no cover - a typo in a test
            raise ValueError(f"unknown fault {fault.kind!r}")

    def _send(
        self,
        h: BaseHTTPRequestHandler,
        entry: dict[str, Any],
        status: int,
        payload: Any,
        headers: dict[str, str] | None = None,
    ) -> None:
        data = json.dumps(payload).encode()
        self._write(h, entry, status, data, headers or {}, answered=status == 200)

    def _write(
        self,
        h: BaseHTTPRequestHandler,
        entry: dict[str, Any],
        status: int,
        data: bytes,
        headers: dict[str, str],
        *,
        answered: bool,
    ) -> None:
        # Marked before the bytes go out: a client may read its answer (and a test
        # look at the log) before this thread returns from the write.
        with self._lock:
            entry["status"] = status
            entry["answered"] = answered
        try:
            h.send_response(status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            for k, v in headers.items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(data)
            h.wfile.flush()
        except OSError:  # the client went away (a timeout): not answered
            with self._lock:
                entry["answered"] = False

    @staticmethod
    def _peer_closed(h: BaseHTTPRequestHandler) -> bool:
        try:
            return h.connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True

    @staticmethod
    def _close(h: BaseHTTPRequestHandler) -> None:
        h.close_connection = True
        try:
            h.wfile.flush()
            h.connection.shutdown(2)
        except OSError:
            pass
