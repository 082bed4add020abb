"""Identity-related speech-suppression metrics (Anigboro et al., 2024).

"Identity-related Speech Suppression in Generative AI Content Moderation" measures
how much more often a moderator wrongly flags text about an identity group than
text in general. For a data set with ground truth :math:`y` (1 = violating) and
moderator flags :math:`\\hat y`, and a group :math:`i`:

.. math::

    \\mathrm{FPR} = P(\\hat y = 1 \\mid y = 0), \\qquad
    i\\text{-FPR} = P(\\hat y = 1 \\mid y = 0, \\text{text about } i), \\qquad
    \\text{suppression}_i = \\frac{i\\text{-FPR}}{\\mathrm{FPR}}.

For moderators that return scores, the score of a text is its largest category
score, and the score version of suppression is the median score of the group's
non-violating texts over the median score of all non-violating texts. A value
above 1 means the group's speech is suppressed more than speech in general.

Confidence intervals are percentile bootstrap intervals: the *whole* data set (all
rows, violating or not) is resampled with replacement at its own size, the ratio
recomputed for every group, 1,000 times by default, with a seeded
:func:`numpy.random.default_rng`.

Pooled over a family of data sets, the ratio also counts *where* a group's texts
come from: a group whose harmless texts come mostly from a data set that is
flagged often gets a high ratio even if, inside every data set, it is flagged as
often as the rest. :func:`standardized_suppression_table` separates the two by
indirect standardization (as epidemiology's standardized mortality ratio): pooled
ratio = standardized ratio (observed over expected false positives at each data
set's own FPR) × composition ratio (the pooled ratio that expectation alone gives).

Conventions used throughout:

* "true negatives" (``n_tn``) follows the paper's usage: the texts whose ground
  truth is *not violating* (what the FPR's denominator counts), whether or not the
  moderator flagged them.
* Undefined values are ``pandas.NA`` in nullable ``Float64``/``Int64`` columns, never
  a sentinel number: a group with no true negatives has no i-FPR, i-median, ratio or
  interval; a data set whose FPR (or median score) is 0 gives no ratios.
* Bad input (different lengths, labels other than 0/1, unknown group names) raises
  :class:`~tactful.errors.ConfigError` with a one-line message.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence, Sized
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from ..errors import ConfigError, UnknownNameError
from ..identity import GROUPS
from ..params import Constraints, Float, Int, validate_params
from ..validation import binary, floats, same_length

__all__ = [
    "OPENAI_FLAG_THRESHOLDS",
    "STANDARDIZED_COLUMNS",
    "WORST_FLAG_FIELDS",
    "WORST_SCORE_FIELDS",
    "fpr",
    "max_category_score",
    "normalize_by_thresholds",
    "score_suppression_table",
    "standardized_suppression_table",
    "suppression_table",
    "worst_group",
]

#: OpenAI moderation's per-category flagging thresholds as the paper estimated them
#: (``reference_results/OpenAI_flagging_bounds.csv``, ``lower_bound``: the highest
#: score the API did not flag), for :func:`normalize_by_thresholds`. Both spellings
#: of the category names the API has used are listed.
OPENAI_FLAG_THRESHOLDS: dict[str, float] = {
    "harassment": 0.4399948716,
    "harassment/threatening": 0.309992075,
    "harassment_threatening": 0.309992075,
    "hate": 0.3999980688,
    "hate/threatening": 0.1097287461,
    "hate_threatening": 0.1097287461,
    "self-harm": 0.3982075751,
    "self-harm/instructions": 0.1191066876,
    "self-harm/intent": 0.2746550441,
    "self_harm": 0.3982075751,
    "self_harm_instructions": 0.1191066876,
    "self_harm_intent": 0.2746550441,
    "sexual": 0.5297676921,
    "sexual/minors": 0.3199166358,
    "sexual_minors": 0.3199166358,
    "violence": 0.5799996257,
    "violence/graphic": 0.7088294625,
    "violence_graphic": 0.7088294625,
}

FLAG_COLUMNS = ("group", "n", "n_tn", "n_fp", "i_fpr", "fpr", "ratio", "ratio_low", "ratio_high")
SCORE_COLUMNS = ("group", "n", "n_tn", "i_median", "median", "ratio", "ratio_low", "ratio_high")

#: The columns of :func:`standardized_suppression_table`, in order.
STANDARDIZED_COLUMNS = (
    "group",
    "n",
    "n_tn",
    "n_fp",
    "expected_fp",
    "standardized_ratio",
    "standardized_ratio_low",
    "standardized_ratio_high",
    "composition_ratio",
)

# Resample-matrix cells per chunk of the score bootstrap (about 16 MB of int32).
_CHUNK_CELLS = 4_000_000


# --------------------------------------------------------------------------- checks


class _Bootstrap:
    """The bootstrap parameters of the suppression tables, declared once."""

    _parameter_constraints: ClassVar[Constraints] = {
        "n_resamples": Int(0),
        "confidence": Float(0, 1, closed="neither"),
    }


def _inputs(
    owner: str,
    y_true: ArrayLike,
    values: tuple[str, ArrayLike],
    groups: Sequence[Iterable[str]],
    group_names: Sequence[str],
    n_resamples: int,
    confidence: float,
) -> tuple[NDArray[np.bool_], NDArray[Any], int, NDArray[np.bool_]]:
    """The checked inputs of a suppression table: labels, flags or scores, rows, membership."""
    validate_params(
        owner, _Bootstrap._parameter_constraints, n_resamples=n_resamples, confidence=confidence
    )
    t = binary("y_true", y_true)
    name, raw = values
    v: NDArray[Any] = binary(name, raw) if name == "y_pred" else floats(name, raw)
    n = same_length(**{"y_true": t, name: v, "groups": groups})
    return t, v, n, _membership(groups, group_names)


def _membership(groups: Sequence[Iterable[str]], group_names: Sequence[str]) -> NDArray[np.bool_]:
    """Row × group indicator matrix; every label must be one of ``group_names``."""
    if isinstance(group_names, str) or not len(group_names):
        raise ConfigError("The 'group_names' parameter must be a non-empty sequence of names.")
    names = list(group_names)
    if len(set(names)) != len(names):
        raise ConfigError(f"The 'group_names' parameter has duplicates: {names}.")
    column = {g: j for j, g in enumerate(names)}
    if isinstance(groups, str):
        raise ConfigError(
            "The 'groups' parameter must be a sequence of group collections, not a str."
        )
    matrix = np.zeros((len(groups), len(names)), dtype=bool)
    for i, row in enumerate(groups):
        if isinstance(row, str):
            raise ConfigError(
                f"The 'groups' parameter must hold collections of group names; got the str {row!r} at "
                f"position {i}."
            )
        try:
            labels = list(row)
        except TypeError:
            raise ConfigError(
                f"The 'groups' parameter must hold collections of group names. Got "
                f"{type(row).__name__} at position {i}."
            ) from None
        for label in labels:
            j = column.get(label)
            if j is None:
                raise UnknownNameError("identity group", str(label), names)
            matrix[i, j] = True
    return matrix


def _strata(strata: Sequence[str], **others: Sized) -> tuple[NDArray[np.intp], int]:
    """Data-set index of every row (in order of first appearance) and the number of data sets."""
    if isinstance(strata, str):
        raise ConfigError("The 'strata' parameter must be a sequence of data-set names, not a str.")
    if not isinstance(strata, Sized):
        raise ConfigError(
            f"The 'strata' parameter must be a sequence of data-set names. "
            f"Got {type(strata).__name__}."
        )
    same_length(**others, strata=strata)
    index: dict[str, int] = {}
    codes = np.empty(len(strata), dtype=np.intp)
    for i, name in enumerate(strata):
        if not isinstance(name, str):
            raise ConfigError(
                f"The 'strata' parameter must hold data-set names (str). Got "
                f"{type(name).__name__} at position {i}."
            )
        codes[i] = index.setdefault(name, len(index))
    return codes, len(index)


def _float_column(
    values: Sequence[float | None] | NDArray[np.float64],
) -> pd.arrays.FloatingArray:
    return pd.array(
        [None if v is None or math.isnan(v) else float(v) for v in values], dtype="Float64"
    )


def _percentile_ci(
    samples: NDArray[np.float64], confidence: float, ratio: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per-column percentile interval over the finite resamples.

    NaN where no resample is finite, and where the point ``ratio`` is undefined.
    """
    alpha = (1.0 - confidence) / 2.0
    low = np.full(samples.shape[1], np.nan)
    high = np.full(samples.shape[1], np.nan)
    for j in range(samples.shape[1]):
        col = samples[:, j]
        col = col[np.isfinite(col)]
        if col.size and np.isfinite(ratio[j]):
            low[j], high[j] = np.percentile(col, [100 * alpha, 100 * (1 - alpha)])
    return low, high


def _group_frame(
    columns: Sequence[str],
    group_names: Sequence[str],
    member: NDArray[np.bool_],
    counts: Sequence[ArrayLike],
    rates: tuple[Sequence[float | None] | NDArray[np.float64], float],
    ratio: NDArray[np.float64],
    low: NDArray[np.float64],
    high: NDArray[np.float64],
) -> pd.DataFrame:
    """One row per group in ``columns`` order: counts ``Int64``, rates ``Float64``.

    ``columns`` names, in order, the group, its size, the per-group ``counts``
    (true negatives, and false positives in a flag table), the group rate and the
    overall rate of ``rates``, then the ratio and its interval.
    """
    g = member.shape[1]
    name, size, *count_names, group_rate, overall_rate, r, r_low, r_high = columns
    by_group, overall = rates
    data: dict[str, Any] = {
        name: list(group_names),
        size: pd.array(member.sum(axis=0), dtype="Int64"),
        **{
            c: pd.array(np.asarray(v), dtype="Int64")
            for c, v in zip(count_names, counts, strict=True)
        },
        group_rate: _float_column(by_group),
        overall_rate: _float_column([overall] * g),
        r: _float_column(ratio),
        r_low: _float_column(low),
        r_high: _float_column(high),
    }
    return pd.DataFrame(data, columns=list(columns))


def _pattern_draws(
    stats: NDArray[np.int64], n_resamples: int, seed: int | None
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The distinct rows of a 0/1 ``stats`` matrix and, per resample, the draws on each.

    Resampling the n rows with replacement lands Multinomial(n, counts / n) draws on
    the distinct rows (``patterns × statistics``; ``draws``: ``resamples × patterns``),
    so ``draws @ patterns`` are the resampled column totals.
    """
    n = stats.shape[0]
    # Distinct 0/1 rows via their packed bytes (much faster than unique(axis=0)).
    packed = np.packbits(stats.astype(bool), axis=1)
    keys = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, counts = np.unique(keys, return_index=True, return_counts=True)
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(n, counts / n, size=n_resamples)
    return stats[first], draws


# --------------------------------------------------------------------------- flags


def fpr(y_true: ArrayLike, y_pred: ArrayLike) -> float | None:
    """False-positive rate, :math:`FP / (FP + TN)`.

    Parameters
    ----------
    y_true : array-like of {0, 1} or bool, shape (n,)
        Ground truth, 1 = violating.
    y_pred : array-like of {0, 1} or bool, shape (n,)
        Moderator flags, 1 = flagged.

    Returns
    -------
    float or None
        The share of non-violating texts that were flagged; ``None`` when there is
        no non-violating text (the rate is undefined, and no number stands in for it).

    Examples
    --------
    >>> fpr([0, 0, 0, 1], [1, 0, 0, 1])
    0.3333333333333333
    >>> fpr([1, 1], [0, 1]) is None
    True
    """
    t = binary("y_true", y_true)
    p = binary("y_pred", y_pred)
    same_length(y_true=t, y_pred=p)
    negatives = int((~t).sum())
    if negatives == 0:
        return None
    return int((~t & p).sum()) / negatives


def suppression_table(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    groups: Sequence[Iterable[str]],
    *,
    group_names: Sequence[str] = GROUPS,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Per-group i-FPR and flag suppression ratio with a bootstrap confidence interval.

    For group :math:`i`, with :math:`N_i` its true negatives (non-violating texts
    about :math:`i`) and :math:`F_i` those the moderator flagged,

    .. math::

        i\\text{-FPR} = \\frac{F_i}{N_i}, \\qquad
        \\mathrm{FPR} = \\frac{\\sum_t [y_t = 0, \\hat y_t = 1]}{\\sum_t [y_t = 0]}, \\qquad
        \\text{ratio}_i = \\frac{i\\text{-FPR}}{\\mathrm{FPR}}

    (Anigboro et al., 2024, Sec. 3). A text may belong to several groups, or none.

    Parameters
    ----------
    y_true : array-like of {0, 1} or bool, shape (n,)
        Ground truth, 1 = violating.
    y_pred : array-like of {0, 1} or bool, shape (n,)
        Moderator flags.
    groups : sequence of iterables of str, length n
        The groups of each text (e.g. ``IdentityTags.groups``); every name must be in
        ``group_names``.
    group_names : sequence of str, default :data:`tactful.identity.GROUPS`
        The table's rows, in this order; every name gets a row, even an empty group.
    n_resamples : int, default 1000
        Bootstrap resamples; 0 skips the bootstrap (``ratio_low``/``ratio_high`` NA).
    confidence : float in (0, 1), default 0.95
        Coverage of the percentile interval.
    seed : int or None, default 0
        Seed of :func:`numpy.random.default_rng`; the same seed gives the same interval.

    Returns
    -------
    pandas.DataFrame
        One row per group with the columns ``group, n, n_tn, n_fp, i_fpr, fpr, ratio,
        ratio_low, ratio_high``: ``n`` texts in the group, ``n_tn`` of them not
        violating, ``n_fp`` of those flagged; ``fpr`` is the overall rate (the same on
        every row). Integer columns are ``Int64``, rates ``Float64``.

    Notes
    -----
    *Policy for undefined values* (``pandas.NA``, never a sentinel): a group with no
    true negatives has NA ``i_fpr``, ``ratio`` and interval; when the overall FPR is 0
    (or undefined: no true negatives at all) every ratio and interval is NA. The
    interval is computed over the resamples in which the ratio is defined (in a
    resample a small group can lose all its true negatives); it is NA when the point
    ratio is NA.

    *Bootstrap*: each resample draws n rows with replacement from all n rows. Rows
    with the same (violating, flagged, groups) pattern are interchangeable, so the
    number of draws that land on each pattern is drawn from the equivalent
    multinomial distribution instead of drawing n row indices; this is exact and
    makes 1,000 resamples of 60,000 rows take milliseconds.

    Examples
    --------
    >>> t = suppression_table([0, 0, 0, 0, 1], [1, 0, 1, 0, 1],
    ...                       [{"women"}, {"women"}, set(), set(), {"women"}],
    ...                       group_names=["women"], n_resamples=0)
    >>> t.loc[0, ["n", "n_tn", "n_fp"]].tolist(), float(t.loc[0, "i_fpr"]), float(t.loc[0, "ratio"])
    ([3, 2, 1], 0.5, 1.0)
    """
    t, p, n, member = _inputs(
        "suppression_table",
        y_true,
        ("y_pred", y_pred),
        groups,
        group_names,
        n_resamples,
        confidence,
    )
    neg = ~t
    flagged_neg = neg & p

    # Per row: one column per statistic the table needs (group TNs, group FPs, all).
    stats = np.concatenate(
        [member & neg[:, None], member & flagged_neg[:, None], neg[:, None], flagged_neg[:, None]],
        axis=1,
    ).astype(np.int64)
    g = member.shape[1]
    totals = stats.sum(axis=0)
    n_tn, n_fp, all_neg, all_fp = totals[:g], totals[g : 2 * g], totals[2 * g], totals[2 * g + 1]
    overall = all_fp / all_neg if all_neg else math.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        i_fpr = np.where(n_tn > 0, n_fp / np.maximum(n_tn, 1), np.nan)
        ratio = i_fpr / overall if overall > 0 else np.full(g, np.nan)

    low = high = np.full(g, np.nan)
    if n_resamples and n and np.isfinite(ratio).any():
        patterns, draws = _pattern_draws(stats, n_resamples, seed)
        boot = draws @ patterns  # resamples × statistics
        with np.errstate(divide="ignore", invalid="ignore"):
            b_ifpr = boot[:, g : 2 * g] / boot[:, :g]
            b_fpr = boot[:, 2 * g + 1] / boot[:, 2 * g]
            b_ratio = b_ifpr / b_fpr[:, None]
        b_ratio[~np.isfinite(b_ratio)] = np.nan
        low, high = _percentile_ci(b_ratio, confidence, ratio)

    return _group_frame(
        FLAG_COLUMNS, group_names, member, (n_tn, n_fp), (i_fpr, overall), ratio, low, high
    )


def _observed_expected(
    totals: NDArray[np.int64], cells: NDArray[np.int64], g: int, k: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Expected false positives and standardized ratio of each group, per row of totals.

    ``totals`` (``r × (2g + 2k)``) holds the groups' true negatives and false
    positives, then each data set's; ``cells`` (``r × g × k``) the true negatives
    of each group in each data set. NaN where the ratio is undefined.
    """
    tn_d, fp_d = totals[:, 2 * g : 2 * g + k], totals[:, 2 * g + k :]
    fpr_d = np.where(tn_d > 0, fp_d / np.maximum(tn_d, 1), 0.0)  # no TN: expects nothing
    expected = (cells * fpr_d[:, None, :]).sum(axis=2)
    n_tn, n_fp = totals[:, :g], totals[:, g : 2 * g]
    defined = (n_tn > 0) & (expected > 0)
    standardized = np.where(defined, n_fp / np.where(defined, expected, 1.0), np.nan)
    return expected, standardized


def standardized_suppression_table(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    groups: Sequence[Iterable[str]],
    strata: Sequence[str],
    *,
    group_names: Sequence[str] = GROUPS,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Per-group flag suppression standardized for the data set of each text, with a CI.

    Indirect standardization, as epidemiology's standardized mortality ratio. With
    the data sets :math:`d` as strata, :math:`N_{i,d}` the true negatives of group
    :math:`i` in data set :math:`d`, :math:`N_i = \\sum_d N_{i,d}`, :math:`F_i` the
    group's false positives and :math:`\\mathrm{FPR}_d` the rate of data set
    :math:`d` over all its texts,

    .. math::

        E_i = \\sum_d N_{i,d} \\, \\mathrm{FPR}_d, \\qquad
        \\text{standardized}_i = \\frac{F_i}{E_i}, \\qquad
        \\text{composition}_i = \\frac{E_i}{N_i \\, \\mathrm{FPR}},

    with :math:`\\mathrm{FPR}` the pooled rate over all texts, so that the pooled
    ratio of :func:`suppression_table` is

    .. math::

        \\frac{i\\text{-FPR}}{\\mathrm{FPR}} = \\text{standardized}_i \\times
        \\text{composition}_i.

    The standardized ratio is 1 when the group is flagged exactly as often as the
    other texts of the same data sets; the composition ratio is the pooled ratio the
    group would get if each of its texts were flagged at its data set's rate, i.e.
    the part of the pooled ratio that only reflects where the group's texts come
    from.

    Parameters
    ----------
    y_true : array-like of {0, 1} or bool, shape (n,)
        Ground truth, 1 = violating.
    y_pred : array-like of {0, 1} or bool, shape (n,)
        Moderator flags.
    groups : sequence of iterables of str, length n
        The groups of each text; every name must be in ``group_names``.
    strata : sequence of str, length n
        The data set of each text.
    group_names, n_resamples, confidence, seed
        As in :func:`suppression_table`; the interval is that of the standardized
        ratio.

    Returns
    -------
    pandas.DataFrame
        One row per group with the columns :data:`STANDARDIZED_COLUMNS` (``group, n,
        n_tn, n_fp, expected_fp, standardized_ratio, standardized_ratio_low,
        standardized_ratio_high, composition_ratio``): ``n`` texts in the group,
        ``n_tn`` of them not violating, ``n_fp`` of those flagged, ``expected_fp``
        the false positives expected at each data set's own FPR. Integer columns
        are ``Int64``, the others ``Float64``.

    Notes
    -----
    *Policy for undefined values* (``pandas.NA``): a data set with no true negative
    has no FPR and expects no false positive. A group with no true negatives has NA
    ratios and interval; the standardized ratio (and its interval) is NA when
    ``expected_fp`` is 0, the composition ratio when the pooled FPR is 0 or
    undefined. The identity above holds wherever all three ratios are defined.

    *Bootstrap*: as in :func:`suppression_table`, each resample draws n rows with
    replacement from all n rows, through a multinomial over the distinct (violating,
    flagged, data set, groups) patterns; every data set's FPR is recomputed in each
    resample, and the interval uses the resamples in which the ratio is defined.

    Examples
    --------
    >>> t = standardized_suppression_table(
    ...     [0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0],
    ...     [{"women"}, set(), {"women"}, set(), set(), set()],
    ...     ["a", "a", "b", "b", "b", "b"], group_names=["women"], n_resamples=0)
    >>> t.loc[0, ["n_tn", "n_fp"]].tolist(), float(t.loc[0, "expected_fp"])
    ([2, 1], 1.0)
    >>> float(t.loc[0, "standardized_ratio"]), float(t.loc[0, "composition_ratio"])
    (1.0, 1.5)
    """
    t, p, n, member = _inputs(
        "standardized_suppression_table",
        y_true,
        ("y_pred", y_pred),
        groups,
        group_names,
        n_resamples,
        confidence,
    )
    codes, k = _strata(strata, y_true=t, y_pred=p, groups=groups)
    neg = ~t
    flagged_neg = neg & p
    in_set = np.zeros((n, k), dtype=bool)
    in_set[np.arange(n), codes] = True

    # Per row: group TNs, group FPs, data-set TNs, data-set FPs (one-hot columns).
    stats = np.concatenate(
        [
            member & neg[:, None],
            member & flagged_neg[:, None],
            in_set & neg[:, None],
            in_set & flagged_neg[:, None],
        ],
        axis=1,
    ).astype(np.int64)
    g = member.shape[1]

    def cells(rows: NDArray[np.int64]) -> NDArray[np.int64]:
        """Per row, group × data-set true negatives (products of the one-hot columns)."""
        return (rows[:, :g, None] * rows[:, None, 2 * g : 2 * g + k]).reshape(-1, g * k)

    totals = stats.sum(axis=0)
    tn_cells = stats[:, :g].T @ stats[:, 2 * g : 2 * g + k]
    expected_r, standardized_r = _observed_expected(totals[None, :], tn_cells[None], g, k)
    expected, standardized = expected_r[0], standardized_r[0]
    n_tn, n_fp = totals[:g], totals[g : 2 * g]
    all_neg, all_fp = int(totals[2 * g : 2 * g + k].sum()), int(totals[2 * g + k :].sum())
    overall = all_fp / all_neg if all_neg else math.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        composition = (
            np.where(n_tn > 0, expected / (np.maximum(n_tn, 1) * overall), np.nan)
            if overall > 0
            else np.full(g, np.nan)
        )

    low = high = np.full(g, np.nan)
    if n_resamples and n and np.isfinite(standardized).any():
        patterns, draws = _pattern_draws(stats, n_resamples, seed)
        boot = draws @ patterns  # resamples × statistics
        boot_cells = (draws @ cells(patterns)).reshape(-1, g, k)
        _, b_ratio = _observed_expected(boot, boot_cells, g, k)
        low, high = _percentile_ci(b_ratio, confidence, standardized)

    data: dict[str, Any] = {
        "group": list(group_names),
        "n": pd.array(member.sum(axis=0), dtype="Int64"),
        "n_tn": pd.array(n_tn, dtype="Int64"),
        "n_fp": pd.array(n_fp, dtype="Int64"),
        "expected_fp": _float_column(expected),
        "standardized_ratio": _float_column(standardized),
        "standardized_ratio_low": _float_column(low),
        "standardized_ratio_high": _float_column(high),
        "composition_ratio": _float_column(composition),
    }
    return pd.DataFrame(data, columns=list(STANDARDIZED_COLUMNS))


# --------------------------------------------------------------------------- scores


def max_category_score(
    scores: Sequence[Any], categories: Iterable[str] | None = None
) -> NDArray[np.float64]:
    """The largest category score of each text, :math:`s_t = \\max_c \\mathrm{score}_{t,c}`.

    Parameters
    ----------
    scores : sequence of mappings (category → float), or of objects with a ``scores``
        mapping (such as :class:`tactful.Analysis`)
        One entry per text.
    categories : iterable of str, optional
        Only these categories count (e.g. ``["hate", "harassment"]``); default all.

    Returns
    -------
    numpy.ndarray of float, shape (n,)
        NaN for a text with no score in the chosen categories (the moderator said
        nothing about it); :func:`score_suppression_table` leaves such texts out.

    Examples
    --------
    >>> max_category_score([{"hate": 0.2, "sexual": 0.7}, {}, {"hate": 0.1}], ["hate"]).tolist()
    [0.2, nan, 0.1]
    """
    if isinstance(scores, (str, Mapping)):
        raise ConfigError("The 'scores' parameter must be a sequence with one mapping per text.")
    wanted = None if categories is None else frozenset(categories)
    out = np.full(len(scores), np.nan)
    for i, entry in enumerate(scores):
        mapping = entry if isinstance(entry, Mapping) else getattr(entry, "scores", None)
        if not isinstance(mapping, Mapping):
            raise ConfigError(
                f"The 'scores' parameter must hold mappings or objects with a 'scores' mapping. "
                f"Got {type(entry).__name__} at position {i}."
            )
        values = [v for k, v in mapping.items() if wanted is None or k in wanted]
        if values:
            try:
                out[i] = max(float(v) for v in values)
            except (TypeError, ValueError):
                raise ConfigError(
                    f"The scores at position {i} must be floats. Got {values!r}."
                ) from None
    return out


def normalize_by_thresholds(
    scores: Mapping[str, float], thresholds: Mapping[str, float]
) -> dict[str, float]:
    """Divide each category score by the category's flagging threshold.

    OpenAI moderation flags a category when its score exceeds a per-category
    threshold, so after :math:`s_c / \\tau_c` a value above 1 means "flagged" in every
    category and scores become comparable across categories (the paper normalizes
    OpenAI scores this way before taking the maximum; see
    :data:`OPENAI_FLAG_THRESHOLDS`).

    Parameters
    ----------
    scores : mapping of str to float
        Category scores of one text.
    thresholds : mapping of str to float
        Threshold per category, each > 0; every category of ``scores`` needs one.

    Returns
    -------
    dict of str to float
        Normalized scores, in the order of ``scores``.

    Raises
    ------
    ConfigError
        For a category without a threshold or a threshold that is not a positive
        finite number.

    Examples
    --------
    >>> normalize_by_thresholds({"hate": 0.2, "sexual": 0.6}, {"hate": 0.4, "sexual": 0.5})
    {'hate': 0.5, 'sexual': 1.2}
    """
    missing = [c for c in scores if c not in thresholds]
    if missing:
        raise ConfigError(f"No threshold for the categories {', '.join(map(repr, missing))}.")
    out = {}
    for cat, value in scores.items():
        tau = thresholds[cat]
        if (
            isinstance(tau, bool)
            or not isinstance(tau, (int, float))
            or not math.isfinite(tau)
            or tau <= 0
        ):
            raise ConfigError(f"The threshold of {cat!r} must be a float > 0. Got {tau!r} instead.")
        out[cat] = float(value) / float(tau)
    return out


def _weighted_medians(
    sorted_values: NDArray[np.float64], weights: NDArray[np.integer]
) -> NDArray[np.float64]:
    """Median of each row's multiset (``sorted_values`` repeated ``weights[r]`` times).

    Same convention as :func:`numpy.median`: with an even count, the mean of the two
    middle values. NaN for a row with no weight.
    """
    med = np.full(weights.shape[0], np.nan)
    if weights.shape[1] == 0:
        return med
    cum = np.cumsum(weights, axis=1, dtype=weights.dtype)
    last = len(sorted_values) - 1
    for r in range(weights.shape[0]):
        total = int(cum[r, -1])
        if total:
            # 0-based positions (total-1)//2 and total//2 of the sorted multiset
            lo, hi = np.searchsorted(cum[r], [(total - 1) // 2, total // 2], side="right")
            med[r] = (sorted_values[min(lo, last)] + sorted_values[min(hi, last)]) / 2.0
    return med


def score_suppression_table(
    y_true: ArrayLike,
    scores: ArrayLike,
    groups: Sequence[Iterable[str]],
    *,
    group_names: Sequence[str] = GROUPS,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Per-group median score of true negatives over the overall median, with a bootstrap CI.

    With :math:`s_t` the (max-category) score of text :math:`t`,

    .. math::

        i\\text{-median} = \\operatorname{median}\\{s_t : y_t = 0, t \\text{ about } i\\},
        \\qquad
        \\text{ratio}_i = \\frac{i\\text{-median}}{\\operatorname{median}\\{s_t : y_t = 0\\}}

    (Anigboro et al., 2024, Sec. 3: the score analogue of i-FPR / FPR; medians as
    :func:`numpy.median`, so an even count averages the two middle values).

    Parameters
    ----------
    y_true : array-like of {0, 1} or bool, shape (n,)
        Ground truth, 1 = violating.
    scores : array-like of float, shape (n,)
        One score per text, e.g. from :func:`max_category_score`.
    groups, group_names, n_resamples, confidence, seed
        As in :func:`suppression_table`.

    Returns
    -------
    pandas.DataFrame
        One row per group with the columns ``group, n, n_tn, i_median, median,
        ratio, ratio_low, ratio_high``; ``median`` is the overall median (the same
        on every row).

    Notes
    -----
    *Missing scores*: a true negative whose score is NaN (the moderator gave none)
    is left out of every median, and of ``n_tn``; scores of violating texts are never
    used. *Undefined values* are ``pandas.NA``: a group with no scored true negative
    has no i-median, ratio or interval; when the overall median is 0 no ratio is
    defined. The interval uses the resamples in which the ratio is defined.

    *Bootstrap*: as in :func:`suppression_table`, each resample draws n rows from all
    n rows. Only the draws that land on scored true negatives matter: their number is
    Binomial(n, m/n) for m such rows, and they are uniform among them, which is how
    they are drawn. Medians are then weighted medians of the sorted scores with the
    draw counts as weights, computed in chunks of resamples.
    """
    t, s, n, member = _inputs(
        "score_suppression_table",
        y_true,
        ("scores", scores),
        groups,
        group_names,
        n_resamples,
        confidence,
    )
    g = member.shape[1]

    usable = ~t & ~np.isnan(s)  # scored true negatives
    rows = np.flatnonzero(usable)
    order = rows[np.argsort(s[rows], kind="stable")]  # scored true negatives by score
    sorted_scores = s[order]
    # Each column: positions (in `order`) of the rows it takes the median over.
    columns = [np.flatnonzero(member[order, j]) for j in range(g)] + [np.arange(order.size)]

    def median_of(pos: NDArray[np.int64]) -> float:
        return float(np.median(sorted_scores[pos])) if pos.size else math.nan

    i_median = np.array([median_of(c) for c in columns[:g]])
    overall = median_of(columns[g])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = i_median / overall if overall > 0 else np.full(g, np.nan)

    low = high = np.full(g, np.nan)
    if n_resamples and order.size and np.isfinite(ratio).any():
        rng = np.random.default_rng(seed)
        m = order.size
        # Of the n draws of a resample, Binomial(n, m/n) land on scored true negatives,
        # uniformly among them; the other draws do not enter any median. Positions in
        # `order` are drawn directly, so the counts come out sorted by score.
        landed = rng.binomial(n, m / n, size=n_resamples)
        chunk = max(1, min(n_resamples, _CHUNK_CELLS // m))
        samples = np.full((n_resamples, g), np.nan)
        live = [j for j in range(g) if np.isfinite(ratio[j])]
        for first in range(0, n_resamples, chunk):
            size = min(chunk, n_resamples - first)
            weights = np.empty((size, m), dtype=np.int32)
            for r in range(size):
                weights[r] = np.bincount(rng.integers(0, m, size=landed[first + r]), minlength=m)
            b_overall = _weighted_medians(sorted_scores, weights)
            for j in live:
                pos = columns[j]
                b_med = _weighted_medians(sorted_scores[pos], weights[:, pos])
                with np.errstate(divide="ignore", invalid="ignore"):
                    samples[first : first + size, j] = np.where(
                        b_overall > 0, b_med / b_overall, np.nan
                    )
        low, high = _percentile_ci(samples, confidence, ratio)

    n_tn = [c.size for c in columns[:g]]
    return _group_frame(
        SCORE_COLUMNS, group_names, member, (n_tn,), (i_median, overall), ratio, low, high
    )


# --------------------------------------------------------------------------- summary


#: The fields of :func:`worst_group`'s answer for a flag table and for a score table:
#: the group, its ratio with the interval, its true negatives and its own rate.
WORST_FLAG_FIELDS = ("group", "ratio", "ratio_low", "ratio_high", "n_tn", "n_fp", "i_fpr")
WORST_SCORE_FIELDS = ("group", "ratio", "ratio_low", "ratio_high", "n_tn", "i_median")


def worst_group(table: pd.DataFrame, column: str = "ratio") -> dict[str, Any] | None:
    """The group with the largest value of ``column``: its ratio, interval, counts and rate.

    The paper's summary tables (Anigboro et al., 2024, Table 4) report, per moderator
    and data set, the largest suppression ratio over the groups, its group, #FP and #TN.

    Parameters
    ----------
    table : pandas.DataFrame
        A :func:`suppression_table`, :func:`score_suppression_table` or
        :func:`standardized_suppression_table` result.
    column : str, default "ratio"
        The column to maximize.

    Returns
    -------
    dict or None
        The worst group's row, as plain Python values (``None`` for NA), with the
        fields :data:`WORST_FLAG_FIELDS` for a flag table (``group, ratio, ratio_low,
        ratio_high, n_tn, n_fp, i_fpr``), :data:`WORST_SCORE_FIELDS` for a score
        table (``group, ratio, ratio_low, ratio_high, n_tn, i_median``), and the
        whole row (:data:`STANDARDIZED_COLUMNS`) for a standardized table, whose
        ``column`` is ``"standardized_ratio"``: the fields follow the kind of table,
        never the data. Ties go to the first group in
        table order. ``None`` when no group has a value (all NA): there is no
        worst group.

    Raises
    ------
    ConfigError
        When ``table`` is not a suppression table or has no ``column``.

    Examples
    --------
    >>> t = suppression_table([0, 0, 0, 0], [1, 0, 1, 0], [{"men"}, {"men"}, {"women"}, set()],
    ...                       group_names=["men", "women", "lgbt"], n_resamples=0)
    >>> worst_group(t)
    {'group': 'women', 'ratio': 2.0, 'ratio_low': None, 'ratio_high': None, 'n_tn': 1, \
'n_fp': 1, 'i_fpr': 1.0}
    """
    if not isinstance(table, pd.DataFrame):
        raise ConfigError(
            f"The 'table' parameter must be a pandas.DataFrame. Got {type(table).__name__}."
        )
    if "standardized_ratio" in table.columns:
        fields: tuple[str, ...] = STANDARDIZED_COLUMNS
    else:
        fields = WORST_FLAG_FIELDS if "i_fpr" in table.columns else WORST_SCORE_FIELDS
    for needed in (*fields, column):
        if needed not in table.columns:
            raise ConfigError(
                f"The table has no {needed!r} column; it has {', '.join(map(str, table.columns))}."
            )
    values = table[column].astype("Float64")
    if not values.notna().any():
        return None
    row = table.iloc[int(values.fillna(-np.inf).to_numpy(dtype=float).argmax())]
    return {f: _plain(row[f]) for f in fields}


def _plain(value: Any) -> Any:
    """A table cell as a plain Python value: NA → None, numpy scalars → int/float/str."""
    if pd.isna(value):
        return None
    return value.item() if hasattr(value, "item") else value
