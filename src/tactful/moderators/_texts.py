"""Input checks shared by the shipped moderators."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ConfigError

__all__ = ["check_texts"]


def check_texts(texts: Sequence[str]) -> list[str]:
    """``texts`` as a list, after checking it is a sequence of str.

    Raises
    ------
    ConfigError
        If ``texts`` is a single str (it would be read as characters) or holds a
        non-str item.
    """
    if isinstance(texts, str):
        raise ConfigError(
            "analyze() takes a sequence of texts, not a single str; wrap it in a list."
        )
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise ConfigError(f"analyze() takes str texts. Got {type(t).__name__} at position {i}.")
    return out
