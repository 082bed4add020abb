"""``perspective``: Jigsaw's Perspective API (``comments:analyze``), spans included."""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from typing import Any, ClassVar

from ..._types import Analysis, Span
from ...errors import RemoteResponseError
from ...params import Bool, Constraints, Float, Nullable, StrList
from ._base import RemoteModerator, unit_score

__all__ = [
    "ATTRIBUTES",
    "MAX_COMMENT_BYTES",
    "PerspectiveModerator",
    "chunk_utf8",
    "utf16_to_index",
]

#: Production attributes; the default asks for all six.
ATTRIBUTES: tuple[str, ...] = (
    "TOXICITY",
    "SEVERE_TOXICITY",
    "IDENTITY_ATTACK",
    "INSULT",
    "PROFANITY",
    "THREAT",
)

#: Perspective refuses comments longer than this many UTF-8 bytes.
MAX_COMMENT_BYTES = 20_480

# Span labels follow tactful.SPAN_LABELS.
_SPAN_LABEL = {
    "TOXICITY": "toxic",
    "SEVERE_TOXICITY": "toxic",
    "IDENTITY_ATTACK": "identity_attack",
    "INSULT": "insult",
    "PROFANITY": "profanity",
    "THREAT": "threat",
}


def chunk_utf8(text: str, max_bytes: int = MAX_COMMENT_BYTES) -> list[tuple[int, str]]:
    """Cut ``text`` into pieces of at most ``max_bytes`` UTF-8 bytes.

    Each cut falls after the last whitespace that keeps the piece within the
    limit (inside a word only when a word alone is longer), never inside a code
    point. Returns ``(offset, piece)`` pairs with ``text[offset:offset +
    len(piece)] == piece``; the pieces joined give ``text`` back.
    """
    out: list[tuple[int, str]] = []
    start = 0
    while start < len(text):
        size, end, last_space = 0, start, -1
        while end < len(text):
            width = len(text[end].encode("utf-8", "surrogatepass"))
            if size + width > max_bytes:
                break
            size += width
            end += 1
            if text[end - 1].isspace():
                last_space = end
        if end < len(text) and last_space > start:
            end = last_space
        out.append((start, text[start:end]))
        start = end
    return out


def utf16_to_index(text: str) -> list[int]:
    """UTF-16 code-unit offset of each code point boundary of ``text`` (``len(text) + 1`` items).

    Perspective counts ``begin``/``end`` in UTF-16 code units; Python indexes
    code points. ``bisect`` on this list maps one to the other.
    """
    units = [0]
    for ch in text:
        units.append(units[-1] + (2 if ord(ch) > 0xFFFF else 1))
    return units


class PerspectiveModerator(RemoteModerator):
    """Jigsaw Perspective: summary scores per attribute and scored spans.

    Parameters
    ----------
    base_url : str, default="https://commentanalyzer.googleapis.com/v1alpha1"
    model : str, default="perspective"
        A label only (the API has no model choice); kept in the store key.
    attributes : list of str, default=all of :data:`ATTRIBUTES`
        Attributes requested (``requestedAttributes``).
    languages : list of str or None, default=None
        ``languages`` of the request; None lets Perspective detect the language.
    threshold : float in [0, 1], default=0.5
        A text is flagged when its TOXICITY summary score is >= threshold;
        ``flags`` holds the same decision per attribute.
    span_threshold : float in [0, 1], default=0.5
        A ``spanScores`` entry at or above it becomes a :class:`~tactful.Span`.
    do_not_store : bool, default=True
        Sent as ``doNotStore``: Perspective deletes the comment after scoring.
    api_key_env : str or None, default="PERSPECTIVE_API_KEY"
        Sent in the ``x-goog-api-key`` header (never in the URL).
    timeout, max_retries, retry_backoff : see :class:`~tactful.moderators.remote.OpenAIModerator`
    qps : float or None, default=1.0
        Perspective's default quota is one request per second.
    concurrency : int, default=1
    batch_size : int, default=1
        Perspective scores one comment per request.

    Notes
    -----
    Texts over :data:`MAX_COMMENT_BYTES` bytes are cut by :func:`chunk_utf8` and
    sent piece by piece: each attribute's score is the maximum over the pieces
    and span offsets are moved back into the whole text. ``raw`` is the API's
    answer, or ``{"chunks": [{"offset": ..., **answer}, ...]}`` for a cut text.
    """

    name = "perspective"
    version = "1"
    _parameter_constraints: ClassVar[Constraints] = {
        **RemoteModerator.COMMON_CONSTRAINTS,
        "attributes": StrList(ATTRIBUTES, nonempty=True),
        "languages": Nullable(StrList(nonempty=True)),
        "threshold": Float(0, 1),
        "span_threshold": Float(0, 1),
        "do_not_store": Bool(),
    }

    DEFAULTS: ClassVar[Mapping[str, Any]] = {
        "base_url": "https://commentanalyzer.googleapis.com/v1alpha1",
        "model": "perspective",
        "attributes": ATTRIBUTES,
        "languages": None,
        "threshold": 0.5,
        "span_threshold": 0.5,
        "do_not_store": True,
        "api_key_env": "PERSPECTIVE_API_KEY",
        "timeout": 30.0,
        "max_retries": 4,
        "retry_backoff": 1.0,
        "qps": 1.0,
        "concurrency": 1,
        "batch_size": 1,
    }

    attributes: tuple[str, ...]
    languages: tuple[str, ...] | None
    threshold: float
    span_threshold: float
    do_not_store: bool

    def _auth_headers(self, key: str) -> dict[str, str]:
        return {"x-goog-api-key": key}

    def score_keys(self) -> tuple[str, ...]:
        keys = tuple(a.lower() for a in self.attributes)
        return keys if "toxicity" in keys else (*keys, "toxicity")

    def _analyze_one(self, text: str) -> Analysis:
        # A blank piece (trailing whitespace of a long text) has nothing to score.
        pieces = [(offset, piece) for offset, piece in chunk_utf8(text) if piece.strip()]
        answers = [self._request(piece) for _, piece in pieces]
        scores: dict[str, float] = {}
        spans: list[Span] = []
        for (offset, piece), answer in zip(pieces, answers):
            piece_scores, piece_spans = self._parse(answer, piece)
            for key, value in piece_scores.items():
                scores[key] = max(value, scores.get(key, 0.0))
            spans.extend(
                Span(s.start + offset, s.end + offset, s.label, s.score) for s in piece_spans
            )
        if "toxicity" not in scores:  # TOXICITY not requested: the highest attribute stands in
            scores["toxicity"] = max(scores.values())
        flags = {k: v >= self.threshold for k, v in scores.items()}
        raw: dict[str, Any] = (
            answers[0]
            if len(answers) == 1
            else {"chunks": [{"offset": o, **a} for (o, _), a in zip(pieces, answers)]}
        )
        return Analysis(
            flagged=flags["toxicity"], scores=scores, spans=tuple(spans), flags=flags, raw=raw
        )

    def _request(self, piece: str) -> dict[str, Any]:
        body: dict[str, Any] = {
            "comment": {"text": piece},
            "requestedAttributes": {a: {} for a in self.attributes},
            "spanAnnotations": True,
            "doNotStore": self.do_not_store,
        }
        if self.languages is not None:
            body["languages"] = list(self.languages)
        answer = self._post("comments:analyze", body)
        if not isinstance(answer, dict) or not isinstance(answer.get("attributeScores"), dict):
            raise RemoteResponseError(
                "perspective answered without attributeScores; the answer is malformed and "
                "was not used."
            )
        return answer

    def _parse(self, answer: dict[str, Any], piece: str) -> tuple[dict[str, float], list[Span]]:
        attribute_scores = answer["attributeScores"]
        units = utf16_to_index(piece)
        scores: dict[str, float] = {}
        spans: list[Span] = []
        for attribute in self.attributes:
            entry = attribute_scores.get(attribute)
            summary = entry.get("summaryScore") if isinstance(entry, dict) else None
            if not isinstance(summary, dict):
                raise RemoteResponseError(
                    f"perspective answered no summaryScore for {attribute}; the answer is "
                    "malformed and was not used."
                )
            scores[attribute.lower()] = unit_score(
                summary.get("value"), f"{attribute}.summaryScore", "perspective"
            )
            for span_score in entry.get("spanScores") or ():
                span = self._span(span_score, attribute, units, len(piece))
                if span is not None:
                    spans.append(span)
        return scores, spans

    def _span(self, span_score: Any, attribute: str, units: list[int], length: int) -> Span | None:
        if not isinstance(span_score, dict) or not isinstance(span_score.get("score"), dict):
            raise RemoteResponseError(
                f"perspective answered a malformed spanScores entry for {attribute}: "
                f"{span_score!r:.80}."
            )
        value = unit_score(
            span_score["score"].get("value"), f"{attribute} span score", "perspective"
        )
        if value < self.span_threshold:
            return None
        begin, end = span_score.get("begin", 0), span_score.get("end", units[-1])
        if (
            isinstance(begin, bool)
            or isinstance(end, bool)
            or not isinstance(begin, int)
            or not isinstance(end, int)
            or not 0 <= begin < end <= units[-1]
        ):
            raise RemoteResponseError(
                f"perspective answered span offsets begin={begin!r}, end={end!r} outside the "
                f"text ({units[-1]} UTF-16 units); the answer is malformed and was not used."
            )
        # A UTF-16 offset inside a surrogate pair widens to the whole code point.
        start = bisect.bisect_right(units, begin) - 1
        stop = min(bisect.bisect_left(units, end), length)
        if start >= stop:
            return None
        return Span(start, stop, _SPAN_LABEL.get(attribute, "other"), value)
