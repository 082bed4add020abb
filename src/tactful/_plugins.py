"""Plug-ins: moderators and data sets declared through entry points, imported on first use.

A distribution declares names in its metadata, e.g. in ``pyproject.toml``::

    [project.entry-points."tactful.moderators"]
    echo = "tactful_echo:EchoModerator"

    [project.entry-points."tactful.datasets"]
    echo_set = "tactful_echo.data"

tactful's own moderators and data sets are declared the same way. Listing the names
reads the installed distributions' metadata only; a backend is imported when its
name is first loaded. The metadata is read again when ``sys.path`` changes.
"""

from __future__ import annotations

import functools
import sys
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from .errors import ConfigError

__all__ = [
    "BROKEN_MESSAGE",
    "DATASETS",
    "DUPLICATE_MESSAGE",
    "MODERATORS",
    "declared",
    "distribution",
    "entry_point",
    "load_entry_point",
]

#: The entry-point group of moderator factories (a class or function, called with the options).
MODERATORS = "tactful.moderators"
#: The entry-point group of data sets (a module, or an object in it, whose import
#: registers the data set with :func:`tactful.datasets.register_dataset`).
DATASETS = "tactful.datasets"

#: Two installed distributions declare one name.
DUPLICATE_MESSAGE = (
    "The {kind} {name!r} is declared by {n} distributions, {dists}: uninstall all but one."
)
#: An entry point that fails to import (or to give its object).
BROKEN_MESSAGE = "The {kind} {name!r} of the distribution {dist} failed to load: {error}."


@functools.lru_cache(maxsize=8)
def _scan(group: str, path: tuple[str, ...]) -> dict[str, tuple[EntryPoint, ...]]:
    # ``path`` only keys the cache: a changed sys.path reads the metadata again.
    found: dict[str, list[EntryPoint]] = {}
    for ep in entry_points(group=group):
        found.setdefault(ep.name, []).append(ep)
    return {name: tuple(eps) for name, eps in sorted(found.items())}


def distribution(ep: EntryPoint) -> str:
    """``"name version"`` of the distribution that declares ``ep``."""
    dist = ep.dist
    return "(unknown)" if dist is None else f"{dist.name} {dist.version}"


def _one(kind: str, name: str, eps: tuple[EntryPoint, ...]) -> EntryPoint:
    dists = sorted({"(unknown)" if ep.dist is None else ep.dist.name for ep in eps})
    if len(dists) > 1:
        listed = ", ".join(repr(d) for d in dists[:-1]) + f" and {dists[-1]!r}"
        raise ConfigError(
            DUPLICATE_MESSAGE.format(kind=kind, name=name, n=len(dists), dists=listed)
        )
    return eps[-1]


def declared(kind: str, group: str) -> dict[str, EntryPoint]:
    """Name → entry point of every name declared in ``group``, sorted; nothing is imported.

    Raises
    ------
    ConfigError
        If two distributions declare one name (:data:`DUPLICATE_MESSAGE`).
    """
    return {name: _one(kind, name, eps) for name, eps in _scan(group, tuple(sys.path)).items()}


def entry_point(kind: str, group: str, name: str) -> EntryPoint | None:
    """The entry point declaring ``name`` in ``group``, or None.

    Raises
    ------
    ConfigError
        If two distributions declare ``name`` (:data:`DUPLICATE_MESSAGE`).
    """
    eps = _scan(group, tuple(sys.path)).get(name)
    return None if eps is None else _one(kind, name, eps)


def load_entry_point(kind: str, ep: EntryPoint) -> Any:
    """Import what ``ep`` names.

    Raises
    ------
    ConfigError
        One line naming the distribution and the exception (:data:`BROKEN_MESSAGE`),
        whatever the import raised.
    """
    try:
        return ep.load()
    except Exception as exc:
        detail = str(exc).strip().splitlines()
        error = type(exc).__name__ + (f": {detail[0].rstrip('.')}" if detail else "")
        raise ConfigError(
            BROKEN_MESSAGE.format(kind=kind, name=ep.name, dist=distribution(ep), error=error)
        ) from exc
