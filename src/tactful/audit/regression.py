"""Regressions of moderation errors on identity, slurs, text source and length.

Following Anigboro et al. (2024, Tables 15–16), two models explain a moderator's
behaviour with the nine identity-group indicators, ``has_slur`` (a slur/slang term
occurs), ``genai`` (the text comes from a generative-AI data set) and
``word_length`` (whitespace-separated words):

* **flag moderators** — logistic regression over all texts of
  :math:`\\Pr(\\hat y_t = y_t)`, "the flag matches the ground truth": a negative
  coefficient means the feature makes a moderation error more likely;
* **score moderators** — ordinary least squares over the true negatives (texts
  that do not violate) of the max-category score: a positive coefficient means the
  feature raises the score of acceptable text, i.e. pushes it towards suppression.

Both return one row per term (``const`` first) with the coefficient, its standard
error, the test statistic, the two-sided p-value and a 95% interval, and record in
``DataFrame.attrs`` how the model was fitted:

``attrs["method"]``
    ``"logit"`` (maximum likelihood), ``"firth-logit"`` (the fallback below) or
    ``"ols"``.
``attrs["dropped"]``
    ``{term: reason}`` for the terms left out of the design before fitting: a column
    that is constant on the rows used (e.g. ``genai`` for a single data set, a group
    no text belongs to) or a linear combination of earlier columns (a singular design
    matrix). Their effects cannot be estimated, so they get no row.
``attrs["n"]``
    Rows the model was fitted on.

Separation. When a term predicts the outcome perfectly (say the only ``straight``
text is moderated correctly, or every flag matches the ground truth) the logistic
maximum-likelihood estimate does not exist; statsmodels then warns and returns
meaningless coefficients. :func:`flag_regression` detects this (a perfect-separation
or convergence warning, non-finite standard errors, or a coefficient beyond ±20 on
the log-odds scale) and refits with Firth's penalized likelihood (Firth 1993; Heinze
& Schemper 2002), which gives finite estimates and Wald intervals in that case and
is close to maximum likelihood otherwise.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
import statsmodels.api as sm
from numpy.typing import ArrayLike, NDArray
from scipy import stats
from statsmodels.tools.sm_exceptions import (
    ConvergenceWarning,
    HessianInversionWarning,
    PerfectSeparationWarning,
)

from ..errors import ConfigError
from ..identity import GROUPS, normalize_group
from ..validation import binary, floats

__all__ = [
    "GROUP_COLUMNS",
    "REGRESSION_COLUMNS",
    "flag_regression",
    "regression_frame",
    "score_regression",
]

#: Indicator column of each group (``non-white`` → ``non_white``), in :data:`GROUPS` order.
GROUP_COLUMNS: tuple[str, ...] = tuple(g.replace("-", "_") for g in GROUPS)
#: Columns of :func:`regression_frame`.
REGRESSION_COLUMNS: tuple[str, ...] = (*GROUP_COLUMNS, "has_slur", "genai", "word_length")

_RESULT_COLUMNS = ("coef", "std_err", "{stat}", "p_value", "ci_low", "ci_high")
_MAX_LOGIT_COEF = 20.0  # |log-odds| beyond this means the MLE ran off to infinity
_Z_975 = float(stats.norm.ppf(0.975))


def _binary(name: str, values: ArrayLike, n: int | None = None) -> NDArray[np.int8]:
    return binary(name, values, n).astype(np.int8)


def regression_frame(
    texts: Sequence[str],
    y_true: ArrayLike,
    groups: Sequence[Iterable[str]],
    *,
    has_slur: ArrayLike | bool,
    genai: ArrayLike | bool,
) -> pd.DataFrame:
    """The explanatory variables of the paper's regressions, one row per text.

    Parameters
    ----------
    texts : sequence of str
        The texts (only their word counts are used).
    y_true : array-like of {0, 1}
        Ground truth; checked for length here, used by the fitting functions.
    groups : sequence of iterables of str
        Identity groups of each text (names of :data:`tactful.identity.GROUPS`; the
        paper's spellings such as ``"lgbt-related"`` are accepted).
    has_slur : array-like of bool, or a bool for every text
        Whether each text contains a slur (``IdentityTags.has_slur``).
    genai : array-like of bool, or a bool for every text
        Whether each text comes from a generative-AI data set.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`REGRESSION_COLUMNS`: ``men, women, white, non_white,
        christian, non_christian, lgbt, straight, disability`` (0/1), ``has_slur``,
        ``genai`` (0/1) and ``word_length`` (``len(text.split())``), all ``int64``.

    Examples
    --------
    >>> regression_frame(["gay dads", "hi"], [0, 1], [{"lgbt", "men"}, set()],
    ...                  has_slur=False, genai=[1, 0]).loc[0, ["men", "lgbt", "genai", "word_length"]].tolist()
    [1, 1, 1, 2]
    """
    if isinstance(texts, str):
        raise ConfigError("The 'texts' parameter must be a sequence of str, not a single str.")
    n = len(texts)
    _binary("y_true", y_true, n)
    if isinstance(groups, str) or len(groups) != n:
        raise ConfigError(f"The 'groups' parameter must have {n} entries, one per text.")
    data = np.zeros((n, len(REGRESSION_COLUMNS)), dtype=np.int64)
    column = {g: j for j, g in enumerate(GROUPS)}
    for i, (text, row) in enumerate(zip(texts, groups)):
        if not isinstance(text, str):
            raise ConfigError(
                f"The 'texts' parameter must hold only str. Got {type(text).__name__} at position {i}."
            )
        if isinstance(row, str):
            raise ConfigError(
                f"The 'groups' parameter must hold collections of group names; got the str {row!r}."
            )
        for name in row:
            data[i, column[normalize_group(name)]] = 1
        data[i, -1] = len(text.split())
    for j, (name, value) in enumerate(
        (("has_slur", has_slur), ("genai", genai)), start=len(GROUPS)
    ):
        if isinstance(value, (bool, np.bool_)):
            data[:, j] = int(value)
        else:
            data[:, j] = _binary(name, value, n)
    return pd.DataFrame(data, columns=list(REGRESSION_COLUMNS))


def _checked_frame(frame: pd.DataFrame, n: int) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise ConfigError(
            f"The 'frame' parameter must be a pandas.DataFrame. Got {type(frame).__name__}."
        )
    if len(frame) != n:
        raise ConfigError(f"The 'frame' has {len(frame)} rows but the outcome has {n} values.")
    if "const" in frame.columns:
        raise ConfigError(
            "The 'frame' must not have a 'const' column; the intercept is added here."
        )
    try:
        numeric = frame.astype(np.float64)
    except (TypeError, ValueError):
        raise ConfigError("The 'frame' parameter must hold only numeric columns.") from None
    if not np.isfinite(numeric.to_numpy()).all():
        raise ConfigError("The 'frame' parameter must not hold NaN or infinite values.")
    return numeric.reset_index(drop=True)


def _design(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, str]]:
    """Intercept + the columns that can be estimated; the others with the reason."""
    dropped: dict[str, str] = {}
    design = pd.concat([pd.Series(1.0, index=frame.index, name="const"), frame], axis=1)
    kept = ["const"]
    for col in frame.columns:
        values = design[col].to_numpy()
        if values.size == 0 or np.ptp(values) == 0:
            dropped[str(col)] = "constant on the rows used"
            continue
        # Rank test on norm-scaled columns, so word counts and 0/1 indicators compare.
        trial = design[[*kept, col]].to_numpy()
        trial = trial / np.linalg.norm(trial, axis=0)
        if np.linalg.matrix_rank(trial) < len(kept) + 1:
            dropped[str(col)] = "a linear combination of earlier columns"
            continue
        kept.append(col)
    return design[kept], dropped


def _table(
    terms: Iterable[object],
    coef: ArrayLike,
    bse: ArrayLike,
    stat_name: str,
    stat: ArrayLike,
    p: ArrayLike,
    low: ArrayLike,
    high: ArrayLike,
) -> pd.DataFrame:
    columns = [c.format(stat=stat_name) for c in _RESULT_COLUMNS]
    table = pd.DataFrame(
        {
            name: pd.array(
                [float(v) if math.isfinite(v) else None for v in np.asarray(values).tolist()],
                dtype="Float64",
            )
            for name, values in zip(columns, (coef, bse, stat, p, low, high), strict=True)
        },
        index=pd.Index([str(t) for t in terms], name="term"),
    )
    return table


def _firth_logit(
    y: NDArray[np.float64], X: NDArray[np.float64], maxiter: int = 200, tol: float = 1e-8
) -> tuple[NDArray[np.float64], NDArray[np.float64], bool]:
    """Firth-penalized logistic regression: estimates and covariance.

    Maximizes :math:`\\ell(\\beta) + \\tfrac12 \\log|X^\\top W X|` by Newton steps on the
    modified score :math:`X^\\top(y - p + h(\\tfrac12 - p))`, :math:`h` the hat-matrix
    diagonal, with step halving (Heinze & Schemper 2002).
    """
    k = X.shape[1]

    def penalized(
        beta: NDArray[np.float64],
    ) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
        eta = X @ beta
        p = 1.0 / (1.0 + np.exp(-eta))
        w = p * (1.0 - p)
        info = X.T @ (X * w[:, None])
        sign, logdet = np.linalg.slogdet(info)
        ll = float(np.sum(y * eta - np.logaddexp(0.0, eta)))
        return (ll + 0.5 * logdet if sign > 0 else -math.inf), p, info

    beta = np.zeros(k)
    value, p, info = penalized(beta)
    converged = False
    for _ in range(maxiter):
        cov = np.linalg.inv(info)
        w = p * (1.0 - p)
        h = w * np.einsum("ij,jk,ik->i", X, cov, X)
        step = cov @ (X.T @ (y - p + h * (0.5 - p)))
        largest = np.abs(step).max()
        if largest > 5.0:  # keep a first step from overshooting into a flat region
            step *= 5.0 / largest
        t = 1.0
        while True:
            candidate = beta + t * step
            new_value, new_p, new_info = penalized(candidate)
            if new_value >= value - 1e-12 or t < 1e-8:
                break
            t /= 2.0
        beta, value, p, info = candidate, new_value, new_p, new_info
        if np.abs(t * step).max() < tol:
            converged = True
            break
    return beta, np.asarray(np.linalg.inv(info), dtype=np.float64), converged


def flag_regression(frame: pd.DataFrame, y_true: ArrayLike, y_pred: ArrayLike) -> pd.DataFrame:
    """Logistic regression of "the flag matches the ground truth" on the frame's columns.

    .. math::

        \\operatorname{logit} \\Pr(\\hat y_t = y_t) = \\beta_0 + \\sum_j \\beta_j x_{tj}

    over all texts (Anigboro et al., 2024, Table 15). A negative :math:`\\beta_j`
    means texts with feature :math:`j` are moderated wrongly more often.

    Parameters
    ----------
    frame : pandas.DataFrame
        Numeric explanatory columns, one row per text (usually :func:`regression_frame`).
    y_true, y_pred : array-like of {0, 1}
        Ground truth and moderator flags.

    Returns
    -------
    pandas.DataFrame
        Index ``term`` (``const`` first, then the estimable columns of ``frame``);
        columns ``coef, std_err, z, p_value, ci_low, ci_high`` (Wald statistics, 95%
        interval), ``Float64``. ``attrs`` holds ``method`` (``"logit"`` or
        ``"firth-logit"``), ``dropped`` and ``n``; see the module docstring.

    Raises
    ------
    ConfigError
        For inputs of different lengths, labels other than 0/1, non-numeric or
        non-finite columns, or no rows. Separation and singular designs are not
        errors (see the module docstring).
    """
    t = _binary("y_true", y_true)
    p = _binary("y_pred", y_pred, t.size)
    x = _checked_frame(frame, t.size)
    if t.size == 0:
        raise ConfigError("Cannot fit a regression on 0 rows.")
    outcome = (t == p).astype(np.float64)
    design, dropped = _design(x)
    X = design.to_numpy()

    method = "logit"
    result = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = sm.Logit(outcome, X).fit(disp=0, maxiter=200)
        except np.linalg.LinAlgError:
            result = None
    separated = result is None or any(
        issubclass(
            w.category, (PerfectSeparationWarning, ConvergenceWarning, HessianInversionWarning)
        )
        for w in caught
    )
    if result is not None and not separated:
        coef, bse = np.asarray(result.params), np.asarray(result.bse)
        separated = not np.isfinite(bse).all() or np.abs(coef).max() > _MAX_LOGIT_COEF
    if separated:
        method = "firth-logit"
        coef, cov, _ = _firth_logit(outcome, X)
        bse = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = coef / bse
    pvals = 2.0 * stats.norm.sf(np.abs(z))
    table = _table(
        design.columns, coef, bse, "z", z, pvals, coef - _Z_975 * bse, coef + _Z_975 * bse
    )
    table.attrs.update({"method": method, "dropped": dropped, "n": int(t.size)})
    return table


def score_regression(frame: pd.DataFrame, y_true: ArrayLike, scores: ArrayLike) -> pd.DataFrame:
    """OLS of the score of non-violating texts on the frame's columns.

    .. math::

        s_t = \\beta_0 + \\sum_j \\beta_j x_{tj} + \\varepsilon_t, \\qquad t: y_t = 0

    (Anigboro et al., 2024, Table 16). A positive :math:`\\beta_j` means acceptable
    texts with feature :math:`j` get higher scores, i.e. are closer to being
    suppressed.

    Parameters
    ----------
    frame : pandas.DataFrame
        Numeric explanatory columns, one row per text (usually :func:`regression_frame`).
    y_true : array-like of {0, 1}
        Ground truth; only rows with 0 are used.
    scores : array-like of float
        One score per text (e.g. :func:`tactful.audit.metrics.max_category_score`);
        NaN scores (no answer) are left out.

    Returns
    -------
    pandas.DataFrame
        Index ``term``; columns ``coef, std_err, stat, p_value, ci_low, ci_high``
        (``stat`` is the t statistic; 95% interval), ``Float64``. ``attrs`` holds
        ``method`` (``"ols"``), ``dropped`` and ``n``.

    Raises
    ------
    ConfigError
        For inputs of different lengths or bad values, or when fewer scored true
        negatives remain than terms to estimate plus one.
    """
    t = _binary("y_true", y_true)
    s = floats("scores", scores, t.size)
    x = _checked_frame(frame, t.size)
    rows = (t == 0) & ~np.isnan(s)
    design, dropped = _design(x[rows].reset_index(drop=True))
    n, k = design.shape
    if n <= k:
        raise ConfigError(
            f"Cannot fit the score regression: {n} scored true negatives for {k} terms (need more rows than terms)."
        )
    result = sm.OLS(s[rows], design.to_numpy()).fit()
    coef, bse = np.asarray(result.params), np.asarray(result.bse)
    ci = np.asarray(result.conf_int(alpha=0.05))
    table = _table(
        design.columns,
        coef,
        bse,
        "stat",
        np.asarray(result.tvalues),
        np.asarray(result.pvalues),
        ci[:, 0],
        ci[:, 1],
    )
    table.attrs.update({"method": "ols", "dropped": dropped, "n": int(n)})
    return table
