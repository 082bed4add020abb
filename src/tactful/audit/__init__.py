"""Audit moderators for identity-related speech suppression (Anigboro et al., 2024).

Metrics (:mod:`tactful.audit.metrics`) and regressions (:mod:`tactful.audit.regression`)
are pure functions over arrays; see their module docstrings for the formulas.
:func:`run_audit` runs moderators over the audit data sets through a
:class:`ResultStore` and writes the reports (:func:`write_reports`).
"""

from importlib import import_module
from typing import Any

# Names are imported on first use (PEP 562): `tactful.cli` imports this package to
# register `tactful audit`, and statsmodels/pandas must not load for `tactful check`.
_WHERE = {
    "write_reports": "._report",
    "AUDIT_FAMILIES": "._runner",
    "AuditSet": "._runner",
    "build_audit_sets": "._runner",
    "run_audit": "._runner",
    "ResultStore": "..store",
    "moderator_key": "..store",
    "text_sha256": "..store",
    "OPENAI_FLAG_THRESHOLDS": ".metrics",
    "fpr": ".metrics",
    "max_category_score": ".metrics",
    "normalize_by_thresholds": ".metrics",
    "score_suppression_table": ".metrics",
    "suppression_table": ".metrics",
    "worst_group": ".metrics",
    "flag_regression": ".regression",
    "regression_frame": ".regression",
    "score_regression": ".regression",
}


def __getattr__(name: str) -> Any:
    try:
        module = _WHERE[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))


__all__ = [  # noqa: RUF022  (kept in sorted() order; a test checks it)
    "AUDIT_FAMILIES",
    "AuditSet",
    "OPENAI_FLAG_THRESHOLDS",
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
