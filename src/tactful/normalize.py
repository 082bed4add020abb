r"""Obfuscation-robust input: undo disguised spellings before the model reads a text.

People hide words from moderators with look-alike characters (``𝐟𝐮𝐜𝐤``, ``fuсk``
with a Cyrillic ``с``), invisible characters (``id\u200biot``), symbols inside a
word (``f*ck``, ``sh!t``, ``@ss``), leetspeak (``1d10t``), spaced letters
(``f u c k``, ``s.h.i.t``) and stretched letters (``fuuuuck``). :func:`normalize`
folds these back and keeps, for every character of the text it produces, the
range of the original text it came from, so that spans found in the normalized
text point into the text the user sent (:class:`tactful.align.Normalized`,
:func:`tactful.align.align_tokens`).

Policy (conservative: clean text comes out unchanged, with the identity map):

1. Per character, always applied:

   - compatibility letters fold to ASCII letters (NFKC of that one character):
     full-width ``ｆ``, ligatures ``ﬁ``, mathematical ``𝐟``, circled ``ⓕ``.
     Only characters above U+00FF whose NFKC form is ASCII letters fold, so
     ``™``, ``²``, ``ª`` and full-width digits and punctuation (CJK text) stay;
   - always-invisible characters are removed: U+00AD, U+034F, U+180E, U+200B,
     U+2060..U+2064, U+FEFF;
   - ZWNJ/ZWJ (U+200C, U+200D) and combining marks, variation selectors
     included, are removed after a Latin letter only, so emoji sequences
     (``❤️``, ``👨‍👩‍👧``, ``1️⃣``) and Arabic, Persian or Indic text keep them.
     A removed mark belongs to the letter before it: that letter's range grows
     to cover it. (Decomposed accents on Latin letters are therefore removed
     too; precomposed ``é`` is left alone, see 3.)

2. Spaced letters: three or more single characters separated by single spaces,
   dots, dashes or underscores (``f u c k``, ``s.h.i.t``, ``i-d-1-o-t``) are
   joined when the joined word decodes (rule 3) to a word of :func:`target_words`;
   ``U.S.A.`` and ``a b c`` stay.

3. Words (:func:`tactful.align.word_spans` with the symbols
   :data:`tactful.align.WORD_SYMBOLS` ``@$!|*#%+?_€`` counted as letters) are rewritten
   only when they decode to a word of :func:`target_words` (or an inflection:
   ``s``, ``es``, ``ed``, ``er``, ``ing``, ``in``, ``y``, ...). Decoding reads
   leetspeak (``0 1 3 4 5 7 8 9 @ $ ! | + €``) as the letters they stand for,
   masking symbols (``* # % ? _``) as any letter (a run of k masks as k or
   k - 1 letters: ``sh**t``), accented Latin letters and Cyrillic/Greek
   look-alikes as their base Latin letter, and a run of three or more equal
   letters as one or two. Where several words fit, the earliest of
   :func:`target_words` wins, bare words before inflections (``s**t`` is
   ``shit``, ``b*****d`` is ``bastard``). A word with a single real letter must
   start with it and may only read as a bare profanity (``a**`` is ``ass``,
   ``f***`` is ``fuck``; ``5*x`` and ``f__`` stay). Edge symbols are tried
   without, then with, cutting only between runs: ``idiot!`` and ``*shit*``
   keep their punctuation, ``a$$`` reads ``ass``, and a final ``!`` or ``?``
   always ends the word (:data:`tactful.align.SENTENCE_END`, the span-edge rule). Words that decode to nothing stay as typed: ``mp3``,
   ``4chan``, ``h4x0r``, ``a*b``, ``2024``, ``$50``, ``3.14``, ``soooo``. URLs
   and e-mail addresses are never touched.

4. Look-alikes: a word mixing Latin letters with Cyrillic or Greek look-alikes
   (``hеllo``) has them folded to Latin when at least half of its letters are
   Latin and all its other letters are look-alikes. Wholly Cyrillic or Greek
   words stay unless they decode to a target word (rule 3).

Why a target vocabulary instead of decoding every leetspeak-looking token:
generic decoding rewrites clean tokens (``mp3`` → ``mpe``, ``2nd``, ``x86``,
``covid19``, ``U.S.A.``, ``Hmmm``), and obfuscation in the wild hides the
offensive word, which is what the vocabulary lists (``tactful/data/words/vocabulary.tsv``,
the words with the use ``decode``; see :mod:`tactful.wordlists`). Stretched letters that do
not give a target word (``soooo``) are left as typed for the same reason.

On real text: of the 2,853 ToxicChat 0124 test prompts none is changed, and
of the 2,000 SemEval-2021 ToxicSpans test posts 32 are, each a genuine
disguise (``F#ck``, ``pi$$``, ``b*****d``, ``patheticccc``, ``ki11``, ...);
measured with ``sum(normalize(r.text).text != r.text for r in
tactful.datasets.load_dataset(name, "test"))``.

Every replacement maps each output character to a contiguous, non-decreasing
range of original characters, so :meth:`Normalized.to_original` of a word's
range is exactly the original obfuscated substring: in ``you f*ck!ng idiot``
the word ``fucking`` of the normalized text maps back to ``f*ck!ng``.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Sequence
from typing import NamedTuple

from .align import SENTENCE_END, WORD_SYMBOLS, Normalized, word_spans
from .errors import ConfigError
from .wordlists import vocabulary

__all__ = ["normalize", "target_words"]


# --------------------------------------------------------------------------------------
# Target vocabulary
# --------------------------------------------------------------------------------------

_SUFFIXES = ("s", "es", "d", "ed", "er", "ers", "ing", "in", "y", "ty", "ey", "ish", "est")


def target_words() -> tuple[str, ...]:
    """The words obfuscated spellings are decoded to, in priority order.

    Where several fit a mask, the earliest wins (``s**t`` is ``shit``,
    ``b*****d`` is ``bastard``). They are the words of
    ``tactful/data/words/vocabulary.tsv`` with the use ``decode`` (profanity,
    slurs, insults and threats, sexual terms, and the identity terms disguised
    insults target), pinned by sha256. Each word also matches with the
    inflections in ``_SUFFIXES`` (after every bare word in priority).

    Raises
    ------
    ModelError
        If the word list is not the pinned one.
    """
    return _forms().targets


class _Forms(NamedTuple):
    targets: tuple[str, ...]
    forms: tuple[str, ...]  # bare words, then inflections; the index is the priority
    by_len: dict[int, frozenset[int]]
    by_pos: dict[tuple[int, int, str], frozenset[int]]
    all: frozenset[str]
    longest: int
    # A word with one real letter ("a**", "f***") is mostly guesswork: it may
    # only read as a bare profanity ("f__" stays, rather than becoming a slur).
    one_letter: frozenset[int]


@functools.cache
def _forms() -> _Forms:
    words = [w for w in vocabulary() if "decode" in w.uses]
    targets = tuple(w.word for w in words)
    profanity = {w.word for w in words if w.category == "profanity"}
    forms: list[str] = []
    seen: set[str] = set()
    # Bare words first, then inflected forms: "b*****d" is "bastard", not "bitched".
    for form in (*targets, *(w + s for w in targets for s in _SUFFIXES)):
        # A form with three equal letters in a row ("ass" + "s") would not
        # survive a second normalization, which reads the run as one or two.
        if form not in seen and not re.search(r"(.)\1\1", form):
            seen.add(form)
            forms.append(form)
    # Position index: the ids (= priority ranks) of the forms of length L with
    # letter c at position p. Matching a pattern is a few set intersections.
    by_len: dict[int, set[int]] = {}
    by_pos: dict[tuple[int, int, str], set[int]] = {}
    for fid, form in enumerate(forms):
        by_len.setdefault(len(form), set()).add(fid)
        for p, c in enumerate(form):
            by_pos.setdefault((len(form), p, c), set()).add(fid)
    return _Forms(
        targets,
        tuple(forms),
        {k: frozenset(v) for k, v in by_len.items()},
        {k: frozenset(v) for k, v in by_pos.items()},
        frozenset(forms),
        max(map(len, forms)),
        frozenset(i for i, f in enumerate(forms[: len(targets)]) if f in profanity),
    )


_EMPTY: frozenset[int] = frozenset()


@functools.lru_cache(maxsize=2048)
def _ids_at(length: int, pos: int, letters: str) -> frozenset[int]:
    """Ids of the forms of ``length`` with one of ``letters`` at ``pos``."""
    by_pos = _forms().by_pos
    if len(letters) == 1:
        return by_pos.get((length, pos, letters), _EMPTY)
    return frozenset().union(*(by_pos.get((length, pos, c), _EMPTY) for c in letters))


# --------------------------------------------------------------------------------------
# Character tables
# --------------------------------------------------------------------------------------

# fmt: off
_LEET: dict[str, str] = {
    "0": "o", "1": "il", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g",
    "@": "a", "$": "s", "!": "il", "|": "li", "+": "t", "€": "e",
}
# fmt: on
_MASKS = "*#%?_"
# Symbols that may start or end a word without being part of it.
_EDGE_LEAD = frozenset("*#%?_!|+")
_EDGE_TRAIL = frozenset("*#%?_!|+@$")

# fmt: off
_CONFUSABLES: dict[str, str] = {
    # Cyrillic
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "ѕ": "s", "і": "i",
    "ј": "j", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "к": "k",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ӏ": "I",
    # Greek
    "α": "a", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
}
# fmt: on

_ALWAYS_DROP = frozenset("\u00ad\u034f\u180e\u200b\u2060\u2061\u2062\u2063\u2064\ufeff")
_JOINERS = frozenset("\u200c\u200d")
# Characters that belong to the character before them (combining marks,
# variation selectors, joiners): kept with their base inside a word token.
_TAIL_CLASS = (
    "\u0300-\u036f\u0483-\u0489\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
    "\u200c\u200d\ufe00-\ufe0f\U000e0100-\U000e01ef"
)
_SYMBOLS = "".join(_LEET) + _MASKS
_SYM_CLASS = re.escape("".join(sorted(set(_SYMBOLS) - set("0123456789_"))))

_KEEP, _FOLD, _DROP, _MARK, _JOIN = range(5)


@functools.lru_cache(maxsize=4096)
def _char_kind(ch: str) -> tuple[int, str]:
    """What pass 1 does with a non-ASCII character (cached per character)."""
    if ch in _ALWAYS_DROP:
        return _DROP, ""
    if ch in _JOINERS:
        return _JOIN, ""
    cat = unicodedata.category(ch)
    if cat in ("Mn", "Me"):
        return _MARK, ""
    o = ord(ch)
    if o > 0xFF and (cat[0] == "L" or 0x24B6 <= o <= 0x24E9 or 0x1F130 <= o <= 0x1F149):
        folded = unicodedata.normalize("NFKC", ch)
        if folded != ch and folded.isascii() and folded.isalpha():
            return _FOLD, folded
    return _KEEP, ""


def _is_latin_letter(ch: str) -> bool:
    if ch.isascii():
        return ch.isalpha()
    return ch.isalpha() and ("\u00c0" <= ch <= "\u024f" or "\u1e00" <= ch <= "\u1eff")


# Kind of a decoding unit: a letter that is itself (ASCII or accented Latin), a
# look-alike letter, or a symbol standing for a letter.
_LATIN, _LOOKALIKE, _SYMBOL = range(3)


@functools.lru_cache(maxsize=4096)
def _piece(ch: str) -> tuple[str | None, int] | None:
    """The letters one character may stand for (``None`` = any letter) and its unit kind."""
    if ch.isascii():
        if ch.isalpha():
            return ch.lower(), _LATIN
        if ch in _LEET:
            return _LEET[ch], _SYMBOL
        if ch in _MASKS:
            return None, _SYMBOL
        return None
    if ch in _CONFUSABLES:
        return _CONFUSABLES[ch].lower(), _LOOKALIKE
    if ch in _LEET:
        return _LEET[ch], _SYMBOL
    if _is_latin_letter(ch):
        base = unicodedata.normalize("NFD", ch)[0]
        if base.isascii() and base.isalpha():
            return base.lower(), _LATIN
        return None
    folded = unicodedata.normalize("NFKC", ch)
    if len(folded) == 1 and folded.isascii() and not folded.isalpha():
        return _piece(folded)  # full-width or mathematical digits and symbols
    return None


# --------------------------------------------------------------------------------------
# Regular expressions (compiled once)
# --------------------------------------------------------------------------------------


def _foldable_chars() -> str:
    # The blocks that hold letters whose NFKC form is ASCII letters (Latin
    # extended, phonetic and letter-like symbols, super/subscripts, circled and
    # squared letters, ligatures, full-width forms, mathematical alphanumerics).
    blocks = (
        (0x0100, 0x024F),
        (0x02B0, 0x02FF),
        (0x1D00, 0x1DBF),
        (0x2070, 0x218F),
        (0x2460, 0x24FF),
        (0x2C60, 0x2C7F),
        (0xA700, 0xA7FF),
        (0xFB00, 0xFB06),
        (0xFF21, 0xFF5A),
        (0x1D400, 0x1D7FF),
        (0x1F130, 0x1F149),
    )
    codes = [o for lo, hi in blocks for o in range(lo, hi + 1) if _char_kind(chr(o))[0] == _FOLD]
    # As a regex class of ranges: a class of ~900 single characters is slow to scan.
    ranges: list[list[int]] = []
    for o in codes:
        if ranges and ranges[-1][1] == o - 1:
            ranges[-1][1] = o
        else:
            ranges.append([o, o])
    return "".join(
        re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "") for a, b in ranges
    )


_FOLDABLE = _foldable_chars()
# Non-ASCII characters pass 1 may change; every other character is kept as is.
_SPECIAL = re.compile(
    f"[{re.escape(''.join(sorted(_ALWAYS_DROP | _JOINERS)))}{_TAIL_CLASS}{_FOLDABLE}]"
)
_TRIPLE = re.compile(r"([^\W\d_])\1\1")
# An ASCII text matching none of these has nothing to decode (the fast path):
# a letter touching a digit or symbol, three equal letters, spaced single
# characters. Each check starts with a cheaper pre-filter.
_ASCII_SYMS = "".join(sorted(c for c in set(_SYMBOLS) if c.isascii() and not c.isalnum()))
_ASCII_SYM = re.escape(_ASCII_SYMS)
_ASCII_SYMBOL = re.compile(f"[0-9{_ASCII_SYM}]")
# A trailing "!" or "?" ends a sentence, so it never counts as a letter.
_NOT_END = re.escape(_ASCII_SYMS.replace("!", "").replace("?", ""))
_SUSPECT_SYMBOL = re.compile(f"[A-Za-z][!?]*[0-9{_NOT_END}]|[0-9{_ASCII_SYM}][A-Za-z]")
_SUSPECT_TRIPLE = re.compile(r"(?i)([a-z])\1\1")
_ASCII_UNIT = f"[A-Za-z0-9{_ASCII_SYM.replace('_', '')}]"
_SPACED_PRE = re.compile(f"[ ._-]{_ASCII_UNIT}[ ._-]")
_SPACED_ASCII = re.compile(
    f"(?<![A-Za-z0-9]){_ASCII_UNIT}[ ._-]{_ASCII_UNIT}[ ._-]{_ASCII_UNIT}(?![A-Za-z0-9])"
)
# Characters a decodable token may hold; a token with any other character (a
# Cyrillic word with a non-look-alike letter, CJK, Arabic) is skipped at once.
_DECODABLE = re.compile(
    "[0-9A-Za-z_"
    + _SYM_CLASS
    + "\u00c0-\u024f\u1e00-\u1eff"
    + re.escape("".join(_CONFUSABLES))
    + _TAIL_CLASS
    + "\uff01-\uff5e\U0001d7ce-\U0001d7ff]+"
)
_URL = re.compile(
    r"(?:[A-Za-z][A-Za-z0-9+.\-]*://|www\.)\S+"
    r"|[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+"
)
_UNIT = rf"(?:[^\W_]|[{_SYM_CLASS}])"
_SPACED = re.compile(rf"(?<![^\W_]){_UNIT}(?:[ ._\-]{_UNIT}){{2,}}(?![^\W_])")
_TAIL_RE = re.compile(rf"[{_TAIL_CLASS}]")


# --------------------------------------------------------------------------------------
# Decoding one word
# --------------------------------------------------------------------------------------

_Decoded = tuple[str, tuple[tuple[int, int], ...]]


@functools.lru_cache(maxsize=16384)
def _decode(bases: str) -> _Decoded | None:
    """Decode a word given as its base characters (one per unit).

    Returns the target form (cased like the input) and, for each of its
    characters, the half-open range of ``bases`` indices it comes from; ``None``
    when no target form fits.
    """
    pieces: list[str | None] = []
    kinds: list[int] = []
    for b in bases:
        p = _piece(b)
        if p is None:
            return None
        pieces.append(p[0])
        kinds.append(p[1])
    letters = len(kinds) - kinds.count(_SYMBOL)
    n = len(pieces)
    vocab = _forms()
    if letters == 0 or n > vocab.longest + 8:
        return None
    # A lone letter must lead ("a**", not "5*x").
    one_letter = letters == 1
    if one_letter and kinds[0] == _SYMBOL:
        return None
    # Groups of units, each with the numbers of letters it may stand for: a run
    # of three or more equal letters reads as one or two ("fuuuck"), a run of
    # k >= 2 masks as k or k - 1 letters ("sh**t"), anything else as one.
    groups: list[tuple[str | None, int, int, tuple[int, ...]]] = []
    i = 0
    while i < n:
        j = i + 1
        while j < n and pieces[j] == pieces[i]:
            j += 1
        piece = pieces[i]
        if piece is None and j - i >= 2:
            groups.append((None, i, j, (j - i - 1, j - i)))
        elif j - i >= 3 and piece is not None and len(piece) == 1:
            groups.append((piece, i, j, (1, 2)))
        else:
            groups.extend((pieces[k], k, k + 1, (1,)) for k in range(i, j))
        i = j
    if sum(g[3][-1] for g in groups) < 3 or len(groups) > vocab.longest:
        return None
    best: tuple[int, tuple[int, ...]] | None = None
    for counts in itertools.islice(itertools.product(*(g[3] for g in groups)), 64):
        length = sum(counts)
        cand = vocab.by_len.get(length)
        if one_letter and cand:
            cand = cand & vocab.one_letter
        pos = 0
        for (letters_, _, _, _), k in zip(groups, counts, strict=True):
            for _ in range(k):
                if letters_ is not None and cand:
                    cand = cand & _ids_at(length, pos, letters_)
                pos += 1
            if not cand:
                break
        if cand:
            fid = min(cand)
            if best is None or fid < best[0]:
                best = (fid, counts)
    if best is None:
        return None
    fid, counts_ = best
    return _recase(vocab.forms[fid], groups, counts_, bases)


def _recase(
    form: str,
    groups: list[tuple[str | None, int, int, tuple[int, ...]]],
    counts: tuple[int, ...],
    bases: Sequence[str],
) -> _Decoded:
    cased = [b for b in bases if b.isalpha()]
    shout = len(cased) >= 2 and all(b.isupper() for b in cased)
    chars: list[str] = []
    spans: list[tuple[int, int]] = []
    for (_, lo, hi, _), k in zip(groups, counts, strict=True):
        up = shout or (bases[lo].isalpha() and bases[lo].isupper())
        for c in form[len(chars) : len(chars) + k]:
            chars.append(c.upper() if up else c)
        if k == hi - lo:  # one letter per unit
            spans.extend((u, u + 1) for u in range(lo, hi))
        else:  # a squeezed run: each letter comes from the whole run
            spans.extend([(lo, hi)] * k)
    return "".join(chars), tuple(spans)


# --------------------------------------------------------------------------------------
# Passes
# --------------------------------------------------------------------------------------

# An edit replaces items [i0, i1) of the current text by ``out``; output char k
# comes from items [maps[k][0], maps[k][1]).
_Edit = tuple[int, int, str, Sequence[tuple[int, int]]]


def _apply(
    text: str, starts: list[int], ends: list[int], edits: list[_Edit]
) -> tuple[str, list[int], list[int]]:
    parts: list[str] = []
    ns: list[int] = []
    ne: list[int] = []
    pos = 0
    for i0, i1, out, maps in edits:
        parts.append(text[pos:i0])
        ns.extend(starts[pos:i0])
        ne.extend(ends[pos:i0])
        parts.append(out)
        for j0, j1 in maps:
            ns.append(starts[j0])
            ne.append(ends[j1 - 1])
        pos = i1
    parts.append(text[pos:])
    ns.extend(starts[pos:])
    ne.extend(ends[pos:])
    return "".join(parts), ns, ne


def _pass_chars(text: str) -> tuple[str, list[int], list[int]] | None:
    """Pass 1: fold compatibility letters, drop invisibles and marks on Latin letters."""
    hits = [(m.start(), _char_kind(m.group())) for m in _SPECIAL.finditer(text)]
    if not hits:
        return None
    parts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    changed = False
    for i, (kind, folded) in hits:
        if kind == _KEEP:
            continue
        if i > pos:
            parts.append(text[pos:i])
            starts.extend(range(pos, i))
            ends.extend(range(pos + 1, i + 1))
        pos = i + 1
        if kind == _FOLD:
            parts.append(folded)
            starts.extend([i] * len(folded))
            ends.extend([i + 1] * len(folded))
            changed = True
        elif kind == _DROP:
            changed = True
        elif parts and _is_latin_letter(parts[-1][-1]):
            # A mark or joiner after a Latin letter: obfuscation (strike-through
            # ｆ̶, zalgo, joiners inside a word). The letter's range covers a mark.
            if kind == _MARK:
                ends[-1] = i + 1
            changed = True
        else:
            parts.append(text[i])
            starts.append(i)
            ends.append(i + 1)
    if not changed:
        return None
    parts.append(text[pos:])
    starts.extend(range(pos, len(text)))
    ends.extend(range(pos + 1, len(text) + 1))
    return "".join(parts), starts, ends


def _protected(text: str) -> list[tuple[int, int]]:
    return (
        [m.span() for m in _URL.finditer(text)]
        if ("@" in text or "/" in text or "www." in text)
        else []
    )


def _inside(span: tuple[int, int], protected: list[tuple[int, int]]) -> bool:
    return any(s < span[1] and span[0] < e for s, e in protected)


def _pass_spaced(text: str, protected: list[tuple[int, int]]) -> list[_Edit]:
    """Pass 2: join spaced single letters that decode to a target word."""
    edits: list[_Edit] = []
    for m in _SPACED.finditer(text):
        if _inside(m.span(), protected):
            continue
        pos = list(range(m.start(), m.end(), 2))
        bases = [text[p] for p in pos]
        found: list[_Edit] = []
        _join_runs(bases, pos, 0, len(bases), found)
        edits.extend(sorted(found))
    return edits


def _join_runs(bases: list[str], pos: list[int], lo: int, hi: int, out: list[_Edit]) -> None:
    """The longest, then leftmost, sub-run of ``bases[lo:hi]`` that decodes; recurse on the rest."""
    for size in range(min(hi - lo, _forms().longest + 4), 2, -1):
        for a in range(lo, hi - size + 1):
            dec = _decode("".join(bases[a : a + size]))
            if dec is None:
                continue
            word, spans = dec
            maps = [(pos[a + u0], pos[a + u1 - 1] + 1) for u0, u1 in spans]
            out.append((pos[a], pos[a + size - 1] + 1, word, maps))
            _join_runs(bases, pos, lo, a, out)
            _join_runs(bases, pos, a + size, hi, out)
            return


def _pass_words(text: str, protected: list[tuple[int, int]]) -> list[_Edit]:
    """Pass 3: decode obfuscated words; fold look-alikes in mostly-Latin words."""
    edits: list[_Edit] = []
    n = len(text)
    for start, end in word_spans(text, symbols=WORD_SYMBOLS, joiners=""):
        # Joiners after a word's last character belong to that character (they go
        # with it when it is rewritten: "cu%\u200c" reads "cum", not "cum\u200c").
        while end < n and text[end] in _JOINERS:
            end += 1
        span = (start, end)
        tok = text[start:end]
        if tok.isascii():
            if tok.isdigit() or (tok.isalpha() and not _TRIPLE.search(tok)):
                continue
        elif not _DECODABLE.fullmatch(tok):
            continue
        if protected and _inside(span, protected):
            continue
        rel = _word_rewrite(tok)
        if rel is not None:
            k = span[0]
            i0, i1, word, maps = rel
            edits.append((k + i0, k + i1, word, [(k + a, k + b) for a, b in maps]))
    return edits


def _clusters(tok: str) -> list[tuple[int, int]]:
    """(start, end) in ``tok`` of each base character with its trailing marks."""
    out: list[tuple[int, int]] = []
    for k, ch in enumerate(tok):
        if out and _TAIL_RE.match(ch):
            out[-1] = (out[-1][0], k + 1)
        else:
            out.append((k, k + 1))
    return out


@functools.lru_cache(maxsize=16384)
def _word_rewrite(tok: str) -> _Edit | None:
    """The edit (offsets relative to ``tok``) that decodes one word token, if any.

    Cached: a corpus repeats its tokens, and a token's rewrite never depends on
    its context.
    """
    cl = _clusters(tok)
    n = len(cl)
    bases = [tok[s] for s, _ in cl]
    # Edge symbols are tried without, then with ("a$$" is "ass", "*shit*" is
    # "shit"), cutting only between runs ("f***" is never "f**" + "*"). A
    # trailing "!" or "?" always ends the word: it ends a sentence.
    lead = 0
    while lead < min(n - 1, 4) and bases[lead] in _EDGE_LEAD:
        lead += 1
    stop = 0
    while stop < n - lead and bases[n - 1 - stop] in SENTENCE_END:
        stop += 1
    trail = stop
    while trail < min(n - lead, stop + 4) and bases[n - 1 - trail] in _EDGE_TRAIL:
        trail += 1
    leads = [a for a in range(lead + 1) if a in (0, lead) or bases[a - 1] != bases[a]]
    trails = [
        b for b in range(stop, trail + 1) if b in (stop, trail) or bases[n - b - 1] != bases[n - b]
    ]
    candidates = sorted(((a, b) for a in leads for b in trails), key=lambda ab: -(ab[0] + ab[1]))
    for a, b in candidates:
        core = cl[a : n - b]
        if len(core) < 3:
            continue
        s0, e0 = core[0][0], core[-1][1]
        sub = tok[s0:e0]
        if sub.isascii() and sub.isalpha() and not _TRIPLE.search(sub):
            if sub.lower() in _forms().all:
                return None  # a target word as it is: nothing to decode
            continue
        dec = _decode("".join(bases[a : n - b]))
        if dec is None:
            continue
        word, spans = dec
        if word == sub:
            return None
        return s0, e0, word, tuple((core[u0][0], core[u1 - 1][1]) for u0, u1 in spans)
    return _fold_lookalikes(tok, cl, bases)


def _fold_lookalikes(tok: str, cl: list[tuple[int, int]], bases: list[str]) -> _Edit | None:
    latin = look = 0
    for b in bases:
        if b in _CONFUSABLES:
            look += 1
        elif _is_latin_letter(b):
            latin += 1
        elif b.isalpha():
            return None  # a genuinely non-Latin letter: not a disguised Latin word
    if look == 0 or latin < look:
        return None
    chars: list[str] = []
    maps: list[tuple[int, int]] = []
    for (s, e), b in zip(cl, bases, strict=True):
        if b in _CONFUSABLES:
            chars.append(_CONFUSABLES[b])
            maps.append((s, e))
        else:
            chars.extend(tok[s:e])
            maps.extend((k, k + 1) for k in range(s, e))
    return 0, len(tok), "".join(chars), tuple(maps)


# --------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------


def normalize(text: str) -> Normalized:
    """Undo obfuscated spellings, keeping a map back to the original characters.

    See the module docstring for the exact policy. Clean text, including
    emoji, CJK, Arabic, code, URLs, numbers and CRLF line ends, comes back
    unchanged with the identity map.

    Parameters
    ----------
    text : str
        The text as the user sent it.

    Returns
    -------
    Normalized
        ``text`` normalized, with per-character ``starts``/``ends`` into the
        original.

    Raises
    ------
    ConfigError
        If ``text`` is not a str.

    Examples
    --------
    >>> normalize("you f*ck!ng 1d10t").text
    'you fucking idiot'
    >>> normalize("f u c k off, ѕһіt").text
    'fuck off, shit'
    >>> normalize("Pay $50 by 2024-01-31, see https://x.io/a*b").text
    'Pay $50 by 2024-01-31, see https://x.io/a*b'
    """
    if not isinstance(text, str):
        raise ConfigError(f"normalize() needs a str. Got {type(text).__name__} instead.")
    ascii_text = text.isascii()
    if ascii_text and not _suspect(text):
        return Normalized.unchanged(text)
    # The current text and, per character, its original range; None = identity.
    cur = text
    mapped: tuple[list[int], list[int]] | None = None
    if not ascii_text:
        res = _pass_chars(text)
        if res is not None:
            cur, mapped = res[0], (res[1], res[2])
        if cur.isascii() and not _suspect(cur):
            return (
                Normalized.unchanged(text)
                if mapped is None
                else Normalized(text, cur, *map(tuple, mapped))
            )
    protected = _protected(cur)
    for run in (_pass_spaced, _pass_words):
        edits = run(cur, protected)
        if edits:
            if mapped is None:
                mapped = list(range(len(cur))), list(range(1, len(cur) + 1))
            cur, starts, ends = _apply(cur, mapped[0], mapped[1], edits)
            mapped = starts, ends
            protected = _protected(cur)
    if mapped is None:
        return Normalized.unchanged(text)
    return Normalized(text, cur, tuple(mapped[0]), tuple(mapped[1]))


def _suspect(text: str) -> bool:
    """Whether an ASCII text may hold something to decode."""
    if _ASCII_SYMBOL.search(text) and _SUSPECT_SYMBOL.search(text):
        return True
    if _SUSPECT_TRIPLE.search(text):
        return True
    return bool(_SPACED_PRE.search(text) and _SPACED_ASCII.search(text))
