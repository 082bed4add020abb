"""The registry: unknown names and unknown options are one-line ConfigErrors."""

from __future__ import annotations

import re

import pytest

import tactful
from tactful.errors import UNKNOWN_OPTION_MESSAGE, ConfigError, UnknownNameError


def test_unknown_option_lists_the_options_the_moderator_takes():
    expected = UNKNOWN_OPTION_MESSAGE.format(name="random", key="sede", known="rate, seed")
    with pytest.raises(ConfigError, match=re.escape(expected)):
        tactful.load("random", sede=3)


def test_known_options_still_build():
    assert tactful.load("random", seed=3).config()["seed"] == 3


def test_factory_with_var_keywords_decides_itself():
    class Loose:
        name, version = "loose", "1"

        def __init__(self, **kwargs: object) -> None:
            self.kwargs = kwargs

        def analyze(self, texts):
            return []

        def config(self):
            return dict(self.kwargs)

    with tactful.temporary_registration("_loose_test", Loose):
        assert tactful.load("_loose_test", anything=1).config() == {"anything": 1}


def test_unknown_name_lists_known_names():
    with pytest.raises(UnknownNameError, match="Known moderators: .*builtin.*lexicon"):
        tactful.load("no-such-moderator")
