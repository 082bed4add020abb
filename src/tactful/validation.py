"""Input checks of array arguments, shared by every metric: one message each.

Array arguments are not scalar parameters, so they are checked here rather than
with :mod:`tactful.params`. :mod:`tactful.metrics`, :mod:`tactful.audit` and
:mod:`tactful.assist.metrics` check their inputs with these functions, so that all
of them speak with one voice; a bad array raises
:class:`~tactful.errors.ConfigError` with a one-line message that names the
parameter.

>>> from tactful.validation import binary, same_length
>>> binary("y_true", [0, 1, True])
array([False,  True,  True])
>>> same_length(y_true=[0, 1], scores=[0.5])
Traceback (most recent call last):
...
tactful.errors.ConfigError: [T010] Inputs must have the same length. Got y_true=2, scores=1.
"""

from __future__ import annotations

from collections.abc import Sized

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .errors import ConfigError

__all__ = ["binary", "finite_floats", "floats", "same_length"]


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
    """``values`` as a 1-d bool array.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    values : array-like
        0/1 or booleans.
    n : int, optional
        The number of values it must have (one per text).

    Returns
    -------
    numpy.ndarray of bool

    Raises
    ------
    ConfigError
        Not 1-d, a value other than 0/1 or a boolean, or not ``n`` values.
    """
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
    """``values`` as a 1-d float array; NaN (no value) is allowed, infinities are not.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    values : array-like
        Numbers, NaN where there is no value.
    n : int, optional
        The number of values it must have (one per text).

    Returns
    -------
    numpy.ndarray of float64

    Raises
    ------
    ConfigError
        Not numbers, not 1-d, not ``n`` values, or an infinite value.
    """
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(f"The {name!r} parameter must be an array of floats.") from None
    _one_d(name, arr)
    _count(name, arr, n)
    if np.isinf(arr).any():
        raise ConfigError(f"The {name!r} parameter must not hold infinite values.")
    return arr


def finite_floats(name: str, values: ArrayLike) -> NDArray[np.float64]:
    """``values`` (scores) as a 1-d float array with no NaN or infinity.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    values : array-like
        Finite numbers.

    Returns
    -------
    numpy.ndarray of float64

    Raises
    ------
    ConfigError
        Not numbers, not 1-d, or a NaN or infinite value.
    """
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(f"The {name!r} parameter must be an array of finite floats.") from None
    _one_d(name, arr)
    if not np.isfinite(arr).all():
        raise ConfigError(
            f"The {name!r} parameter must be an array of finite floats. Got a NaN or inf."
        )
    return arr


def same_length(**arrays: Sized) -> int:
    """The common length of ``arrays`` (given by name).

    Returns
    -------
    int

    Raises
    ------
    ConfigError
        Lengths that differ: one message naming every array and its length.
    """
    lengths = {k: len(v) for k, v in arrays.items()}
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{k}={n}" for k, n in lengths.items())
        raise ConfigError(f"Inputs must have the same length. Got {shown}.")
    return next(iter(lengths.values()))
