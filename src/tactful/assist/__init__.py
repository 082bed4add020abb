"""The papers' tools beside the classifier: triage, toxic-to-civil evaluation, bias probes.

* :func:`triage`: human-AI collaborative annotation after ToxicChat (Lin et al.,
  2023): on a labelled trial set, the threshold below which rows may be left to
  the machine within an absolute safe rate, and a new file split into
  ``auto_nontoxic`` and ``needs_human``.
* :func:`detox_eval`: ACC, ACC2–ACC4 and SIM of civil rewrites after the
  ToxicSpans paper (Pavlopoulos et al., 2022, §7).
* :func:`probe_gender`, :func:`probe_country`, :func:`probe_identity`: bias
  probes after DeTexD (Yavnyi et al., 2023, §7) and Borkan et al. (2019).

Each returns a JSON-ready report dict; :func:`write_report` writes it as JSON,
a self-contained HTML page and PNG figures. The pure metrics are in
:mod:`tactful.assist.metrics`. Every moderator is asked through
:func:`tactful.store.analyze_all`.

>>> from tactful.assist import gender_swap
>>> gender_swap("He thanked his mother.")
'She thanked her father.'
"""

from .._lazy import lazy_attributes

# Names are imported on first use (PEP 562): `tactful.cli` imports this package to
# register its commands, and pandas/matplotlib must not load for `tactful check`.
_WHERE = {
    "detox_eval_command": "._cli",
    "probe_app": "._cli",
    "triage_command": "._cli",
    "UN_MEMBER_STATES": "._countries",
    "Pair": "._detox",
    "detox_eval": "._detox",
    "load_pairs": "._detox",
    "COUNTRY_TEMPLATE": "._probes",
    "JIGSAW_IDENTITY_TERMS": "._probes",
    "gender_swap": "._probes",
    "identity_terms": "._probes",
    "probe_country": "._probes",
    "probe_gender": "._probes",
    "probe_identity": "._probes",
    "ReportTable": "._report",
    "figures": "._report",
    "format_number": "._report",
    "render_html": "._report",
    "report_tables": "._report",
    "write_report": "._report",
    "Rows": "._rows",
    "read_rows": "._rows",
    "rows_from": "._rows",
    "write_rows": "._rows",
    "SIM_EXTRA_MESSAGE": "._sim",
    "embed": "._sim",
    "AUTO_FILE": "._triage",
    "HUMAN_FILE": "._triage",
    "triage": "._triage",
}


__getattr__, __dir__ = lazy_attributes(__name__, _WHERE, submodules=("metrics",))


__all__ = [  # noqa: RUF022  (kept in sorted() order; a test checks it)
    "AUTO_FILE",
    "COUNTRY_TEMPLATE",
    "HUMAN_FILE",
    "JIGSAW_IDENTITY_TERMS",
    "Pair",
    "ReportTable",
    "Rows",
    "SIM_EXTRA_MESSAGE",
    "UN_MEMBER_STATES",
    "detox_eval",
    "detox_eval_command",
    "embed",
    "figures",
    "format_number",
    "gender_swap",
    "identity_terms",
    "load_pairs",
    "metrics",
    "probe_app",
    "probe_country",
    "probe_gender",
    "probe_identity",
    "read_rows",
    "render_html",
    "report_tables",
    "rows_from",
    "triage",
    "triage_command",
    "write_report",
    "write_rows",
]
