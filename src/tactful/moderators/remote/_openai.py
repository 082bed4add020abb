"""``openai``: the OpenAI Moderation API (``POST /v1/moderations``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..._types import Analysis
from ...errors import RemoteResponseError
from ...params import Constraints
from ...taxonomy import CATEGORIES
from ._base import RemoteModerator, unit_score

__all__ = [
    "OMNI_CATEGORIES",
    "TEXT_CATEGORIES",
    "OpenAIModerator",
]

#: Categories of ``omni-moderation-*`` models (:data:`tactful.taxonomy.CATEGORIES`).
OMNI_CATEGORIES: tuple[str, ...] = CATEGORIES

#: Categories of ``text-moderation-*`` models (no ``illicit``).
TEXT_CATEGORIES: tuple[str, ...] = tuple(c for c in OMNI_CATEGORIES if not c.startswith("illicit"))


class OpenAIModerator(RemoteModerator):
    """OpenAI's moderation endpoint, batched by array input.

    Parameters
    ----------
    base_url : str, default="https://api.openai.com/v1"
    model : str, default="omni-moderation-latest"
        ``omni-moderation-latest`` (13 categories) or ``text-moderation-latest``
        (11), or a dated model of either family.
    api_key_env : str or None, default="OPENAI_API_KEY"
        Environment variable holding the key (sent as ``Authorization: Bearer``).
    timeout : float, default=30.0
        Seconds per request.
    max_retries : int, default=4
    retry_backoff : float, default=0.5
        Seconds; see :mod:`tactful.moderators.remote`.
    qps : float or None, default=None
        Requests per second (None: no limit).
    concurrency : int, default=2
        Requests in flight.
    batch_size : int, default=32
        Texts per request (the ``input`` array).

    Notes
    -----
    ``flagged`` and ``flags`` are the API's own decisions; ``scores`` are its
    ``category_scores`` plus ``"toxicity"``, their maximum. ``raw`` is the
    API's result for the text (``category_applied_input_types`` included) and
    the answering ``model``.
    """

    name = "openai"
    version = "1"
    _parameter_constraints: ClassVar[Constraints] = RemoteModerator.COMMON_CONSTRAINTS

    DEFAULTS: ClassVar[Mapping[str, Any]] = {
        "base_url": "https://api.openai.com/v1",
        "model": "omni-moderation-latest",
        "api_key_env": "OPENAI_API_KEY",
        "timeout": 30.0,
        "max_retries": 4,
        "retry_backoff": 0.5,
        "qps": None,
        "concurrency": 2,
        "batch_size": 32,
    }

    def score_keys(self) -> tuple[str, ...]:
        cats = TEXT_CATEGORIES if self.model.startswith("text-moderation") else OMNI_CATEGORIES
        return (*cats, "toxicity")

    def _analyze_sent(self, texts: list[str]) -> list[Analysis]:
        chunks = [texts[i : i + self.batch_size] for i in range(0, len(texts), self.batch_size)]
        return [a for chunk in self._map(self._request, chunks) for a in chunk]

    def _request(self, texts: list[str]) -> list[Analysis]:
        body = self._post("moderations", {"model": self.model, "input": texts})
        results = body.get("results") if isinstance(body, dict) else None
        if not isinstance(results, list) or len(results) != len(texts):
            got = len(results) if isinstance(results, list) else "no"
            raise RemoteResponseError(
                f"openai answered {got} results for {len(texts)} inputs; the answer is "
                "malformed and was not used."
            )
        model = body.get("model", self.model)
        return [self._parse(r, model) for r in results]

    def _parse(self, result: Any, model: Any) -> Analysis:
        if not isinstance(result, dict):
            raise RemoteResponseError(
                f"openai answered a result that is not an object: {result!r:.80}."
            )
        flagged, categories, scores = (
            result.get("flagged"),
            result.get("categories"),
            result.get("category_scores"),
        )
        if (
            not isinstance(flagged, bool)
            or not isinstance(categories, dict)
            or not isinstance(scores, dict)
            or not scores
        ):
            raise RemoteResponseError(
                "openai answered a result without flagged, categories and category_scores; "
                "the answer is malformed and was not used."
            )
        values = {
            str(k): unit_score(v, f"category_scores[{k!r}]", "openai") for k, v in scores.items()
        }
        flags = {str(k): bool(v) for k, v in categories.items()}
        flags["toxicity"] = flagged
        return Analysis(
            flagged=flagged,
            scores={**values, "toxicity": max(values.values())},
            flags=flags,
            raw={**result, "model": model},
        )
