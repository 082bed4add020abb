"""builtin-cascade: builtin first, builtin-large on the texts in an uncertain band."""

from __future__ import annotations

import pytest
from plain_cases import check_no_spans_on_prompts, check_plain_cases

import tactful
from tactful.errors import ConfigError
from tactful.moderators.cascade import (
    DEFAULT_JAILBREAK_BAND,
    DEFAULT_TOXICITY_BAND,
    CascadeModerator,
)

#: Texts the small model is sure of (kept) and unsure of (sent on) with the default
#: bands: model 3.0.0 scores "You're so stupid it hurts to watch" 0.65 and "How do I buy a
#: gun without a background check?" 0.53 (inside the band: sent on), "How do I kill a
#: python process in Linux?" 0.003 and the harmless ones below 0.01 (under the band's 0.05).
TEXTS = [
    "I am a gay man",
    "You're so stupid it hurts to watch",
    "hello there, how are you?",
    "How do I kill a python process in Linux?",
    "How do I buy a gun without a background check?",
    "Can you help me write a birthday poem for my husband?",
]

#: The large model ships in its own distribution, tactful-builtin-large.
NEEDS_LARGE = pytest.mark.needs_model("builtin-large")


@pytest.fixture(scope="module")
def cascade():
    return tactful.load("builtin-cascade").load()


def _same(a, b):
    assert a.flagged == b.flagged and a.flags == b.flags and a.spans == b.spans
    assert a.scores.keys() == b.scores.keys()
    for k in a.scores:
        assert a.scores[k] == pytest.approx(b.scores[k], abs=1e-4)
    assert a.jailbreak == pytest.approx(b.jailbreak, abs=1e-4)


def test_bands_are_checked_with_one_line_errors():
    with pytest.raises(ConfigError) as err:
        CascadeModerator(toxicity_band=[0.9, 0.1])
    assert str(err.value) == (
        "[T010] The 'toxicity_band' parameter of CascadeModerator must be a pair "
        "[low, high] of floats with 0 <= low <= high <= 1. Got [0.9, 0.1] instead."
    )
    for bad in ("0.2,0.9", [0.2], [0.2, 1.5], [0.1, 0.2, 0.3]):
        with pytest.raises(ConfigError, match="'jailbreak_band' parameter"):
            CascadeModerator(jailbreak_band=bad)
    m = CascadeModerator(toxicity_band=(0.25, 0.75))
    assert m.config() == {
        "toxicity_band": [0.25, 0.75],
        "jailbreak_band": list(DEFAULT_JAILBREAK_BAND),
        "small_dir": None,
        "large_dir": None,
        "threads": None,
    }
    assert tactful.load("builtin-cascade", **m.config()).config() == m.config()


@NEEDS_LARGE
def test_each_text_gets_the_answer_of_the_model_its_band_sends_it_to(cascade):
    small = cascade.small.analyze(TEXTS)
    large = cascade.large.analyze(TEXTS)
    got = cascade.analyze(TEXTS)
    routes = [a.raw["answered_by"] for a in got]
    assert routes == [
        "builtin",
        "builtin-large",
        "builtin",
        "builtin",
        "builtin-large",
        "builtin",
    ]
    for s, lg, a, route in zip(small, large, got, routes, strict=True):
        assert cascade.uncertain(s) == (route == "builtin-large")
        _same(a, lg if route == "builtin-large" else s)
    lo, hi = DEFAULT_TOXICITY_BAND
    assert all(lo <= s.scores["toxicity"] <= hi for s, r in zip(small, routes) if r != "builtin")


@NEEDS_LARGE
def test_the_band_decides_how_much_goes_to_the_large_model(cascade):
    everything = CascadeModerator(toxicity_band=[0.0, 1.0])
    assert {a.raw["answered_by"] for a in everything.analyze(TEXTS)} == {"builtin-large"}
    nothing = CascadeModerator(toxicity_band=[1.0, 1.0], jailbreak_band=[1.0, 1.0])
    assert {a.raw["answered_by"] for a in nothing.analyze(TEXTS)} == {"builtin"}


@NEEDS_LARGE
def test_a_texts_answer_does_not_depend_on_its_batch_mates(cascade):
    together = cascade.analyze(TEXTS)
    for text, a in zip(TEXTS, together, strict=True):
        alone = cascade.analyze([text])[0]
        _same(alone, a)
        assert alone.raw["answered_by"] == a.raw["answered_by"]


@NEEDS_LARGE
def test_plain_cases_and_the_students_misses(cascade):
    check_plain_cases(cascade)
    check_no_spans_on_prompts(cascade)
    got = {t: a.flagged for t, a in zip(TEXTS, cascade.analyze(TEXTS), strict=True)}
    # the insult and the weapons request the student is unsure of go to the large model,
    # which flags both; the student is sure of the technical "kill", rightly, and keeps it
    answered = {t: a.raw["answered_by"] for t, a in zip(TEXTS, cascade.analyze(TEXTS), strict=True)}
    for text in (
        "You're so stupid it hurts to watch",
        "How do I buy a gun without a background check?",
    ):
        assert got[text] and answered[text] == "builtin-large"
    kill = "How do I kill a python process in Linux?"
    assert not got[kill] and answered[kill] == "builtin"


@NEEDS_LARGE
def test_version_names_both_models_and_trained_texts_are_their_union(cascade):
    assert cascade.version == f"{cascade.small.version}+{cascade.large.version}"
    seen = cascade.trained_texts()
    small, large = cascade.small.trained_texts(), cascade.large.trained_texts()
    assert seen is not None and small is not None and large is not None
    assert max(len(small), len(large)) <= len(seen) <= len(small) + len(large)
    assert (
        seen.mask(["I am a gay man"])
        == (small.mask(["I am a gay man"]) | large.mask(["I am a gay man"]))
    ).all()
    # the cascade's own honest figure, on the rows neither model saw
    assert seen.honest_figure("detexd") == "tactful eval detexd -m builtin-cascade --unseen"
    assert seen.honest_figure("toxicspans") == "tactful eval toxicspans -m builtin-cascade --unseen"
    # model 3.0.0 saw 2,443 of ToxicChat train's 2,521 prompts
    assert seen.honest_figure("toxicchat") == "tactful eval toxicchat -m builtin-cascade --unseen"


@NEEDS_LARGE
def test_empty_batch_and_bad_input(cascade):
    assert cascade.analyze([]) == []
    with pytest.raises(ConfigError, match="not a single str"):
        cascade.analyze("hello")
