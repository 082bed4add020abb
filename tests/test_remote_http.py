"""The shared HTTP layer of the remote moderators: retries, waits, limits, error translation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from tactful.errors import (
    BackendError,
    ConfigError,
    RateLimitedError,
    RemoteResponseError,
    RemoteTimeoutError,
)
from tactful.moderators.remote import KeyRejectedError, MissingKeyError, RemoteHTTP
from tactful.moderators.remote._http import (
    MAX_BACKOFF,
    MAX_RETRY_WAIT,
    RateLimiter,
    backoff_delay,
    is_retryable_status,
    retry_after_seconds,
)

NOW = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after-ms": "250"}, 0.25),
        ({"Retry-After-Ms": "250", "Retry-After": "9"}, 0.25),  # milliseconds win
        ({"Retry-After": "3"}, 3.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"Retry-After": format_datetime(NOW + timedelta(seconds=42), usegmt=True)}, 42.0),
        ({"Retry-After": format_datetime(NOW - timedelta(seconds=42), usegmt=True)}, 0.0),
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": "-1"}, None),
        ({"retry-after-ms": "nan", "Retry-After": "2"}, 2.0),
        ({}, None),
    ],
)
def test_retry_after_reads_ms_seconds_and_http_dates(headers, expected) -> None:
    assert retry_after_seconds(headers, now=NOW) == expected


def test_backoff_grows_exponentially_with_jitter_and_a_cap() -> None:
    assert backoff_delay(0, 0.5, rand=lambda: 0.0) == 0.25
    assert backoff_delay(0, 0.5, rand=lambda: 1.0) == 0.5
    assert backoff_delay(3, 0.5, rand=lambda: 1.0) == 4.0
    assert backoff_delay(30, 0.5, rand=lambda: 1.0) == MAX_BACKOFF


@pytest.mark.parametrize(
    ("status", "retry"),
    [
        (408, True),
        (429, True),
        (500, True),
        (503, True),
        (529, True),
        (400, False),
        (401, False),
        (404, False),
        (422, False),
    ],
)
def test_which_statuses_are_retried(status: int, retry: bool) -> None:
    assert is_retryable_status(status) is retry


def test_rate_limiter_spaces_request_starts() -> None:
    now = [100.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)

    limiter = RateLimiter(2.0, clock=lambda: now[0], sleep=sleep)
    for _ in range(3):
        limiter.wait()
    assert slept == [0.5, 1.0]  # reserved slots at t=100, 100.5, 101
    RateLimiter(None, sleep=sleep).wait()
    assert slept == [0.5, 1.0]


class Script:
    """A MockTransport handler answering from a list of responses or exceptions, in order."""

    def __init__(self, *steps: httpx.Response | Exception) -> None:
        self.steps = list(steps)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        step = self.steps.pop(0)
        if isinstance(step, Exception):
            raise step
        return step


def make(script: Script, **kw) -> tuple[RemoteHTTP, list[float]]:
    slept: list[float] = []
    params = {
        "provider": "prov",
        "base_url": "http://fake.test/v1/",
        "headers": {"Authorization": "Bearer sk-secret-123"},
        "timeout": 5.0,
        "max_retries": 3,
        "retry_backoff": 0.5,
        "qps": None,
        "concurrency": 2,
        "key_env": "PROV_KEY",
        "transport": httpx.MockTransport(script),
        "sleep": slept.append,
        "rand": lambda: 1.0,
    }
    params.update(kw)
    return RemoteHTTP(**params), slept


def ok(body: object = None) -> httpx.Response:
    return httpx.Response(200, json=body if body is not None else {"ok": True})


def test_success_sends_json_and_the_key_header() -> None:
    script = Script(ok({"x": 1}))
    http, slept = make(script)
    assert http.post_json("things", {"a": "b"}) == {"x": 1}
    [req] = script.requests
    assert str(req.url) == "http://fake.test/v1/things"
    assert req.headers["authorization"] == "Bearer sk-secret-123"
    assert req.read() == b'{"a":"b"}'
    assert slept == []


def test_429_burst_honours_retry_after_then_succeeds() -> None:
    script = Script(
        httpx.Response(
            429, headers={"retry-after-ms": "1200"}, json={"error": {"message": "slow"}}
        ),
        httpx.Response(429, headers={"Retry-After": "2"}),
        httpx.Response(529, json={"type": "error", "error": {"type": "overloaded_error"}}),
        ok(),
    )
    http, slept = make(script)
    assert http.post_json("x", {}) == {"ok": True}
    assert slept == [1.2, 2.0, 2.0]  # the two header waits, then backoff 0.5 * 2**2 (rand=1)


def test_retries_are_spent_then_the_last_error_is_raised_from_the_http_error() -> None:
    script = Script(*[httpx.Response(503, json={"error": {"message": "down for a bit"}})] * 4)
    http, slept = make(script)
    with pytest.raises(RemoteResponseError) as info:
        http.post_json("x", {})
    assert str(info.value) == (
        "[T043] prov answered 503 Service Unavailable after 4 attempts (down for a bit)."
    )
    assert isinstance(info.value.__cause__, httpx.HTTPStatusError)
    assert slept == [0.5, 1.0, 2.0]


def test_rate_limited_after_retries_is_its_own_error() -> None:
    http, _ = make(Script(*[httpx.Response(429)] * 2), max_retries=1)
    with pytest.raises(
        RateLimitedError, match=r"^\[T041\] prov answered 429 Too Many Requests after 2 attempts\.$"
    ):
        http.post_json("x", {})


def test_a_wait_longer_than_tactful_accepts_gives_up_at_once() -> None:
    too_long = str(int(MAX_RETRY_WAIT) + 1)
    script = Script(httpx.Response(429, headers={"Retry-After": too_long}), ok())
    http, slept = make(script)
    with pytest.raises(RateLimitedError, match=f"asked to wait {too_long} s"):
        http.post_json("x", {})
    assert slept == [] and len(script.requests) == 1


def test_timeouts_and_broken_answers_are_retried() -> None:
    script = Script(
        httpx.ReadTimeout("slow"),
        httpx.RemoteProtocolError("peer closed"),
        httpx.ReadError("reset"),
        ok(),
    )
    http, slept = make(script)
    assert http.post_json("x", {}) == {"ok": True}
    assert len(slept) == 3


def test_timeout_after_retries() -> None:
    http, _ = make(Script(httpx.ConnectTimeout("slow"), httpx.ReadTimeout("slow")), max_retries=1)
    with pytest.raises(RemoteTimeoutError) as info:
        http.post_json("x", {})
    assert (
        str(info.value)
        == "[T042] prov did not answer within 5 s after 2 attempts (http://fake.test/v1/x)."
    )
    assert isinstance(info.value.__cause__, httpx.ReadTimeout)


def test_refused_connection_is_not_retried() -> None:
    script = Script(httpx.ConnectError("[Errno 111] Connection refused"), ok())
    http, slept = make(script)
    with pytest.raises(
        BackendError, match=r"^\[T040\] Cannot connect to prov at http://fake.test/v1/x"
    ):
        http.post_json("x", {})
    assert slept == [] and len(script.requests) == 1


@pytest.mark.parametrize("status", [400, 404, 422])
def test_other_client_errors_are_final(status: int) -> None:
    script = Script(
        httpx.Response(
            status, json={"error": {"type": "invalid_request_error", "message": "bad  \n field"}}
        )
    )
    http, slept = make(script)
    with pytest.raises(
        RemoteResponseError,
        match=rf"prov answered {status} .*\(invalid_request_error: bad field\)\.$",
    ):
        http.post_json("x", {})
    assert slept == []


@pytest.mark.parametrize("status", [401, 403])
def test_wrong_key_names_the_variable_and_is_a_config_error(status: int) -> None:
    http, slept = make(
        Script(httpx.Response(status, json={"error": {"message": "Incorrect API key"}}))
    )
    with pytest.raises(KeyRejectedError) as info:
        http.post_json("x", {})
    assert isinstance(info.value, ConfigError) and not isinstance(info.value, BackendError)
    assert "the API key in $PROV_KEY was refused (Incorrect API key)" in str(info.value)
    assert info.value.exit_code == 2 and slept == []


def test_401_without_a_configured_key_says_how_to_give_one() -> None:
    http, _ = make(Script(httpx.Response(401)), key_env=None, headers={})
    with pytest.raises(KeyRejectedError, match="the server wants an API key"):
        http.post_json("x", {})


def test_a_body_that_is_not_json_is_a_response_error() -> None:
    http, slept = make(Script(httpx.Response(200, content=b"<html>oops")))
    with pytest.raises(RemoteResponseError, match=r"prov answered a body that is not JSON") as info:
        http.post_json("x", {})
    assert slept == []  # an answer was given (and maybe paid for): not asked again here
    assert info.value.__cause__ is not None


def test_the_key_never_shows_in_repr_or_messages() -> None:
    http, _ = make(Script(*[httpx.Response(500, json={"error": {"message": "boom"}})] * 4))
    with pytest.raises(RemoteResponseError) as info:
        http.post_json("x", {})
    assert "sk-secret-123" not in str(info.value) + repr(http)


def test_missing_key_error_is_both_a_config_error_and_unavailable() -> None:
    err = MissingKeyError("no key")
    assert isinstance(err, ConfigError) and isinstance(err, BackendError)
    assert err.exit_code == 2 and str(err) == "[T045] no key"
