"""``google``: Cloud Natural Language ``documents:moderateText`` (v1 and v2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..._types import Analysis
from ...errors import RemoteResponseError
from ...params import Constraints, Float, Nullable, OneOf, Str, StrList
from ._base import RemoteModerator, unit_score

__all__ = ["GOOGLE_CATEGORIES", "GoogleModerator"]

#: The 16 ``moderationCategories`` names, as the API spells them.
GOOGLE_CATEGORIES: tuple[str, ...] = (
    "Toxic",
    "Insult",
    "Profanity",
    "Derogatory",
    "Sexual",
    "Death, Harm & Tragedy",
    "Violent",
    "Firearms & Weapons",
    "Public Safety",
    "Health",
    "Religion & Belief",
    "Illicit Drugs",
    "War & Conflict",
    "Politics",
    "Finance",
    "Legal",
)


class GoogleModerator(RemoteModerator):
    """Google Cloud Natural Language text moderation.

    Parameters
    ----------
    base_url : str, default="https://language.googleapis.com"
    api_version : {"v1", "v2"}, default="v2"
        Path prefix: ``/{api_version}/documents:moderateText``.
    model : str, default="moderate-text"
        A label only, kept in the store key; :paramref:`model_version` picks the model.
    model_version : {"MODEL_VERSION_1", "MODEL_VERSION_2"} or None, default=None
        Sent as ``modelVersion`` when given (version 2 adds ``severity``).
    language : str or None, default=None
        Document language (``languageCode`` in v2, ``language`` in v1); None
        lets Google detect it.
    flag_categories : list of str, default=["Toxic"]
        A text is flagged when any of these categories' confidence is >= threshold.
    threshold : float in [0, 1], default=0.5
    api_key_env : str or None, default="GOOGLE_API_KEY"
        Sent in the ``x-goog-api-key`` header (never in the URL).
    timeout, max_retries, retry_backoff, qps : see :class:`~tactful.moderators.remote.OpenAIModerator`
    concurrency : int, default=4
    batch_size : int, default=1
        One document per request.

    Notes
    -----
    ``scores`` maps each category name to its ``confidence`` (the 16 of
    :data:`GOOGLE_CATEGORIES`, or whatever the API answers) plus
    ``"toxicity"`` = the confidence of ``Toxic``. ``severity``, when present,
    stays in ``raw`` (the API's answer) and in ``raw["severity"]`` by name. An
    answer without categories (e.g. an unsupported language) is a failure, not
    "not flagged".
    """

    name = "google"
    version = "1"
    _parameter_constraints: ClassVar[Constraints] = {
        **RemoteModerator.COMMON_CONSTRAINTS,
        "api_version": OneOf(["v1", "v2"]),
        "model_version": Nullable(OneOf(["MODEL_VERSION_1", "MODEL_VERSION_2"])),
        "language": Nullable(Str(nonempty=True)),
        "flag_categories": StrList(GOOGLE_CATEGORIES, nonempty=True),
        "threshold": Float(0, 1),
    }

    DEFAULTS: ClassVar[Mapping[str, Any]] = {
        "base_url": "https://language.googleapis.com",
        "api_version": "v2",
        "model": "moderate-text",
        "model_version": None,
        "language": None,
        "flag_categories": ("Toxic",),
        "threshold": 0.5,
        "api_key_env": "GOOGLE_API_KEY",
        "timeout": 30.0,
        "max_retries": 4,
        "retry_backoff": 0.5,
        "qps": None,
        "concurrency": 4,
        "batch_size": 1,
    }

    api_version: str
    model_version: str | None
    language: str | None
    flag_categories: tuple[str, ...]
    threshold: float

    def _auth_headers(self, key: str) -> dict[str, str]:
        return {"x-goog-api-key": key}

    def score_keys(self) -> tuple[str, ...]:
        return (*GOOGLE_CATEGORIES, "toxicity")

    def _analyze_one(self, text: str) -> Analysis:
        document: dict[str, Any] = {"type": "PLAIN_TEXT", "content": text}
        if self.language is not None:
            document["languageCode" if self.api_version == "v2" else "language"] = self.language
        body: dict[str, Any] = {"document": document}
        if self.model_version is not None:
            body["modelVersion"] = self.model_version
        answer = self._post(f"{self.api_version}/documents:moderateText", body)
        categories = answer.get("moderationCategories") if isinstance(answer, dict) else None
        if not isinstance(categories, list) or not categories:
            said = answer.get("languageCode") if isinstance(answer, dict) else None
            raise RemoteResponseError(
                "google answered no moderationCategories"
                + (f" (language {said!r})" if said else "")
                + "; nothing was scored."
            )
        scores: dict[str, float] = {}
        severity: dict[str, float] = {}
        for item in categories:
            name = item.get("name") if isinstance(item, dict) else None
            if not isinstance(name, str) or not name:
                raise RemoteResponseError(
                    f"google answered a moderation category without a name: {item!r:.80}."
                )
            scores[name] = unit_score(item.get("confidence"), f"{name!r} confidence", "google")
            if "severity" in item:
                severity[name] = unit_score(item["severity"], f"{name!r} severity", "google")
        absent = [c for c in self.flag_categories if c not in scores]
        if absent:
            raise RemoteResponseError(
                f"google answered no confidence for {', '.join(absent)}; nothing was flagged."
            )
        flags = {c: scores[c] >= self.threshold for c in scores}
        flagged = any(flags[c] for c in self.flag_categories)
        scores["toxicity"] = scores.get("Toxic", max(scores[c] for c in self.flag_categories))
        raw = dict(answer)
        if severity:
            raw["severity"] = severity
        return Analysis(
            flagged=flagged, scores=scores, flags={**flags, "toxicity": flagged}, raw=raw
        )
