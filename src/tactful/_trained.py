"""Rows a model was trained on: fingerprints of its training texts, and the warning
of a score over them.

A model folder may hold :data:`TRAINED_TEXTS_FILE`, the sorted 64-bit fingerprints
(:func:`text_fingerprint`) of every text it was trained on; :class:`TrainedTexts`
reads it, and :func:`tactful.evaluate.evaluate` counts the scored rows found in it.
The public import path is :mod:`tactful.evaluate`, which re-exports every name here.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import ModelError

if TYPE_CHECKING:
    from ._registry import Moderator

__all__ = [
    "IN_SAMPLE_ADVICE",
    "IN_SAMPLE_MESSAGE",
    "TRAINED_TEXTS_FILE",
    "TrainedTexts",
    "in_sample_count",
    "in_sample_warning",
    "match_key",
    "read_trained_texts",
    "text_fingerprint",
    "trained_texts",
]

#: The one-line warning of a score over rows the model was trained on. ``extent`` is
#: ``"an"`` when every scored row was, ``"a partly"`` otherwise; ``honest`` is the
#: command that gives the honest figure (in backticks) or :data:`IN_SAMPLE_ADVICE`.
IN_SAMPLE_MESSAGE = (
    "{n_in_sample:,} of {n:,} scored rows were in {moderator}'s training data: "
    "this is {extent} in-sample score, not a test score. The honest figure: {honest}."
)
#: The honest figure of a data set for which the model's card names no command.
IN_SAMPLE_ADVICE = "score a split the model never saw, or only the rows it did not see (--unseen)"
#: The file of a model folder that holds its training texts' fingerprints.
TRAINED_TEXTS_FILE = "trained_texts.bin"
_FINGERPRINT = np.dtype("<u8")


#: What :func:`match_key` drops: links and @-mentions, which each corpus pseudonymises
#: its own way (OLID ``@USER`` … ``URL``, TweetEval ``@user`` with links removed).
_LINK = re.compile(r"https?://\S+|www\.\S+|@\w+")
_WORD = re.compile(r"\w+")
#: OLID's placeholder for a link, dropped as a word.
_LINK_WORD = "url"


def match_key(text: str) -> str:
    """The form of ``text`` that training texts and scored rows are matched on.

    NFKC, case-folded, links and @-mentions (and the word ``url``) dropped, then its
    words (``\\w+``) joined by one space; ``text`` itself when no word is left (an
    emoji-only or empty text matches only itself). So copies of one text that
    corpora re-encoded differently match — TweetEval offensive is OLID with
    ``@USER`` lower-cased and ``URL`` removed — while another text does not.
    The builtin model is uncased, so these copies are one input to it.

    Examples
    --------
    >>> match_key("@USER Go home you’re drunk!!! URL")
    'go home you re drunk'
    >>> match_key("@user Go home you’re drunk!!! ")
    'go home you re drunk'
    >>> match_key("🙂")
    '🙂'
    """
    folded = _LINK.sub(" ", unicodedata.normalize("NFKC", text).casefold())
    words = [w for w in _WORD.findall(folded) if w != _LINK_WORD]
    return " ".join(words) if words else text


def text_fingerprint(text: str) -> int:
    """A text's 64-bit fingerprint: the first 8 bytes of the SHA-256 of its
    :func:`match_key` (UTF-8, lone surrogates passed through), little-endian.

    Two different keys share a fingerprint with probability 2**-64 per pair: about
    1e-10 for 50,000 training texts against 100,000 scored rows.
    """
    digest = hashlib.sha256(match_key(text).encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "little")


def _fingerprints(texts: Iterable[str]) -> np.ndarray:
    return np.fromiter((text_fingerprint(t) for t in texts), dtype=_FINGERPRINT)


@dataclass(frozen=True, slots=True, eq=False)
class TrainedTexts:
    """The texts a model was trained on, as a sorted set of 64-bit fingerprints.

    Parameters
    ----------
    fingerprints : ndarray of uint64
        Sorted, unique :func:`text_fingerprint` values.
    honest_figures : mapping of str to str, default={}
        Data set name → the command that gives that data set's honest figure for
        this model (e.g. ``"detexd"`` → ``"tactful train cv detexd"``), from the
        card's ``trained_on`` entries.

    Examples
    --------
    >>> seen = TrainedTexts.from_texts(["you idiot", "hello"])
    >>> seen.count(["hello", "hi", "hello"])
    2
    >>> TrainedTexts.from_bytes(seen.to_bytes()).count(["you idiot"])
    1
    """

    fingerprints: np.ndarray
    honest_figures: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_texts(
        cls, texts: Iterable[str], honest_figures: Mapping[str, str] | None = None
    ) -> TrainedTexts:
        """The fingerprint set of ``texts`` (duplicates kept once)."""
        return cls(np.unique(_fingerprints(texts)), dict(honest_figures or {}))

    @classmethod
    def from_bytes(
        cls, data: bytes, honest_figures: Mapping[str, str] | None = None
    ) -> TrainedTexts:
        """Read :meth:`to_bytes`'s format: sorted unique little-endian uint64.

        Raises
        ------
        ModelError
            If ``data`` is not a whole number of sorted, unique 8-byte values.
        """
        if len(data) % _FINGERPRINT.itemsize:
            raise ModelError(
                f"A trained-texts file holds whole 8-byte fingerprints; got {len(data):,} bytes."
            )
        fps = np.frombuffer(data, dtype=_FINGERPRINT)
        if fps.size > 1 and not bool(np.all(fps[1:] > fps[:-1])):
            raise ModelError(
                "A trained-texts file holds sorted, unique fingerprints; this does not."
            )
        return cls(fps, dict(honest_figures or {}))

    def to_bytes(self) -> bytes:
        """The sorted fingerprints as little-endian uint64 (8 bytes per text)."""
        return self.fingerprints.astype(_FINGERPRINT).tobytes()

    def __len__(self) -> int:
        return int(self.fingerprints.size)

    def __contains__(self, text: object) -> bool:
        return isinstance(text, str) and bool(self.mask([text])[0])

    def mask(self, texts: Sequence[str]) -> np.ndarray:
        """One bool per text (in order): was it a training text?"""
        fps = _fingerprints(texts)
        if not self.fingerprints.size:
            return np.zeros(fps.size, dtype=bool)
        at = np.searchsorted(self.fingerprints, fps).clip(max=self.fingerprints.size - 1)
        return np.asarray(self.fingerprints[at] == fps)

    def count(self, texts: Sequence[str]) -> int:
        """How many of ``texts`` (each row counted, duplicates too) were training texts."""
        return int(self.mask(texts).sum())

    def honest_figure(self, dataset: str) -> str | None:
        """The command that gives ``dataset``'s honest figure, when the card names one."""
        return self.honest_figures.get(dataset)


def read_trained_texts(
    folder: str | os.PathLike[str], card: Mapping[str, Any]
) -> TrainedTexts | None:
    """The :class:`TrainedTexts` of a model folder, checked against its card's pin.

    ``None`` when the card pins no :data:`TRAINED_TEXTS_FILE` (a model that does not
    record its training texts: nothing can be checked). The honest-figure commands
    come from the ``honest_figure`` of the card's ``trained_on`` entries.

    Raises
    ------
    ModelError
        If the pinned file is missing, does not match its sha256, or is malformed.
    """
    want = card.get("sha256", {}).get(TRAINED_TEXTS_FILE)
    if want is None:
        return None
    path = Path(folder) / TRAINED_TEXTS_FILE
    try:
        data = path.read_bytes()
    except OSError:
        raise ModelError(f"No {TRAINED_TEXTS_FILE} at {path}, though the card pins one.") from None
    if hashlib.sha256(data).hexdigest() != want:
        raise ModelError(f"The file {path} does not match the sha256 pinned in its card.")
    honest = {
        str(e["dataset"]): str(e["honest_figure"])
        for e in card.get("trained_on", [])
        if e.get("honest_figure")
    }
    return TrainedTexts.from_bytes(data, honest)


def trained_texts(moderator: Moderator) -> TrainedTexts | None:
    """What ``moderator`` was trained on, from its optional ``trained_texts()`` method.

    ``None`` for a moderator without the method, or whose method returns ``None``
    (remote APIs, lexicons, models that do not record their training texts).
    """
    method = getattr(moderator, "trained_texts", None)
    return None if method is None else method()


def in_sample_count(moderator: Moderator, texts: Sequence[str]) -> int:
    """How many of ``texts`` (each row counted) ``moderator`` was trained on.

    0 when the moderator does not record its training texts (see :func:`trained_texts`).

    Examples
    --------
    >>> import tactful
    >>> in_sample_count(tactful.load("lexicon"), ["you idiot"])
    0
    """
    seen = trained_texts(moderator)
    return 0 if seen is None else seen.count(texts)


def in_sample_warning(result: Mapping[str, Any]) -> str | None:
    """The one-line warning (:data:`IN_SAMPLE_MESSAGE`) of a score with in-sample rows.

    ``result`` holds ``moderator``, ``n``, ``n_in_sample`` and, optionally,
    ``honest_figure`` (a command) — an :func:`evaluate` result, or an audit's row
    for one data set and moderator. ``None`` when no scored row was in-sample.
    """
    n_in, n = int(result.get("n_in_sample", 0)), int(result["n"])
    if n_in <= 0:
        return None
    command = result.get("honest_figure")
    return IN_SAMPLE_MESSAGE.format(
        n_in_sample=n_in,
        n=n,
        moderator=result["moderator"],
        extent="an" if n_in >= n else "a partly",
        honest=f"`{command}`" if command else IN_SAMPLE_ADVICE,
    )
