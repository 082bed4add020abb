"""Request and response bodies of the service (the OpenAPI schema is built from these).

``/v1/moderations`` speaks OpenAI's moderation shape, so code written for
OpenAI works once its base URL points here; tactful's extras ride in a
``tactful`` field such clients ignore. The mapping from tactful's heads to
OpenAI's category names is :data:`OPENAI_CATEGORIES`.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from .._types import Analysis

__all__ = [
    "OPENAI_CATEGORIES",
    "AnalysisOut",
    "AnalyzeResponse",
    "ErrorBody",
    "ErrorResponse",
    "ExportRow",
    "ItemList",
    "ItemOut",
    "JobOut",
    "LabelIn",
    "LabelList",
    "LabelOut",
    "ModelInfo",
    "ModelList",
    "ModerationRequest",
    "ModerationResponse",
    "ModerationResult",
    "SpanOut",
    "TactfulExtras",
    "TextPart",
    "moderation_result",
    "new_id",
]

#: OpenAI moderation category -> the tactful head whose score and flag it carries.
OPENAI_CATEGORIES: Mapping[str, str] = MappingProxyType(
    {
        "harassment": "insult",
        "harassment/threatening": "threat",
        "hate": "identity_attack",
    }
)


class TextPart(BaseModel):
    """One text part of OpenAI's multi-modal input (images are not supported)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["text"]
    text: StrictStr


class ModerationRequest(BaseModel):
    """OpenAI's moderation request: ``input`` is a string or a list of them."""

    input: StrictStr | list[StrictStr] | list[TextPart] = Field(
        description="A text, a list of texts, or a list of {'type': 'text', 'text': ...} parts."
    )
    model: StrictStr | None = Field(
        default=None, description="A served moderator's name; the first served when omitted."
    )

    def texts(self) -> list[str]:
        if isinstance(self.input, str):
            return [self.input]
        return [p.text if isinstance(p, TextPart) else p for p in self.input]


class SpanOut(BaseModel):
    """A toxic span: half-open code-point offsets ``[start, end)`` into the text as sent."""

    start: int
    end: int
    label: str
    score: float


class TactfulExtras(BaseModel):
    """What tactful says beyond OpenAI's shape."""

    spans: list[SpanOut]
    jailbreak: float | None
    delicate: float | None
    flags: dict[str, bool]


class ModerationResult(BaseModel):
    flagged: bool
    categories: dict[str, bool]
    category_scores: dict[str, float]
    category_applied_input_types: dict[str, list[Literal["text"]]]
    tactful: TactfulExtras


class ModerationResponse(BaseModel):
    id: str
    model: str
    results: list[ModerationResult]


class AnalysisOut(BaseModel):
    """One :class:`tactful.Analysis` (without ``raw``)."""

    flagged: bool
    scores: dict[str, float]
    spans: list[SpanOut]
    jailbreak: float | None
    delicate: float | None
    flags: dict[str, bool]


class AnalyzeResponse(BaseModel):
    id: str
    model: str
    version: str
    results: list[AnalysisOut]


class ErrorBody(BaseModel):
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class ErrorResponse(BaseModel):
    """OpenAI's error shape, so that its clients raise with the message."""

    error: ErrorBody


class ModelInfo(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str = "tactful"
    version: str


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelInfo]


class LabelIn(BaseModel):
    """A person's label for a console item."""

    model_config = ConfigDict(extra="forbid")

    item_id: int
    label: Literal["toxic", "not_toxic"]
    who: StrictStr | None = Field(
        default=None, description="Who labels (else X-Moderator-Name, else the API key's name)."
    )


class LabelOut(BaseModel):
    id: int
    item_id: int
    label: str
    decision: Literal["accept", "override"]
    who: str
    key: str | None
    at: str


class ItemOut(BaseModel):
    id: int
    ext_id: str | None
    text: str
    model: str
    source: str
    score: float | None
    threshold: float
    uncertainty: float | None
    analysis: AnalysisOut
    label: str | None = None


class ItemList(BaseModel):
    items: list[ItemOut]


class ExportRow(BaseModel):
    """One label given, with its item: a row of the CSV/JSONL export."""

    label_id: int
    item_id: int
    ext_id: str | None
    text: str
    model: str
    model_flagged: bool
    score: float | None
    threshold: float
    label: str
    decision: Literal["accept", "override"]
    who: str
    key: str | None
    at: str


class LabelList(BaseModel):
    labels: list[ExportRow]


class JobOut(BaseModel):
    id: int
    model: str
    source: str
    status: Literal["running", "done", "failed", "interrupted"]
    done: int
    total: int
    error: str | None = None


def new_id(prefix: str) -> str:
    """A response id in OpenAI's style (``modr-<hex>``)."""
    return f"{prefix}-{uuid.uuid4().hex}"


def moderation_result(a: Analysis) -> dict[str, Any]:
    """One OpenAI-shaped result: tactful's scores plus the OpenAI-named ones that map.

    ``categories`` holds the heads the moderator decides on (its ``flags``); a
    score without a decision has no category. A model with harm-category heads
    (:data:`tactful.taxonomy.CATEGORIES`) answers each with its own head; otherwise
    harassment, harassment/threatening and hate carry the insult, threat and
    identity-attack heads (:data:`OPENAI_CATEGORIES`). Nothing that does not map is
    invented: an OpenAI category without a tactful head is absent.
    """
    d = a.to_dict()
    scores = d["scores"]
    categories = {k: a.flags[k] for k in scores if k in a.flags}
    for name, head in OPENAI_CATEGORIES.items():
        if name in scores:  # a model with a head of that category says it itself
            continue
        if head in scores:
            scores[name] = scores[head]
        if head in a.flags:
            categories[name] = a.flags[head]
    return {
        "flagged": a.flagged,
        "categories": categories,
        "category_scores": scores,
        "category_applied_input_types": {k: ["text"] for k in scores},
        "tactful": {k: d[k] for k in ("spans", "jailbreak", "delicate", "flags")},
    }
