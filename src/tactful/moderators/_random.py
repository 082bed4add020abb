"""``random``: a seeded coin-flip moderator, the floor every model must beat."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import ClassVar

from .._types import Analysis, Span
from ..align import word_spans
from ..params import Constraints, Float, Int
from ._texts import Configured, check_texts

__all__ = ["RandomModerator"]

# Each 8-byte slice of a BLAKE2b digest gives one uniform draw in [0, 1).
_SCALE = float(1 << 64)


class RandomModerator(Configured):
    """Random scores that depend only on ``(seed, text)``.

    Each text gets uniform draws from a hash of the seed and the text, so the
    answer for a text is the same alone or in any batch, and across processes
    (Python's salted ``hash()`` is not used).

    Parameters
    ----------
    seed : int, default=0
        Changes every draw.
    rate : float, default=0.5
        Expected share of flagged texts: a head is flagged when its score is
        ``>= 1 - rate``. Must be in [0, 1].

    Notes
    -----
    A flagged text gets one span, a word of the text (:func:`tactful.align.word_spans`)
    picked at random (none for a text without words). ``jailbreak`` and
    ``delicate`` are independent uniform draws.

    Examples
    --------
    >>> from tactful.moderators._random import RandomModerator
    >>> a, b = RandomModerator(seed=1).analyze(["hello", "hello"])
    >>> a == b
    True
    """

    name = "random"
    version = "2"  # 2: spans are words (tactful.align.word_spans), not whitespace tokens

    _parameter_constraints: ClassVar[Constraints] = {"seed": Int(), "rate": Float(0.0, 1.0)}

    seed: int
    rate: float

    def __init__(self, *, seed: int = 0, rate: float = 0.5) -> None:
        self._set_params(seed=seed, rate=rate)

    def analyze(self, texts: Sequence[str]) -> list[Analysis]:
        """One random :class:`~tactful.Analysis` per text, in order.

        Parameters
        ----------
        texts : sequence of str
            The texts (a single ``str`` is rejected).

        Returns
        -------
        list of Analysis
            ``scores["toxicity"]``, ``jailbreak`` and ``delicate`` are draws in
            [0, 1); ``flags`` holds the three decisions at ``1 - rate``.

        Raises
        ------
        ConfigError
            If ``texts`` is a str or holds something other than str.
        """
        return [self._analyze_one(t) for t in check_texts(texts)]

    def _draws(self, text: str) -> tuple[float, float, float, float]:
        # surrogatepass: texts may hold lone surrogates, which UTF-8 rejects.
        payload = f"{self.seed}\x00{text}".encode("utf-8", "surrogatepass")
        digest = hashlib.blake2b(payload, digest_size=32, person=b"tactful-random").digest()
        t, j, d, s = (int.from_bytes(digest[i : i + 8], "big") / _SCALE for i in range(0, 32, 8))
        return t, j, d, s

    def _analyze_one(self, text: str) -> Analysis:
        toxicity, jailbreak, delicate, pick = self._draws(text)
        cut = 1.0 - self.rate
        flagged = toxicity >= cut
        spans: tuple[Span, ...] = ()
        words = word_spans(text) if flagged else []
        if words:
            start, end = words[int(pick * len(words))]
            spans = (Span(start, end, "toxic", toxicity),)
        return Analysis(
            flagged=flagged,
            scores={"toxicity": toxicity},
            spans=spans,
            jailbreak=jailbreak,
            delicate=delicate,
            flags={"toxicity": flagged, "jailbreak": jailbreak >= cut, "delicate": delicate >= cut},
        )
