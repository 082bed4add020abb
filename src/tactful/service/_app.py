"""The FastAPI app: ``create_app(settings)``; routes only call the library.

The API's routes are one ``APIRouter`` (:mod:`tactful.service._api`), the console's
another (:mod:`tactful.service._console`); the error handlers are
:mod:`tactful.service._errors`, the served moderators :mod:`tactful.service._service`.

Routes
------
``POST /v1/moderations``   OpenAI's moderation request and response shapes
``POST /v1/analyze``       full :class:`tactful.Analysis` records
``GET  /v1/models``        the served moderators (OpenAI's list shape)
``GET  /healthz``          the process answers
``GET  /readyz``           every served moderator is loaded (503 until then)
``GET  /openapi.json``     the schema
``GET  /``                 the moderator console (static HTML/CSS/JS)
``/console/api/...``       the console's data: analyze, uploads, review queue, labels
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

import tactful

from ._api import api_router
from ._batcher import MicroBatcher
from ._console import UPLOAD_PATH, console_router, mount_static
from ._errors import install_errors
from ._labels import LabelStore
from ._limits import ApiKeyGate, BodyLimit, ConsoleHeaders
from ._service import _JSON, Service, _analyze_fn, _Served
from ._settings import ServiceSettings, read_api_keys

__all__ = ["Service", "app_from_env", "create_app"]


def create_app(settings: ServiceSettings | None = None) -> FastAPI:
    """The moderation service and console as a FastAPI app (serve it with uvicorn).

    Moderators are built now (an unknown name or bad option raises
    :class:`~tactful.errors.ConfigError` here) and loaded in the background once
    the server starts: ``/readyz`` answers 200 from then on.

    Parameters
    ----------
    settings : ServiceSettings, optional
        Default: ``ServiceSettings()`` (the builtin model).

    Raises
    ------
    ConfigError
        Unknown moderator, bad options, API keys asked for but not set.
    """
    settings = settings or ServiceSettings()
    keys = read_api_keys(settings.api_keys_env)
    served = {}
    for name in settings.moderators:
        moderator = tactful.load(name, **dict(settings.options.get(name, {})))
        batcher = MicroBatcher(
            _analyze_fn(moderator),
            max_batch=settings.max_batch,
            max_wait=settings.max_wait_ms / 1000.0,
            max_queue=settings.max_queue,
            merge=settings.micro_batching,
            concurrency=settings.concurrency,
        )
        served[name] = _Served(name, moderator, batcher)
    service = Service(settings, served, LabelStore(settings.labels))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.stop()

    app = FastAPI(
        title="tactful",
        version=tactful.__version__,
        summary="Offline text moderation: OpenAI-compatible /v1/moderations, "
        "full analyses, and a moderator console.",
        docs_url=None,  # Swagger UI loads its assets from a CDN; the schema is at /openapi.json
        redoc_url=None,
        lifespan=lifespan,
        default_response_class=_JSON,
    )
    app.state.tactful = service
    install_errors(app)
    app.include_router(api_router(service))
    app.include_router(console_router(service))
    mount_static(app)
    app.add_middleware(ConsoleHeaders)
    app.add_middleware(
        BodyLimit,
        limit_for=lambda path: (
            settings.max_upload_bytes if path == UPLOAD_PATH else settings.max_body_bytes
        ),
    )
    app.add_middleware(ApiKeyGate, keys=keys)  # outermost: no body is read for a stranger
    return app


def app_from_env() -> FastAPI:
    """``create_app`` with settings from the environment (uvicorn's ``--factory`` for workers)."""
    return create_app(ServiceSettings.from_env())
