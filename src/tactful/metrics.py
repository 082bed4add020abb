"""Metrics: pure functions over arrays.

Every function takes plain arrays (or sequences of offset sets for spans) and
returns plain numbers, so runners, audits and tests share one definition of each
figure. The formulas follow the papers tactful compares with:

* precision / recall / F1 / ROC-AUC / average precision for the positive class 1,
  computed by scikit-learn (imported lazily: ``tactful check`` never pays for it), with
  the input checks and the zero-division policy stated here, never left to a warning;
* jailbreak recall (JR) from ToxicChat (Lin et al., EMNLP Findings 2023);
* span F1 from SemEval-2021 Task 5 (Pavlopoulos et al., SemEval 2021) and the
  ToxicSpans paper (Pavlopoulos et al., ACL 2022);
* a seeded percentile bootstrap for confidence intervals, as in the speech
  suppression audit (Anigboro et al., 2024: 1,000 resamples, 95 %).

Bad input (lengths that differ, labels other than 0/1, non-finite scores) raises
:class:`~tactful.errors.ConfigError` with a one-line message.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .errors import ConfigError
from .validation import binary, finite_floats, same_length

__all__ = [
    "BootstrapCI",
    "average_precision",
    "bootstrap_ci",
    "jailbreak_recall",
    "precision_recall_f1",
    "roc_auc",
    "span_f1",
    "span_f1_per_post",
]


# --------------------------------------------------------------------------- checks


def _labels(name: str, values: ArrayLike) -> NDArray[np.int8]:
    # 0/1 labels (tactful.validation.binary) as int8, the dtype scikit-learn is given.
    return binary(name, values).astype(np.int8)


def _zero_division(value: float) -> float:
    # Same choices as scikit-learn minus "warn": a metric that is undefined on the
    # given data is a policy decision, stated by the caller, never a silent warning.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(
            f"The 'zero_division' parameter must be 0.0, 1.0 or nan. Got {value!r} instead."
        )
    value = float(value)
    if not (math.isnan(value) or value in (0.0, 1.0)):
        raise ConfigError(
            f"The 'zero_division' parameter must be 0.0, 1.0 or nan. Got {value!r} instead."
        )
    return value


def _ratio(num: int, den: int, zero_division: float) -> float:
    return num / den if den else zero_division


# ------------------------------------------------------------------ classification


def precision_recall_f1(
    y_true: ArrayLike, y_pred: ArrayLike, *, zero_division: float = 0.0
) -> dict[str, float]:
    """Precision, recall and F1 of the positive class 1.

    With TP, FP, FN counted for class 1:

    .. math::

        P = \\frac{TP}{TP + FP}, \\quad R = \\frac{TP}{TP + FN}, \\quad
        F_1 = \\frac{2\\,TP}{2\\,TP + FP + FN}

    These are the binary-average definitions of scikit-learn
    (``precision_recall_fscore_support(..., average="binary")``), which the
    DeTexD and ToxicChat papers report.

    Parameters
    ----------
    y_true : array-like of {0, 1} or bool, shape (n,)
        Gold labels; 1 is the positive class (toxic, jailbreak, delicate, ...).
    y_pred : array-like of {0, 1} or bool, shape (n,)
        Predicted labels.
    zero_division : {0.0, 1.0, nan}, default=0.0
        Value of a ratio whose denominator is zero: precision when nothing is
        predicted positive, recall when nothing is positive in ``y_true``, F1 when
        both (``2 TP + FP + FN == 0``). F1 is otherwise always defined, so
        ``P == R == 0`` gives F1 = 0, not ``zero_division``.

    Returns
    -------
    dict
        ``{"precision": float, "recall": float, "f1": float}``.

    Examples
    --------
    >>> precision_recall_f1([1, 1, 0, 0], [1, 0, 1, 0])
    {'precision': 0.5, 'recall': 0.5, 'f1': 0.5}
    >>> precision_recall_f1([0, 0], [0, 0])
    {'precision': 0.0, 'recall': 0.0, 'f1': 0.0}
    """
    zd = _zero_division(zero_division)
    t, p = _labels("y_true", y_true), _labels("y_pred", y_pred)
    if same_length(y_true=t, y_pred=p) == 0:
        # scikit-learn refuses empty input; here every ratio is 0/0.
        return {"precision": zd, "recall": zd, "f1": zd}
    from sklearn.metrics import precision_recall_fscore_support  # lazy: import costs ~0.5 s

    precision, recall, f1, _ = precision_recall_fscore_support(
        t, p, labels=[1], pos_label=1, average="binary", zero_division=zd
    )
    return {"precision": float(precision), "recall": float(recall), "f1": float(f1)}


def _ranking_input(
    y_true: ArrayLike, scores: ArrayLike
) -> tuple[NDArray[np.int8], NDArray[np.float64]]:
    # The checked (labels, scores) of a ranking metric: binary labels, finite scores, same length.
    t, s = _labels("y_true", y_true), finite_floats("scores", scores)
    same_length(y_true=t, scores=s)
    return t, s


def roc_auc(y_true: ArrayLike, scores: ArrayLike) -> float | None:
    """Area under the ROC curve for the positive class 1.

    Computed as the Mann-Whitney statistic: the probability that a random
    positive scores higher than a random negative, ties counting one half,

    .. math::

        AUC = \\frac{1}{n_+ n_-} \\sum_{i: y_i = 1} \\sum_{j: y_j = 0}
              \\big([s_i > s_j] + \\tfrac12 [s_i = s_j]\\big),

    which equals the trapezoidal area under the ROC curve
    (``sklearn.metrics.roc_auc_score``).

    Parameters
    ----------
    y_true : array-like of {0, 1} or bool, shape (n,)
        Gold labels.
    scores : array-like of float, shape (n,)
        Scores, higher = more likely positive. Must be finite.

    Returns
    -------
    float or None
        The AUC, or ``None`` when ``y_true`` holds only one class (or is empty):
        the AUC is undefined there, and ``None`` cannot be mistaken for a score.

    Examples
    --------
    >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> roc_auc([1, 1], [0.2, 0.9]) is None
    True
    """
    t, s = _ranking_input(y_true, scores)
    n_pos = int(t.sum())
    if n_pos == 0 or n_pos == t.size:
        return None
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(t, s))


def average_precision(y_true: ArrayLike, scores: ArrayLike) -> float | None:
    """Average precision (area under the precision-recall curve, step-wise).

    With the distinct score values as thresholds, taken from high to low, and
    :math:`P_k`, :math:`R_k` the precision and recall of predicting positive
    every row scoring at least the k-th threshold,

    .. math::

        AP = \\sum_k (R_k - R_{k-1})\\, P_k, \\qquad R_0 = 0,

    the non-interpolated definition of ``sklearn.metrics.average_precision_score``.

    Parameters
    ----------
    y_true, scores
        As in :func:`roc_auc`.

    Returns
    -------
    float or None
        The AP, or ``None`` when ``y_true`` has no positive row (recall is
        undefined, so is the curve).

    Examples
    --------
    >>> average_precision([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.8333333333333333
    """
    t, s = _ranking_input(y_true, scores)
    if not t.any():
        return None
    from sklearn.metrics import average_precision_score

    return float(average_precision_score(t, s))


def jailbreak_recall(
    y_pred: ArrayLike, jailbreak: ArrayLike, *, zero_division: float = 0.0
) -> float:
    """Jailbreak recall (JR): share of jailbreak prompts predicted toxic.

    ToxicChat (Lin et al., EMNLP Findings 2023) labels every jailbreaking prompt
    toxic and reports, beside P/R/F1, the recall of the *toxicity* decision on
    the jailbreaking rows alone:

    .. math::

        JR = \\frac{|\\{i : jailbreak_i = 1 \\wedge \\hat y_i = 1\\}|}
                  {|\\{i : jailbreak_i = 1\\}|}

    Parameters
    ----------
    y_pred : array-like of {0, 1} or bool, shape (n,)
        The moderator's toxicity decisions.
    jailbreak : array-like of {0, 1} or bool, shape (n,)
        Gold jailbreak labels of the same rows.
    zero_division : {0.0, 1.0, nan}, default=0.0
        Value returned when no row is labelled jailbreak.

    Returns
    -------
    float

    Examples
    --------
    >>> jailbreak_recall([1, 0, 1, 0], [1, 1, 0, 0])
    0.5
    """
    zd = _zero_division(zero_division)
    p, j = _labels("y_pred", y_pred), _labels("jailbreak", jailbreak)
    same_length(y_pred=p, jailbreak=j)
    return _ratio(int(np.sum((j == 1) & (p == 1))), int(j.sum()), zd)


# ------------------------------------------------------------------------- spans


def _offset_set(name: str, i: int, offsets: Iterable[int]) -> frozenset[int]:
    try:
        out = frozenset(int(o) for o in offsets)
    except (TypeError, ValueError):
        raise ConfigError(f"{name}[{i}] must be an iterable of int character offsets.") from None
    if any(o < 0 for o in out):
        raise ConfigError(f"{name}[{i}] holds a negative character offset.")
    return out


def span_f1_per_post(
    gold: Sequence[Iterable[int]], pred: Sequence[Iterable[int]]
) -> NDArray[np.float64]:
    """Per-post span F1 over character-offset sets (SemEval-2021 Task 5).

    For each post with gold offsets :math:`G` and predicted offsets :math:`P`,

    .. math::

        P_t = \\frac{|G \\cap P|}{|P|}, \\quad R_t = \\frac{|G \\cap P|}{|G|}, \\quad
        F_1 = \\frac{2 P_t R_t}{P_t + R_t} = \\frac{2 |G \\cap P|}{|G| + |P|},

    with the task's rules for empty sets: an empty gold set scores 1 if the
    prediction is empty too and 0 otherwise; an empty prediction against a
    non-empty gold set scores 0; no overlap scores 0. This is the official
    scorer of SemEval-2021 Task 5 (Pavlopoulos et al., SemEval 2021) and the
    metric of the ToxicSpans paper (Pavlopoulos et al., ACL 2022). Offsets are
    treated as sets: duplicates count once.

    Parameters
    ----------
    gold : sequence of iterables of int, length n
        Gold toxic character offsets of each post.
    pred : sequence of iterables of int, length n
        Predicted toxic character offsets of each post.

    Returns
    -------
    ndarray of float, shape (n,)
        F1 of each post, in [0, 1].

    Examples
    --------
    >>> span_f1_per_post([[1, 2, 3], [], []], [[2, 3, 4, 5], [], [7]]).tolist()
    [0.5714285714285714, 1.0, 0.0]
    """
    same_length(gold=gold, pred=pred)
    out = np.empty(len(gold), dtype=np.float64)
    for i, (g_raw, p_raw) in enumerate(zip(gold, pred, strict=True)):
        g, p = _offset_set("gold", i, g_raw), _offset_set("pred", i, p_raw)
        if not g:
            out[i] = 1.0 if not p else 0.0
        elif not p:
            out[i] = 0.0
        else:
            out[i] = 2.0 * len(g & p) / (len(g) + len(p))
    return out


def span_f1(gold: Sequence[Iterable[int]], pred: Sequence[Iterable[int]]) -> float:
    """Span F1: the mean over posts of :func:`span_f1_per_post`.

    SemEval-2021 Task 5 and the ToxicSpans paper rank systems by this mean;
    every post weighs the same whatever its length or number of offsets.

    Parameters
    ----------
    gold : sequence of iterables of int, length n >= 1
        Gold toxic character offsets of each post.
    pred : sequence of iterables of int, length n
        Predicted toxic character offsets of each post.

    Returns
    -------
    float
        Mean per-post F1, in [0, 1].

    Raises
    ------
    ConfigError
        If there is no post (the mean of nothing is undefined).

    Examples
    --------
    >>> span_f1([[1, 2, 3], []], [[1, 2, 3], []])
    1.0
    """
    if len(gold) == 0 and len(pred) == 0:
        raise ConfigError("span_f1 needs at least one post. Got 0.")
    return float(span_f1_per_post(gold, pred).mean())


# --------------------------------------------------------------------- bootstrap


class BootstrapCI(NamedTuple):
    """A point estimate with its bootstrap confidence interval ``[low, high]``."""

    point: float
    low: float
    high: float


def _rows(i: int, values: Any) -> np.ndarray:
    if isinstance(values, np.ndarray):
        arr = values
    else:
        try:
            arr = np.asarray(values)
        except ValueError:  # ragged nested sequences, e.g. offset lists per post
            arr = np.empty(len(values), dtype=object)
            arr[:] = list(values)
    if arr.ndim == 0:
        raise ConfigError(f"Array {i} of bootstrap_ci must be a sequence of rows. Got {values!r}.")
    return arr


def _number(value: Any) -> float | None:
    if value is None:
        return None
    v = float(value)
    return None if math.isnan(v) else v


def bootstrap_ci(
    metric: Callable[..., float | None],
    *arrays: Any,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> BootstrapCI:
    """Percentile bootstrap confidence interval of ``metric(*arrays)``.

    Draws ``n_resamples`` resamples of the rows with replacement (the same row
    indices for every array, so paired arrays stay paired) from
    ``numpy.random.default_rng(seed)``, evaluates ``metric`` on each, and
    returns the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles
    of the resampled values (the percentile method; Efron & Tibshirani 1993).
    The speech-suppression audit (Anigboro et al., 2024) uses 1,000 resamples
    and 95 %.

    Parameters
    ----------
    metric : callable
        ``metric(*arrays) -> float`` (or ``None`` when undefined), e.g.
        :func:`roc_auc` or ``lambda t, p: precision_recall_f1(t, p)["f1"]``.
    *arrays : array-likes of the same length n >= 1
        Row-aligned inputs of ``metric``. Sequences of offset sets (spans) are
        kept as object arrays.
    n_resamples : int, default=1000
        Number of bootstrap resamples, >= 1.
    confidence : float, default=0.95
        Confidence level, in (0, 1).
    seed : int, default=0
        Seed of the random generator: the same seed gives the same interval.

    Returns
    -------
    BootstrapCI
        ``(point, low, high)``; ``point`` is ``metric`` on the full arrays.
        Resamples on which ``metric`` is undefined (``None`` or NaN, e.g. an
        AUC on a resample with one class) are left out of the quantiles.

    Raises
    ------
    ConfigError
        On bad parameters, arrays of different or zero length, or when the
        metric is undefined on the full data or on every resample.

    Examples
    --------
    >>> ci = bootstrap_ci(lambda x: float(x.mean()), [0.0, 1.0, 1.0, 0.0], seed=0)
    >>> ci.point
    0.5
    >>> ci.low <= ci.point <= ci.high
    True
    """
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise ConfigError(
            f"The 'n_resamples' parameter must be an int >= 1. Got {n_resamples!r} instead."
        )
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, (int, float))
        or not 0 < confidence < 1
    ):
        raise ConfigError(
            f"The 'confidence' parameter must be a float in (0, 1). Got {confidence!r} instead."
        )
    if not arrays:
        raise ConfigError("bootstrap_ci needs at least one array.")
    rows = [_rows(i, a) for i, a in enumerate(arrays)]
    n = same_length(**{f"array{i}": a for i, a in enumerate(rows)})
    if n == 0:
        raise ConfigError("bootstrap_ci needs at least one row. Got 0.")
    point = _number(metric(*rows))
    if point is None:
        raise ConfigError("The metric is undefined on the full data; no interval to compute.")
    rng = np.random.default_rng(seed)
    stats = []
    for _ in range(n_resamples):
        idx = rng.integers(0, n, size=n)
        value = _number(metric(*(a[idx] for a in rows)))
        if value is not None:
            stats.append(value)
    if not stats:
        raise ConfigError("The metric is undefined on every bootstrap resample.")
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(np.asarray(stats), [alpha, 1.0 - alpha])
    return BootstrapCI(point, float(low), float(high))
