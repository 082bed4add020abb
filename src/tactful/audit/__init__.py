"""Audit moderators for identity-related speech suppression (Anigboro et al., 2024).

Metrics (:mod:`tactful.audit.metrics`) and regressions (:mod:`tactful.audit.regression`)
are pure functions over arrays; see their module docstrings for the formulas.
:func:`run_audit` runs moderators over the audit data sets through a
:class:`ResultStore` and writes the reports (:func:`write_reports`).
"""

from ._report import write_reports
from ._runner import AUDIT_FAMILIES, AuditSet, build_audit_sets, run_audit
from ._store import ResultStore, moderator_key, text_sha256
from .metrics import (
    OPENAI_FLAG_THRESHOLDS,
    fpr,
    max_category_score,
    normalize_by_thresholds,
    score_suppression_table,
    suppression_table,
    worst_group,
)
from .regression import flag_regression, regression_frame, score_regression

__all__ = [
    "AUDIT_FAMILIES",
    "OPENAI_FLAG_THRESHOLDS",
    "AuditSet",
    "ResultStore",
    "build_audit_sets",
    "flag_regression",
    "fpr",
    "max_category_score",
    "moderator_key",
    "normalize_by_thresholds",
    "regression_frame",
    "run_audit",
    "score_regression",
    "score_suppression_table",
    "suppression_table",
    "text_sha256",
    "worst_group",
    "write_reports",
]
