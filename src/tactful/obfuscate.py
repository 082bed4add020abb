"""Seeded obfuscation of the toxic words of a data set, for the robustness benchmark.

Issue 3 asks that F1 on ToxicChat and ToxicSpans drops by at most 5 points when
the toxic words of the test texts are obfuscated. :func:`write_obfuscated` (the
command ``tactful train obfuscate``) makes those obfuscated test sets::

    tactful train obfuscate --dataset toxicspans --split test --seed 0 --out ts_obf.jsonl
    tactful train obfuscate --dataset toxicchat --split test --seed 0 --out tc_obf.jsonl

Which words: for ToxicSpans, the words inside the gold spans; ToxicChat has no
spans, so the words the shipped ``lexicon`` moderator finds. Function words
inside a span ("you are an idiot") are left alone: people disguise the
offensive word, not "the".

How: each word gets one method, drawn uniformly from :data:`METHODS`:

- ``asterisk``: one or two inner letters, vowels first, become ``*`` (``f*ck``);
- ``leet``: one or two letters become digits or symbols (``sh1t``, ``@ss``);
- ``spaced``: letters separated by a space, dot or dash (``f u c k``);
- ``zero_width``: one to three invisible characters inside the word;
- ``cyrillic``: one or two letters (at most half) become Cyrillic look-alikes;
- ``repeat``: one letter repeated to 3-6 copies (``fuuuuck``).

A method that does not apply to a word (no letter with a look-alike, say)
falls back to ``zero_width``. Gold spans are remapped so that they cover the
same words in the new text. Each row gets its own generator seeded from
``(seed, row id)``, so a row's perturbation does not depend on the other rows.

Output, one JSON object per line: ``id``, ``text``, ``label``, ``spans``
(``[[start, end], ...]`` into the new text: the gold spans for ToxicSpans, the
obfuscated lexicon spans for ToxicChat), ``methods`` (the method used per
obfuscated word) and, for ToxicChat, ``jailbreak``.
"""

from __future__ import annotations

import json
import random
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._types import Span
from .align import word_spans
from .errors import ConfigError
from .normalize import normalize

__all__ = ["METHODS", "ObfuscatedSet", "obfuscate", "obfuscate_with_methods", "write_obfuscated"]

#: The perturbations, in the order ``--methods`` lists them.
METHODS = ("asterisk", "leet", "spaced", "zero_width", "cyrillic", "repeat")

# Function words are not what people disguise.
_STOP = frozenset((
    "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "by", "for", "with",
    "from", "as", "is", "are", "was", "were", "be", "been", "being", "am", "you", "your", "yours",
    "he", "him", "his", "she", "her", "hers", "it", "its", "they", "them", "their", "we", "us",
    "our", "i", "me", "my", "mine", "this", "that", "these", "those", "who", "whom", "what",
    "which", "there", "here", "not", "no", "so", "just", "like", "all", "some", "any", "do",
    "does", "did", "have", "has", "had", "can", "will", "would", "should", "could", "may",
    "might", "must", "up", "out", "about", "than", "then", "too", "very",
))  # fmt: skip
_VOWELS = frozenset("aeiouAEIOU")
# Only substitutions tactful.normalize reads back (its leet table; the symbols are
# tactful.align.WORD_SYMBOLS).
_LEET = {
    "a": "4@", "e": "3", "i": "1!", "o": "0", "s": "$5", "t": "7", "l": "1", "b": "8", "g": "9",
    "A": "4@", "E": "3", "I": "1!", "O": "0", "S": "$5", "T": "7", "L": "1", "B": "8", "G": "9",
}  # fmt: skip
_CYRILLIC = {
    "a": "а", "c": "с", "e": "е", "o": "о", "p": "р", "x": "х", "y": "у", "i": "і", "s": "ѕ",
    "j": "ј", "h": "һ", "A": "А", "B": "В", "C": "С", "E": "Е", "H": "Н", "K": "К", "M": "М",
    "O": "О", "P": "Р", "T": "Т", "X": "Х", "Y": "У", "S": "Ѕ", "I": "І", "J": "Ј",
}  # fmt: skip
_ZERO_WIDTH = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad")
_SEPARATORS = (" ", ".", "-")


def _as_spans(text: str, spans_or_words: Sequence[Any]) -> list[tuple[int, int]]:
    """Gold spans as (start, end) pairs; words become their whole-word occurrences."""
    items = list(spans_or_words)
    if items and all(isinstance(x, str) for x in items):
        if not all(items):
            raise ConfigError("A word to obfuscate must be a non-empty str.")
        wanted = {w.lower() for w in items}
        return [(s, e) for s, e in word_spans(text) if text[s:e].lower() in wanted]
    out = []
    for x in items:
        if isinstance(x, Span):
            s, e = x.start, x.end
        else:
            try:
                s, e = x
            except (TypeError, ValueError):
                raise ConfigError(
                    f"A span to obfuscate must be a Span or a (start, end) pair. Got {x!r} instead."
                ) from None
        if (
            isinstance(s, bool)
            or isinstance(e, bool)
            or not isinstance(s, int)
            or not isinstance(e, int)
        ):
            raise ConfigError(f"Span offsets must be ints. Got ({s!r}, {e!r}) instead.")
        if not 0 <= s < e <= len(text):
            raise ConfigError(
                f"Span offsets must satisfy 0 <= start < end <= {len(text)}. Got ({s}, {e}) instead."
            )
        out.append((s, e))
    return out


def _words(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The words to disguise: words (tactful.align.word_spans) of >= 3 letters and nothing
    else inside a span, not function words."""
    words = []
    for s, e in spans:
        for a, b in word_spans(text[s:e]):
            word = text[s + a : s + b]
            if len(word) >= 3 and word.isalpha() and word.lower() not in _STOP:
                words.append((s + a, s + b))
    return sorted(set(words))


def _method_pieces(word: str, method: str, rng: random.Random) -> list[str] | None:
    """Per letter of ``word``, what replaces it; ``None`` when the method does not apply."""
    n = len(word)
    out = list(word)
    if method == "asterisk":
        inner = list(range(1, n - 1))
        vowels = [k for k in inner if word[k] in _VOWELS]
        k = rng.choice(vowels or inner)
        out[k] = "*"
        if n >= 5 and k + 1 < n - 1 and rng.random() < 0.5:
            out[k + 1] = "*"
        return out
    if method == "leet":
        # Never the last letter as "!": a final "!" reads as punctuation.
        cand = [k for k in range(n) if word[k] in _LEET]
        if not cand:
            return None
        for k in rng.sample(cand, min(len(cand), rng.choice((1, 2)), n - 1)):
            subs = _LEET[word[k]]
            if k == n - 1:
                subs = subs.replace("!", "") or subs
            out[k] = rng.choice(subs)
        return out
    if method == "spaced":
        sep = rng.choice(_SEPARATORS)
        return [c + sep for c in word[:-1]] + [word[-1]]
    if method == "zero_width":
        for k in rng.sample(range(n - 1), min(n - 1, rng.randint(1, 3))):
            out[k] = word[k] + rng.choice(_ZERO_WIDTH)
        return out
    if method == "cyrillic":
        cand = [k for k in range(n) if word[k] in _CYRILLIC]
        if not cand:
            return None
        # At most half of the letters, so the word stays mostly Latin.
        for k in rng.sample(cand, min(len(cand), rng.choice((1, 2)), n // 2)):
            out[k] = _CYRILLIC[word[k]]
        return out
    if method == "repeat":
        vowels = [k for k in range(n) if word[k] in _VOWELS]
        k = rng.choice(vowels or list(range(n)))
        out[k] = word[k] * rng.randint(3, 6)
        return out
    raise ConfigError(
        f"Unknown obfuscation method {method!r}. Known methods: {', '.join(METHODS)}."
    )


def obfuscate_with_methods(
    text: str,
    spans_or_words: Sequence[Any],
    *,
    seed: int,
    methods: Sequence[str] = METHODS,
) -> tuple[str, list[tuple[int, int]], list[str]]:
    """Like :func:`obfuscate`, and also the method used for each disguised word."""
    if not isinstance(text, str):
        raise ConfigError(f"obfuscate() needs a str. Got {type(text).__name__} instead.")
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise ConfigError(
            f"The 'methods' of obfuscate must be a non-empty subset of {', '.join(METHODS)}. "
            f"Got {list(methods)!r} instead."
        )
    spans = _as_spans(text, spans_or_words)
    rng = random.Random(seed)
    pieces = list(text)
    used = []
    for s, e in _words(text, spans):
        word = text[s:e]
        method = rng.choice(list(methods))
        out = _method_pieces(word, method, rng)
        if out is None:
            method = "zero_width"
            out = _method_pieces(word, method, rng)
        assert out is not None  # zero_width applies to every word of >= 2 letters
        pieces[s:e] = out
        used.append(method)
    # New offset of each original character; every piece is non-empty.
    starts = []
    pos = 0
    for p in pieces:
        starts.append(pos)
        pos += len(p)
    new_spans = [(starts[s], starts[e - 1] + len(pieces[e - 1])) for s, e in spans]
    return "".join(pieces), new_spans, used


def obfuscate(
    text: str,
    spans_or_words: Sequence[Any],
    *,
    seed: int,
    methods: Sequence[str] = METHODS,
) -> tuple[str, list[tuple[int, int]]]:
    """Disguise the toxic words of ``text``, reproducibly.

    Parameters
    ----------
    text : str
        The text.
    spans_or_words : sequence
        Either gold spans (``(start, end)`` pairs or :class:`tactful.Span`), whose
        words are disguised, or words (``str``), whose whole-word occurrences
        (case-insensitive) are disguised.
    seed : int
        Seed of the random choices; the same seed gives the same output.
    methods : sequence of str, default :data:`METHODS`
        The methods to draw from, one per word.

    Returns
    -------
    text : str
        The new text.
    spans : list of (int, int)
        The given spans (or the occurrences of the given words, sorted)
        remapped into the new text, in the same order.

    Raises
    ------
    ConfigError
        Bad spans, an empty word or an unknown method.

    Examples
    --------
    >>> obfuscate("you idiot", [(4, 9)], seed=0, methods=["asterisk"])
    ('you idi*t', [(4, 9)])
    """
    new_text, spans, _ = obfuscate_with_methods(text, spans_or_words, seed=seed, methods=methods)
    return new_text, spans


def _row_seed(seed: int, row_id: str) -> int:
    # Per row, so that a row's perturbation does not depend on the rows before it.
    return zlib.crc32(f"{seed}:{row_id}".encode())


def _rows(
    dataset: str, split: str, data_dir: str | None, limit: int | None
) -> list[dict[str, Any]]:
    from tactful.datasets import load_dataset

    records = load_dataset(dataset, split, data_dir)
    if limit is not None:
        records = records[:limit]
    if dataset == "toxicspans":
        return [
            {
                "id": r.id,
                "text": r.text,
                "label": r.label,
                "spans": [(s.start, s.end) for s in r.spans or ()],
            }
            for r in records
        ]
    import tactful

    lexicon = tactful.load("lexicon")
    found = lexicon.analyze([r.text for r in records])
    return [
        {
            "id": r.id,
            "text": r.text,
            "label": r.label,
            "jailbreak": r.labels.get("jailbreak"),
            "spans": [(s.start, s.end) for s in a.spans],
        }
        for r, a in zip(records, found, strict=True)
    ]


@dataclass(frozen=True)
class ObfuscatedSet:
    """What :func:`write_obfuscated` wrote.

    Attributes
    ----------
    rows : int
        Rows written.
    changed : int
        Rows whose text changed.
    recovered : int
        Changed rows whose text :func:`tactful.normalize.normalize` restores whole.
    methods : dict of str to int
        Obfuscated words per method, in :data:`METHODS` order (methods used only).
    """

    rows: int
    changed: int
    recovered: int
    methods: dict[str, int]

    def summary(self, dataset: str, split: str, out: Path) -> str:
        """The one-line summary ``tactful train obfuscate`` prints."""
        per_method = ", ".join(f"{m} {n}" for m, n in self.methods.items())
        return (
            f"{dataset}/{split}: {self.rows} rows, {self.changed} changed, "
            f"{sum(self.methods.values())} words obfuscated ({per_method or 'none'}); "
            f"tactful.normalize restores {self.recovered} of the {self.changed} changed texts "
            f"-> {out}"
        )


def write_obfuscated(
    dataset: str,
    out: str | Path,
    *,
    split: str = "test",
    seed: int = 0,
    methods: Sequence[str] = METHODS,
    data_dir: str | None = None,
    limit: int | None = None,
) -> ObfuscatedSet:
    """Write an obfuscated copy of a test set as JSON lines (see the module docstring).

    Parameters
    ----------
    dataset : {"toxicspans", "toxicchat"}
        The data set.
    out : str or Path
        The JSON-lines file to write (its folder is made).
    split : str
        The split.
    seed : int
        The seed; each row's generator is seeded from ``(seed, row id)``.
    methods : sequence of str
        The methods drawn from (a subset of :data:`METHODS`).
    data_dir : str, optional
        The data folder (default: ``$TACTFUL_DATA``).
    limit : int, optional
        Only the first ``limit`` rows.

    Returns
    -------
    ObfuscatedSet

    Raises
    ------
    ConfigError
        For an unknown data set or method.
    """
    if dataset not in ("toxicspans", "toxicchat"):
        raise ConfigError(
            f"write_obfuscated() takes dataset 'toxicspans' or 'toxicchat'. Got {dataset!r}."
        )
    path = Path(out)
    rows = _rows(dataset, split, data_dir, limit)
    counts: Counter[str] = Counter()
    changed = recovered = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            text, spans, used = obfuscate_with_methods(
                row["text"], row["spans"], seed=_row_seed(seed, row["id"]), methods=methods
            )
            counts.update(used)
            if text != row["text"]:
                changed += 1
                # How often the normalizer undoes the whole perturbation.
                recovered += normalize(text).text == normalize(row["text"]).text
            line = {**row, "text": text, "spans": [list(s) for s in spans], "methods": used}
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    return ObfuscatedSet(
        len(rows), changed, recovered, {m: counts[m] for m in METHODS if counts[m]}
    )
