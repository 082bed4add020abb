"""The :class:`Moderator` protocol and the registry of moderators by name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from ._types import Analysis
from .errors import ConfigError, UnknownNameError

__all__ = ["Moderator", "available", "load", "register"]


@runtime_checkable
class Moderator(Protocol):
    """Anything that analyzes a batch of texts.

    Implementations are plain classes; they satisfy the protocol structurally.
    ``analyze`` returns exactly one :class:`Analysis` per input text, in order,
    for one text or many. ``config()`` returns keyword arguments that rebuild an
    equal moderator via ``tactful.load(name, **config)``.
    """

    name: str
    version: str

    def analyze(self, texts: Sequence[str]) -> list[Analysis]: ...

    def config(self) -> dict[str, Any]: ...


Factory = Callable[..., Moderator]
_REGISTRY: dict[str, Factory] = {}


def register(name: str) -> Callable[[Factory], Factory]:
    """Class/function decorator registering a moderator factory under ``name``.

    Registering the same name twice with a different factory is an error.
    """

    def deco(factory: Factory) -> Factory:
        old = _REGISTRY.get(name)
        if old is not None and old is not factory and getattr(old, "__qualname__", None) != getattr(
            factory, "__qualname__", None
        ):
            raise ConfigError(f"A moderator named {name!r} is already registered ({old!r}).")
        _REGISTRY[name] = factory
        return factory

    return deco


def _ensure_builtins() -> None:
    # Importing the package registers the shipped moderators.
    from . import moderators  # noqa: F401


def available() -> list[str]:
    """Names of the registered moderators, sorted."""
    _ensure_builtins()
    return sorted(_REGISTRY)


def load(name: str, **config: Any) -> Moderator:
    """Build the moderator registered as ``name`` with keyword ``config``.

    Raises
    ------
    UnknownNameError
        If no moderator is registered under ``name``; the message lists the known names.
    """
    _ensure_builtins()
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise UnknownNameError("moderator", name, _REGISTRY) from None
    return factory(**config)
