"""The :class:`Moderator` protocol and the registry of moderators by name.

Moderators are found by name among the entry points of group ``tactful.moderators``
(tactful's own too, see :mod:`tactful._plugins`) and among those registered in this
process with :func:`register` or :func:`temporary_registration`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from importlib.metadata import EntryPoint
from typing import Any, Protocol, cast, runtime_checkable

from ._plugins import MODERATORS, declared, distribution, entry_point, load_entry_point
from ._types import Analysis
from .errors import UNKNOWN_OPTION_MESSAGE, ConfigError, UnknownNameError

__all__ = ["Moderator", "available", "load", "register", "temporary_registration"]


@runtime_checkable
class Moderator(Protocol):
    """Anything that analyzes a batch of texts.

    Implementations are plain classes; they satisfy the protocol structurally.
    ``analyze`` returns exactly one :class:`Analysis` per input text, in order,
    for one text or many. ``config()`` returns keyword arguments that rebuild an
    equal moderator via ``tactful.load(name, **config)``.

    A backend that cannot answer raises :class:`~tactful.errors.BackendError`
    (or a subclass); :func:`tactful.store.analyze_all` then asks for the batch's
    texts one at a time and keeps a text that fails alone as *failed*. Any other
    exception is treated as a bug and propagates.

    Optional hints, read by :func:`tactful.store.analyze_all` (never part of the
    answers, nor of the key the answers are stored under):

    ``batch_size`` : int
        Texts per ``analyze`` call the moderator wants (default 64).
    ``concurrency`` : int
        ``analyze`` calls in flight at once, in worker threads (default 1); each
        call's answers are committed to the store as soon as it returns. A
        moderator with ``concurrency`` > 1 must allow concurrent ``analyze``.
    ``runtime_options`` : collection of str
        Keys of ``config()`` that do not change answers (timeouts, concurrency,
        qps, api_key_env, batch_size, max_retries...). The store key leaves them
        out, so changing a timeout reuses the stored answers.
    """

    # Read-only in the protocol: a class attribute or a property both satisfy it.
    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    def analyze(self, texts: Sequence[str]) -> list[Analysis]: ...

    def config(self) -> dict[str, Any]: ...


Factory = Callable[..., Moderator]
#: Moderators registered in this process with :func:`register` (notebooks, tests).
_REGISTRY: dict[str, Factory] = {}
#: Factories of entry points (:data:`tactful._plugins.MODERATORS`), imported on first use.
_LOADED: dict[EntryPoint, Factory] = {}
_KIND = "moderator"


def _declared_as(name: str) -> EntryPoint | None:
    return entry_point(_KIND, MODERATORS, name)


def _taken(name: str, factory: Factory | None = None) -> None:
    """Refuse ``name`` when another factory than ``factory`` holds it."""
    old = _REGISTRY.get(name)
    if old is not None:
        if factory is None or not (
            old is factory
            or getattr(old, "__qualname__", None) == getattr(factory, "__qualname__", None)
        ):
            raise ConfigError(f"A moderator named {name!r} is already registered ({old!r}).")
        return
    ep = _declared_as(name)
    if ep is not None and (
        factory is None
        or (ep.module, ep.attr)
        != (getattr(factory, "__module__", None), getattr(factory, "__qualname__", None))
    ):
        raise ConfigError(
            f"A moderator named {name!r} is already registered "
            f"(entry point {ep.value!r} of {distribution(ep)})."
        )


def register(name: str) -> Callable[[Factory], Factory]:
    """Class/function decorator registering a moderator factory under ``name`` in this process.

    Installed packages declare their moderators as entry points instead (group
    ``tactful.moderators``, see :mod:`tactful._plugins`); ``register`` is for
    notebooks and tests. Registering a name twice with a different factory, or a
    name an entry point declares with another object, is an error.

    Raises
    ------
    ConfigError
        If ``name`` is taken by another factory.
    """

    def deco(factory: Factory) -> Factory:
        _taken(name, factory)
        if _declared_as(name) is None:
            # A name an entry point declares (with this very factory, or _taken would have
            # refused) stays with the entry point, so that its checks keep running.
            _REGISTRY[name] = factory
        return factory

    return deco


@contextmanager
def temporary_registration(name: str, factory: Factory) -> Iterator[Factory]:
    """Register ``factory`` as ``name`` for the ``with`` block only (tests, notebooks).

    Raises
    ------
    ConfigError
        If a moderator is already registered or declared as ``name``.

    Examples
    --------
    >>> with tactful.temporary_registration("counting", CountingModerator):  # doctest: +SKIP
    ...     tactful.load("counting")
    """
    _taken(name)
    _REGISTRY[name] = factory
    try:
        yield factory
    finally:
        if _REGISTRY.get(name) is factory:
            del _REGISTRY[name]


def available() -> list[str]:
    """Names of the registered moderators, sorted.

    Reads the entry points' metadata; no backend is imported.

    Raises
    ------
    ConfigError
        If two installed distributions declare one name.
    """
    return sorted(set(_REGISTRY) | set(declared(_KIND, MODERATORS)))


def _factory(name: str) -> Factory:
    registered = _REGISTRY.get(name)
    if registered is not None:
        return registered
    ep = _declared_as(name)
    if ep is None:
        raise UnknownNameError(_KIND, name, available())
    factory = _LOADED.get(ep)
    if factory is not None:
        return factory
    obj = load_entry_point(_KIND, ep)
    if not callable(obj):
        raise ConfigError(
            f"The moderator {name!r} of {distribution(ep)} names {ep.value!r}, "
            "which is not a class or function."
        )
    _LOADED[ep] = obj
    return cast(Factory, obj)


def load(name: str, **config: Any) -> Moderator:
    """Build the moderator registered as ``name`` with keyword ``config``.

    Only the module that defines it is imported (on first use).

    Raises
    ------
    UnknownNameError
        If no moderator is registered under ``name``; the message lists the known names.
    ConfigError
        If ``config`` names an option the moderator does not take
        (:data:`UNKNOWN_OPTION_MESSAGE`); the message lists the options it takes. If
        its plug-in fails to import, or two distributions declare ``name``: one line
        naming them.
    """
    factory = _factory(name)
    _check_options(name, factory, config)
    return factory(**config)


#: Keywords that hand a moderator an object (tests inject an HTTP client), listed nowhere.
_INJECTED = frozenset({"client", "transport"})


def _check_options(name: str, factory: Factory, config: dict[str, Any]) -> None:
    """Refuse keywords the factory's signature does not take, before calling it, so that a
    typo in ``-O`` is one line naming the known options, not a ``TypeError`` traceback."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # no signature to read (a C callable): let it decide
        return
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return
    taken = sorted(
        p.name
        for p in params
        if p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    )
    # Injected objects (an httpx client or transport for tests) are keywords, not options.
    known = [k for k in taken if k not in _INJECTED]
    for key in config:
        if key not in taken:
            raise ConfigError(
                UNKNOWN_OPTION_MESSAGE.format(
                    name=name, key=key, known=", ".join(known) or "(none)"
                )
            )
