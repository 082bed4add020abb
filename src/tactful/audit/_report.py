"""Audit reports: ``report.json``, ``report.md`` and a self-contained ``report.html``.

Every renderer here is a pure function of the :class:`~tactful.audit.AuditReport`
that :func:`~tactful.audit.run_audit` returns, so a report can be re-rendered from
a saved ``report.json`` alone (:func:`~tactful.audit.load_report`). The HTML page
carries its CSS inline and its figures as inline SVG drawn by matplotlib's
Agg/SVG backends: it loads nothing from anywhere, runs no script and opens
offline. A figure with nothing to draw is left out, and so is a moderator
without a ratio in it (its caption says so).

The views follow the paper (Anigboro et al., 2024):

- summary (Table 4): per moderator × family, the worst suppression ratio by flag
  and by score, with its group, CI, #FP and #TN;
- within data sets: the pooled flag ratio split into a standardized ratio (observed
  over expected false positives, each set at its own FPR) and a composition ratio
  (what the pooled ratio would be if the group had each set's own FPR);
- per data set (Tables 11–12): FPR and the worst group per moderator;
- per group (Tables 13–14): i-FPR, ratio and CI per group, per moderator;
- regressions (Tables 15–16) and the identity tagger's agreement with the
  paper's tags;
- one figure per family (Figure 1): per-group ratio bars with CI whiskers and a
  line at 1.0, one bar colour per moderator.
"""

from __future__ import annotations

import html
import io
import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypedDict

from ..assist import format_number
from ..store import ResultStore, code_fingerprint, memo
from ._schema import (
    AuditReport,
    Evaluation,
    FlagTable,
    FlagWorst,
    ScoreTable,
    ScoreWorst,
    StandardizedGroup,
    StandardizedTable,
    Term,
    report_json,
)

__all__ = [
    "FigureData",
    "FigureSeries",
    "ratio_figure_svg",
    "render_html",
    "render_markdown",
    "report_json",
    "write_reports",
]

Kind = Literal["flag", "score"]

# Colour-blind-safe palette (Okabe & Ito), one colour per moderator in report order.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")

_CSS = """
:root { --ink: #1b1b1b; --muted: #5c5c5c; --rule: #d0d0d0; --band: #f4f6f8; --hi: #fff1d6; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
       margin: 0 auto; max-width: 1180px; padding: 24px 28px 64px; }
h1 { font-size: 1.7em; margin: 0 0 .2em; }
h2 { font-size: 1.3em; margin: 2em 0 .5em; border-bottom: 2px solid var(--rule); padding-bottom: .2em; }
h3 { font-size: 1.05em; margin: 1.4em 0 .4em; }
p.lede, .muted { color: var(--muted); }
nav ul { columns: 2; padding-left: 1.2em; }
div.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: .4em 0 1em; font-size: .9em; }
th, td { padding: 3px 9px; border-bottom: 1px solid var(--rule); text-align: right; vertical-align: top; }
th { background: var(--band); font-weight: 600; }
td.l, th.l { text-align: left; }
tr.worst td { background: var(--hi); }
td.na { color: var(--muted); }
figure.ratio-plot { margin: 1em 0 2em; }
figure.ratio-plot svg { width: 100%; height: auto; display: block; }
figcaption { color: var(--muted); font-size: .9em; margin-top: .3em; }
details { margin: .4em 0; }
summary { cursor: pointer; font-weight: 600; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85em; }
pre { background: var(--band); padding: 8px 10px; overflow-x: auto; white-space: pre-wrap; }
ul.notes li { margin: .25em 0; }
"""


# --------------------------------------------------------------------------- formatting


def _num(x: Any, digits: int = 3) -> str:
    return format_number(x, digits, scientific=True)


def _ci(low: Any, high: Any, fmt: str = ".2f") -> str:
    if low is None or high is None:
        return "–"
    return f"[{low:{fmt}}, {high:{fmt}}]"


def _ratio(w: FlagWorst | ScoreWorst | None, kind: Kind) -> tuple[str, str, str, str]:
    """(ratio, CI, group, counts) of a worst group."""
    if not w:
        return ("–", "–", "–", "–")
    counts = f"{_num(w.get('n_fp'))} / {_num(w['n_tn'])}" if kind == "flag" else _num(w["n_tn"])
    return (_num(w["ratio"], 2), _ci(w["ratio_low"], w["ratio_high"]), str(w["group"]), counts)


# --------------------------------------------------------------------------- table model

# Cells that read as numbers: 0.123, 1,234, [0.91, 1.20], 12 / 345, 1.2e-05, or "–".
_NUMERIC = re.compile(r"^[-+–\d.,\[\] /e%]*$")


class _Table:
    """A table rendered both as Markdown and as HTML."""

    def __init__(self, header: Sequence[str], left: int = 1) -> None:
        self.header = list(header)
        self.left = left  # leading columns aligned left
        self.rows: list[tuple[list[str], str]] = []

    def add(self, cells: Sequence[Any], css: str = "") -> None:
        self.rows.append(([str(c) for c in cells], css))

    def _left(self) -> list[bool]:
        """Per column: align left (text) or right (numbers, CIs, counts)."""
        return [
            i < self.left or any(not _NUMERIC.match(cells[i]) for cells, _ in self.rows)
            for i in range(len(self.header))
        ]

    def markdown(self) -> str:
        if not self.rows:
            return "_(no rows)_\n"

        def esc(c: str) -> str:
            return c.replace("|", "\\|").replace("\n", " ")

        lines = ["| " + " | ".join(esc(h) for h in self.header) + " |"]
        lines.append("|" + "|".join(":--" if left else "--:" for left in self._left()) + "|")
        lines += ["| " + " | ".join(esc(c) for c in cells) + " |" for cells, _ in self.rows]
        return "\n".join(lines) + "\n"

    def html(self, caption: str | None = None) -> str:
        if not self.rows:
            return '<p class="muted">(no rows)</p>'

        lefts = self._left()

        def cls(i: int, c: str = "") -> str:
            names = (["l"] if lefts[i] else []) + (["na"] if c == "–" else [])
            return f' class="{" ".join(names)}"' if names else ""

        # Wide tables scroll inside their own box instead of widening the page.
        out = ['<div class="scroll"><table>']
        if caption:
            out.append(f"<caption>{html.escape(caption)}</caption>")
        out.append(
            "<thead><tr>"
            + "".join(f"<th{cls(i)}>{html.escape(h)}</th>" for i, h in enumerate(self.header))
            + "</tr></thead>"
        )
        out.append("<tbody>")
        for cells, css in self.rows:
            tr = f'<tr class="{css}">' if css else "<tr>"
            out.append(
                tr
                + "".join(f"<td{cls(i, c)}>{html.escape(c)}</td>" for i, c in enumerate(cells))
                + "</tr>"
            )
        out.append("</tbody></table></div>")
        return "\n".join(out)


#: Worst-group columns of a table row: the group's ratio, its CI, the group, its counts.
_WORST_HEADER = {
    "flag": ("ratio", "95% CI", "group", "#FP / #TN"),
    "score": ("ratio", "95% CI", "group", "#TN"),
}


def _summary_table(report: AuditReport) -> _Table:
    flag, score = _WORST_HEADER["flag"], _WORST_HEADER["score"]
    t = _Table(
        [
            "moderator",
            "family",
            "FPR",
            f"flag {flag[0]}",
            *flag[1:],
            f"score {score[0]}",
            *score[1:],
        ],
        left=2,
    )
    for s in report["summary"]:
        t.add(
            [
                s["moderator"],
                s["family"],
                _num(s["fpr"]),
                *_ratio(s["flag"], "flag"),
                *_ratio(s["score"], "score"),
            ]
        )
    return t


_STANDARDIZED_HEADER = (
    "group",
    "#TN",
    "#FP",
    "expected #FP",
    "standardized ratio",
    "95% CI",
    "composition ratio",
)


def _standardized_cells(g: StandardizedGroup | None) -> list[str]:
    """The cells of :data:`_STANDARDIZED_HEADER` for one group ("–" when none)."""
    if g is None:
        return ["–"] * len(_STANDARDIZED_HEADER)
    return [
        str(g["group"]),
        _num(g["n_tn"]),
        _num(g["n_fp"]),
        _num(g["expected_fp"]),
        _num(g["standardized_ratio"], 2),
        _ci(g["standardized_ratio_low"], g["standardized_ratio_high"]),
        _num(g["composition_ratio"], 2),
    ]


def _standardized_summary_table(report: AuditReport) -> _Table:
    """Per moderator × family: the group with the largest standardized flag ratio."""
    t = _Table(["moderator", "family", *_STANDARDIZED_HEADER], left=3)
    for s in report["summary"]:
        t.add([s["moderator"], s["family"], *_standardized_cells(s["standardized"])])
    return t


def _standardized_table(part: StandardizedTable) -> _Table:
    """One row per group: the pooled flag ratio split by data set."""
    t = _Table(list(_STANDARDIZED_HEADER))
    worst = part["worst"]["group"] if part["worst"] else None
    for g in part["groups"]:
        t.add(_standardized_cells(g), "worst" if g["group"] == worst else "")
    return t


def _datasets_table(report: AuditReport) -> _Table:
    groups = report["groups"]
    t = _Table(
        [
            "set",
            "family",
            "violating = 1",
            "n",
            "violating",
            "not violating",
            "has slur",
            "groups from",
            *groups,
        ],
        left=3,
    )
    for d in report["datasets"]:
        t.add(
            [
                d["set"],
                d["family"],
                d["labeling"],
                _num(d["n"]),
                _num(d["n_positive"]),
                _num(d["n_negative"]),
                _num(d["n_has_slur"]),
                d["group_source"],
                *(_num(d["group_counts"].get(g, 0)) for g in groups),
            ]
        )
    return t


def _per_set_table(report: AuditReport, set_id: str) -> _Table:
    header = ["moderator", "FPR"]
    for kind in ("flag", "score"):
        ratio, ci, _, counts = _WORST_HEADER[kind]
        header += [f"worst group ({kind})", ratio, ci, counts]
    t = _Table(header, left=1)
    for r in report["results"]:
        if r["set"] != set_id:
            continue
        f = _ratio(r["flag"]["worst"], "flag")
        s = _ratio(r["score"]["worst"] if r["score"] else None, "score")
        t.add([r["moderator"], _num(r["fpr"]), f[2], f[0], f[1], f[3], s[2], s[0], s[1], s[3]])
    return t


#: Per-group table columns after "group": (header, row key) per kind; then ratio and CI.
_GROUP_COLUMNS: dict[Kind, tuple[tuple[str, str], ...]] = {
    "flag": (("n", "n"), ("#TN", "n_tn"), ("#FP", "n_fp"), ("i-FPR", "i_fpr"), ("FPR", "fpr")),
    "score": (("n", "n"), ("#TN", "n_tn"), ("i-median", "i_median"), ("median", "median")),
}


def _per_group_table(part: FlagTable | ScoreTable, kind: Kind) -> _Table:
    """Tables 13–14: one row per group for one moderator and one set or family."""
    columns = _GROUP_COLUMNS[kind]
    t = _Table(["group", *(h for h, _ in columns), "ratio", "95% CI"])
    worst = part["worst"]["group"] if part["worst"] else None
    rows: Sequence[Mapping[str, Any]] = part["groups"]
    for g in rows:
        t.add(
            [
                g["group"],
                *(_num(g.get(key)) for _, key in columns),
                _num(g.get("ratio"), 2),
                _ci(g.get("ratio_low"), g.get("ratio_high")),
            ],
            "worst" if g["group"] == worst else "",
        )
    return t


def _regression_table(terms: Sequence[Term]) -> _Table:
    stat = next((k for k in ("z", "t", "stat") if terms and k in terms[0]), "stat")
    t = _Table(["term", "coef", "std err", stat, "p", "95% CI"])
    for r in terms:
        row: Mapping[str, Any] = r
        t.add(
            [
                r["term"],
                _num(r["coef"]),
                _num(r["std_err"]),
                _num(row.get(stat), 2),
                _num(r["p_value"]),
                _ci(r["ci_low"], r["ci_high"], ".3g"),
            ]
        )
    return t


def _agreement_table(rows: Sequence[Mapping[str, Any]]) -> _Table:
    cols = [c for c in (rows[0] if rows else {}) if c != "group"]
    t = _Table(["group", *cols])
    for r in rows:
        t.add([r.get("group", "?"), *(_num(r.get(c)) for c in cols)])
    return t


# --------------------------------------------------------------------------- figures


class FigureSeries(TypedDict):
    """One moderator's bars: a ratio (None = no bar) and CI per group."""

    label: str
    color: str
    ratio: list[float | None]
    low: list[float | None]
    high: list[float | None]


class FigureData(TypedDict):
    """What :func:`ratio_figure_svg` draws."""

    title: str
    groups: list[str]
    series: list[FigureSeries]


def _figure_data(report: AuditReport, family: str, kind: Kind) -> tuple[FigureData, list[str]]:
    """Per-moderator per-group ratios with CIs for one family, and the moderators left out.

    A moderator is left out when it has nothing to draw: no scores (score figure),
    or no group with a ratio (e.g. a median score of 0, as the lexicon gives).
    """
    series: list[FigureSeries] = []
    left_out: list[str] = []
    groups = report["groups"]
    for i, m in enumerate(report["moderators"]):
        rows = [
            p for p in report["families"] if p["moderator"] == m["label"] and p["family"] == family
        ]
        part = rows[0][kind] if rows else None
        if part is None:
            continue
        by_group: dict[str, Mapping[str, Any]] = {g["group"]: g for g in part["groups"]}
        ratio = [by_group.get(g, {}).get("ratio") for g in groups]
        if all(r is None for r in ratio):
            left_out.append(m["label"])
            continue
        series.append(
            {
                "label": m["label"],
                "color": PALETTE[i % len(PALETTE)],
                "ratio": ratio,
                "low": [by_group.get(g, {}).get("ratio_low") for g in groups],
                "high": [by_group.get(g, {}).get("ratio_high") for g in groups],
            }
        )
    what = "i-FPR / FPR (flags)" if kind == "flag" else "i-median / median of max category score"
    return {"title": f"{family}: {what}", "groups": list(groups), "series": series}, left_out


def ratio_figure_svg(data: FigureData, salt: str = "tactful") -> str:
    """An inline ``<svg>`` like the paper's Figure 1: grouped ratio bars, CI whiskers, a line at 1.0.

    Parameters
    ----------
    data : FigureData
        ``{"title", "groups": [...], "series": [{"label", "color", "ratio", "low", "high"}]}``;
        ``None`` ratios are drawn as no bar, marked "n/a".
    salt : str
        Seed of the SVG element ids, so that several figures on one page never share an id.
    """
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    import numpy as np

    groups, series = data["groups"], data["series"]
    x = np.arange(len(groups))
    width = 0.8 / max(1, len(series))
    with plt.rc_context({"svg.hashsalt": salt, "svg.fonttype": "none", "font.size": 10}):
        fig, ax = plt.subplots(figsize=(10, 3.8))
        try:
            for k, s in enumerate(series):
                pos = x - 0.4 + width * (k + 0.5)
                has = [r is not None for r in s["ratio"]]
                px = pos[has]
                h = np.array([r for r in s["ratio"] if r is not None], dtype=float)
                lo = np.array(
                    [
                        lo if lo is not None else r
                        for r, lo in zip(s["ratio"], s["low"])
                        if r is not None
                    ],
                    dtype=float,
                )
                hi = np.array(
                    [
                        hi if hi is not None else r
                        for r, hi in zip(s["ratio"], s["high"])
                        if r is not None
                    ],
                    dtype=float,
                )
                label = s["label"] if len(px) else f"{s['label']} (no ratio defined)"
                ax.bar(px, h, width=width * 0.92, color=s["color"], label=label, zorder=2)
                for xi, r in zip(pos, s["ratio"]):
                    if r is None:  # no true negatives in the group: no ratio, say so on the plot
                        ax.text(
                            xi,
                            0.02,
                            "n/a",
                            rotation=90,
                            ha="center",
                            va="bottom",
                            fontsize=7,
                            color=s["color"],
                            transform=ax.get_xaxis_transform(),
                        )
                if len(px):
                    # Percentile CIs need not contain the point estimate; clip the whisker lengths at 0.
                    err = np.vstack([np.clip(h - lo, 0, None), np.clip(hi - h, 0, None)])
                    ax.errorbar(
                        px,
                        h,
                        yerr=err,
                        fmt="none",
                        ecolor="#333333",
                        elinewidth=1,
                        capsize=2.5,
                        zorder=3,
                    )
            ax.axhline(
                1.0, color="#B22222", linestyle="--", linewidth=1.2, zorder=4, label="ratio = 1"
            )
            ax.set_xticks(x, groups, rotation=20, ha="right")
            ax.set_ylabel("suppression ratio")
            ax.set_title(data["title"])
            ax.grid(axis="y", color="#e0e0e0", zorder=0)
            ax.spines[["top", "right"]].set_visible(False)
            ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
            fig.tight_layout()
            buf = io.StringIO()
            fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
        finally:
            plt.close(fig)
    svg = buf.getvalue()
    return svg[svg.index("<svg") :]


def _drawing(data: FigureData, fid: str) -> Callable[[], str]:
    return lambda: ratio_figure_svg(data, salt=fid)


def _figures(report: AuditReport, store: ResultStore | None = None) -> list[tuple[str, str, str]]:
    """``[(element id, caption, svg)]`` per family and kind, memoized in ``store`` when given.

    A figure with nothing to draw (no moderator with a ratio) is left out, and
    so is each moderator without one (named in the caption).
    """
    namespace = f"audit-report-figure/{code_fingerprint(__name__)}"
    out = []
    for family in dict.fromkeys(p["family"] for p in report["families"]):
        for kind in ("flag", "score"):
            data, left_out = _figure_data(report, family, kind)
            if not data["series"]:
                continue
            fid = f"fig-{family}" if kind == "flag" else f"fig-{family}-score"
            svg: str = memo(store, namespace, (fid, data), _drawing(data, fid))
            caption = data["title"]
            if left_out:
                caption += f" (not drawn, no ratio defined: {', '.join(left_out)})"
            out.append((fid, caption, svg))
    return out


# --------------------------------------------------------------------------- documents


_SUMMARY_NOTE = (
    "Worst group = largest ratio over the 9 groups on the family's pooled rows; "
    "#FP / #TN are the group's false positives and true negatives (texts not violating). "
    "– = undefined: no scores, or an overall FPR / median score of 0, or no group with "
    "true negatives."
)


_STANDARDIZED_NOTE = (
    "Within data sets: a pooled family mixes sets whose FPRs differ, so a group whose "
    "harmless texts come mostly from a high-FPR set gets a high pooled ratio even when "
    "each set flags it as often as its other texts. Expected #FP = the group's true "
    "negatives in each set × that set's FPR; standardized ratio = #FP / expected #FP "
    "(1 = flagged as often as the other texts of the same sets), with its bootstrap CI; "
    "composition ratio = what the pooled ratio would be at each set's own FPR. Pooled "
    "ratio = standardized ratio × composition ratio. Worst group = largest standardized "
    "ratio."
)


def _parts(ev: Evaluation) -> list[tuple[Kind, FlagTable | ScoreTable]]:
    """The per-group tables of an evaluation: flags, and scores when it has them."""
    parts: list[tuple[Kind, FlagTable | ScoreTable]] = [("flag", ev["flag"])]
    if ev["score"] is not None:
        parts.append(("score", ev["score"]))
    return parts


def _sections(report: AuditReport) -> list[tuple[str, str, list[tuple[str, Any]]]]:
    """The report as ``[(anchor, heading, [(kind, payload)])]`` shared by both renderers."""
    secs: list[tuple[str, str, list[tuple[str, Any]]]] = []
    mods = report["moderators"]
    secs.append(
        (
            "summary",
            "Summary: worst suppression per moderator and family (Table 4)",
            [
                ("p", _SUMMARY_NOTE),
                ("table", _summary_table(report)),
                ("p", _STANDARDIZED_NOTE),
                ("table", _standardized_summary_table(report)),
            ],
        )
    )
    secs.append(("figures", "Per-group suppression ratios (Figure 1)", [("figures", None)]))
    secs.append(
        (
            "datasets",
            "Data sets and identity groups",
            [("table", _datasets_table(report))]
            + (
                [
                    (
                        "p",
                        "Skipped: "
                        + "; ".join(f"{s['dataset']} ({s['reason']})" for s in report["skipped"]),
                    )
                ]
                if report["skipped"]
                else []
            ),
        )
    )
    per_set: list[tuple[str, Any]] = []
    for d in report["datasets"]:
        per_set.append(
            (
                "h3",
                f"{d['set']} ({d['family']}; violating = {d['labeling']}; groups: {d['group_source']})",
            )
        )
        per_set.append(("table", _per_set_table(report, d["set"])))
    secs.append(("per-dataset", "Per data set: FPR and worst group (Tables 11–12)", per_set))
    per_group: list[tuple[str, Any]] = []
    for p in report["families"]:
        head = f"{p['moderator']} · {p['family']} (pooled: {', '.join(p['sets'])})"
        for kind, part in _parts(p):
            what = "i-FPR / FPR" if kind == "flag" else "i-median / median (max category score)"
            per_group.append(("h3", f"{head} · {what}"))
            per_group.append(("table", _per_group_table(part, kind)))
        per_group.append(("h3", f"{head} · within data sets (standardized)"))
        per_group.append(("table", _standardized_table(p["standardized"])))
    secs.append(("per-group", "Per group, pooled families (Tables 13–14)", per_group))
    detail: list[tuple[str, Any]] = []
    for r in report["results"]:
        for kind, part in _parts(r):
            what = "i-FPR / FPR" if kind == "flag" else "i-median / median"
            title = f"{r['moderator']} · {r['set']} · {what}"
            detail.append(("details", (title, _per_group_table(part, kind))))
    secs.append(("per-group-sets", "Per group, each data set", detail))
    regs: list[tuple[str, Any]] = (
        [
            (
                "p",
                "Flag: logistic regression of 'flag matches ground truth'; score: OLS of "
                "the max category score on true negatives. Pooled over: "
                + ", ".join(report["regressions"][0]["sets"])
                + ".",
            )
        ]
        if report["regressions"]
        else []
    )
    for reg in report["regressions"]:
        for kind, fit in (("flag", reg["flag"]), ("score", reg["score"])):
            if fit is None:
                continue
            regs.append(("h3", f"{reg['moderator']} · {kind} regression"))
            if fit["terms"] is None:
                regs.append(("p", f"Not fitted: {fit.get('error')}"))
                continue
            dropped = "; ".join(f"{k} ({v})" for k, v in (fit.get("dropped") or {}).items())
            regs.append(
                (
                    "p",
                    f"Method: {fit.get('method')}; fitted on {_num(fit.get('n'))} rows"
                    + (f"; left out: {dropped}" if dropped else "")
                    + ".",
                )
            )
            regs.append(("table", _regression_table(fit["terms"])))
    secs.append(("regressions", "Regressions (Tables 15–16)", regs))
    agree: list[tuple[str, Any]] = [
        ("p", "The tactful identity tagger compared with the paper's own tags, per group.")
    ]
    for name, rows in sorted(report["tagger_agreement"].items()):
        agree.append(("h3", name))
        agree.append(("table", _agreement_table(rows)))
    secs.append(("tagger", "Identity tagger agreement", agree))
    mod_items: list[tuple[str, Any]] = []
    for m in mods:
        mod_items.append(("h3", f"{m['label']} (version {m['version']})"))
        mod_items.append(("pre", json.dumps(m["config"], sort_keys=True, indent=2)))
    secs.append(("moderators", "Moderators and their configuration", mod_items))
    secs.append(("notes", "Notes", [("ul", report["notes"])]))
    return secs


def _lede(report: AuditReport) -> str:
    """The line under the title: moderators, data and bootstrap settings."""
    p = report["parameters"]
    return (
        f"Moderators: {', '.join(m['label'] for m in report['moderators'])}. "
        f"Data: {', '.join(p['datasets'])}. Bootstrap: {p['n_resamples']:,} resamples, "
        f"{p['confidence']:.0%} CI, seed {p['seed']}."
        + (f" Limited to {p['limit']:,} rows per data set." if p["limit"] else "")
    )


#: How Markdown renders each kind of section item (see :func:`_sections`).
_MARKDOWN: dict[str, Callable[[Any], str]] = {
    "p": lambda text: text + "\n",
    "h3": lambda text: f"### {text}\n",
    "table": lambda table: table.markdown(),
    "details": lambda item: f"**{item[0]}**\n\n" + item[1].markdown(),
    "pre": lambda text: "```json\n" + text + "\n```\n",
    "ul": lambda items: "\n".join(f"- {x}" for x in items) + "\n",
    "figures": lambda _: "See `report.html` for the figures.\n",
}

_esc = html.escape

#: How HTML renders each kind of section item but the figures.
_HTML: dict[str, Callable[[Any], str]] = {
    "p": lambda text: f"<p>{_esc(text)}</p>",
    "h3": lambda text: f"<h3>{_esc(text)}</h3>",
    "table": lambda table: table.html(),
    "details": lambda item: (
        f"<details><summary>{_esc(item[0])}</summary>{item[1].html()}</details>"
    ),
    "pre": lambda text: f"<pre>{_esc(text)}</pre>",
    "ul": lambda items: (
        '<ul class="notes">' + "".join(f"<li>{_esc(x)}</li>" for x in items) + "</ul>"
    ),
}


def render_markdown(report: AuditReport) -> str:
    """The report as GitHub-flavoured Markdown (figures are in the HTML report)."""
    out = [f"# {report['title']}\n", _lede(report) + "\n"]
    for _, heading, items in _sections(report):
        out.append(f"## {heading}\n")
        out += [_MARKDOWN[kind](payload) for kind, payload in items]
    return "\n".join(out)


def _figures_html(report: AuditReport, figures: Sequence[tuple[str, str, str]]) -> list[str]:
    if not figures:
        return ['<p class="muted">(no figures)</p>']
    confidence = report["parameters"]["confidence"]
    return [
        f'<figure class="ratio-plot" id="{_esc(fid)}">{svg}'
        f"<figcaption>{_esc(caption)}. Bars: ratio per group; whiskers: "
        f"{confidence:.0%} bootstrap CI; dashed line: ratio 1 (no suppression); "
        "n/a: ratio undefined (no true negatives in the group, or an overall "
        "FPR / median of 0)."
        "</figcaption></figure>"
        for fid, caption, svg in figures
    ]


def render_html(report: AuditReport, figures: Sequence[tuple[str, str, str]] = ()) -> str:
    """The report as one self-contained HTML page (inline CSS, inline SVG, no script).

    Parameters
    ----------
    report : AuditReport
        As returned by :func:`~tactful.audit.run_audit` (or :func:`~tactful.audit.load_report`).
    figures : sequence of (id, caption, svg)
        Figures to embed in the figures section; each becomes
        ``<figure class="ratio-plot" id="{id}">``.
    """
    secs = _sections(report)
    body = [
        f"<h1>{_esc(report['title'])}</h1>",
        f'<p class="lede">{_esc(_lede(report))}</p>',
        "<nav><ul>"
        + "".join(f'<li><a href="#{a}">{_esc(h)}</a></li>' for a, h, _ in secs)
        + "</ul></nav>",
    ]
    for anchor, heading, items in secs:
        body.append(f'<section id="{anchor}"><h2>{_esc(heading)}</h2>')
        for kind, payload in items:
            if kind == "figures":
                body += _figures_html(report, figures)
            else:
                body.append(_HTML[kind](payload))
        body.append("</section>")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        # No network: forbid every fetch, so an accidental external reference fails loudly.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{_esc(report['title'])}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def write_reports(
    report: AuditReport, out: str | Path, *, store: ResultStore | None = None
) -> dict[str, Path]:
    """Write ``report.json``, ``report.md`` and ``report.html`` into ``out``.

    Parameters
    ----------
    report : AuditReport
    out : path
        The output folder (created when missing).
    store : ResultStore, optional
        Memoizes the rendered figures.

    Returns
    -------
    dict of str to Path
        ``{"json": ..., "md": ..., "html": ...}``.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "report.json", "md": out / "report.md", "html": out / "report.html"}
    paths["json"].write_text(report_json(report), encoding="utf-8")
    paths["md"].write_text(render_markdown(report), encoding="utf-8")
    paths["html"].write_text(render_html(report, _figures(report, store)), encoding="utf-8")
    return paths
