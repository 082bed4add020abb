"""Audit moderators for identity-related speech suppression (Anigboro et al., 2024).

Metrics (:mod:`tactful.audit.metrics`) and regressions (:mod:`tactful.audit.regression`)
are pure functions over arrays; see their module docstrings for the formulas.
"""

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
    "OPENAI_FLAG_THRESHOLDS",
    "flag_regression",
    "fpr",
    "max_category_score",
    "normalize_by_thresholds",
    "regression_frame",
    "score_regression",
    "score_suppression_table",
    "suppression_table",
    "worst_group",
]
