"""``-O KEY=VALUE`` parsing (tactful.options) and temporary registrations."""

from __future__ import annotations

import re

import pytest

import tactful
from tactful.errors import ConfigError, UnknownNameError
from tactful.options import (
    AMBIGUOUS_OPTION_MESSAGE,
    DUPLICATE_OPTION_MESSAGE,
    MALFORMED_OPTION_MESSAGE,
    NO_MODERATOR_MESSAGE,
    UNKNOWN_PREFIX_MESSAGE,
    parse_option_value,
    parse_options,
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("30", 30),
        ("2.5", 2.5),
        ("true", True),
        ("null", None),
        ('"30"', "30"),
        ("[1, 2]", [1, 2]),
        ('{"a": 1}', {"a": 1}),
        ("gpt-4o", "gpt-4o"),
        ("http://127.0.0.1:8001/v1", "http://127.0.0.1:8001/v1"),
        ("", ""),
        ("NaN", "NaN"),  # not JSON: kept as the string it is
        ("a=b", "a=b"),
    ],
)
def test_values_are_json_when_they_parse(text, value):
    assert parse_option_value(text) == value
    assert type(parse_option_value(text)) is type(value)


def test_one_moderator_takes_bare_and_prefixed_keys():
    got = parse_options(
        ["base_url=http://127.0.0.1:8001/v1", "openai.timeout=2.5", "key==x"], ["openai"]
    )
    assert got == {"openai": {"base_url": "http://127.0.0.1:8001/v1", "timeout": 2.5, "key": "=x"}}


def test_several_moderators_need_prefixes():
    got = parse_options(
        ["openai.qps=2", "llama-guard-3.model=meta/llama", 'perspective.attributes=["INSULT"]'],
        ["openai", "perspective", "llama-guard-3", "lexicon"],
    )
    assert got == {
        "openai": {"qps": 2},
        "perspective": {"attributes": ["INSULT"]},
        "llama-guard-3": {"model": "meta/llama"},
        "lexicon": {},
    }
    with pytest.raises(ConfigError) as info:
        parse_options(["qps=2"], ["openai", "perspective"])
    assert str(info.value) == "[T010] " + AMBIGUOUS_OPTION_MESSAGE.format(
        key="qps", value="2", names="openai, perspective"
    )
    assert "write -O NAME.qps=2" in str(info.value)


def test_longest_moderator_name_wins():
    got = parse_options(["guard.v2.t=1", "guard.t=2"], ["guard", "guard.v2"])
    assert got == {"guard": {"t": 2}, "guard.v2": {"t": 1}}


@pytest.mark.parametrize(
    ("values", "moderators", "message"),
    [
        (["timeout"], ["openai"], MALFORMED_OPTION_MESSAGE.format(item="timeout")),
        (["=3"], ["openai"], MALFORMED_OPTION_MESSAGE.format(item="=3")),
        (["openai.=3"], ["openai"], MALFORMED_OPTION_MESSAGE.format(item="openai.=3")),
        (
            ["perspective.qps=1"],
            ["openai", "lexicon"],
            UNKNOWN_PREFIX_MESSAGE.format(
                item="perspective.qps=1", prefix="perspective", names="openai, lexicon"
            ),
        ),
        (
            ["timeout=1", "openai.timeout=2"],
            ["openai"],
            DUPLICATE_OPTION_MESSAGE.format(key="timeout", name="openai"),
        ),
        (["timeout=1"], [], NO_MODERATOR_MESSAGE.format(item="timeout=1")),
    ],
)
def test_malformed_options_are_one_line_config_errors(values, moderators, message):
    with pytest.raises(ConfigError, match="^" + re.escape("[T010] " + message) + "$"):
        parse_options(values, moderators)


def test_no_options_gives_an_empty_dict_per_moderator():
    assert parse_options([], ["a", "b", "a"]) == {"a": {}, "b": {}}


class _Echo:
    name = "echo"
    version = "1"

    def __init__(self, **config):
        self._config = config

    def config(self):
        return dict(self._config)

    def analyze(self, texts):
        return [tactful.Analysis(flagged=False) for _ in texts]


def test_temporary_registration_registers_for_the_block_only():
    assert "_echo" not in tactful.available()
    with tactful.temporary_registration("_echo", _Echo):
        assert "_echo" in tactful.available()
        options = parse_options(["threshold=0.3"], ["_echo"])["_echo"]
        assert tactful.load("_echo", **options).config() == {"threshold": 0.3}
    assert "_echo" not in tactful.available()
    with pytest.raises(UnknownNameError):
        tactful.load("_echo")


def test_temporary_registration_refuses_a_taken_name_and_cleans_up_on_error():
    taken = pytest.raises(ConfigError, match="A moderator named 'lexicon' is already registered")
    with taken, tactful.temporary_registration("lexicon", _Echo):
        pass
    assert tactful.load("lexicon").name == "lexicon"
    with pytest.raises(RuntimeError), tactful.temporary_registration("_echo", _Echo):
        raise RuntimeError("inside")
    assert "_echo" not in tactful.available()


def test_validate_arguments_checks_the_named_locals():
    from tactful.errors import PARAM_MESSAGE, ConfigError
    from tactful.params import Float, Int, validate_arguments

    rules = {"threshold": Float(0, 1), "limit": Int(1)}

    def f(threshold=0.5, limit=3, other="free"):
        return validate_arguments("f", rules, locals())

    assert f(1) == {"threshold": 1.0, "limit": 3}
    with pytest.raises(ConfigError) as err:
        f(limit=0)
    assert str(err.value) == "[T010] " + PARAM_MESSAGE.format(
        name="limit", owner="f", rule=rules["limit"].describe(), value=0
    )
