"""The audit report's schema: what ``report.json`` holds, typed once.

:func:`~tactful.audit.run_audit` builds an :class:`AuditReport`; the JSON,
Markdown and HTML writers read it through these types. A report is a JSON
document (``report.json`` is its canonical text), so each part is a
:class:`~typing.TypedDict`: a saved ``report.json`` loads back into the same
type (:func:`load_report`) and renders again without the run.

Numbers follow one policy (:func:`clean`): floats keep :data:`REPORT_DIGITS`
significant digits, and an undefined value (NaN, ``pandas.NA``) is ``None``,
never a stand-in number.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, NotRequired, TypedDict, cast

from ..errors import DataError
from ..store import jsonable

__all__ = [
    "REPORT_DIGITS",
    "SCHEMA",
    "AuditReport",
    "DatasetEntry",
    "Evaluation",
    "FamilyResult",
    "Fit",
    "FlagGroup",
    "FlagTable",
    "FlagWorst",
    "ModeratorEntry",
    "Parameters",
    "Regression",
    "ScoreGroup",
    "ScoreTable",
    "ScoreWorst",
    "SetResult",
    "Skipped",
    "StandardizedGroup",
    "StandardizedTable",
    "SummaryRow",
    "Term",
    "clean",
    "load_report",
    "report_json",
]

#: The value of ``report["schema"]``.
SCHEMA = "tactful.audit/2"

#: Significant digits kept in report.json: far more than any figure needs, and few
#: enough that last-bit noise from threaded linear algebra cannot change the bytes.
REPORT_DIGITS = 10


class Parameters(TypedDict):
    datasets: list[str]
    n_resamples: int
    confidence: float
    seed: int
    limit: int | None


class ModeratorEntry(TypedDict):
    """A moderator as audited: ``config`` rebuilds it, ``key`` is its store key."""

    label: str
    name: str
    version: str
    config: dict[str, Any]
    key: str
    #: Set id -> rows of the set the moderator was trained on; only for a moderator
    #: that records its training texts (``tactful.evaluate.trained_texts``).
    in_sample: NotRequired[dict[str, int]]


class DatasetEntry(TypedDict):
    """One audit set (a labelled view of a data set) and its rows."""

    set: str
    dataset: str
    family: str
    labeling: str
    primary: bool
    group_source: str
    n: int
    n_positive: int
    n_negative: int
    n_has_slur: int
    group_counts: dict[str, int]
    mean_words: float


class Skipped(TypedDict):
    dataset: str
    reason: str


class FlagGroup(TypedDict):
    """A row of :func:`tactful.audit.metrics.suppression_table`."""

    group: str
    n: int
    n_tn: int
    n_fp: int
    i_fpr: float | None
    fpr: float | None
    ratio: float | None
    ratio_low: float | None
    ratio_high: float | None


class ScoreGroup(TypedDict):
    """A row of :func:`tactful.audit.metrics.score_suppression_table`."""

    group: str
    n: int
    n_tn: int
    i_median: float | None
    median: float | None
    ratio: float | None
    ratio_low: float | None
    ratio_high: float | None


class FlagWorst(TypedDict):
    """:func:`tactful.audit.metrics.worst_group` of a flag table."""

    group: str
    ratio: float
    ratio_low: float | None
    ratio_high: float | None
    n_tn: int | None
    n_fp: int | None
    i_fpr: float | None


class ScoreWorst(TypedDict):
    """:func:`tactful.audit.metrics.worst_group` of a score table."""

    group: str
    ratio: float
    ratio_low: float | None
    ratio_high: float | None
    n_tn: int | None
    i_median: float | None


class FlagTable(TypedDict):
    groups: list[FlagGroup]
    worst: FlagWorst | None


class ScoreTable(TypedDict):
    groups: list[ScoreGroup]
    worst: ScoreWorst | None


class StandardizedGroup(TypedDict):
    """A row of :func:`tactful.audit.metrics.standardized_suppression_table`."""

    group: str
    n: int
    n_tn: int
    n_fp: int
    expected_fp: float | None
    standardized_ratio: float | None
    standardized_ratio_low: float | None
    standardized_ratio_high: float | None
    composition_ratio: float | None


class StandardizedTable(TypedDict):
    """Flag suppression within the data sets of a pooled family.

    ``worst`` is the group with the largest standardized ratio (None when no group
    has one).
    """

    groups: list[StandardizedGroup]
    worst: StandardizedGroup | None


class Evaluation(TypedDict):
    """A moderator on some rows: FPR, per-group tables and their worst groups.

    ``score`` is None when the moderator gives no score on those rows.
    """

    n: int
    n_negative: int
    n_positive: int
    fpr: float | None
    flag: FlagTable
    score: ScoreTable | None


class SetResult(Evaluation):
    """A moderator on one audit set (Tables 11–14 per data set)."""

    moderator: str
    set: str
    dataset: str
    family: str


class FamilyResult(Evaluation):
    """A moderator on a family's pooled primary sets (Table 4, Figure 1).

    ``standardized``: the same flags measured within each set (observed over
    expected false positives, the expected ones at each set's own FPR).
    """

    moderator: str
    family: str
    sets: list[str]
    standardized: StandardizedTable


class SummaryRow(TypedDict):
    """Table 4: the worst groups of a :class:`FamilyResult`."""

    moderator: str
    family: str
    fpr: float | None
    flag: FlagWorst | None
    score: ScoreWorst | None
    standardized: StandardizedGroup | None


class Term(TypedDict):
    """One term of a regression: ``z`` (logit) or ``stat`` (OLS t) is its statistic."""

    term: str
    coef: float | None
    std_err: float | None
    z: NotRequired[float | None]
    stat: NotRequired[float | None]
    p_value: float | None
    ci_low: float | None
    ci_high: float | None


class Fit(TypedDict):
    """A fitted regression, or ``{"terms": None, "error": ...}`` when it could not be fitted."""

    terms: list[Term] | None
    method: NotRequired[str]
    dropped: NotRequired[dict[str, str]]
    n: NotRequired[int]
    error: NotRequired[str]


class Regression(TypedDict):
    """Tables 15–16 for one moderator over the pooled primary sets."""

    moderator: str
    sets: list[str]
    n: int
    flag: Fit
    score: Fit | None


class AuditReport(TypedDict):
    """The whole report, exactly as ``report.json`` holds it."""

    schema: str
    title: str
    parameters: Parameters
    groups: list[str]
    notes: list[str]
    moderators: list[ModeratorEntry]
    datasets: list[DatasetEntry]
    skipped: list[Skipped]
    results: list[SetResult]
    families: list[FamilyResult]
    summary: list[SummaryRow]
    regressions: list[Regression]
    #: Data set → :func:`tactful.identity.agreement` rows (its columns, one row per group).
    tagger_agreement: dict[str, list[dict[str, Any]]]


def clean(value: Any) -> Any:
    """JSON-ready copy of ``value``: floats to :data:`REPORT_DIGITS` significant digits,
    NaN to None, numpy scalars to Python values, tuples to lists."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(f"{value:.{REPORT_DIGITS}g}") if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if hasattr(value, "item") and hasattr(value, "dtype"):  # numpy scalars
        return clean(value.item())
    return clean(jsonable(value))


def report_json(report: AuditReport) -> str:
    """The canonical text of ``report.json``: sorted keys, 2-space indent, no NaN."""
    return json.dumps(report, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def load_report(path: str | Path) -> AuditReport:
    """A saved ``report.json``, to render again.

    Raises
    ------
    DataError
        When the file is not an audit report of this schema.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(f"Cannot read the audit report {path}: {exc}.") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise DataError(f"{path} is not an audit report of schema {SCHEMA!r} (found {found!r}).")
    return cast(AuditReport, data)
