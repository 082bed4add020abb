r"""Offsets into the text the user sent: words, span edges and offset maps.

Every span tactful reports is a half-open ``[start, end)`` range of Python code
points of the *original* text. This module holds the few rules that keep it so,
each written once and used everywhere:

* :func:`word_spans`, the one word tokenizer (the lexicon, the identity tagger and
  the obfuscation decoder use it);
* :func:`trim_span`, the one span-edge rule (the builtin model's spans and the
  decoder's sentence-end rule);
* :class:`Normalized` and :func:`align_tokens`, the maps from a normalized text
  and from tokenizer offsets back to the original characters;
* :func:`replace_surrogates`, so that any Python ``str`` can reach a tokenizer.

Words
-----
A word is a run of letters and digits (``str.isalnum``) in which:

* combining marks (Unicode category M) belong to the word, so a span never cuts a
  letter from its accent (``Cafe\u0301``) and zalgo marks do not split a word;
* format characters (category Cf: zero-width space and joiners, soft hyphen, BOM)
  join two parts of a word but never start or end one (``id\u200biot`` is one word);
* the ``joiners`` (default ``'``, ``’``, ``*``) join two parts the same way:
  ``don't``, ``f*ck`` and ``a**hole`` are one word each;
* everything else separates words, the underscore included (``stupid_idiot`` is
  two words), unless it is one of the ``symbols`` the caller counts as letters: the
  obfuscation decoder passes its leet and mask symbols (``sh!t``, ``@ss``, ``*shit*``)
  and no joiners.

On text without marks and format characters, the default is the regular expression
:data:`WORD_PATTERN`.

Span edges
----------
A span covers whole words: :func:`trim_span` drops from both ends every character
that is not a letter, digit, combining mark or one of :data:`WORD_SYMBOLS` (the
symbols that stand for or mask a letter inside a disguised word: ``f*ck``, ``@ss``,
``$hit``), and from the end a run of :data:`SENTENCE_END` (``!``, ``?``): those end a
sentence, never a word (``idiot!`` → ``idiot``, ``sh!t!`` → ``sh!t``).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from .errors import ConfigError

__all__ = [
    "JOINERS",
    "REPLACEMENT_CHAR",
    "SENTENCE_END",
    "WORD_PATTERN",
    "WORD_SYMBOLS",
    "Normalized",
    "align_tokens",
    "replace_surrogates",
    "strip_format",
    "trim_span",
    "word_spans",
    "words",
]

#: What a lone surrogate becomes for a tokenizer (U+FFFD REPLACEMENT CHARACTER).
REPLACEMENT_CHAR = "\ufffd"

#: Characters that join two parts of a word by default: apostrophes and the asterisk.
JOINERS = "'\u2019*"

#: The default word rule as a regular expression, exact on text without combining
#: marks and format characters (``scripts/build_lexicon.py`` records it).
WORD_PATTERN = r"[^\W_]+(?:[*'\u2019]+[^\W_]+)*"

#: Symbols that stand for a letter (leetspeak ``@ $ ! | + €``) or mask one
#: (``* # % ? _``) inside a disguised word; a span keeps them at its edges.
WORD_SYMBOLS = "!#$%*+?@_|\u20ac"

#: A trailing run of these ends a sentence, never a word.
SENTENCE_END = "!?"

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


# -- words ---------------------------------------------------------------------------------


class _Classes(dict[int, str]):
    """Code point → ``"a"`` (word), ``"'"`` (joiner) or ``" "``, filled on first sight.

    ``str.translate`` with it gives a same-length *shadow* of a text on which one
    small regular expression finds the words.
    """

    def __init__(self, symbols: str, joiners: str) -> None:
        super().__init__()
        self.symbols, self.joiners = symbols, joiners

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        if ch.isalnum() or ch in self.symbols:
            cls = "a"
        elif ch in self.joiners:
            cls = "'"
        else:
            cat = unicodedata.category(ch)
            cls = "a" if cat[0] == "M" else "'" if cat == "Cf" else " "
        self[code] = cls
        return cls


_SHADOW_WORD = re.compile("a+(?:'+a+)*")


@functools.lru_cache(maxsize=16)
def _rules(symbols: str, joiners: str) -> tuple[re.Pattern[str], _Classes]:
    unit = "[^\\W_]" if not symbols else f"(?:[^\\W_]|[{re.escape(symbols)}])"
    glue = f"[{re.escape(joiners)}]+" if joiners else None
    ascii_word = f"{unit}+(?:{glue}{unit}+)*" if glue else f"{unit}+"
    return re.compile(ascii_word), _Classes(symbols, joiners)


def word_spans(text: str, *, symbols: str = "", joiners: str = JOINERS) -> list[tuple[int, int]]:
    """The words of ``text`` as half-open offsets, by the module's word rule.

    Parameters
    ----------
    text : str
        The original text; offsets index it directly.
    symbols : str, default=""
        Characters counted as letters (the decoder passes :data:`WORD_SYMBOLS`).
    joiners : str, default=:data:`JOINERS`
        Characters that join two parts of a word but never start or end one.

    Returns
    -------
    list of (int, int)
        ``(start, end)`` per word, in order.

    Examples
    --------
    >>> text = "Don't f*ck with id\\u200biot_s!"
    >>> [text[s:e] for s, e in word_spans(text)]
    ["Don't", 'f*ck', 'with', 'id\\u200biot', 's']
    >>> text = "sh!t, @ss"
    >>> [text[s:e] for s, e in word_spans(text, symbols=WORD_SYMBOLS, joiners="")]
    ['sh!t', '@ss']
    """
    pattern, classes = _rules(symbols, joiners)
    if text.isascii():
        return [m.span() for m in pattern.finditer(text)]
    return [m.span() for m in _SHADOW_WORD.finditer(text.translate(classes))]


def strip_format(word: str) -> str:
    """``word`` without its format characters (category Cf), for lookups.

    :func:`word_spans` keeps a zero-width space or soft hyphen *inside* a word
    (``id\u200biot``); a word's lookup key drops them (``idiot``).
    """
    if word.isascii():
        return word
    return "".join(c for c in word if unicodedata.category(c) != "Cf")


def words(text: str, *, symbols: str = "", joiners: str = JOINERS) -> list[str]:
    """The words of ``text`` as strings: ``[text[s:e] for s, e in word_spans(text)]``, faster.

    For callers that need the words, not their offsets (the identity tagger).

    >>> words("Don't stop, f*ck it")
    ["Don't", 'stop', 'f*ck', 'it']
    """
    pattern, classes = _rules(symbols, joiners)
    if text.isascii():
        return pattern.findall(text)
    return [text[m.start() : m.end()] for m in _SHADOW_WORD.finditer(text.translate(classes))]


# -- span edges ----------------------------------------------------------------------------


def _wordish(ch: str) -> bool:
    return ch.isalnum() or ch in WORD_SYMBOLS or unicodedata.category(ch)[0] == "M"


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` of ``text`` shrunk to the word characters at its edges.

    Drops from both ends the characters that are not letters, digits, combining
    marks or :data:`WORD_SYMBOLS`, and from the end any :data:`SENTENCE_END`
    character as well.

    Returns
    -------
    (int, int)
        The trimmed range; empty (``start == end``) when nothing is left.

    Examples
    --------
    >>> text = "(you idiot!) f*ck!! Cafe\\u0301"
    >>> [text[s:e] for s, e in (trim_span(text, 0, 12), trim_span(text, 12, 19),
    ...                          trim_span(text, 19, len(text)))]
    ['you idiot', 'f*ck', 'Cafe\\u0301']
    """
    while end > start and (text[end - 1] in SENTENCE_END or not _wordish(text[end - 1])):
        end -= 1
    while start < end and not _wordish(text[start]):
        start += 1
    return start, end


# -- normalized text ↔ original text -------------------------------------------------------

_RANGE = tuple(range(4097))


@dataclass(frozen=True, slots=True)
class Normalized:
    """A normalized text with its character map into the original text.

    Attributes
    ----------
    original : str
        The text as given.
    text : str
        The normalized text (what the model reads).
    starts : tuple of int
        ``starts[i]`` is the offset in ``original`` where ``text[i]`` comes from;
        ``len(starts) == len(text)``, non-decreasing.
    ends : tuple of int
        ``ends[i]`` is the exclusive end offset in ``original`` of ``text[i]``'s
        source; non-decreasing, ``starts[i] < ends[i] <= len(original)``.
    """

    original: str
    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    @classmethod
    def unchanged(cls, text: str) -> Normalized:
        """``text`` as its own normalization, with the identity map."""
        n = len(text)
        if n < len(_RANGE):
            return cls(text, text, _RANGE[:n], _RANGE[1 : n + 1])
        return cls(text, text, tuple(range(n)), tuple(range(1, n + 1)))

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """Map the half-open range ``[start, end)`` of :attr:`text` to :attr:`original`.

        Alignment is *expand*: a range that covers part of what one original
        character produced (the ``f`` of ``ﬁ``) maps to that whole character,
        and removed characters inside the range (zero-width characters,
        separators of spaced letters, combining marks) are covered.

        Parameters
        ----------
        start, end : int
            ``0 <= start <= end <= len(text)``.

        Returns
        -------
        (int, int)
            ``(starts[start], ends[end - 1])`` for a non-empty range. An empty
            range ``(k, k)`` maps to the empty range at the end of the original
            source of ``text[k - 1]``, or ``(0, 0)`` when ``k == 0``.

        Raises
        ------
        ConfigError
            If the offsets are not ints or do not satisfy
            ``0 <= start <= end <= len(text)``.

        Examples
        --------
        >>> from tactful.normalize import normalize
        >>> n = normalize("you f*ck!ng idiot")
        >>> n.text
        'you fucking idiot'
        >>> n.to_original(4, 11)
        (4, 11)
        """
        _check_range(start, end, len(self.text))
        if start == end:
            p = self.ends[start - 1] if start > 0 else 0
            return p, p
        return self.starts[start], self.ends[end - 1]


def align_tokens(offsets: Sequence[tuple[int, int]], norm: Normalized) -> list[tuple[int, int]]:
    """Map tokenizer offsets into ``norm.text`` to offsets into ``norm.original``.

    The model runtime tokenizes ``norm.text`` and maps every token back with it
    (character ↔ token offsets, then normalized ↔ original characters).

    Parameters
    ----------
    offsets : sequence of (int, int)
        Half-open character offsets into ``norm.text``, one per token, as
        ``tokenizers.Encoding.offsets`` gives them (special tokens are
        ``(0, 0)``).
    norm : Normalized
        The normalization that produced the tokenized text.

    Returns
    -------
    list of (int, int)
        One ``(start, end)`` into ``norm.original`` per token, mapped with
        :meth:`Normalized.to_original` (empty tokens stay empty).

    Raises
    ------
    ConfigError
        If an offset pair is malformed or out of range of ``norm.text``.

    Examples
    --------
    >>> from tactful.normalize import normalize
    >>> n = normalize("ｉｄｉｏｔ\\u200b!")
    >>> align_tokens([(0, 0), (0, 5), (5, 6)], n)
    [(0, 0), (0, 5), (6, 7)]
    """
    if norm.text == norm.original:
        # A text that normalization leaves unchanged has the identity map, so the
        # offsets are already offsets into the original: only check them.
        n = len(norm.text)
        out = []
        for pair in offsets:
            s, e = _pair(pair)
            _check_range(s, e, n)
            out.append((s, e))
        return out
    return [norm.to_original(*_pair(pair)) for pair in offsets]


def _pair(pair: object) -> tuple[int, int]:
    try:
        s, e = cast("tuple[int, int]", pair)
    except (TypeError, ValueError):
        raise ConfigError(
            f"A token offset must be a (start, end) pair. Got {pair!r} instead."
        ) from None
    return s, e


def _check_range(start: object, end: object, n: int) -> None:
    for name, v in (("start", start), ("end", end)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ConfigError(
                f"The {name!r} of a normalized range must be an int. Got {v!r} instead."
            )
    if not 0 <= start <= end <= n:  # type: ignore[operator]
        raise ConfigError(
            f"A normalized range must satisfy 0 <= start <= end <= {n}. "
            f"Got start={start}, end={end}."
        )
