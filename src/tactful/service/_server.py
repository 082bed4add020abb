"""A real uvicorn server in a background thread, for tests, notebooks and embedding."""

from __future__ import annotations

import threading
import time
from types import TracebackType
from typing import Any, Self

__all__ = ["BackgroundServer"]


class BackgroundServer:
    """Serve an ASGI app with uvicorn on ``host`` in a daemon thread.

    >>> with BackgroundServer(create_app(settings)) as server:   # doctest: +SKIP
    ...     httpx.get(server.url + "/healthz")

    Parameters
    ----------
    app : ASGI app
        Usually :func:`tactful.service.create_app`'s.
    host : str, default="127.0.0.1"
    port : int, default=0
        0 picks a free port; :attr:`port` tells which.
    ready_timeout : float, default=60
        Seconds to wait for the server to listen.
    """

    def __init__(
        self, app: Any, *, host: str = "127.0.0.1", port: int = 0, ready_timeout: float = 60.0
    ) -> None:
        import uvicorn

        self.app = app
        self.host = host
        self._config = uvicorn.Config(
            app, host=host, port=port, log_level="warning", lifespan="on", access_log=False
        )
        self._server = uvicorn.Server(self._config)
        self._thread: threading.Thread | None = None
        self._ready_timeout = ready_timeout
        self.port = port

    @property
    def url(self) -> str:
        """``http://host:port``."""
        return f"http://{self.host}:{self.port}"

    def start(self) -> Self:
        self._thread = threading.Thread(target=self._server.run, name="tactful-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + self._ready_timeout
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError("The server stopped before it listened (see its log).")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"The server did not listen within {self._ready_timeout} s.")
            time.sleep(0.01)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self

    def wait_ready(self, timeout: float = 300.0) -> Self:
        """Wait until ``/readyz`` answers 200 (every moderator loaded).

        Raises
        ------
        TimeoutError
            If it does not within ``timeout`` seconds.
        """
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/readyz", timeout=10).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        raise TimeoutError(f"{self.url} was not ready within {timeout} s.")

    def stop(self) -> None:
        """Stop serving (lifespan shutdown included) and wait for the thread."""
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
