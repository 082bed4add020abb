"""Contract tests: every remote adapter against a local server speaking its wire format.

The server (:mod:`fakes`) is a real HTTP server on 127.0.0.1. It answers like
the provider, and plays scripted faults: 429 bursts with Retry-After, 500s,
timeouts, truncated and malformed bodies, wrong keys.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fakes import FakeServer, Fault, toxicity

import tactful
from tactful.errors import (
    RateLimitedError,
    RemoteResponseError,
    RemoteTimeoutError,
)
from tactful.moderators.remote import KeyRejectedError, MissingKeyError
from tactful.testing import check_moderator

KEY = "sk-test-0123456789"
ENV = "TACTFUL_TEST_REMOTE_KEY"
TOXIC, CLEAN = "you absolute idiot", "what a lovely day"

#: Adapter id → (registered name, options besides base_url and the fast retry settings).
ADAPTERS: dict[str, tuple[str, dict[str, Any]]] = {
    "openai": ("openai", {}),
    "openai-text": ("openai", {"model": "text-moderation-latest"}),
    "perspective": ("perspective", {"qps": None}),
    "google-v1": ("google", {"api_version": "v1"}),
    "google-v2": ("google", {"model_version": "MODEL_VERSION_2", "language": "en"}),
    "llama-guard-3": ("llama-guard-3", {}),
    "llama-guard-3-completions": ("llama-guard-3", {"endpoint": "completions"}),
    "shieldgemma": ("shieldgemma", {}),
    "shieldgemma-completions": ("shieldgemma", {"endpoint": "completions"}),
    "granite-guardian": ("granite-guardian", {}),
    "granite-guardian-3.3": ("granite-guardian", {"model": "ibm-granite/granite-guardian-3.3-8b"}),
    "wildguard": ("wildguard", {}),
    "wildguard-chat": ("wildguard", {"endpoint": "chat"}),
    "chat-openai": ("chat", {}),
    "chat-anthropic": ("chat", {"provider": "anthropic"}),
}
#: Adapters that score from the model's verdict alone (no log-probabilities asked).
VERDICT_ONLY = {"chat-openai", "chat-anthropic"}


def base_url(server: FakeServer, name: str) -> str:
    return {
        "perspective": f"{server.url}/v1alpha1",
        "google": server.url,
    }.get(name, f"{server.url}/v1")


@pytest.fixture(scope="module")
def server():
    with FakeServer(key=KEY) as s:
        yield s


@pytest.fixture(autouse=True)
def key_env(monkeypatch: pytest.MonkeyPatch, server: FakeServer):
    monkeypatch.setenv(ENV, KEY)
    server.reset()


def build(server: FakeServer, adapter: str, **options: Any) -> Any:
    name, extra = ADAPTERS[adapter]
    params = {
        "base_url": base_url(server, name),
        "api_key_env": ENV,
        "retry_backoff": 0.001,
        "max_retries": 2,
        **extra,
        **options,
    }
    return tactful.load(name, **params)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_adapter_passes_check_moderator(server: FakeServer, adapter: str) -> None:
    check_moderator(build(server, adapter))


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_adapter_answers_what_the_provider_said(server: FakeServer, adapter: str) -> None:
    toxic, clean = build(server, adapter).analyze([TOXIC, CLEAN])
    assert (toxic.flagged, clean.flagged) == (True, False)
    assert toxic.flags["toxicity"] is True and clean.flags["toxicity"] is False
    if adapter in VERDICT_ONLY:
        expected = (1.0, 0.0)
    else:  # the provider's own score, token variants merged for the guards
        expected = (toxicity(TOXIC), toxicity(CLEAN))
    assert toxic.scores["toxicity"] == pytest.approx(expected[0], abs=1e-9)
    assert clean.scores["toxicity"] == pytest.approx(expected[1], abs=1e-9)
    assert toxic.raw and clean.raw


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_blank_texts_are_not_sent(server: FakeServer, adapter: str) -> None:
    mod = build(server, adapter)
    blank, _ = mod.analyze(["  \n", CLEAN])
    assert blank.flagged is False and set(blank.scores.values()) == {0.0}
    assert dict(blank.raw) == {"skipped": "blank text: not sent"}
    assert all(CLEAN in e["texts"] or not e["texts"] for e in server.requests())


# -- faults ---------------------------------------------------------------------------------


def one_request_per_call(server: FakeServer, adapter: str, **options: Any) -> Any:
    """The adapter asking one request at a time (ShieldGemma: one policy), so that
    scripted faults meet requests in a known order."""
    extra: dict[str, Any] = {"concurrency": 1, **options}
    if ADAPTERS[adapter][0] == "shieldgemma":
        extra["policies"] = ["harassment"]
    return build(server, adapter, **extra)


@pytest.mark.parametrize("adapter", ADAPTERS)
@pytest.mark.parametrize(
    "faults",
    [
        [Fault.status_code(429, headers={"Retry-After": "0"})] * 2,
        [Fault.status_code(429, headers={"retry-after-ms": "5"})],
        [Fault.status_code(500), Fault.status_code(503)],
        [Fault.status_code(529)],
        [Fault.status_code(408)],
        [Fault.truncated(), Fault.drop()],
        [Fault.delay(3.0)],
    ],
    ids=["429-burst", "429-ms", "500-503", "529", "408", "truncated-dropped", "timeout"],
)
def test_transient_faults_are_retried_to_the_same_answer(
    server: FakeServer, adapter: str, faults: list[Fault]
) -> None:
    mod = one_request_per_call(server, adapter, timeout=1.0)
    [expected] = mod.analyze([TOXIC])
    server.reset()
    server.script(*faults)
    [got] = mod.analyze([TOXIC])
    assert got.to_dict() == expected.to_dict()
    assert len(server.requests()) == len(faults) + 1
    assert [e["answered"] for e in server.requests()] == [False] * len(faults) + [True]


@pytest.mark.parametrize("adapter", ADAPTERS)
@pytest.mark.parametrize(
    ("fault", "error", "message"),
    [
        (
            Fault.status_code(429, headers={"Retry-After": "0"}),
            RateLimitedError,
            "answered 429 Too Many Requests after 2 attempts",
        ),
        (
            Fault.status_code(500),
            RemoteResponseError,
            "answered 500 Internal Server Error after 2 attempts",
        ),
        (Fault.delay(3.0), RemoteTimeoutError, "did not answer within 1 s after 2 attempts"),
        (
            Fault.truncated(),
            RemoteResponseError,
            "broke the connection mid-answer after 2 attempts",
        ),
    ],
    ids=["429", "500", "timeout", "truncated"],
)
def test_persistent_faults_raise_after_the_retries(
    server: FakeServer, adapter: str, fault: Fault, error: type, message: str
) -> None:
    mod = one_request_per_call(server, adapter, timeout=1.0, max_retries=1)
    server.script(*[fault] * 2)
    with pytest.raises(error, match=message):
        mod.analyze([TOXIC])
    assert len(server.requests()) == 2


@pytest.mark.parametrize("adapter", ADAPTERS)
@pytest.mark.parametrize(
    "fault",
    [Fault.not_json(), Fault.wrong_shape({"unexpected": True}), Fault.wrong_shape([1, 2])],
    ids=["not-json", "wrong-shape", "a-list"],
)
def test_malformed_bodies_are_failures_never_verdicts(
    server: FakeServer, adapter: str, fault: Fault
) -> None:
    mod = one_request_per_call(server, adapter)
    server.script(fault)
    with pytest.raises(RemoteResponseError):
        mod.analyze([TOXIC])
    assert len(server.requests()) == 1  # an answer came back: not asked again


@pytest.mark.parametrize("adapter", ADAPTERS)
@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_names_its_variable(server: FakeServer, adapter: str, status: int) -> None:
    mod = one_request_per_call(server, adapter)
    server.script(Fault.status_code(status))
    with pytest.raises(
        KeyRejectedError, match=rf"answered {status} .*the API key in \${ENV} was refused"
    ):
        mod.analyze([TOXIC])
    assert len(server.requests()) == 1


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_wrong_key_is_refused_by_the_server(
    server: FakeServer, adapter: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, "sk-wrong")
    with pytest.raises(
        KeyRejectedError, match=rf"\[T046\] .* answered 401 Unauthorized: the API key in \${ENV}"
    ):
        build(server, adapter).analyze([TOXIC])


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_missing_key_is_one_line_naming_the_variable(
    server: FakeServer, adapter: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV)
    with pytest.raises(MissingKeyError) as info:
        build(server, adapter)
    assert f"environment variable ${ENV}, which is not set" in str(info.value)
    assert info.value.exit_code == 2 and "\n" not in str(info.value)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_the_key_stays_out_of_config_repr_urls_and_the_store(
    server: FakeServer, adapter: str, tmp_path
) -> None:
    from tactful.store import analyze_all

    mod = build(server, adapter)
    analyze_all(mod, [TOXIC, CLEAN], store=tmp_path / "s.sqlite")
    assert KEY not in json.dumps(mod.config()) + repr(mod)
    assert all(KEY not in e["path"] for e in server.requests())
    for f in tmp_path.iterdir():
        assert KEY.encode() not in f.read_bytes()


# -- verdict parsing ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("adapter", "output"),
    [
        ("llama-guard-3", "maybe"),
        ("llama-guard-3", "unsafe\nS99"),
        ("llama-guard-3", ""),
        ("shieldgemma", "Perhaps"),
        ("granite-guardian", "<score> perhaps </score>"),
        ("granite-guardian", "I cannot tell"),
        ("wildguard", "Response refusal: no"),
        ("wildguard", "Harmful request: unsure"),
        ("chat-openai", "Sure! Here is my answer"),
        ("chat-anthropic", "I think ALLOW"),
    ],
)
def test_output_that_does_not_parse_is_a_failure(
    server: FakeServer, adapter: str, output: str
) -> None:
    mod = one_request_per_call(server, adapter)
    server.script(Fault.output(output))
    with pytest.raises(RemoteResponseError, match="a parse failure is never read as a verdict"):
        mod.analyze([CLEAN])


@pytest.mark.parametrize(
    ("adapter", "output", "flagged", "flags"),
    [
        ("llama-guard-3", "\n\nunsafe\nS1,S10", True, {"S1": True, "S10": True, "S2": False}),
        ("llama-guard-3", "Safe", False, {"S1": False}),
        ("shieldgemma", " No.", False, {"harassment": False}),
        ("granite-guardian", "Yes\n<confidence> High </confidence>", True, {"harm": True}),
        ("granite-guardian", "<think>no, wait</think>\n<score> yes </score>", True, {"harm": True}),
        (
            "wildguard",
            "Harmful request: no\nResponse refusal: yes\nHarmful response: no",
            False,
            {"harmful_request": False, "response_refusal": True, "harmful_response": False},
        ),
        ("chat-openai", "**BLOCK**", True, {"block": True}),
    ],
)
def test_verdicts_without_logprobs_are_read_from_the_text(
    server: FakeServer, adapter: str, output: str, flagged: bool, flags: dict[str, bool]
) -> None:
    mod = one_request_per_call(server, adapter)
    server.script(Fault.output(output))
    [a] = mod.analyze([CLEAN])
    assert a.flagged is flagged and a.scores["toxicity"] == float(flagged)
    assert {k: a.flags[k] for k in flags} == flags
    assert (
        a.raw.get(
            "probability_from",
            a.raw.get("policies", {}).get("harassment", {}).get("probability_from"),
        )
        == "text"
    )


def test_granite_guardian_reads_the_score_after_its_thinking(server: FakeServer) -> None:
    mod = build(server, "granite-guardian-3.3")
    [a] = mod.analyze([TOXIC])  # the think trace holds a decoy " no" token
    assert a.scores["harm"] == pytest.approx(toxicity(TOXIC)) and a.raw["verdict"] == "yes"


def test_threshold_overrides_the_models_verdict(server: FakeServer) -> None:
    assert toxicity(TOXIC) < 0.995
    [a] = build(server, "llama-guard-3", threshold=0.995).analyze([TOXIC])
    assert a.raw["verdict"] == "unsafe" and a.flagged is False
    [b] = build(server, "llama-guard-3", threshold=0.01).analyze([CLEAN])
    assert b.raw["verdict"] == "safe" and b.flagged is True


def test_without_logprobs_none_are_asked_and_the_verdict_scores(server: FakeServer) -> None:
    [a] = build(server, "llama-guard-3", logprobs=False).analyze([TOXIC])
    [_req] = server.requests()
    assert a.scores["unsafe"] == 1.0 and a.raw["probability_from"] == "text"
    assert a.raw["categories"] == ["S10"] and a.raw["category_names"] == ["Hate"]
    assert a.flags["S10"] is True


# -- requests on the wire -------------------------------------------------------------------


def sent(server: FakeServer, suffix: str = "") -> list[dict[str, Any]]:
    return [e for e in server.requests(suffix)]


def test_openai_batches_by_array_input_and_keeps_applied_input_types(server: FakeServer) -> None:
    texts = [f"text number {i}" for i in range(70)]
    answers = build(server, "openai", batch_size=32).analyze(texts)
    chunks = sorted((e["texts"] for e in sent(server, "/moderations")), key=len, reverse=True)
    assert sorted(chunks) == sorted([texts[:32], texts[32:64], texts[64:]])
    assert [a.scores["toxicity"] for a in answers] == pytest.approx([toxicity(t) for t in texts])
    assert set(answers[0].raw["category_applied_input_types"]) == set(
        tactful.moderators.remote.OMNI_CATEGORIES
    )
    assert answers[0].raw["model"] == "omni-moderation-latest-fake"
    assert all(e["headers"]["authorization"] == f"Bearer {KEY}" for e in sent(server))


def test_openai_text_moderation_has_eleven_categories(server: FakeServer) -> None:
    [a] = build(server, "openai-text").analyze([TOXIC])
    assert set(a.scores) == {*tactful.moderators.remote.TEXT_CATEGORIES, "toxicity"}
    assert len(tactful.moderators.remote.TEXT_CATEGORIES) == 11


def test_perspective_maps_utf16_span_offsets_to_code_points(server: FakeServer) -> None:
    text = "\U0001f600\U0001f44d\U0001f3fd you idiot \U0001f525 so stupid"
    [a] = build(server, "perspective", attributes=["INSULT"]).analyze([text])
    assert sorted({text[s.start : s.end] for s in a.spans}) == ["idiot", "stupid"]
    assert {s.label for s in a.spans} == {"insult"}
    [entry] = sent(server, "comments:analyze")
    assert entry["headers"]["x-goog-api-key"] == KEY and "key=" not in entry["path"]


def test_perspective_request_shape(server: FakeServer) -> None:
    build(server, "perspective", languages=["en"], do_not_store=True).analyze([TOXIC])
    [entry] = sent(server)
    assert entry["texts"] == [TOXIC]


def test_perspective_cuts_long_texts_and_keeps_offsets(server: FakeServer) -> None:
    filler = "a calm and \u00e9l\u00e9gant sentence about gardens. " * 900  # ~40 KB of UTF-8
    text = filler + "and then an idiot " + filler + " one more moron at the end"
    [a] = build(server, "perspective", attributes=["TOXICITY"]).analyze([text])
    pieces = [e["texts"][0] for e in sent(server, "comments:analyze")]
    assert len(pieces) >= 3 and "".join(pieces) == text
    assert all(len(p.encode()) <= 20_480 for p in pieces)
    assert sorted(text[s.start : s.end] for s in a.spans) == ["idiot", "moron"]
    assert "chunks" in a.raw and next(c["offset"] for c in a.raw["chunks"]) == 0


def test_google_v1_and_v2_paths_fields_and_severity(server: FakeServer) -> None:
    [a] = build(server, "google-v1", language="en").analyze([TOXIC])
    [b] = build(server, "google-v2").analyze([TOXIC])
    v1, v2 = sent(server, "documents:moderateText")
    assert v1["path"] == "/v1/documents:moderateText" and v2["path"] == "/v2/documents:moderateText"
    assert set(a.scores) == {*tactful.moderators.remote.GOOGLE_CATEGORIES, "toxicity"}
    assert len(tactful.moderators.remote.GOOGLE_CATEGORIES) == 16
    assert "severity" not in a.raw
    assert b.raw["severity"]["Toxic"] == pytest.approx(toxicity(TOXIC) / 2, abs=1e-6)


def test_guard_chat_requests_carry_the_template_arguments(server: FakeServer) -> None:
    build(server, "shieldgemma", policies=["hate_speech"]).analyze([TOXIC])
    build(server, "granite-guardian", risk="social_bias").analyze([TOXIC])
    build(server, "llama-guard-3", target="response", user_prompt="Tell me a joke").analyze([TOXIC])
    bodies = [json.loads(json.dumps(e)) for e in sent(server, "/chat/completions")]
    assert all(e["headers"]["authorization"] == f"Bearer {KEY}" for e in bodies)
    assert [e["texts"] for e in bodies] == [[TOXIC]] * 3


def test_sent_bodies_are_the_documented_ones(server: FakeServer, monkeypatch) -> None:
    from tactful.moderators.remote import RemoteHTTP

    seen: list[tuple[str, Any]] = []
    real = RemoteHTTP.post_json

    def spy(self, path, body):
        seen.append((path, body))
        return real(self, path, body)

    monkeypatch.setattr(RemoteHTTP, "post_json", spy)
    build(server, "shieldgemma", policies=["hate_speech"]).analyze([TOXIC])
    build(server, "granite-guardian", risk="social_bias").analyze([TOXIC])
    build(
        server, "llama-guard-3", endpoint="completions", target="response", user_prompt="hi"
    ).analyze([TOXIC])
    build(server, "chat-anthropic").analyze([TOXIC])
    (p1, sg), (_p2, gg), (p3, lg), (p4, an) = seen
    assert p1 == "chat/completions" and sg["chat_template_kwargs"] == {
        "guideline": tactful.moderators.remote.SHIELDGEMMA_POLICIES["hate_speech"][0]
    }
    assert sg["messages"] == [{"role": "user", "content": TOXIC}] and sg["max_tokens"] == 1
    assert sg["logprobs"] is True and sg["top_logprobs"] == 5 and sg["temperature"] == 0
    assert gg["chat_template_kwargs"] == {"guardian_config": {"risk_name": "social_bias"}}
    assert p3 == "completions" and lg["logprobs"] == 5
    assert lg["prompt"] == tactful.moderators.remote.llama_guard_3_prompt(
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": TOXIC}]
    )
    assert "Agent: you absolute idiot\n\n<END CONVERSATION>" in lg["prompt"]
    assert "ONLY THE LAST Agent message" in lg["prompt"]
    assert p4 == "messages" and an["system"] == tactful.moderators.remote.DEFAULT_MODERATION_PROMPT
    assert an["messages"] == [{"role": "user", "content": TOXIC}]


def test_anthropic_headers_and_overload_retries(server: FakeServer) -> None:
    mod = build(server, "chat-anthropic", max_retries=3)
    server.script(
        Fault.status_code(529),
        Fault.status_code(429, headers={"retry-after": "0"}),
        Fault.status_code(529),
    )
    [a] = mod.analyze([TOXIC])
    assert a.flagged is True
    entries = sent(server, "/messages")
    assert [e["status"] for e in entries] == [529, 429, 529, 200]
    assert all(e["headers"]["x-api-key"] == KEY for e in entries)
    assert all(e["headers"]["anthropic-version"] == "2023-06-01" for e in entries)
    assert all("authorization" not in e["headers"] for e in entries)


def test_anthropic_overloaded_message_is_quoted(server: FakeServer) -> None:
    mod = build(server, "chat-anthropic", max_retries=0)
    server.script(Fault.status_code(529))
    with pytest.raises(
        RemoteResponseError, match=r"answered 529 .*\(overloaded_error: Overloaded\)"
    ):
        mod.analyze([TOXIC])


def test_qps_limit_spaces_requests(server: FakeServer, monkeypatch) -> None:
    from tactful.moderators.remote import _http

    waits: list[float] = []
    monkeypatch.setattr(_http.RateLimiter, "wait", lambda self: waits.append(self.qps))
    build(server, "perspective", qps=1.0).analyze([TOXIC, CLEAN, "third text"])
    assert waits == [1.0, 1.0, 1.0]


def test_hints_for_the_store(server: FakeServer) -> None:
    for adapter in ADAPTERS:
        mod = build(server, adapter)
        assert isinstance(mod.batch_size, int) and isinstance(mod.concurrency, int)
        assert {"timeout", "api_key_env", "concurrency", "qps"} <= set(mod.runtime_options)
        assert set(mod.runtime_options) <= set(mod.config())
        assert "base_url" not in mod.runtime_options and "model" not in mod.runtime_options
