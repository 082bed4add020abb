"""The word lists tactful ships as package data, each pinned by its sha256.

Files under ``tactful/data/`` (the ``lexicon`` moderator's ``lexicon.json``, the
identity tagger's ``identity/terms.csv``, the decoder's and the lexicon builder's
``words/vocabulary.tsv`` and ``words/slur_exclusions.tsv``) are listed with their
sha256 in ``tactful/data/manifest.json``. :func:`read_bytes` checks a file against it
on every load, so a changed, truncated or unlisted file is one
:class:`~tactful.errors.ModelError` line instead of silently different answers. The
build scripts call :func:`pin` after writing a file; by hand::

    python -m tactful.wordlists pin words/vocabulary.tsv

``words/vocabulary.tsv`` is one list shared by :mod:`tactful.normalize` (the words it
decodes disguised spellings to) and ``scripts/build_lexicon.py`` (the profanity it
lists); each line says which uses a word has (see the file's header).
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ._hashing import sha256_file
from .errors import ModelError
from .params import OneOf, check_param

__all__ = [
    "CATEGORIES",
    "MANIFEST",
    "USES",
    "Word",
    "data_path",
    "pin",
    "read_bytes",
    "sha256_file",
    "slur_exclusions",
    "vocabulary",
    "words",
]

#: The manifest, relative to ``tactful/data``.
MANIFEST = "manifest.json"

#: Word categories of ``words/vocabulary.tsv``, in file order.
CATEGORIES = ("profanity", "slur", "insult", "threat", "sexual", "identity")

#: What a word is used for: decoded to by :mod:`tactful.normalize`, listed as
#: profanity by ``scripts/build_lexicon.py``.
USES = ("decode", "lexicon")

_VOCABULARY = "words/vocabulary.tsv"
_EXCLUSIONS = "words/slur_exclusions.tsv"


def data_path(rel: str = "") -> Path:
    """The path of ``tactful/data/<rel>`` in the installed package."""
    return Path(str(resources.files("tactful"))) / "data" / rel


def _manifest() -> dict[str, str]:
    path = data_path(MANIFEST)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        files = doc["files"]
        if not isinstance(files, dict):
            raise TypeError
    except FileNotFoundError:
        raise ModelError(f"The package data manifest {path} is missing.") from None
    except (OSError, ValueError, KeyError, TypeError):
        raise ModelError(f"The package data manifest {path} is not a valid manifest.") from None
    return {str(k): str(v) for k, v in files.items()}


def read_bytes(rel: str) -> bytes:
    """The bytes of the package data file ``tactful/data/<rel>``, checked against the manifest.

    Raises
    ------
    ModelError
        If the file is missing, not listed in ``manifest.json``, or its sha256 is
        not the pinned one (one line naming the file and both hashes).
    """
    want = _manifest().get(rel)
    path = data_path(rel)
    if want is None:
        raise ModelError(f"tactful/data/{rel} is not pinned in tactful/data/{MANIFEST}.")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ModelError(f"The package data file tactful/data/{rel} is missing.") from None
    got = hashlib.sha256(data).hexdigest()
    if got != want:
        raise ModelError(
            f"tactful/data/{rel} has SHA-256 {got}, expected {want} (pinned in "
            f"tactful/data/{MANIFEST}); the file was changed without re-pinning it."
        )
    return data


def pin(rel: str) -> str:
    """Record the current sha256 of ``tactful/data/<rel>`` in the manifest; return it.

    For the scripts that regenerate a package data file.
    """
    digest = sha256_file(data_path(rel))
    path = data_path(MANIFEST)
    try:
        files = _manifest()
    except ModelError:
        if path.exists():
            raise
        files = {}
    files[rel] = digest
    doc = {"format": 1, "files": dict(sorted(files.items()))}
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return digest


def _tsv(rel: str, columns: Sequence[str]) -> list[list[str]]:
    """Rows of a pinned tab-separated list (``#`` lines and blank lines skipped)."""
    lines = [
        ln for ln in read_bytes(rel).decode("utf-8").splitlines() if ln and not ln.startswith("#")
    ]
    if not lines or lines[0].split("\t") != list(columns):
        raise ModelError(f"tactful/data/{rel} must start with the header {'<TAB>'.join(columns)}.")
    rows = [ln.split("\t") for ln in lines[1:]]
    for i, row in enumerate(rows, start=2):
        if len(row) != len(columns) or not all(row):
            raise ModelError(
                f"tactful/data/{rel}: entry {i} needs {len(columns)} non-empty fields."
            )
    return rows


@dataclass(frozen=True, slots=True)
class Word:
    """One line of ``words/vocabulary.tsv``."""

    word: str
    category: str
    uses: frozenset[str]


@functools.cache
def vocabulary() -> tuple[Word, ...]:
    """Every word of ``words/vocabulary.tsv``, in file order (the decoder's priority).

    Raises
    ------
    ModelError
        If the file is not the pinned one, or an entry has an unknown category or
        use, is not lower case, or repeats a word.
    """
    out: list[Word] = []
    seen: set[str] = set()
    for word, category, uses in _tsv(_VOCABULARY, ("word", "category", "uses")):
        use_set = frozenset(uses.split())
        if category not in CATEGORIES or not use_set or not use_set <= set(USES):
            raise ModelError(
                f"tactful/data/{_VOCABULARY}: {word!r} has category {category!r} and uses "
                f"{uses!r}; known: {', '.join(CATEGORIES)} / {', '.join(USES)}."
            )
        if word != word.lower() or word in seen:
            raise ModelError(f"tactful/data/{_VOCABULARY}: {word!r} is not lower case or repeats.")
        seen.add(word)
        out.append(Word(word, category, use_set))
    return tuple(out)


def words(use: str) -> tuple[str, ...]:
    """The words with ``use`` (one of :data:`USES`), in file order.

    >>> words("decode")[:3]
    ('fuck', 'shit', 'bitch')
    """
    check_param("words", "use", use, OneOf(USES))
    return tuple(w.word for w in vocabulary() if use in w.uses)


@functools.cache
def slur_exclusions() -> dict[str, tuple[str, ...]]:
    """Reason → the slur-list terms the ``lexicon`` moderator leaves out for it (file order)."""
    out: dict[str, list[str]] = {}
    for term, reason in _tsv(_EXCLUSIONS, ("term", "reason")):
        out.setdefault(reason, []).append(term)
    return {reason: tuple(terms) for reason, terms in out.items()}


def _main(argv: Sequence[str]) -> int:
    if len(argv) < 2 or argv[0] != "pin":
        print("usage: python -m tactful.wordlists pin REL...", file=sys.stderr)
        return 2
    for rel in argv[1:]:
        print(f"{pin(rel)}  tactful/data/{rel}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
