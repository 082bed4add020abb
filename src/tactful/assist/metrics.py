"""Pure metrics of the assist tools: triage, toxic-to-civil evaluation and bias probes.

Every function takes plain arrays and returns numbers, a frozen record or one
DataFrame shape; runners only move data. The formulas follow the papers:

* **Triage** after ToxicChat's human-AI collaborative annotation (Lin et al.,
  EMNLP Findings 2023, §3): rows whose moderator score lies *below* a threshold
  are left to the machine; the threshold is the one that leaves the largest share
  to the machine while the rate of truly toxic rows among them stays within an
  absolute safe rate (:func:`triage_curve`, :func:`triage_threshold`,
  :func:`triage_at`).
* **Toxic-to-civil** after the ToxicSpans paper (Pavlopoulos et al., ACL 2022,
  §7): ACC, ACC2, ACC3, ACC4 (:func:`detox_accuracy`, :func:`span_kept`,
  :func:`all_spans_changed`) and SIM as the cosine of sentence embeddings
  (:func:`cosine_similarity`).
* **Bias probes** after DeTexD (Yavnyi et al., WOAH 2023, §7) and Borkan et al.
  (2019), "Nuanced Metrics for Measuring Unintended Bias with Real Data for Text
  Classification": counterfactual :func:`flip_rate`, :func:`subgroup_auc`,
  :func:`bpsn_auc`, :func:`bnsp_auc`, and the false-positive-rate ratio of the
  speech-suppression audit (Anigboro et al., 2024), all per subgroup in
  :func:`bias_auc_table`.

Undefined values are ``None`` (or ``<NA>`` in a table), never a stand-in number;
inputs of different lengths, labels other than 0/1 and non-finite scores raise
:class:`~tactful.errors.ConfigError` with one line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from .._types import Span
from ..audit.metrics import fpr
from ..errors import ConfigError
from ..metrics import roc_auc
from ..params import Check, Constraints, Float, validate_params
from ..validation import binary, finite_floats, same_length

__all__ = [  # noqa: RUF022  (kept in sorted() order; a test checks it)
    "DetoxAccuracy",
    "EMPTY_MESSAGE",
    "TriagePoint",
    "all_spans_changed",
    "bias_auc_table",
    "bnsp_auc",
    "bpsn_auc",
    "cosine_similarity",
    "detox_accuracy",
    "flip_rate",
    "generalized_mean",
    "span_kept",
    "subgroup_auc",
    "triage_at",
    "triage_curve",
    "triage_threshold",
]

#: Message of a metric that needs at least one row and got none.
EMPTY_MESSAGE = "{what} needs at least one row. Got 0."

_TRIAGE: Constraints = {"safe_rate": Float(0.0, 1.0), "threshold": Float()}


# --------------------------------------------------------------------------- checks


def _share(mask: NDArray[np.bool_], within: NDArray[np.bool_]) -> float | None:
    n = int(within.sum())
    return int((mask & within).sum()) / n if n else None


# --------------------------------------------------------------------------- triage


@dataclass(frozen=True, slots=True)
class TriagePoint:
    """What a triage threshold does on labelled rows.

    A row goes to the machine (``auto``) when its score is strictly below
    ``threshold``; every other row goes to a person.

    Attributes
    ----------
    threshold : float
        Rows scoring ``< threshold`` are auto-labelled non-toxic.
    n : int
        Rows (>= 1).
    n_toxic : int
        Truly toxic rows.
    n_auto : int
        Rows below the threshold.
    n_missed : int
        Truly toxic rows below the threshold: toxic rows nobody reads.
    """

    threshold: float
    n: int
    n_toxic: int
    n_auto: int
    n_missed: int

    @property
    def share_auto(self) -> float:
        """``n_auto / n``: the share of human work saved."""
        return self.n_auto / self.n

    @property
    def toxic_rate(self) -> float:
        """``n_missed / n_auto``: toxic rate among the auto rows (0.0 when there is none:
        an empty auto set holds no toxic row, so it meets any safe rate)."""
        return self.n_missed / self.n_auto if self.n_auto else 0.0

    @property
    def miss_rate(self) -> float:
        """``n_missed / n_toxic``: share of the toxic rows nobody reads (0.0 without toxic rows)."""
        return self.n_missed / self.n_toxic if self.n_toxic else 0.0

    def to_dict(self) -> dict[str, float | int]:
        """A JSON-ready dict of the fields and the three rates."""
        return {
            "threshold": self.threshold,
            "n": self.n,
            "n_toxic": self.n_toxic,
            "n_auto": self.n_auto,
            "n_missed": self.n_missed,
            "share_auto": self.share_auto,
            "toxic_rate": self.toxic_rate,
            "miss_rate": self.miss_rate,
        }


def _triage_input(y_true: ArrayLike, scores: ArrayLike, what: str) -> tuple[Any, Any]:
    t, s = binary("y_true", y_true), finite_floats("scores", scores)
    if same_length(y_true=t, scores=s) == 0:
        raise ConfigError(EMPTY_MESSAGE.format(what=what))
    return t, s


def _curve(
    t: NDArray[np.bool_], s: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """(thresholds, n_auto, n_missed) for every distinct cut of the sorted scores."""
    order = np.argsort(s, kind="mergesort")
    s_sorted, t_sorted = s[order], t[order]
    values, first = np.unique(s_sorted, return_index=True)
    # Below the j-th distinct value lie exactly the rows before its first occurrence;
    # one threshold above the maximum leaves every row to the machine.
    thresholds = np.r_[values, np.nextafter(values[-1], np.inf)]
    n_auto = np.r_[first, s.size].astype(np.int64)
    cum_toxic = np.r_[0, np.cumsum(t_sorted)]
    return thresholds, n_auto, cum_toxic[n_auto].astype(np.int64)


def triage_curve(y_true: ArrayLike, scores: ArrayLike) -> pd.DataFrame:
    """Every triage threshold on labelled rows: share left to the machine and its toxic rate.

    For each candidate threshold :math:`\\theta` (each distinct score, and one
    just above the largest), with :math:`A_\\theta = \\{i : s_i < \\theta\\}`,

    .. math::

        share(\\theta) = \\frac{|A_\\theta|}{n}, \\qquad
        rate(\\theta) = \\frac{|\\{i \\in A_\\theta : y_i = 1\\}|}{|A_\\theta|}

    (ToxicChat's human-AI collaborative annotation, Lin et al. 2023, §3;
    :math:`rate = 0` when :math:`A_\\theta` is empty).

    Parameters
    ----------
    y_true : array-like of {0, 1} or bool, shape (n,), n >= 1
        Human labels, 1 = toxic.
    scores : array-like of float, shape (n,)
        Moderator scores, higher = more toxic. Must be finite.

    Returns
    -------
    DataFrame
        One row per threshold, ascending: ``threshold``, ``n_auto``,
        ``n_missed``, ``share_auto``, ``toxic_rate``.

    Raises
    ------
    ConfigError
        No row (:data:`EMPTY_MESSAGE`), different lengths, bad labels or scores.

    Examples
    --------
    >>> triage_curve([0, 0, 1], [0.1, 0.2, 0.9])["share_auto"].round(3).tolist()
    [0.0, 0.333, 0.667, 1.0]
    """
    t, s = _triage_input(y_true, scores, "triage_curve")
    thresholds, n_auto, n_missed = _curve(t, s)
    return pd.DataFrame(
        {
            "threshold": thresholds,
            "n_auto": n_auto,
            "n_missed": n_missed,
            "share_auto": n_auto / s.size,
            "toxic_rate": np.divide(n_missed, n_auto, out=np.zeros(n_auto.size), where=n_auto > 0),
        }
    )


def triage_threshold(
    y_true: ArrayLike, scores: ArrayLike, *, safe_rate: float = 0.01
) -> TriagePoint:
    """The threshold that leaves the most rows to the machine within an absolute safe rate.

    Among the thresholds of :func:`triage_curve`, the one with the largest
    :math:`share(\\theta)` such that :math:`rate(\\theta) \\le` ``safe_rate``
    (ToxicChat, Lin et al. 2023: 1 % safe rate). The lowest threshold, which
    leaves nothing to the machine, always qualifies, so there is always an answer.

    Parameters
    ----------
    y_true : array-like of {0, 1} or bool, shape (n,), n >= 1
        Human labels of the trial set, 1 = toxic.
    scores : array-like of float, shape (n,)
        Moderator scores of the same rows.
    safe_rate : float in [0, 1], default=0.01
        Largest toxic rate allowed among the rows left to the machine.

    Returns
    -------
    TriagePoint

    Raises
    ------
    ConfigError
        No row (:data:`EMPTY_MESSAGE`), bad ``safe_rate``, labels or scores.

    Examples
    --------
    >>> p = triage_threshold([0, 0, 1, 0], [0.1, 0.2, 0.3, 0.9], safe_rate=0.0)
    >>> p.threshold, p.n_auto, p.share_auto
    (0.3, 2, 0.5)
    """
    safe = validate_params("triage_threshold", _TRIAGE, safe_rate=safe_rate)["safe_rate"]
    t, s = _triage_input(y_true, scores, "triage_threshold")
    thresholds, n_auto, n_missed = _curve(t, s)
    # n_auto grows strictly along the curve: the last admissible cut is the largest.
    # k <= r * n in exact integer-vs-float terms would differ from k / n <= r only by
    # rounding; k / n is what the rate *is*, so compare that.
    rate = np.divide(n_missed, n_auto, out=np.zeros(n_auto.size), where=n_auto > 0)
    j = int(np.flatnonzero(rate <= safe)[-1])
    return TriagePoint(
        float(thresholds[j]), int(s.size), int(t.sum()), int(n_auto[j]), int(n_missed[j])
    )


def triage_at(y_true: ArrayLike, scores: ArrayLike, threshold: float) -> TriagePoint:
    """What a fixed triage threshold does on labelled rows (rows scoring ``< threshold`` go auto).

    Use it to check a threshold chosen on a trial set (:func:`triage_threshold`)
    on new labelled rows.

    Parameters
    ----------
    y_true : array-like of {0, 1} or bool, shape (n,), n >= 1
        Human labels, 1 = toxic.
    scores : array-like of float, shape (n,)
        Moderator scores.
    threshold : float
        The cut.

    Returns
    -------
    TriagePoint

    Examples
    --------
    >>> triage_at([0, 1, 0], [0.1, 0.2, 0.8], 0.5).to_dict()["n_missed"]
    1
    """
    thr = validate_params("triage_at", _TRIAGE, threshold=threshold)["threshold"]
    t, s = _triage_input(y_true, scores, "triage_at")
    auto = s < thr
    return TriagePoint(thr, int(s.size), int(t.sum()), int(auto.sum()), int((auto & t).sum()))


# -------------------------------------------------------------------- toxic to civil


@dataclass(frozen=True, slots=True)
class DetoxAccuracy:
    """ACC, ACC2, ACC3 and ACC4 of (toxic source, civil rewrite) pairs.

    Attributes
    ----------
    n : int
        Pairs.
    n_with_spans : int
        Pairs whose source has at least one toxic span.
    acc, acc2, acc3, acc4 : float or None
        See :func:`detox_accuracy`; ``None`` when no pair enters the share.
    """

    n: int
    n_with_spans: int
    acc: float | None
    acc2: float | None
    acc3: float | None
    acc4: float | None

    def to_dict(self) -> dict[str, float | int | None]:
        """A JSON-ready dict of the fields."""
        return {
            "n": self.n,
            "n_with_spans": self.n_with_spans,
            "acc": self.acc,
            "acc2": self.acc2,
            "acc3": self.acc3,
            "acc4": self.acc4,
        }


def detox_accuracy(
    rewrite_toxic: ArrayLike, source_has_spans: ArrayLike, spans_changed: ArrayLike
) -> DetoxAccuracy:
    """ACC–ACC4 of civil rewrites, after the ToxicSpans paper (Pavlopoulos et al., ACL 2022, §7).

    With :math:`\\hat y_i = 1` when a classifier judges rewrite *i* toxic,
    :math:`S` the pairs whose source has at least one toxic span and
    :math:`c_i = 1` when every toxic span of the source was changed, even
    partly, in the rewrite (:func:`all_spans_changed`):

    .. math::

        ACC = \\frac{|\\{i : \\hat y_i = 0\\}|}{n}, \\quad
        ACC2 = \\frac{|\\{i \\in S : \\hat y_i = 0\\}|}{|S|}, \\quad
        ACC3 = \\frac{|\\{i \\in S : c_i = 1\\}|}{|S|}, \\quad
        ACC4 = \\frac{|\\{i \\in S : c_i = 1 \\wedge \\hat y_i = 0\\}|}{|S|}.

    Parameters
    ----------
    rewrite_toxic : array-like of {0, 1} or bool, shape (n,)
        The classifier's decision on each rewrite.
    source_has_spans : array-like of {0, 1} or bool, shape (n,)
        Whether the pair's source has at least one toxic span.
    spans_changed : array-like of {0, 1} or bool, shape (n,)
        Whether every toxic span of the source was changed in the rewrite
        (read only where ``source_has_spans``).

    Returns
    -------
    DetoxAccuracy
        ``acc`` is ``None`` when there is no pair; ``acc2``–``acc4`` are
        ``None`` when no source has a span.

    Examples
    --------
    >>> d = detox_accuracy([0, 1, 0, 0], [1, 1, 1, 0], [1, 1, 0, 0])
    >>> d.acc, d.acc2, d.acc3, d.acc4
    (0.75, 0.6666666666666666, 0.6666666666666666, 0.3333333333333333)
    """
    tox = binary("rewrite_toxic", rewrite_toxic)
    has = binary("source_has_spans", source_has_spans)
    changed = binary("spans_changed", spans_changed)
    n = same_length(rewrite_toxic=tox, source_has_spans=has, spans_changed=changed)
    everyone = np.ones(n, dtype=bool)
    return DetoxAccuracy(
        n=n,
        n_with_spans=int(has.sum()),
        acc=_share(~tox, everyone),
        acc2=_share(~tox, has),
        acc3=_share(changed, has),
        acc4=_share(changed & ~tox, has),
    )


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())


def span_kept(span_text: str, rewrite: str) -> bool:
    """Whether a toxic span survives, unchanged, in a rewrite.

    The policy: case and runs of whitespace are ignored (``"IDIOT"`` kept as
    ``"idiot"`` is not a change); the span must occur as a whole piece of text,
    so a span that starts or ends with a letter or digit may not be glued to
    another one (``"ass"`` is not kept in ``"class"``). A blank span is never
    "kept" (it has nothing to change).

    Parameters
    ----------
    span_text : str
        The span's text in the source, ``source[start:end]``.
    rewrite : str
        The civil rewrite.

    Returns
    -------
    bool

    Examples
    --------
    >>> span_kept("Idiot", "you are an idiot."), span_kept("ass", "first class")
    (True, False)
    """
    needle = _folded(span_text)
    if not needle:
        return False
    left = r"(?<!\w)" if re.match(r"\w", needle) else ""
    right = r"(?!\w)" if re.search(r"\w$", needle) else ""
    return re.search(left + re.escape(needle) + right, _folded(rewrite)) is not None


def all_spans_changed(source: str, spans: Iterable[Span | tuple[int, int]], rewrite: str) -> bool:
    """Whether every toxic span of ``source`` was changed, even partly, in ``rewrite``.

    A span counts as changed unless :func:`span_kept` finds its text in the
    rewrite. Blank spans are ignored; with no span left the answer is ``True``
    (nothing had to change), and callers count such sources out of ACC3/ACC4
    through ``source_has_spans``.

    Parameters
    ----------
    source : str
        The toxic text.
    spans : iterable of Span or (start, end)
        Half-open character ranges of ``source``.
    rewrite : str
        Its civil rewrite.

    Returns
    -------
    bool

    Examples
    --------
    >>> all_spans_changed("you idiot, shut up", [(4, 9), (11, 18)], "you fool, shut up")
    False
    >>> all_spans_changed("you idiot", [(4, 9)], "you are wrong")
    True
    """
    for span in spans:
        start, end = (span.start, span.end) if isinstance(span, Span) else span
        if not 0 <= start <= end <= len(source):
            raise ConfigError(
                f"Span offsets must satisfy 0 <= start <= end <= len(source) = {len(source)}. "
                f"Got start={start}, end={end}."
            )
        if span_kept(source[start:end], rewrite):
            return False
    return True


def cosine_similarity(a: ArrayLike, b: ArrayLike) -> NDArray[np.float64]:
    """Row-wise cosine similarity of two embedding matrices (SIM).

    .. math:: SIM_i = \\frac{a_i \\cdot b_i}{\\lVert a_i \\rVert \\, \\lVert b_i \\rVert}

    ToxicSpans §7 and ParaDetox (Logacheva et al., ACL 2022) measure content
    kept by a rewrite as the cosine of sentence embeddings; tactful uses
    mean-pooled all-MiniLM-L6-v2 embeddings.

    Parameters
    ----------
    a, b : array-like of float, shape (n, d)
        Embeddings; row *i* of ``a`` is compared with row *i* of ``b``.

    Returns
    -------
    ndarray of float, shape (n,)
        In [-1, 1].

    Raises
    ------
    ConfigError
        Shapes differ, a value is not finite, or a row has norm 0 (its cosine is undefined).

    Examples
    --------
    >>> cosine_similarity([[1, 0], [3, 4]], [[2, 0], [4, 3]]).tolist()
    [1.0, 0.96]
    """
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.ndim != 2 or x.shape != y.shape:
        raise ConfigError(
            f"cosine_similarity needs two matrices of the same shape. Got {x.shape} and {y.shape}."
        )
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ConfigError("cosine_similarity needs finite embeddings. Got a NaN or inf.")
    norms = np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1)
    if (norms == 0).any():
        raise ConfigError("cosine_similarity is undefined for a zero vector.")
    sims: NDArray[np.float64] = np.clip(np.einsum("ij,ij->i", x, y) / norms, -1.0, 1.0)
    return sims


# ------------------------------------------------------------------------ bias probes


def flip_rate(decisions: ArrayLike, counterfactual_decisions: ArrayLike) -> float | None:
    """Share of texts whose decision flips on their counterfactual (DeTexD §7).

    .. math:: flip = \\frac{|\\{i : d_i \\ne d'_i\\}|}{n}

    Parameters
    ----------
    decisions : array-like of {0, 1} or bool, shape (n,)
        Decisions on the original texts.
    counterfactual_decisions : array-like of {0, 1} or bool, shape (n,)
        Decisions on their counterfactuals (gender-swapped, ...).

    Returns
    -------
    float or None
        ``None`` when there is no pair.

    Examples
    --------
    >>> flip_rate([1, 0, 0, 1], [1, 1, 0, 0])
    0.5
    """
    d = binary("decisions", decisions)
    c = binary("counterfactual_decisions", counterfactual_decisions)
    n = same_length(decisions=d, counterfactual_decisions=c)
    return int((d != c).sum()) / n if n else None


def _auc_on(t: NDArray[np.bool_], s: NDArray[np.float64], rows: NDArray[np.bool_]) -> float | None:
    return roc_auc(t[rows], s[rows])


def _bias_input(
    y_true: ArrayLike, scores: ArrayLike, in_group: ArrayLike
) -> tuple[NDArray[np.bool_], NDArray[np.float64], NDArray[np.bool_]]:
    t, s, g = (
        binary("y_true", y_true),
        finite_floats("scores", scores),
        binary("in_group", in_group),
    )
    same_length(y_true=t, scores=s, in_group=g)
    return t, s, g


def subgroup_auc(y_true: ArrayLike, scores: ArrayLike, in_group: ArrayLike) -> float | None:
    """ROC-AUC on the rows that mention the subgroup (Borkan et al., 2019).

    .. math:: AUC(D_g^- \\cup D_g^+)

    Parameters
    ----------
    y_true : array-like of {0, 1} or bool, shape (n,)
        Labels, 1 = toxic.
    scores : array-like of float, shape (n,)
        Moderator scores.
    in_group : array-like of {0, 1} or bool, shape (n,)
        Whether the row mentions the subgroup.

    Returns
    -------
    float or None
        ``None`` when the subgroup's rows hold one class or none.

    Examples
    --------
    >>> subgroup_auc([0, 1, 0, 1], [0.1, 0.9, 0.8, 0.2], [1, 1, 0, 0])
    1.0
    """
    t, s, g = _bias_input(y_true, scores, in_group)
    return _auc_on(t, s, g)


def bpsn_auc(y_true: ArrayLike, scores: ArrayLike, in_group: ArrayLike) -> float | None:
    """Background-Positive, Subgroup-Negative AUC (Borkan et al., 2019).

    The AUC on the subgroup's non-toxic rows and the background's toxic rows,
    :math:`AUC(D_g^- \\cup D_{\\bar g}^+)`: low when non-toxic mentions of the
    subgroup score higher than toxic texts without it (false positives on the
    subgroup).

    Parameters
    ----------
    y_true, scores, in_group
        As in :func:`subgroup_auc`.

    Returns
    -------
    float or None
        ``None`` when the subgroup has no non-toxic row or the background no toxic row.

    Examples
    --------
    >>> bpsn_auc([0, 1, 0, 1], [0.5, 0.9, 0.1, 0.4], [1, 1, 0, 0])
    0.0
    """
    t, s, g = _bias_input(y_true, scores, in_group)
    return _auc_on(t, s, (g & ~t) | (~g & t))


def bnsp_auc(y_true: ArrayLike, scores: ArrayLike, in_group: ArrayLike) -> float | None:
    """Background-Negative, Subgroup-Positive AUC (Borkan et al., 2019).

    The AUC on the subgroup's toxic rows and the background's non-toxic rows,
    :math:`AUC(D_g^+ \\cup D_{\\bar g}^-)`: low when toxic mentions of the
    subgroup score lower than non-toxic texts without it (misses on the subgroup).
    Parameters as in :func:`subgroup_auc`; ``None`` when the subgroup has no
    toxic row or the background no non-toxic row.

    Examples
    --------
    >>> bnsp_auc([0, 1, 0, 1], [0.5, 0.9, 0.1, 0.4], [1, 1, 0, 0])
    1.0
    """
    t, s, g = _bias_input(y_true, scores, in_group)
    return _auc_on(t, s, (g & t) | (~g & ~t))


def bias_auc_table(
    y_true: ArrayLike,
    scores: ArrayLike,
    y_pred: ArrayLike,
    groups: Sequence[Iterable[str]],
    group_names: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Per-subgroup bias metrics: subgroup, BPSN and BNSP AUC and the FPR ratio.

    For each subgroup *g* (rows that mention it; the background is every other
    row): :func:`subgroup_auc`, :func:`bpsn_auc`, :func:`bnsp_auc` (Borkan et al.,
    2019), the false-positive rate :math:`FPR_g = FP_g / (FP_g + TN_g)` and the
    ratio :math:`FPR_g / FPR` to the FPR of all rows (the suppression ratio of
    Anigboro et al., 2024).

    Parameters
    ----------
    y_true, scores
        As in :func:`subgroup_auc`.
    y_pred : array-like of {0, 1} or bool, shape (n,)
        Moderator decisions.
    groups : sequence of iterables of str, length n
        The subgroups each row mentions (possibly none).
    group_names : sequence of str, optional
        Rows of the table, in order; default every subgroup seen, sorted.

    Returns
    -------
    DataFrame
        Indexed by ``subgroup``, columns ``n``, ``n_positive``, ``subgroup_auc``,
        ``bpsn_auc``, ``bnsp_auc``, ``fpr``, ``fpr_ratio``. The policy for small
        groups: every listed subgroup has a row, even with no row of its own, and
        a metric that is undefined there (one class, no negatives, overall FPR 0)
        is ``<NA>`` (nullable ``Float64`` columns), never a stand-in number.
        ``attrs["fpr"]`` holds the FPR of all rows.

    Examples
    --------
    >>> t = bias_auc_table([0, 1, 0, 1], [0.5, 0.9, 0.1, 0.4], [1, 1, 0, 0],
    ...                    [["a"], ["a"], [], []])
    >>> t.loc["a", ["subgroup_auc", "bpsn_auc", "bnsp_auc", "fpr_ratio"]].tolist()
    [1.0, 0.0, 1.0, 2.0]
    """
    t, s = binary("y_true", y_true), finite_floats("scores", scores)
    p = binary("y_pred", y_pred)
    sets = [frozenset(g) for g in groups]
    same_length(y_true=t, scores=s, y_pred=p, groups=sets)
    names = sorted(set().union(*sets)) if group_names is None else list(group_names)
    overall = fpr(t, p)
    rows: dict[str, list[Any]] = {k: [] for k in _BIAS_COLUMNS}
    for name in names:
        g = np.fromiter((name in x for x in sets), dtype=bool, count=len(sets))
        group_fpr = fpr(t[g], p[g])
        rows["n"].append(int(g.sum()))
        rows["n_positive"].append(int((g & t).sum()))
        rows["subgroup_auc"].append(_auc_on(t, s, g))
        rows["bpsn_auc"].append(_auc_on(t, s, (g & ~t) | (~g & t)))
        rows["bnsp_auc"].append(_auc_on(t, s, (g & t) | (~g & ~t)))
        rows["fpr"].append(group_fpr)
        rows["fpr_ratio"].append(group_fpr / overall if group_fpr is not None and overall else None)
    frame = pd.DataFrame(
        {
            k: (pd.array(v, dtype="Int64") if k in _COUNT_COLUMNS else pd.array(v, dtype="Float64"))
            for k, v in rows.items()
        },
        index=pd.Index(names, name="subgroup", dtype=object),
    )
    frame.attrs["fpr"] = overall
    return frame


_COUNT_COLUMNS = ("n", "n_positive")
_BIAS_COLUMNS = ("n", "n_positive", "subgroup_auc", "bpsn_auc", "bnsp_auc", "fpr", "fpr_ratio")


def generalized_mean(values: Iterable[float | None], power: float = -5.0) -> float | None:
    """Generalized (power) mean of per-subgroup AUCs, Borkan et al.'s (2019) summary.

    .. math:: M_p = \\Big(\\frac{1}{N} \\sum_{g=1}^{N} m_g^{\\,p}\\Big)^{1/p}

    With :math:`p = -5` the mean leans towards the worst subgroups, so a model
    cannot hide one bad group behind many good ones.

    Parameters
    ----------
    values : iterable of float or None
        One value per subgroup; ``None`` (undefined) values are left out.
    power : float, default=-5.0
        The exponent :math:`p`, non-zero.

    Returns
    -------
    float or None
        ``None`` when no value is defined, when a value is negative, or when
        ``power < 0`` and a value is 0 (the mean is 0 there only as a limit).

    Examples
    --------
    >>> round(generalized_mean([0.5, 1.0, None], power=-1), 4)
    0.6667
    """
    p = validate_params("generalized_mean", _POWER, power=power)["power"]
    xs = finite_floats("values", [v for v in values if v is not None])
    if not xs.size or (p < 0 and (xs == 0).any()) or (xs < 0).any():
        return None
    return float(np.mean(xs**p) ** (1.0 / p))


_POWER: Constraints = {
    "power": Check(
        "a non-zero float",
        lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and v != 0,
    )
}
