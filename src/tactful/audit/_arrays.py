"""Input checks of the audit's array arguments (metrics and regressions), one message each.

Array arguments are not scalar parameters, so they are checked here rather than
with :mod:`tactful.params`; a bad one raises :class:`~tactful.errors.ConfigError`
with a one-line message that names the parameter.
"""

from __future__ import annotations

from collections.abc import Sized

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import ConfigError

__all__ = ["binary", "floats", "same_length"]


def _one_d(name: str, arr: np.ndarray) -> None:
    if arr.ndim != 1:
        raise ConfigError(
            f"The {name!r} parameter must be a 1-d array. Got shape {arr.shape} instead."
        )


def _count(name: str, arr: np.ndarray, n: int | None) -> None:
    if n is not None and arr.size != n:
        raise ConfigError(
            f"The {name!r} parameter must have {n} values, one per text. Got {arr.size}."
        )


def binary(name: str, values: ArrayLike, n: int | None = None) -> NDArray[np.bool_]:
    """``values`` as a 1-d bool array; each must be 0/1 or a bool (and ``n`` of them)."""
    arr = np.asarray(values)
    _one_d(name, arr)
    if arr.size and (arr.dtype == object or not np.isin(arr, (0, 1)).all()):
        bad = next((v for v in arr.tolist() if v not in (0, 1)), arr[0])
        raise ConfigError(
            f"The {name!r} parameter must hold only 0/1 or booleans. Got {bad!r} instead."
        )
    _count(name, arr, n)
    return arr.astype(bool)


def floats(name: str, values: ArrayLike, n: int | None = None) -> NDArray[np.float64]:
    """``values`` as a 1-d float array; NaN (no value) is allowed, infinities are not."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(f"The {name!r} parameter must be an array of floats.") from None
    _one_d(name, arr)
    _count(name, arr, n)
    if np.isinf(arr).any():
        raise ConfigError(f"The {name!r} parameter must not hold infinite values.")
    return arr


def same_length(**arrays: Sized) -> int:
    """The common length of ``arrays``; different lengths are one ConfigError naming them all."""
    lengths = {k: len(v) for k, v in arrays.items()}
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{k}={n}" for k, n in lengths.items())
        raise ConfigError(f"The parameters must have the same length. Got {shown}.")
    return next(iter(lengths.values()))
