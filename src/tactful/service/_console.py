"""The moderator console's routes: its page, analyses of pasted texts, uploads, the
review queue and the labels."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

import tactful
from tactful.taxonomy import HARM_CATEGORIES

from ._schemas import (
    ItemList,
    JobOut,
    LabelIn,
    LabelList,
    LabelOut,
    ModerationRequest,
)
from ._service import _ERRORS, _JSON, Service, _Problem

__all__ = ["UPLOAD_PATH", "console_router", "mount_static"]

UPLOAD_PATH = "/console/api/jobs"
_STATIC = Path(str(resources.files("tactful") / "service" / "static"))


def _who(request: Request, given: str | None) -> str:
    for candidate in (
        given,
        request.headers.get("x-moderator-name"),
        getattr(request.state, "caller", None),
    ):
        if candidate is not None and candidate.strip():
            name = " ".join(candidate.split())
            if len(name) > 100:
                raise _Problem(400, "A moderator name has at most 100 characters.", param="who")
            return name
    return "anonymous"


def console_router(service: Service) -> APIRouter:
    """The console's routes: its page ``/`` and its data under ``/console/api/``
    (the static files are mounted by :func:`mount_static`)."""
    router = APIRouter(default_response_class=_JSON)
    labels = service.labels

    @router.get("/", include_in_schema=False)
    async def console() -> FileResponse:
        return FileResponse(_STATIC / "index.html", media_type="text/html")

    @router.get("/console/api/info", tags=["console"])
    async def info() -> dict[str, Any]:
        s = service.settings
        return {
            "version": tactful.__version__,
            "ready": service.ready,
            "models": [
                {"id": x.name, "version": x.version, "threshold": x.threshold}
                for x in service.served.values()
            ],
            "review_head": s.review_head,
            # the harm categories a model with category heads flags (tactful.taxonomy)
            "harm_categories": list(HARM_CATEGORIES),
            "limits": {
                "max_texts": s.max_texts,
                "max_chars": s.max_chars,
                "max_upload_bytes": s.max_upload_bytes,
            },
        }

    @router.post(
        "/console/api/analyze", tags=["console"], response_model=ItemList, responses=_ERRORS
    )
    async def console_analyze(body: ModerationRequest) -> Response:
        served, analyses = await service.analyze(body, "console")
        ids = await run_in_threadpool(
            labels.add_items,
            model=served.name,
            source="paste",
            rows=[(None, t) for t in body.texts()],
            analyses=analyses,
            head=service.settings.review_head,
            threshold=served.threshold,
        )
        return _JSON({"items": await run_in_threadpool(labels.items, ids)})

    @router.post(
        UPLOAD_PATH,
        tags=["console"],
        response_model=JobOut,
        status_code=202,
        responses=_ERRORS,
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "text/csv": {"schema": {"type": "string"}},
                    "application/jsonl": {"schema": {"type": "string"}},
                },
            }
        },
    )
    async def upload(
        request: Request,
        name: str = Query("upload", description="The file's name (its suffix picks CSV or JSONL)."),
        model: str | None = Query(None),
    ) -> Response:
        served = service.pick(model)
        data = await request.body()
        job = await service.start_job(served, data, name)
        return _JSON(job, status_code=202)

    @router.get("/console/api/jobs/{job_id}", tags=["console"], response_model=JobOut)
    async def job(job_id: int) -> Response:
        try:
            return _JSON(await run_in_threadpool(labels.job, job_id))
        except KeyError:
            raise _Problem(404, f"No job {job_id}.", code="not_found") from None

    @router.get("/console/api/jobs/{job_id}/items", tags=["console"], response_model=ItemList)
    async def job_items(
        job_id: int, offset: int = Query(0, ge=0), limit: int = Query(500, ge=1, le=5000)
    ) -> Response:
        items = await run_in_threadpool(labels.job_items, job_id, offset=offset, limit=limit)
        return _JSON({"items": items})

    @router.get("/console/api/queue", tags=["console"], response_model=ItemList)
    async def queue(
        model: str | None = Query(None), limit: int = Query(50, ge=1, le=1000)
    ) -> Response:
        items = await run_in_threadpool(labels.queue, model=model, limit=limit)
        return _JSON({"items": items})

    @router.post(
        "/console/api/labels", tags=["console"], response_model=LabelOut, responses=_ERRORS
    )
    async def add_label(body: LabelIn, request: Request) -> Response:
        who = _who(request, body.who)
        caller = getattr(request.state, "caller", None)
        try:
            row = await run_in_threadpool(
                labels.add_label, body.item_id, body.label, who=who, key=caller
            )
        except KeyError:
            raise _Problem(
                404, f"No item {body.item_id}.", code="not_found", param="item_id"
            ) from None
        return _JSON(row)

    @router.get("/console/api/labels", tags=["console"], response_model=LabelList)
    async def list_labels() -> Response:
        return _JSON({"labels": await run_in_threadpool(labels.export_rows)})

    def labels_file(suffix: str, media_type: str, charset: str, export: Callable[[], str]) -> None:
        """GET /console/api/labels.{suffix}: every label as a download."""

        async def download() -> Response:
            text = await run_in_threadpool(export)
            return Response(
                text.encode(charset),
                media_type=media_type,
                headers={"Content-Disposition": f'attachment; filename="labels.{suffix}"'},
            )

        router.get(f"/console/api/labels.{suffix}", tags=["console"], name=f"labels_{suffix}")(
            download
        )

    labels_file("csv", "text/csv; charset=utf-8", "utf-8", labels.export_csv)
    labels_file("jsonl", "application/jsonl", "ascii", labels.export_jsonl)
    return router


def mount_static(app: FastAPI) -> None:
    """Serve the console's static files (HTML, CSS, JS) under ``/console/static``."""
    app.mount("/console/static", StaticFiles(directory=_STATIC), name="console-static")
