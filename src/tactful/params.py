"""Parameter checks, declared once per class and reported in one message shape.

A class (or function) declares its rules once, as a mapping from parameter name
to a :class:`Constraint`, and checks its arguments at the boundary with
:func:`validate_params`::

    class RandomModerator:
        _parameter_constraints: ClassVar[Constraints] = {
            "seed": Int(),
            "rate": Float(0.0, 1.0),
        }

        def __init__(self, *, seed: int = 0, rate: float = 0.5) -> None:
            p = validate_params("RandomModerator", self._parameter_constraints,
                                seed=seed, rate=rate)
            self.seed, self.rate = p["seed"], p["rate"]

Every failure raises :class:`~tactful.errors.ConfigError` with the message
:data:`PARAM_MESSAGE` (the shape scikit-learn uses)::

    The 'rate' parameter of RandomModerator must be a float in [0, 1]. Got 1.5 instead.

Tests assert on :data:`PARAM_MESSAGE` formatted with the constraint's
:meth:`Constraint.describe`, never on a copy of the text. Booleans are never
accepted where a number is wanted (``True`` is an ``int`` in Python, and a
``batch_size=True`` is always a mistake).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import PARAM_MESSAGE, ConfigError

__all__ = [
    "PARAM_MESSAGE",
    "Bool",
    "Check",
    "Constraint",
    "Constraints",
    "Float",
    "Int",
    "Nullable",
    "OneOf",
    "PathLike",
    "Str",
    "StrList",
    "check_param",
    "validate_arguments",
    "validate_params",
]


class Constraint:
    """One parameter's rule: :meth:`accept` returns the normalized value or raises."""

    def describe(self) -> str:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    def convert(self, value: Any) -> Any:
        """The normalized value, or raise ``ValueError`` when ``value`` breaks the rule."""
        raise NotImplementedError  # pragma: no cover

    def accept(self, name: str, owner: str, value: Any) -> Any:
        try:
            return self.convert(value)
        except (ValueError, TypeError):
            raise ConfigError(
                PARAM_MESSAGE.format(name=name, owner=owner, rule=self.describe(), value=value)
            ) from None


Constraints = Mapping[str, Constraint]


def _bound(low: float | None, high: float | None, closed: str, kind: str) -> str:
    if low is None and high is None:
        return kind
    if high is None:
        return f"{kind} {'>=' if closed in ('both', 'left') else '>'} {low:g}"
    if low is None:
        return f"{kind} {'<=' if closed in ('both', 'right') else '<'} {high:g}"
    left = "[" if closed in ("both", "left") else "("
    right = "]" if closed in ("both", "right") else ")"
    return f"{kind} in {left}{low:g}, {high:g}{right}"


def _within(v: float, low: float | None, high: float | None, closed: str) -> bool:
    below = low is not None and (v < low or (v == low and closed not in ("both", "left")))
    above = high is not None and (v > high or (v == high and closed not in ("both", "right")))
    return not (below or above)


@dataclass(frozen=True)
class Int(Constraint):
    """An ``int`` (never a ``bool``) within optional bounds (inclusive by default)."""

    low: int | None = None
    high: int | None = None
    closed: str = "both"

    def describe(self) -> str:
        return _bound(self.low, self.high, self.closed, "an int")

    def convert(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError
        if not _within(value, self.low, self.high, self.closed):
            raise ValueError
        return int(value)


@dataclass(frozen=True)
class Float(Constraint):
    """A finite real number (int or float, never a ``bool``), returned as ``float``.

    ``closed`` is one of ``"both"``, ``"left"``, ``"right"``, ``"neither"``.
    """

    low: float | None = None
    high: float | None = None
    closed: str = "both"

    def describe(self) -> str:
        return _bound(self.low, self.high, self.closed, "a float")

    def convert(self, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError
        v = float(value)
        if not math.isfinite(v) or not _within(v, self.low, self.high, self.closed):
            raise ValueError
        return v


@dataclass(frozen=True)
class Bool(Constraint):
    """A ``bool`` (``0``/``1`` are refused: they hide typos)."""

    def describe(self) -> str:
        return "a bool"

    def convert(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise TypeError
        return value


@dataclass(frozen=True)
class Str(Constraint):
    """A ``str``; ``nonempty`` refuses ``""`` and blank strings."""

    nonempty: bool = False

    def describe(self) -> str:
        return "a non-empty str" if self.nonempty else "a str"

    def convert(self, value: Any) -> str:
        if not isinstance(value, str):
            raise TypeError
        if self.nonempty and not value.strip():
            raise ValueError
        return value


@dataclass(frozen=True)
class OneOf(Constraint):
    """One of a fixed set of values (compared with ``==``, bools kept apart from ints)."""

    options: tuple[Any, ...]

    def __init__(self, options: Iterable[Any]) -> None:
        object.__setattr__(self, "options", tuple(options))

    def describe(self) -> str:
        return "one of " + ", ".join(repr(o) for o in self.options)

    def convert(self, value: Any) -> Any:
        for o in self.options:
            if type(o) is type(value) and o == value:
                return o
        raise ValueError


@dataclass(frozen=True)
class StrList(Constraint):
    """A list or tuple of str (a lone ``str`` is refused), returned as a tuple.

    ``options``, when given, restricts each item; ``nonempty`` refuses ``[]``.
    """

    options: tuple[str, ...] | None = None
    nonempty: bool = False

    def describe(self) -> str:
        what = (
            "a list of str"
            if self.options is None
            else ("a list of " + ", ".join(repr(o) for o in self.options))
        )
        return ("a non-empty " + what[2:]) if self.nonempty else what

    def convert(self, value: Any) -> tuple[str, ...]:
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            raise TypeError
        if not all(isinstance(v, str) for v in value):
            raise TypeError
        if self.options is not None and not set(value) <= set(self.options):
            raise ValueError
        if self.nonempty and not value:
            raise ValueError
        return tuple(value)


@dataclass(frozen=True)
class PathLike(Constraint):
    """A ``str`` or ``os.PathLike``, returned as :class:`pathlib.Path`."""

    def describe(self) -> str:
        return "a path (str or os.PathLike)"

    def convert(self, value: Any) -> Path:
        if isinstance(value, str):
            if not value:
                raise ValueError
            return Path(value)
        if isinstance(value, os.PathLike):
            return Path(value)
        raise TypeError


@dataclass(frozen=True)
class Nullable(Constraint):
    """``None`` or a value that ``inner`` accepts."""

    inner: Constraint = field(default_factory=Str)

    def describe(self) -> str:
        return f"{self.inner.describe()} or None"

    def convert(self, value: Any) -> Any:
        return None if value is None else self.inner.convert(value)


@dataclass(frozen=True)
class Check(Constraint):
    """A rule given as a predicate and its description (for the rare one-off rule)."""

    rule: str
    predicate: Callable[[Any], bool]

    def describe(self) -> str:
        return self.rule

    def convert(self, value: Any) -> Any:
        if not self.predicate(value):
            raise ValueError
        return value


def check_param(owner: str, name: str, value: Any, constraint: Constraint) -> Any:
    """Check one parameter; return its normalized value.

    Raises
    ------
    ConfigError
        With :data:`PARAM_MESSAGE` when ``value`` breaks ``constraint``.
    """
    return constraint.accept(name, owner, value)


def validate_params(owner: str, constraints: Constraints, /, **values: Any) -> dict[str, Any]:
    """Check ``values`` against ``constraints``; return the normalized values.

    Parameters
    ----------
    owner : str
        The class or function name used in the message (``"RandomModerator"``).
    constraints : mapping of str to Constraint
        The rules, declared once per class.
    **values
        The arguments to check. Every name must have a rule: a parameter
        without one is a programming error, reported as such.

    Returns
    -------
    dict
        ``name -> value`` after conversion (floats as ``float``, paths as
        ``Path``, string lists as tuples).

    Raises
    ------
    ConfigError
        The first parameter that breaks its rule, with :data:`PARAM_MESSAGE`.

    Examples
    --------
    >>> validate_params("X", {"threshold": Float(0, 1)}, threshold=1)
    {'threshold': 1.0}
    """
    out: dict[str, Any] = {}
    for name, value in values.items():
        try:
            constraint = constraints[name]
        except KeyError:
            raise TypeError(f"{owner} declares no constraint for parameter {name!r}.") from None
        out[name] = constraint.accept(name, owner, value)
    return out


def validate_arguments(
    owner: str, constraints: Constraints, arguments: Mapping[str, Any], /
) -> dict[str, Any]:
    """:func:`validate_params` on the entries of ``arguments`` that ``constraints`` names.

    For ``locals()`` as a function's first statement: every parameter that has
    a rule is checked, without listing the parameters a second time.

    Examples
    --------
    >>> def f(threshold=0.5, name="x"):
    ...     return validate_arguments("f", {"threshold": Float(0, 1)}, locals())
    >>> f(1)
    {'threshold': 1.0}
    """
    return validate_params(
        owner, constraints, **{k: v for k, v in arguments.items() if k in constraints}
    )
