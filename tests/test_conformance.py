"""The conformance suite: every registered moderator passes it, and it catches broken ones."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import tactful
from tactful import Analysis, Span, testing
from tactful.errors import PARAM_MESSAGE, BackendError, ConfigError, ModelError
from tactful.params import Float, StrList
from tactful.testing import CHECKS, check_moderator, parametrize_with_checks, run_check

#: Baselines that need no model file or endpoint: they must never be skipped.
REQUIRED = ("lexicon", "random")


@parametrize_with_checks()
def test_registered_moderator_conforms(moderator_name: str, check: str) -> None:
    run_check(moderator_name, check, required=REQUIRED)


def test_baselines_are_registered() -> None:
    assert set(REQUIRED) <= set(tactful.available())


def test_parametrize_ids_cover_every_check() -> None:
    mark = parametrize_with_checks(["lexicon"])
    assert mark.args[0] == ("moderator_name", "check")
    assert [p.id for p in mark.args[1]] == [f"lexicon-{c}" for c in CHECKS]


# -- the suite against deliberately broken moderators ------------------------------------------


class Fake:
    """A minimal conforming moderator; subclasses break one rule each."""

    name = "fake"
    version = "1"

    def __init__(self, **config: Any) -> None:
        if config:
            raise TypeError(f"unexpected {sorted(config)}")

    def config(self) -> dict[str, Any]:
        return {}

    def analyze(self, texts: Sequence[str]) -> list[Analysis]:
        return [self.one(t, len(texts)) for t in texts]

    def one(self, text: str, batch: int) -> Analysis:
        return Analysis(flagged=bool(text.strip()), scores={"toxicity": 0.5})


@pytest.fixture
def register_fake():
    """Register a class as ``fake`` until the next registration or the end of the test."""
    current = contextlib.ExitStack()

    def register(cls: type) -> Any:
        nonlocal current
        current.close()  # a test may register several fakes in turn
        testing._cached_load.cache_clear()
        current = contextlib.ExitStack()
        current.enter_context(tactful.temporary_registration("fake", cls))
        return cls()

    yield register
    current.close()
    testing._cached_load.cache_clear()


def test_conforming_fake_passes(register_fake) -> None:
    check_moderator(register_fake(Fake))


class WrongLength(Fake):
    def analyze(self, texts):
        return super().analyze(texts)[:-1]


class ReturnsTuple(Fake):
    def analyze(self, texts):
        return tuple(super().analyze(texts))


class SpanPastEnd(Fake):
    def one(self, text, batch):
        spans = (Span(0, len(text) + 1),) if 0 < len(text) < 100_000 else ()
        return Analysis(flagged=bool(text), spans=spans)


class CrashesOnEmpty(Fake):
    def one(self, text, batch):
        text[0]  # IndexError on ""
        return super().one(text, batch)


class EncodesUtf8(Fake):
    def one(self, text, batch):
        text.encode("utf-8")  # UnicodeEncodeError on a lone surrogate
        return super().one(text, batch)


class HugeSpanPastEnd(Fake):
    def one(self, text, batch):
        spans = (Span(0, len(text) + 1),) if len(text) > 100_000 else ()
        return Analysis(flagged=bool(text.strip()), spans=spans)


class BadName(Fake):
    name = 3  # type: ignore[assignment]


class ExtraConfig(Fake):
    def config(self):
        return {"threshold": 0.5}


class PathInConfig(Fake):
    def config(self):
        return {"path": Path("model.onnx")}


@pytest.mark.parametrize(
    ("cls", "message"),
    [
        (WrongLength, "check_moderator(fake): analyze() returned 0 results for 1 texts."),
        (ReturnsTuple, "check_moderator(fake): analyze() must return a list, got tuple."),
        (
            SpanPastEnd,
            "check_moderator(fake): span [0, 7) is outside [0, 6] for text 1 ('   \\t\\n ').",
        ),
        (
            CrashesOnEmpty,
            "check_moderator(fake): analyze() raised IndexError on text '': string index out of range",
        ),
        (
            EncodesUtf8,
            (
                "check_moderator(fake): analyze() raised UnicodeEncodeError on edge text 14 "
                "('\\ud800'): 'utf-8' codec can't encode character '\\ud800' in position 0: "
                "surrogates not allowed"
            ),
        ),
        (
            HugeSpanPastEnd,
            "check_moderator(fake): span [0, 200001) is outside [0, 200000] for the huge text.",
        ),
        (BadName, "check_moderator(3): attribute 'name' must be a non-empty str, got 3."),
        (
            ExtraConfig,
            "check_moderator(fake): tactful.load('fake', **{'threshold': 0.5}) failed: TypeError: unexpected ['threshold']",
        ),
        (
            PathInConfig,
            "check_moderator(fake): config() must be JSON-serializable (reports embed it): Object of type PosixPath is not JSON serializable.",
        ),
    ],
    ids=lambda v: v.__name__ if isinstance(v, type) else "",
)
def test_suite_reports_first_broken_rule(register_fake, cls: type, message: str) -> None:
    with pytest.raises(AssertionError) as info:
        check_moderator(register_fake(cls))
    assert str(info.value) == message


def test_suite_catches_nondeterminism(register_fake) -> None:
    class Drifting(Fake):
        calls = 0

        def analyze(self, texts):
            Drifting.calls += 1
            return [
                Analysis(flagged=False, scores={"toxicity": 0.1 * (Drifting.calls % 2)})
                for _ in texts
            ]

    with pytest.raises(
        AssertionError, match=r"two calls on the same texts differ for text 0 \(''\)"
    ):
        check_moderator(register_fake(Drifting), checks=["deterministic"])


def test_suite_catches_batch_dependence(register_fake) -> None:
    class BatchDependent(Fake):
        def one(self, text, batch):
            return Analysis(flagged=False, scores={"toxicity": 1 / batch})

    with pytest.raises(AssertionError, match=r"batch and one-by-one results differ for text 0"):
        check_moderator(register_fake(BatchDependent), checks=["batch_invariant"])


def test_suite_tolerates_rounding_noise_only(register_fake) -> None:
    class Noisy(Fake):
        def one(self, text, batch):
            return Analysis(flagged=False, scores={"toxicity": 0.5 + 1e-7 * (batch > 1)})

    check_moderator(register_fake(Noisy), checks=["batch_invariant"])
    with pytest.raises(AssertionError):
        check_moderator(register_fake(Noisy), checks=["batch_invariant"], atol=1e-9)


def test_suite_catches_unregistered_moderator() -> None:
    class Ghost(Fake):
        name = "ghost-moderator"

    with pytest.raises(
        AssertionError, match=r"name 'ghost-moderator' is not registered; known: .*lexicon"
    ):
        check_moderator(Ghost(), checks=["config_round_trip"])


def test_extra_texts_are_checked(register_fake) -> None:
    class HatesQ(Fake):
        def one(self, text, batch):
            if "q" in text:
                raise RuntimeError("no q")
            return super().one(text, batch)

    check_moderator(register_fake(HatesQ), checks=["edge_texts"])
    n = len(testing.EDGE_TEXTS)
    with pytest.raises(
        AssertionError, match=rf"raised RuntimeError on edge text {n} \('qq'\): no q"
    ):
        check_moderator(register_fake(HatesQ), checks=["edge_texts"], texts=["qq"])


@pytest.mark.parametrize(
    ("kwargs", "name", "rule"),
    [
        ({"checks": ["shape"]}, "checks", StrList(options=CHECKS)),
        ({"checks": "shapes"}, "checks", StrList(options=CHECKS)),
        ({"atol": -1.0}, "atol", Float(0.0)),
        ({"atol": True}, "atol", Float(0.0)),
    ],
)
def test_bad_arguments_are_one_config_error(kwargs, name, rule) -> None:
    with pytest.raises(ConfigError) as err:
        check_moderator(tactful.load("random"), **kwargs)
    assert str(err.value) == "[T010] " + PARAM_MESSAGE.format(
        name=name, owner="check_moderator", rule=rule.describe(), value=kwargs[name]
    )


@pytest.mark.parametrize("error", [ModelError("model file missing"), BackendError("endpoint down")])
def test_unavailable_moderator_is_skipped_unless_required(register_fake, error: Exception) -> None:
    class Unavailable(Fake):
        def analyze(self, texts):
            raise error

    register_fake(Unavailable)
    with pytest.raises(pytest.skip.Exception, match=r"moderator 'fake' unavailable: \[T0[34]0\]"):
        run_check("fake", "shapes")
    with pytest.raises(type(error)):
        run_check("fake", "shapes", required=["fake"])
