"""The service's settings: one frozen record, checked once, serializable for workers."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

from ..errors import ConfigError
from ..params import (
    Bool,
    Check,
    Constraints,
    Float,
    Int,
    Nullable,
    PathLike,
    Str,
    StrList,
    validate_params,
)

__all__ = ["SETTINGS_ENV", "ServiceSettings", "read_api_keys"]

#: The environment variable that carries the settings (JSON) to uvicorn worker processes.
SETTINGS_ENV = "TACTFUL_SERVICE_SETTINGS"


def _is_options(value: Any) -> bool:
    return isinstance(value, Mapping) and all(
        isinstance(k, str) and isinstance(v, Mapping) and all(isinstance(o, str) for o in v)
        for k, v in value.items()
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ServiceSettings:
    """What ``tactful serve`` serves and how.

    Parameters
    ----------
    moderators : tuple of str, default=("builtin",)
        Registered moderator names; the first answers requests without ``model``.
    options : mapping of str to mapping, default={}
        Keyword options per moderator name (``{"builtin": {"threads": 1}}``).
    micro_batching : bool, default=True
        Merge texts of concurrent requests into one ``analyze`` call. Off, each
        request is its own call.
    max_batch : int, default=32
        Most texts in one merged call (a larger request still runs, alone).
    max_wait_ms : float, default=2.0
        How long the first request of a batch waits for batch-mates.
    max_queue : int, default=256
        Most texts waiting for the model; past it a request gets 503 with
        ``Retry-After`` (memory stays bounded under overload).
    concurrency : int, default=1
        ``analyze`` calls in flight per moderator. The builtin model already
        spreads one call's texts over the cores.
    max_body_bytes : int, default=1048576
        Largest request body of the API (413 above).
    max_upload_bytes : int, default=33554432
        Largest console upload (CSV/JSONL file).
    max_texts : int, default=256
        Most texts in one API request. At most ``max_queue``.
    max_chars : int, default=100000
        Most characters in one text; longer texts are refused with 400 (texts
        within it are windowed by the model as usual).
    api_keys_env : str or None, default=None
        Name of an environment variable holding ``name:key`` pairs separated by
        commas. When set, the API and the console's data need
        ``Authorization: Bearer <key>``; the key's name is recorded with labels.
    labels : path, default="tactful-labels.sqlite"
        SQLite file of the console's items, jobs and labels.
    needs_human : path or None, default=None
        A triage ``needs_human`` CSV/JSONL (columns ``id,text`` at least) put in
        the review queue at start-up (once per file content and moderator).
    review_head : str, default="toxicity"
        The score the review queue sorts by, least sure (``|score - threshold|``
        smallest) first.
    review_threshold : float or None, default=None
        The threshold of ``review_head``; the moderator's own operating point
        when None (the builtin card's, else 0.5).
    log_texts : bool, default=False
        Log each request's texts (never done otherwise).
    """

    moderators: tuple[str, ...] = ("builtin",)
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    micro_batching: bool = True
    max_batch: int = 32
    max_wait_ms: float = 2.0
    max_queue: int = 256
    concurrency: int = 1
    max_body_bytes: int = 1 << 20
    max_upload_bytes: int = 32 << 20
    max_texts: int = 256
    max_chars: int = 100_000
    api_keys_env: str | None = None
    labels: Path = Path("tactful-labels.sqlite")
    needs_human: Path | None = None
    review_head: str = "toxicity"
    review_threshold: float | None = None
    log_texts: bool = False

    _parameter_constraints: ClassVar[Constraints] = {
        "moderators": StrList(nonempty=True),
        "options": Check("a mapping of moderator name to a mapping of options", _is_options),
        "micro_batching": Bool(),
        "max_batch": Int(1),
        "max_wait_ms": Float(0, 1000),
        "max_queue": Int(1),
        "concurrency": Int(1),
        "max_body_bytes": Int(1),
        "max_upload_bytes": Int(1),
        "max_texts": Int(1),
        "max_chars": Int(1),
        "api_keys_env": Nullable(Str(nonempty=True)),
        "labels": PathLike(),
        "needs_human": Nullable(PathLike()),
        "review_head": Str(nonempty=True),
        "review_threshold": Nullable(Float(0, 1)),
        "log_texts": Bool(),
    }

    def __post_init__(self) -> None:
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        checked = validate_params("ServiceSettings", self._parameter_constraints, **values)
        checked["options"] = MappingProxyType(
            {k: MappingProxyType(dict(v)) for k, v in checked["options"].items()}
        )
        for name, value in checked.items():
            object.__setattr__(self, name, value)
        if len(set(self.moderators)) != len(self.moderators):
            raise ConfigError(f"Each moderator is served once. Got {list(self.moderators)!r}.")
        unknown = sorted(set(self.options) - set(self.moderators))
        if unknown:
            raise ConfigError(
                f"Options given for moderators that are not served: {', '.join(unknown)}."
            )
        if self.max_texts > self.max_queue:
            raise ConfigError(
                f"max_texts ({self.max_texts}) must not exceed max_queue ({self.max_queue}): "
                "a request that can never be queued would always get 503."
            )

    def to_json(self) -> str:
        """The settings as JSON (no secret: API keys stay in their environment variable)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["options"] = {k: dict(v) for k, v in self.options.items()}
        for name in ("labels", "needs_human"):
            data[name] = None if data[name] is None else str(data[name])
        data["moderators"] = list(self.moderators)
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ServiceSettings:
        """Settings written by :meth:`to_json`."""
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ConfigError(f"The service settings are not valid JSON: {exc}.") from None
        if not isinstance(data, dict):
            raise ConfigError("The service settings must be a JSON object.")
        known = {f.name for f in fields(cls)}
        extra = sorted(set(data) - known)
        if extra:
            raise ConfigError(f"Unknown service settings: {', '.join(extra)}.")
        if isinstance(data.get("moderators"), list):
            data["moderators"] = tuple(data["moderators"])
        return cls(**data)

    @classmethod
    def from_env(cls) -> ServiceSettings:
        """Settings from :data:`SETTINGS_ENV` (how ``tactful serve --workers N`` passes them)."""
        text = os.environ.get(SETTINGS_ENV)
        if not text:
            raise ConfigError(f"The environment variable {SETTINGS_ENV} holds no service settings.")
        return cls.from_json(text)


def read_api_keys(variable: str | None) -> dict[str, str]:
    """``key -> name`` from the environment variable ``variable`` (``name:key,name:key``).

    Raises
    ------
    ConfigError
        If the variable is unset or empty, or a pair is malformed. The message
        names the variable and the pair's position, never a key.
    """
    if variable is None:
        return {}
    raw = os.environ.get(variable, "")
    if not raw.strip():
        raise ConfigError(
            f"API keys were asked for with {variable}, but that environment variable is empty."
        )
    keys: dict[str, str] = {}
    for i, pair in enumerate(raw.split(","), 1):
        name, sep, key = pair.strip().partition(":")
        if not sep or not name.strip() or not key.strip():
            raise ConfigError(
                f"Pair {i} of {variable} is not of the form name:key (pairs are separated by commas)."
            )
        if key.strip() in keys:
            raise ConfigError(f"Pair {i} of {variable} repeats the key of another pair.")
        keys[key.strip()] = name.strip()
    return keys
