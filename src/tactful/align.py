"""Offset alignment: keep every offset pointing into the text the user sent."""

from __future__ import annotations

import re

__all__ = ["REPLACEMENT_CHAR", "replace_surrogates"]

#: What a lone surrogate becomes for a tokenizer (U+FFFD REPLACEMENT CHARACTER).
REPLACEMENT_CHAR = "\ufffd"

_SURROGATE = re.compile("[\ud800-\udfff]")


def replace_surrogates(text: str) -> str:
    """``text`` with every surrogate code point replaced by U+FFFD, one for one.

    A Python ``str`` may hold lone surrogates (``"\\ud800"`` is valid JSON and
    ``json.loads`` returns it), but they cannot be encoded as UTF-8, so Rust
    tokenizers refuse them with a ``TypeError``. Replacing each by one
    U+FFFD keeps the length, so offsets computed on the result are offsets
    into ``text``.

    Parameters
    ----------
    text : str
        Any Python str.

    Returns
    -------
    str
        ``text`` itself when it holds no surrogate, else a copy of the same
        length with each surrogate replaced.

    Examples
    --------
    >>> replace_surrogates("a\\ud800b") == "a\\ufffdb"
    True
    """
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(REPLACEMENT_CHAR, text)
