"""``tactful serve``: the service from the command line.

Registered on the main app in :mod:`tactful.cli` as
``app.command("serve")(serve_command)``; errors are turned into one line and an
exit code by the app's group.
"""

from __future__ import annotations

import copy
import os
import socket
from pathlib import Path
from typing import Annotated

import typer

from ..errors import ConfigError
from ..options import moderators_option, parse_options
from ._settings import SETTINGS_ENV, ServiceSettings

__all__ = ["serve_command"]


def _check_port(host: str, port: int) -> None:
    # uvicorn would log the failure and exit 1; say it in one line instead.
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise ConfigError(f"Cannot resolve the host {host!r}: {exc}.") from None
    family, kind, proto, _, addr = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(addr)
        except OSError as exc:
            raise ConfigError(f"Cannot listen on {host}:{port}: {exc.strerror}.") from None


def serve_command(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port.")] = 8000,
    moderator: Annotated[
        list[str],
        moderators_option(
            "Moderator to serve; repeat for several (the request's 'model' picks one; "
            "the first by default)."
        ),
    ] = ["builtin"],  # noqa: B006  (Typer reads the default; it is never mutated)
    option: Annotated[
        list[str],
        typer.Option(
            "--option",
            "-O",
            metavar="KEY=VALUE",
            help="Moderator option (VALUE read as JSON when it parses); NAME.KEY=VALUE with "
            "several moderators.",
        ),
    ] = [],  # noqa: B006
    workers: Annotated[
        int, typer.Option("--workers", min=1, help="Server processes (each loads the model).")
    ] = 1,
    micro_batching: Annotated[
        bool,
        typer.Option(
            "--micro-batching/--no-micro-batching",
            help="Merge concurrent requests' texts into one model call.",
        ),
    ] = True,
    max_batch: Annotated[int, typer.Option(min=1, help="Most texts per merged call.")] = 32,
    max_wait_ms: Annotated[
        float, typer.Option(min=0, help="How long a request waits for batch-mates (ms).")
    ] = 2.0,
    max_queue: Annotated[
        int, typer.Option(min=1, help="Most texts waiting for the model (503 past it).")
    ] = 256,
    concurrency: Annotated[
        int, typer.Option(min=1, help="Model calls in flight per moderator.")
    ] = 1,
    max_body_bytes: Annotated[
        int, typer.Option(min=1, help="Largest API request body (413 past it).")
    ] = 1 << 20,
    max_upload_bytes: Annotated[int, typer.Option(min=1, help="Largest console upload.")] = 32
    << 20,
    max_texts: Annotated[int, typer.Option(min=1, help="Most texts per request.")] = 256,
    max_chars: Annotated[int, typer.Option(min=1, help="Most characters per text.")] = 100_000,
    api_keys_env: Annotated[
        str | None,
        typer.Option(
            "--api-keys-env",
            metavar="VAR",
            help="Require API keys, read from this environment variable as name:key,name:key.",
            show_default=False,
        ),
    ] = None,
    labels: Annotated[
        Path,
        typer.Option("--labels", dir_okay=False, help="SQLite file of the console's labels."),
    ] = Path("tactful-labels.sqlite"),
    needs_human: Annotated[
        Path | None,
        typer.Option(
            "--needs-human",
            dir_okay=False,
            help="A triage needs_human CSV/JSONL (id,text) to put in the review queue.",
            show_default=False,
        ),
    ] = None,
    review_threshold: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Threshold of the review queue's score (default: the moderator's).",
            show_default=False,
        ),
    ] = None,
    log_texts: Annotated[
        bool, typer.Option("--log-texts", help="Log every request's texts (never otherwise).")
    ] = False,
) -> None:
    """Serve /v1/moderations (OpenAI's shape), /v1/analyze and the moderator console at /."""
    settings = ServiceSettings(
        moderators=tuple(moderator),
        options=parse_options(option, moderator),
        micro_batching=micro_batching,
        max_batch=max_batch,
        max_wait_ms=max_wait_ms,
        max_queue=max_queue,
        concurrency=concurrency,
        max_body_bytes=max_body_bytes,
        max_upload_bytes=max_upload_bytes,
        max_texts=max_texts,
        max_chars=max_chars,
        api_keys_env=api_keys_env,
        labels=labels,
        needs_human=needs_human,
        review_threshold=review_threshold,
        log_texts=log_texts,
    )
    if needs_human is not None and not needs_human.is_file():
        raise ConfigError(f"The needs_human file {needs_human} does not exist.")
    import uvicorn

    from ._app import create_app

    app = create_app(settings)  # unknown names, bad options and missing keys fail here
    _check_port(host, port)
    # uvicorn's logging, plus tactful's own logger (worker processes get it too).
    log_config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    log_config["loggers"]["tactful.service"] = {
        "handlers": ["default"],
        "level": "INFO",
        "propagate": False,
    }
    if workers == 1:
        uvicorn.run(app, host=host, port=port, log_level="info", log_config=log_config)
        return
    # Each worker process builds its own app from the settings in the environment.
    os.environ[SETTINGS_ENV] = settings.to_json()
    uvicorn.run(
        "tactful.service:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="info",
        log_config=log_config,
    )
