"""Audit moderators for identity-related speech suppression (Anigboro et al., 2024).

Metrics (:mod:`tactful.audit.metrics`) and regressions (:mod:`tactful.audit.regression`)
are pure functions over arrays; see their module docstrings for the formulas.
:func:`run_audit` runs moderators over the audit views of the data sets
(:func:`tactful.datasets.audit_views`) through the result store and returns an
:class:`AuditReport`, which :func:`write_reports` writes as ``report.json``,
``report.md`` and a self-contained ``report.html``; ``tactful audit``
(:func:`audit_command`) is the same from the command line.
"""

from .._lazy import lazy_attributes

# Names are imported on first use (PEP 562): `tactful.cli` imports this package to
# register `tactful audit`, and statsmodels/pandas must not load for `tactful check`.
_WHERE = {
    "AUDIT_FAILED_MESSAGE": "._runner",
    "AuditReport": "._schema",
    "AuditSet": "._sets",
    "OPENAI_FLAG_THRESHOLDS": ".metrics",
    "audit_command": "._cli",
    "build_audit_sets": "._sets",
    "flag_regression": ".regression",
    "fpr": ".metrics",
    "load_report": "._schema",
    "max_category_score": ".metrics",
    "normalize_by_thresholds": ".metrics",
    "regression_frame": ".regression",
    "render_html": "._report",
    "render_markdown": "._report",
    "report_json": "._schema",
    "run_audit": "._runner",
    "score_regression": ".regression",
    "score_suppression_table": ".metrics",
    "standardized_suppression_table": ".metrics",
    "suppression_table": ".metrics",
    "worst_group": ".metrics",
    "write_reports": "._report",
}


__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)


__all__ = [  # noqa: RUF022  (kept in sorted() order; a test checks it)
    "AUDIT_FAILED_MESSAGE",
    "AuditReport",
    "AuditSet",
    "OPENAI_FLAG_THRESHOLDS",
    "audit_command",
    "build_audit_sets",
    "flag_regression",
    "fpr",
    "load_report",
    "max_category_score",
    "normalize_by_thresholds",
    "regression_frame",
    "render_html",
    "render_markdown",
    "report_json",
    "run_audit",
    "score_regression",
    "score_suppression_table",
    "standardized_suppression_table",
    "suppression_table",
    "worst_group",
    "write_reports",
]
