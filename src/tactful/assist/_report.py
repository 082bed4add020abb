"""Reports of the assist tools: JSON, a terminal table and a self-contained HTML page.

Everything here is a function of the report dict a tool returns, so a report can
be re-rendered from its saved JSON alone. The HTML page carries its CSS inline
and its figures as inline PNG (``data:`` URIs) drawn by matplotlib's Agg
backend: it loads nothing from anywhere, runs no script and opens offline. Each
figure is also written beside the page as a PNG file.
"""

from __future__ import annotations

import base64
import html
import io
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "ReportTable",
    "figures",
    "format_number",
    "render_html",
    "report_tables",
    "write_report",
]

# Colour-blind-safe (Okabe & Ito).
_BLUE, _ORANGE, _GREEN, _PINK, _RED = "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00"

_CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b;
       margin: 0 auto; max-width: 1100px; padding: 24px 28px 64px; }
h1 { font-size: 1.6em; margin: 0 0 .2em; }
h2 { font-size: 1.2em; margin: 1.8em 0 .5em; border-bottom: 2px solid #d0d0d0; }
p.lede, figcaption, .muted { color: #5c5c5c; }
table { border-collapse: collapse; margin: .4em 0 1em; font-size: .9em; }
th, td { padding: 3px 9px; border-bottom: 1px solid #d0d0d0; text-align: right; }
th { background: #f4f6f8; }
td.l, th.l { text-align: left; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; height: auto; display: block; }
pre { background: #f4f6f8; padding: 8px 10px; white-space: pre-wrap; font-size: .85em; }
"""


@dataclass(frozen=True)
class ReportTable:
    """A table shown on the terminal and in the HTML page (cells already formatted)."""

    title: str
    header: tuple[str, ...]
    rows: Sequence[tuple[str, ...]] = ()
    left: int = 1  # leading columns aligned left


# ------------------------------------------------------------------------ formatting


def format_number(x: Any, digits: int = 3, *, scientific: bool = False) -> str:
    """A report cell for a number: ``–`` for ``None``, yes/no, ``1,234``, ``0.123``.

    Parameters
    ----------
    x : float, int, bool or None
        The value.
    digits : int, default=3
        Decimals of a float.
    scientific : bool, default=False
        Write a non-zero float below 1e-3 or from 1e6 up as ``1.23e-05``.

    Examples
    --------
    >>> format_number(1234), format_number(0.5), format_number(None), format_number(True)
    ('1,234', '0.500', '–', 'yes')
    >>> format_number(0.00001234, scientific=True)
    '1.23e-05'
    """
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,}"
    if scientific and abs(x) != 0 and (abs(x) < 1e-3 or abs(x) >= 1e6):
        return f"{x:.2e}"
    return f"{x:.{digits}f}"


def _ci(block: dict[str, float] | None, digits: int = 3) -> tuple[str, str]:
    if not block:
        return ("–", "–")
    return (
        format_number(block["point"], digits),
        f"[{block['low']:.{digits}f}, {block['high']:.{digits}f}]",
    )


def _pct_ci(block: dict[str, float] | None) -> tuple[str, str]:
    if not block:
        return ("–", "–")
    return (
        f"{100 * block['point']:.1f} %",
        f"[{100 * block['low']:.1f}, {100 * block['high']:.1f}] %",
    )


def _who(report: dict[str, Any]) -> str:
    m = report["moderator"]
    return f"{m['name']} {m['version']}"


# -------------------------------------------------------------------------- tables


def _triage_tables(r: dict[str, Any]) -> list[ReportTable]:
    t = r["trial"]
    ci = t["ci"]
    rows = [
        ("threshold (auto if score <)", format_number(t["threshold"], 4), ""),
        ("human work saved (share auto)", *_pct_ci(ci["share_auto"])),
        (
            "toxic rate among auto",
            f"{100 * t['toxic_rate']:.2f} %",
            f"≤ {100 * r['safe_rate']:g} %",
        ),
        ("toxic items missed", *_ci(ci["n_missed"], 0)),
        ("share of toxic items missed", *_pct_ci(ci["miss_rate"])),
        ("rows / toxic", f"{t['n']:,} / {t['n_toxic']:,}", ""),
    ]
    out = [ReportTable(f"trial set {t['source']} · {_who(r)}", ("", "value", "95 % CI"), rows)]
    new = r.get("new")
    if new:
        rows = [
            ("rows", format_number(new["n"]), ""),
            ("auto_nontoxic", format_number(new["n_auto"]), ""),
            ("needs_human", format_number(new["n_human"]), ""),
        ]
        o = new.get("outcome")
        if o:
            rows += [
                ("human work saved (share auto)", *_pct_ci(o["ci"]["share_auto"])),
                ("toxic rate among auto", *_pct_ci(o["ci"]["toxic_rate"])),
                ("toxic items missed", *_ci(o["ci"]["n_missed"], 0)),
                ("share of toxic items missed", *_pct_ci(o["ci"]["miss_rate"])),
            ]
        for stem, path in new.get("files", {}).items():
            rows.append((f"file {stem}", path, ""))
        out.append(ReportTable(f"new rows {new['source']}", ("", "value", "95 % CI"), rows))
    return out


def _detox_tables(r: dict[str, Any]) -> list[ReportTable]:
    rows = [
        ("ACC (rewrite judged non-toxic)", *_ci(r["acc"])),
        ("ACC2 (sources with a toxic span)", *_ci(r["acc2"])),
        ("ACC3 (every span changed)", *_ci(r["acc3"])),
        ("ACC4 (ACC3 and non-toxic)", *_ci(r["acc4"])),
        ("self-SIM (source, rewrite)", *_ci(r["self_sim"])),
        ("ref-SIM (rewrite, references)", *_ci(r["ref_sim"])),
    ]
    counts = [
        ("pairs", format_number(r["n_pairs"]), ""),
        ("sources", format_number(r["n_sources"]), ""),
        (
            "pairs whose source has a span",
            format_number(r["n_with_spans"]),
            f"spans: {r['span_source']}",
        ),
        ("pairs with references (ref-SIM)", format_number(r["n_ref"]), ""),
        ("sources flagged by the moderator", format_number(r["source_flagged_rate"]), ""),
    ]
    title = f"toxic-to-civil on {r['pairs']} · {_who(r)} · head {r['head']}"
    return [ReportTable(title, ("", "value", "95 % CI"), rows + counts)]


def _gender_tables(r: dict[str, Any]) -> list[ReportTable]:
    rows = [
        (
            s["name"],
            format_number(s["n"]),
            format_number(s["n_flips"]),
            *_ci(s["flip_rate_ci"]),
            f"{s['flips_to_flagged']} / {s['flips_to_unflagged']}",
            format_number(s["mean_abs_score_change"], 4),
        )
        for s in r["sets"]
    ]
    header = ("set", "pairs", "flips", "flip rate", "95 % CI", "→flagged / →not", "mean |Δscore|")
    return [ReportTable(f"gender counterfactuals · {_who(r)} · head {r['head']}", header, rows)]


def _country_tables(r: dict[str, Any]) -> list[ReportTable]:
    rows = r["rows"]
    n = len(rows)
    top = [
        (str(i + 1), x["country"], format_number(x["score"], 4), format_number(x["flagged"]))
        for i, x in enumerate(rows[:5])
    ]
    bottom = [
        (str(n - 4 + i), x["country"], format_number(x["score"], 4), format_number(x["flagged"]))
        for i, x in enumerate(rows[-5:])
    ]
    header = ("rank", "country", "score", "flagged")
    title = f"country template · {_who(r)} · head {r['head']} · {n} countries"
    summary = [
        ("template", r["template"]),
        ("mean score", format_number(r["mean"], 4)),
        ("spread (max − min)", format_number(r["spread"], 4)),
        ("flagged", f"{r['n_flagged']} of {n}"),
    ]
    return [
        ReportTable(title, ("", "value"), summary),
        ReportTable("highest five", header, top, left=2),
        ReportTable("lowest five", header, bottom, left=2),
    ]


def _identity_tables(r: dict[str, Any]) -> list[ReportTable]:
    rows = [
        (
            x["identity"],
            format_number(x["n"]),
            format_number(x["n_positive"]),
            format_number(x["subgroup_auc"]),
            format_number(x["bpsn_auc"]),
            format_number(x["bnsp_auc"]),
            format_number(x["fpr"]),
            format_number(x["fpr_ratio"], 2),
        )
        for x in r["rows"]
    ]
    g = r["generalized_mean"]
    rows.append(
        (
            "power mean (p = −5)",
            "",
            "",
            format_number(g["subgroup_auc"]),
            format_number(g["bpsn_auc"]),
            format_number(g["bnsp_auc"]),
            format_number(r["fpr"]),
            "",
        )
    )
    header = ("identity", "n", "toxic", "subgroup AUC", "BPSN AUC", "BNSP AUC", "FPR", "FPR ratio")
    sample = f" · sample of {r['n']:,}" if r["limit"] else ""
    title = (
        f"Jigsaw identity templates · {_who(r)} · head {r['head']}{sample} · "
        f"overall AUC {format_number(r['overall_auc'])}"
    )
    return [ReportTable(title, header, rows)]


_TABLES: dict[str, Callable[[dict[str, Any]], list[ReportTable]]] = {
    "triage": _triage_tables,
    "detox-eval": _detox_tables,
    "probe-gender": _gender_tables,
    "probe-country": _country_tables,
    "probe-identity": _identity_tables,
}


def report_tables(report: dict[str, Any]) -> list[ReportTable]:
    """The tables of a report, for the terminal and the HTML page.

    A last table lists the scored rows the moderator was trained on, when any was.
    """
    tables = _TABLES[report["command"]](report)
    seen = [e for e in report.get("in_sample", ()) if e["n_in_sample"]]
    if seen:
        rows = [(e["rows"], format_number(e["n"]), format_number(e["n_in_sample"])) for e in seen]
        header = ("rows", "n", "in the moderator's training data")
        tables.append(ReportTable("in-sample rows: not test figures", header, rows))
    return tables


# ------------------------------------------------------------------------- figures


def _png(fig: Any) -> bytes:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    # No timestamp or software tag: the same report gives the same bytes.
    fig.savefig(buf, format="png", dpi=100, metadata={"Software": None}, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _triage_figures(r: dict[str, Any]) -> list[tuple[str, str, bytes]]:
    plt = _pyplot()
    t = r["trial"]
    curve = t["curve"]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    a.plot([c[1] for c in curve], [c[2] for c in curve], "o-", color=_BLUE, lw=0.8, ms=2.5)
    a.axhline(r["safe_rate"], color=_RED, ls="--", lw=1, label=f"safe rate {r['safe_rate']:g}")
    a.plot([t["share_auto"]], [t["toxic_rate"]], "o", color=_ORANGE, ms=8, label="chosen")
    a.set_xlabel("share of rows left to the machine (score < threshold)")
    a.set_ylabel("toxic rate among them")
    a.set_xlim(0, 1)
    a.set_ylim(0, max(0.05, min(1.0, max(c[2] for c in curve) * 1.05)))
    a.legend(loc="upper left")
    a.set_title(f"{_who(r)} on {t['source']}")
    h = t["histogram"]
    edges = h["edges"]
    width = edges[1] - edges[0]
    b.bar(
        edges[:-1],
        h["nontoxic"],
        width=width,
        align="edge",
        color=_GREEN,
        alpha=0.6,
        label="non-toxic",
    )
    b.bar(edges[:-1], h["toxic"], width=width, align="edge", color=_PINK, alpha=0.7, label="toxic")
    b.axvline(min(t["threshold"], 1.0), color=_ORANGE, lw=1.5, label="threshold")
    b.set_yscale("symlog")
    b.set_xlabel(f"{r['head']} score")
    b.set_ylabel("rows")
    b.legend()
    b.set_title("scores by human label")
    return [("curve", "Triage curve on the trial set and the scores by label.", _png(fig))]


def _detox_figures(r: dict[str, Any]) -> list[tuple[str, str, bytes]]:
    plt = _pyplot()
    names = ["acc", "acc2", "acc3", "acc4", "self_sim", "ref_sim"]
    labels = ["ACC", "ACC2", "ACC3", "ACC4", "self-SIM", "ref-SIM"]
    shown = [(lab, r[n]) for n, lab in zip(names, labels, strict=True) if r[n]]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    xs = range(len(shown))
    vals = [b["point"] for _, b in shown]
    err = [[b["point"] - b["low"] for _, b in shown], [b["high"] - b["point"] for _, b in shown]]
    ax.bar(xs, vals, yerr=err, capsize=4, color=[_BLUE] * 4 + [_GREEN] * (len(shown) - 4))
    ax.set_xticks(list(xs), [lab for lab, _ in shown])
    ax.set_ylim(0, 1)
    ax.set_title(f"{_who(r)} on {r['pairs']} ({r['n_pairs']:,} pairs)")
    return [("scores", "ACC–ACC4 and SIM with 95 % bootstrap intervals.", _png(fig))]


def _gender_figures(r: dict[str, Any]) -> list[tuple[str, str, bytes]]:
    plt = _pyplot()
    sets = r["sets"]
    fig, axes = plt.subplots(1, 1 + len(sets), figsize=(4.2 * (1 + len(sets)), 3.8))
    a = axes[0]
    names = [s["name"] for s in sets]
    vals = [s["flip_rate"] or 0.0 for s in sets]
    err = [
        [(s["flip_rate"] - s["flip_rate_ci"]["low"]) if s["flip_rate_ci"] else 0 for s in sets],
        [(s["flip_rate_ci"]["high"] - s["flip_rate"]) if s["flip_rate_ci"] else 0 for s in sets],
    ]
    a.bar(range(len(sets)), vals, yerr=err, capsize=4, color=[_BLUE, _ORANGE][: len(sets)])
    a.set_xticks(range(len(sets)), [n.replace("detexd_", "") for n in names])
    a.set_ylabel("flip rate")
    a.set_ylim(
        0, max(0.05, max((e + v for e, v in zip(err[1], vals, strict=True)), default=0) * 1.2)
    )
    a.set_title(f"{_who(r)} · {r['head']}")
    for ax, s in zip(axes[1:], sets, strict=True):
        pts = s["scores"]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=8, alpha=0.5, color=_BLUE)
        ax.plot([0, 1], [0, 1], color="#888888", lw=0.8)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel("score on the text")
        ax.set_ylabel("score on its swap")
        ax.set_title(f"{s['name']} (n = {s['n']})")
    return [
        (
            "flips",
            "Flip rates with 95 % bootstrap intervals; score of each text against its swap.",
            _png(fig),
        )
    ]


def _country_figures(r: dict[str, Any]) -> list[tuple[str, str, bytes]]:
    plt = _pyplot()
    rows = r["rows"]
    n = len(rows)
    fig, ax = plt.subplots(figsize=(8, max(3.0, 0.16 * n + 1)))
    ys = list(range(n))[::-1]
    colors = [_RED if x["flagged"] else _BLUE for x in rows]
    ax.barh(ys, [x["score"] for x in rows], color=colors, height=0.8)
    ax.set_yticks(ys, [x["country"] for x in rows], fontsize=7)
    ax.set_ylim(-0.6, n - 0.4)
    ax.set_xlabel(f"{r['head']} score")
    ax.set_title(f"{_who(r)}: “{r['template']}” (ranked; red = flagged)", fontsize=9)
    return [("scores", "Template score per country, ranked.", _png(fig))]


def _identity_figures(r: dict[str, Any]) -> list[tuple[str, str, bytes]]:
    plt = _pyplot()
    rows = r["rows"]
    n = len(rows)
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, max(3.0, 0.22 * n + 1)), sharey=True)
    ys = list(range(n))[::-1]
    for k, (key, color, label) in enumerate(
        (
            ("subgroup_auc", _BLUE, "subgroup"),
            ("bpsn_auc", _ORANGE, "BPSN"),
            ("bnsp_auc", _GREEN, "BNSP"),
        )
    ):
        a.barh(
            [y + (k - 1) * 0.27 for y in ys],
            [x[key] if x[key] is not None else 0 for x in rows],
            height=0.27,
            color=color,
            label=label,
        )
    a.set_yticks(ys, [x["identity"] for x in rows], fontsize=7)
    a.set_xlim(0, 1)
    a.axvline(0.5, color="#888888", lw=0.8)
    a.legend(loc="lower right", fontsize=8)
    a.set_title("AUCs per identity (lowest BPSN first)")
    b.barh(ys, [x["fpr_ratio"] if x["fpr_ratio"] is not None else 0 for x in rows], color=_PINK)
    b.axvline(1.0, color=_RED, ls="--", lw=1)
    b.set_title("FPR ratio (identity FPR / overall FPR)")
    fig.suptitle(f"{_who(r)} on the Jigsaw identity templates", fontsize=10)
    return [("auc", "Bias AUCs and FPR ratio per identity term.", _png(fig))]


_FIGURES: dict[str, Callable[[dict[str, Any]], list[tuple[str, str, bytes]]]] = {
    "triage": _triage_figures,
    "detox-eval": _detox_figures,
    "probe-gender": _gender_figures,
    "probe-country": _country_figures,
    "probe-identity": _identity_figures,
}


def figures(report: dict[str, Any]) -> list[tuple[str, str, bytes]]:
    """``[(name, caption, png bytes)]`` of a report."""
    return _FIGURES[report["command"]](report)


# -------------------------------------------------------------------------- render


def render_html(
    report: dict[str, Any], pngs: Sequence[tuple[str, str, bytes]] | None = None
) -> str:
    """A self-contained HTML page: tables, figures as inline PNG, the report's settings."""
    esc = html.escape
    pngs = figures(report) if pngs is None else pngs
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>tactful {esc(report['command'])}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>tactful {esc(report['command'])}</h1>",
        f'<p class="lede">moderator {esc(_who(report))}</p>',
    ]
    for table in report_tables(report):
        parts.append(f"<h2>{esc(table.title)}</h2><table><thead><tr>")
        parts += [
            f'<th class="{"l" if i < table.left else ""}">{esc(h)}</th>'
            for i, h in enumerate(table.header)
        ]
        parts.append("</tr></thead><tbody>")
        for row in table.rows:
            cells = "".join(
                f'<td class="{"l" if i < table.left else ""}">{esc(c)}</td>'
                for i, c in enumerate(row)
            )
            parts.append(f"<tr>{cells}</tr>")
        parts.append("</tbody></table>")
    for name, caption, png in pngs:
        data = base64.b64encode(png).decode("ascii")
        parts.append(
            f'<figure id="fig-{esc(name)}"><img alt="{esc(caption)}" '
            f'src="data:image/png;base64,{data}"><figcaption>{esc(caption)}</figcaption></figure>'
        )
    settings = {
        k: v for k, v in report.items() if isinstance(v, (str, int, float, bool)) or v is None
    }
    settings["moderator"] = report["moderator"]
    parts.append("<h2>settings</h2><pre>")
    parts.append(esc(json.dumps(settings, indent=2, ensure_ascii=False)))
    parts.append("</pre></body></html>")
    return "\n".join(parts) + "\n"


def write_report(report: dict[str, Any], out: str | os.PathLike[str]) -> dict[str, Path]:
    """Write ``<stem>.json``, ``<stem>.html`` and ``<stem>_<figure>.png`` into ``out``.

    ``stem`` is the command with ``-`` as ``_`` (``probe_country``). Returns the
    paths by kind (``"json"``, ``"html"``, ``"png:<figure>"``).
    """
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    stem = report["command"].replace("-", "_")
    pngs = figures(report)
    paths: dict[str, Path] = {}
    for name, _, png in pngs:
        path = folder / f"{stem}_{name}.png"
        path.write_bytes(png)
        paths[f"png:{name}"] = path
    paths["json"] = folder / f"{stem}.json"
    paths["json"].write_text(
        json.dumps(report, indent=1, allow_nan=False, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    paths["html"] = folder / f"{stem}.html"
    paths["html"].write_text(render_html(report, pngs), encoding="utf-8")
    return paths
