"""Result records: :class:`Span` and :class:`Analysis`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .errors import ConfigError

__all__ = ["SPAN_LABELS", "Analysis", "Span"]

#: Span types, following the ToxicSpans annotation scheme.
SPAN_LABELS = ("insult", "threat", "identity_attack", "profanity", "other", "toxic")


def _check_unit(name: str, value: float, owner: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(
            f"The {name!r} of {owner} must be a float in [0, 1]. Got {value!r} instead."
        )
    value = float(value)
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise ConfigError(
            f"The {name!r} of {owner} must be a float in [0, 1]. Got {value!r} instead."
        )
    return value


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A half-open character range ``[start, end)`` of the original text.

    ``start``/``end`` index Python ``str`` code points of the text the user passed
    in, so ``text[span.start:span.end]`` is the flagged substring.
    """

    start: int
    end: int
    label: str = "toxic"
    score: float = 1.0

    def __post_init__(self) -> None:
        for name in ("start", "end"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int):
                raise ConfigError(f"The {name!r} of Span must be an int. Got {v!r} instead.")
        if not 0 <= self.start < self.end:
            raise ConfigError(
                f"Span offsets must satisfy 0 <= start < end. Got start={self.start}, end={self.end}."
            )
        if not isinstance(self.label, str) or not self.label:
            raise ConfigError(
                f"The 'label' of Span must be a non-empty str. Got {self.label!r} instead."
            )
        object.__setattr__(self, "score", _check_unit("score", self.score, "Span"))

    def offsets(self) -> range:
        """The character offsets the span covers."""
        return range(self.start, self.end)


def _frozen_map(m: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(m or {}))


@dataclass(frozen=True, slots=True)
class Analysis:
    """What a moderator says about one text.

    Attributes
    ----------
    flagged : bool
        Toxic at the moderator's default operating point.
    scores : mapping of str to float
        Category scores in [0, 1] (``"toxicity"``, ``"insult"``, ...).
    spans : tuple of Span
        Toxic character ranges of the original text, sorted by start.
    jailbreak : float or None
        Probability that the text is a jailbreak attempt; ``None`` when the
        moderator has no opinion.
    delicate : float or None
        Probability that the text is delicate (DeTexD risk >= 3), or ``None``.
    flags : mapping of str to bool
        Decision per head at the default operating point (``"toxicity"``,
        ``"jailbreak"``, ``"delicate"``, ...). ``flags["toxicity"] == flagged``.
    raw : mapping
        The backend's own answer, kept for audits.
    """

    flagged: bool
    scores: Mapping[str, float] = field(default_factory=dict)
    spans: tuple[Span, ...] = ()
    jailbreak: float | None = None
    delicate: float | None = None
    flags: Mapping[str, bool] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.flagged, bool):
            raise ConfigError(
                f"The 'flagged' of Analysis must be a bool. Got {self.flagged!r} instead."
            )
        scores = {
            str(k): _check_unit(f"scores[{k!r}]", v, "Analysis")
            for k, v in dict(self.scores).items()
        }
        object.__setattr__(self, "scores", MappingProxyType(scores))
        spans = tuple(sorted(self.spans))
        if not all(isinstance(s, Span) for s in spans):
            raise ConfigError("The 'spans' of Analysis must be Span instances.")
        object.__setattr__(self, "spans", spans)
        for name in ("jailbreak", "delicate"):
            v = getattr(self, name)
            if v is not None:
                object.__setattr__(self, name, _check_unit(name, v, "Analysis"))
        flags = {str(k): bool(v) for k, v in dict(self.flags).items()}
        flags.setdefault("toxicity", self.flagged)
        if flags["toxicity"] != self.flagged:
            raise ConfigError("Analysis.flags['toxicity'] must equal Analysis.flagged.")
        object.__setattr__(self, "flags", MappingProxyType(flags))
        object.__setattr__(self, "raw", _frozen_map(self.raw))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``raw`` left out)."""
        return {
            "flagged": self.flagged,
            "scores": dict(self.scores),
            "spans": [
                {"start": s.start, "end": s.end, "label": s.label, "score": s.score}
                for s in self.spans
            ],
            "jailbreak": self.jailbreak,
            "delicate": self.delicate,
            "flags": dict(self.flags),
        }
