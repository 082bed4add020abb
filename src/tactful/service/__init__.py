"""``tactful serve``: an OpenAI-compatible moderation service and a moderator console.

>>> from tactful.service import ServiceSettings, create_app
>>> app = create_app(ServiceSettings(moderators=("lexicon",)))   # doctest: +SKIP
>>> # uvicorn.run(app, host="127.0.0.1", port=8000)

``POST /v1/moderations`` answers in OpenAI's moderation shape (tactful's heads,
the OpenAI-named categories of :data:`OPENAI_CATEGORIES`, and tactful's extras
in a ``tactful`` field), ``POST /v1/analyze`` with full analyses, and ``/`` is
the moderator console. Requests are micro-batched into each moderator by a
:class:`MicroBatcher`; the console's labels live in a :class:`LabelStore`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes

if TYPE_CHECKING:
    from ._app import app_from_env, create_app
    from ._batcher import BatcherStats, MicroBatcher, OverloadedError
    from ._labels import EXPORT_COLUMNS, LABELS, LabelStore, parse_texts_file
    from ._schemas import (
        OPENAI_CATEGORIES,
        AnalyzeResponse,
        ErrorResponse,
        ModerationRequest,
        ModerationResponse,
        moderation_result,
    )
    from ._server import BackgroundServer
    from ._service import Service
    from ._settings import SETTINGS_ENV, ServiceSettings, read_api_keys

# Public names are imported on first use: `tactful serve` is registered on the
# CLI through this package, and FastAPI takes seconds to import, which no other
# command should pay for.
_WHERE = {
    "serve_command": "._cli",
    "Service": "._service",
    "app_from_env": "._app",
    "create_app": "._app",
    "BackgroundServer": "._server",
    "BatcherStats": "._batcher",
    "MicroBatcher": "._batcher",
    "OverloadedError": "._batcher",
    "EXPORT_COLUMNS": "._labels",
    "LABELS": "._labels",
    "LabelStore": "._labels",
    "parse_texts_file": "._labels",
    "OPENAI_CATEGORIES": "._schemas",
    "AnalyzeResponse": "._schemas",
    "ErrorResponse": "._schemas",
    "ModerationRequest": "._schemas",
    "ModerationResponse": "._schemas",
    "moderation_result": "._schemas",
    "SETTINGS_ENV": "._settings",
    "ServiceSettings": "._settings",
    "read_api_keys": "._settings",
}


__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)


__all__ = [
    "EXPORT_COLUMNS",
    "LABELS",
    "OPENAI_CATEGORIES",
    "SETTINGS_ENV",
    "AnalyzeResponse",
    "BackgroundServer",
    "BatcherStats",
    "ErrorResponse",
    "LabelStore",
    "MicroBatcher",
    "ModerationRequest",
    "ModerationResponse",
    "OverloadedError",
    "Service",
    "ServiceSettings",
    "app_from_env",
    "create_app",
    "moderation_result",
    "parse_texts_file",
    "read_api_keys",
    "serve_command",
]
