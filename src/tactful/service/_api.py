"""The API routes: health, readiness, the served models, moderations and analyses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import BaseModel

from .._types import Analysis
from ._schemas import (
    AnalyzeResponse,
    ErrorResponse,
    ModelList,
    ModerationRequest,
    ModerationResponse,
    moderation_result,
    new_id,
)
from ._service import _ERRORS, _JSON, Service, _error

__all__ = ["api_router"]


def api_router(service: Service) -> APIRouter:
    """The API's routes: ``/healthz``, ``/readyz``, ``/v1/models``, ``/v1/moderations``
    and ``/v1/analyze``."""
    router = APIRouter(default_response_class=_JSON)

    @router.get("/healthz", tags=["health"])
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @router.get("/readyz", tags=["health"], responses={503: {"model": ErrorResponse}})
    async def readyz() -> Response:
        if service.ready:
            return _JSON({"status": "ready", "models": list(service.served)})
        if service.load_error:
            return _error(503, service.load_error, code="model_unavailable", type="server_error")
        return _error(
            503,
            "The model is loading.",
            code="not_ready",
            type="server_error",
            headers={"Retry-After": "5"},
        )

    @router.get("/v1/models", response_model=ModelList, tags=["api"])
    async def models() -> Response:
        return _JSON(
            {
                "object": "list",
                "data": [
                    {
                        "id": s.name,
                        "object": "model",
                        "created": 0,
                        "owned_by": "tactful",
                        "version": s.version,
                    }
                    for s in service.served.values()
                ],
            }
        )

    def analysis_route(
        path: str,
        kind: str,
        response_model: type[BaseModel],
        summary: str,
        prefix: str,
        result: Callable[[Analysis], dict[str, Any]],
        *,
        with_version: bool,
    ) -> None:
        """POST ``path``: the texts of a :class:`ModerationRequest`, one result each."""

        async def handler(body: ModerationRequest) -> Response:
            served, analyses = await service.analyze(body, kind)
            payload: dict[str, Any] = {"id": new_id(prefix), "model": served.name}
            if with_version:
                payload["version"] = served.version
            payload["results"] = [result(a) for a in analyses]
            return _JSON(payload)

        router.post(
            path,
            response_model=response_model,
            responses=_ERRORS,
            tags=["api"],
            summary=summary,
            name=kind,
        )(handler)

    analysis_route(
        "/v1/moderations",
        "moderations",
        ModerationResponse,
        "Classify texts (OpenAI's moderation shape)",
        "modr",
        moderation_result,
        with_version=False,
    )
    analysis_route(
        "/v1/analyze",
        "analyze",
        AnalyzeResponse,
        "Full analyses: scores, spans, jailbreak, delicate, flags",
        "anlz",
        Analysis.to_dict,
        with_version=True,
    )
    return router
