"""The HTTP layer every remote moderator shares.

One :class:`RemoteHTTP` per moderator holds the ``httpx`` client (injectable as
``client=`` or ``transport=``), the per-moderator QPS limit and concurrency
limit, the timeouts and the retry policy. Every request goes through
:meth:`RemoteHTTP.post_json`, and every ``httpx`` failure is turned into a
tactful error in one place, :func:`translate_errors`, with ``raise ... from exc``.

Errors raised here::

    TactfulError
    ├── ConfigError
    │   ├── MissingKeyError      T045  the key's environment variable is unset (also a
    │   │                              BackendError: the moderator is unavailable)
    │   └── KeyRejectedError     T046  the provider answered 401 or 403
    └── BackendError
        ├── RateLimitedError     T041  429 after every retry
        ├── RemoteTimeoutError   T042  no answer in time, or 408, after every retry
        └── RemoteResponseError  T043  5xx after every retry, another 4xx, a malformed
                                       or truncated body

Retries: 408, 429 and every 5xx (529 included) are retried, and so are timeouts
and connections broken mid-answer, up to ``max_retries`` times. The wait is the
server's ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date) when it
sends one, else exponential backoff with jitter: ``retry_backoff * 2**attempt``
seconds (at most :data:`MAX_BACKOFF`), scaled by a random factor in [0.5, 1).
A refused connection is not retried (nothing listens there; waiting will not
change that), nor is any other 4xx (the request itself is wrong).

Keys travel in headers only, never in a URL, so no error message, log line or
stored failure can quote them.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import math
import random
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

import httpx

from ...errors import (
    BackendError,
    KeyRejectedError,
    MissingKeyError,
    RateLimitedError,
    RemoteResponseError,
    RemoteTimeoutError,
    TactfulError,
)

__all__ = [
    "MAX_BACKOFF",
    "KeyRejectedError",
    "MissingKeyError",
    "RateLimiter",
    "RemoteHTTP",
    "backoff_delay",
    "is_retryable_status",
    "json_body",
    "retry_after_seconds",
    "translate_errors",
]

#: Longest backoff between two attempts when the server names no wait (seconds).
MAX_BACKOFF = 30.0

#: Longest server-requested wait that is honoured; a longer ``Retry-After`` gives up at once.
MAX_RETRY_WAIT = 120.0

# Provider messages quoted in errors are cut to this many characters.
_QUOTE = 200


def is_retryable_status(status: int) -> bool:
    """Whether an HTTP status is worth another attempt: 408, 429 and 5xx (529 included)."""
    return status in (408, 429) or 500 <= status <= 599


def retry_after_seconds(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """The wait a server asks for, in seconds, or ``None`` when it names none.

    ``retry-after-ms`` (milliseconds, OpenAI and Anthropic) wins over
    ``Retry-After``, which is either seconds or an HTTP date (RFC 9110 §10.2.3).
    A date in the past means "now" (0.0); an unreadable value counts as absent.
    """
    lower = {k.lower(): v for k, v in headers.items()}
    ms = lower.get("retry-after-ms")
    if ms is not None:
        with contextlib.suppress(ValueError):
            value = float(ms) / 1000.0
            if math.isfinite(value) and value >= 0:
                return value
    raw = lower.get("retry-after")
    if raw is None:
        return None
    with contextlib.suppress(ValueError):
        value = float(raw)
        return value if math.isfinite(value) and value >= 0 else None
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is always GMT
        when = when.replace(tzinfo=UTC)
    now = now or datetime.now(UTC)
    return max(0.0, (when - now).total_seconds())


def backoff_delay(attempt: int, base: float, rand: Callable[[], float] = random.random) -> float:
    """Seconds before retry ``attempt`` (0 for the first retry) without a server hint.

    :math:`\\min(M, b \\cdot 2^{a}) \\cdot (0.5 + 0.5 u)` with :math:`u \\sim U[0, 1)`:
    exponential backoff with "equal jitter", so that clients that failed together
    do not retry together, yet never wait less than half the nominal delay.
    """
    return min(MAX_BACKOFF, base * 2.0**attempt) * (0.5 + 0.5 * rand())


class RateLimiter:
    """At most ``qps`` request starts per second, shared by every thread.

    Each caller reserves the next free slot under a lock and sleeps outside it,
    so that concurrent callers are spaced ``1 / qps`` seconds apart.
    """

    def __init__(
        self,
        qps: float | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.qps = qps
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._next = -math.inf

    def wait(self) -> None:
        """Block until this caller may start a request."""
        if self.qps is None:
            return
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + 1.0 / self.qps
        if start > now:
            self._sleep(start - now)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def json_body(body: Any) -> bytes:
    """``body`` as compact UTF-8 JSON, each lone surrogate sent as U+FFFD.

    A Python str may hold lone surrogates, which UTF-8 cannot encode; one
    replacement character per surrogate keeps every code-point (and UTF-16)
    offset of the text the same on both sides.
    """
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return _LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")


def _provider_message(response: httpx.Response) -> str:
    """The provider's own error text from a JSON error body, on one line, cut short."""
    try:
        body = response.json()
    except ValueError:
        text = response.text
    else:
        error = body.get("error", body) if isinstance(body, dict) else body
        if isinstance(error, dict):
            parts = [str(error[k]) for k in ("type", "status", "message") if error.get(k)]
            text = ": ".join(parts) if parts else json.dumps(error)
        else:
            text = str(error)
    text = " ".join(text.split())
    return text if len(text) <= _QUOTE else text[: _QUOTE - 1] + "…"


def _status_error(
    provider: str, response: httpx.Response, key_env: str | None, attempts: int
) -> TactfulError:
    status = response.status_code
    said = _provider_message(response)
    head = f"{provider} answered {status} {response.reason_phrase}".rstrip()
    detail = f" ({said})" if said else ""
    if status in (401, 403):
        if key_env:
            return KeyRejectedError(
                f"{head}: the API key in ${key_env} was refused{detail}. "
                f"Check the key, or name another variable with -O api_key_env=NAME."
            )
        return KeyRejectedError(
            f"{head}: the server wants an API key{detail}. Put it in an environment "
            f"variable and name it with -O api_key_env=NAME."
        )
    tries = f" after {attempts} attempt{'s' * (attempts != 1)}"
    if status == 429:
        return RateLimitedError(f"{head}{tries}{detail}.")
    if status == 408:
        return RemoteTimeoutError(f"{head}{tries}{detail}.")
    if 500 <= status <= 599:
        return RemoteResponseError(f"{head}{tries}{detail}.")
    return RemoteResponseError(f"{head}{detail}.")


@contextlib.contextmanager
def translate_errors(
    provider: str, url: str, *, key_env: str | None, timeout: float, attempts: int = 1
) -> Iterator[None]:
    """Turn ``httpx`` failures inside the block into tactful errors, ``from`` the original.

    Parameters
    ----------
    provider : str
        Moderator name used in messages (``"openai"``).
    url : str
        The URL asked (it never holds a key).
    key_env : str or None
        Name of the variable holding the key, for 401/403 messages.
    timeout : float
        The timeout in force, for timeout messages.
    attempts : int, default=1
        Attempts made so far, for messages after the last retry.

    Raises
    ------
    KeyRejectedError
        On 401 and 403.
    RateLimitedError, RemoteTimeoutError, RemoteResponseError, BackendError
        On other statuses, timeouts, broken connections and malformed bodies.
    """
    tries = f" after {attempts} attempt{'s' * (attempts != 1)}"
    try:
        yield
    except httpx.HTTPStatusError as exc:
        raise _status_error(provider, exc.response, key_env, attempts) from exc
    except httpx.TimeoutException as exc:
        raise RemoteTimeoutError(
            f"{provider} did not answer within {timeout:g} s{tries} ({url})."
        ) from exc
    except httpx.ConnectError as exc:
        raise BackendError(
            f"Cannot connect to {provider} at {url}: {exc or type(exc).__name__}. "
            f"Is the server running, and is base_url right?"
        ) from exc
    except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
        raise RemoteResponseError(
            f"{provider} broke the connection mid-answer{tries} ({url}): "
            f"{exc or type(exc).__name__}."
        ) from exc
    except httpx.HTTPError as exc:
        raise BackendError(f"Request to {provider} at {url} failed: {exc!r}.") from exc
    except json.JSONDecodeError as exc:
        raise RemoteResponseError(
            f"{provider} answered a body that is not JSON ({url}): {exc}."
        ) from exc


def _retry_wait(
    exc: BaseException, attempt: int, base: float, rand: Callable[[], float]
) -> float | None:
    """Seconds to wait before retrying after ``exc``, or ``None`` when it is final."""
    cause = exc.__cause__
    if isinstance(cause, httpx.HTTPStatusError):
        if not is_retryable_status(cause.response.status_code):
            return None
        asked = retry_after_seconds(cause.response.headers)
        return asked if asked is not None else backoff_delay(attempt, base, rand)
    if isinstance(
        cause,
        (httpx.TimeoutException, httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError),
    ):
        return backoff_delay(attempt, base, rand)
    return None


class RemoteHTTP:
    """A provider's HTTP client with retries, a QPS limit and a concurrency limit.

    Parameters
    ----------
    provider : str
        Name used in error messages.
    base_url : str
        Prefix of every request path.
    headers : mapping of str to str
        Sent with every request (the key's header goes here).
    timeout : float
        Seconds for each of connect, read, write and pool waits.
    max_retries : int
        Retries after the first attempt (0 = one attempt).
    retry_backoff : float
        Base of the exponential backoff, seconds.
    qps : float or None
        Most request starts per second across threads; ``None`` = no limit.
    concurrency : int
        Most requests in flight at once across threads.
    key_env : str or None
        Name of the key's environment variable (messages only).
    client : httpx.Client, optional
        Use this client instead of making one (it is not closed by :meth:`close`).
    transport : httpx.BaseTransport, optional
        Transport for the client made here (e.g. ``httpx.MockTransport``).
    sleep, rand : callable, optional
        Stand-ins for :func:`time.sleep` and :func:`random.random` (tests).
    """

    def __init__(
        self,
        *,
        provider: str,
        base_url: str,
        headers: Mapping[str, str],
        timeout: float,
        max_retries: int,
        retry_backoff: float,
        qps: float | None,
        concurrency: int,
        key_env: str | None,
        client: httpx.Client | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rand: Callable[[], float] = random.random,
    ) -> None:
        self.provider = provider
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self.retry_backoff = retry_backoff
        self.key_env = key_env
        self._headers = dict(headers)
        self._given = client
        self._transport = transport
        self._client: httpx.Client | None = client
        self._client_lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(concurrency)
        self._limiter = RateLimiter(qps, sleep=sleep)
        self._sleep = sleep
        self._rand = rand

    def __repr__(self) -> str:  # headers hold the key: never shown
        return f"RemoteHTTP(provider={self.provider!r}, base_url={self.base_url!r})"

    @property
    def client(self) -> httpx.Client:
        """The ``httpx`` client, made on first use (constructors stay cheap)."""
        if self._client is None:
            with self._client_lock:
                if self._client is None:
                    self._client = httpx.Client(
                        timeout=httpx.Timeout(self.timeout), transport=self._transport
                    )
        return self._client

    def close(self) -> None:
        """Close the client made here (an injected client is the caller's to close)."""
        if self._client is not None and self._client is not self._given:
            self._client.close()
        self._client = self._given

    def url(self, path: str) -> str:
        """``base_url`` joined with ``path``."""
        return f"{self.base_url}/{path.lstrip('/')}"

    def post_json(self, path: str, body: Any) -> Any:
        """POST ``body`` as JSON to ``path`` and return the decoded JSON answer.

        Retries as the module docstring says; raises the last error when the
        retries are spent or the failure is final.
        """
        url = self.url(path)
        content = json_body(body)
        headers = {**self._headers, "Content-Type": "application/json"}
        attempt = 0
        while True:
            self._limiter.wait()
            try:
                with (
                    self._slots,
                    translate_errors(
                        self.provider,
                        url,
                        key_env=self.key_env,
                        timeout=self.timeout,
                        attempts=attempt + 1,
                    ),
                ):
                    response = self.client.post(
                        url, content=content, headers=headers, timeout=self.timeout
                    )
                    response.raise_for_status()
                    return response.json()
            except TactfulError as exc:
                wait = _retry_wait(exc, attempt, self.retry_backoff, self._rand)
                if wait is None or attempt >= self.max_retries:
                    raise
                if wait > MAX_RETRY_WAIT:
                    raise type(exc)(
                        f"{exc.args[0].rstrip('.')}; it asked to wait {wait:g} s, more "
                        f"than the {MAX_RETRY_WAIT:g} s tactful waits."
                    ) from exc.__cause__
            self._sleep(wait)
            attempt += 1
