"""Audit reports: Markdown/HTML rendering, and the HTML page opened in headless Chromium.

The browser test drives Debian's ``/usr/bin/chromium`` through Playwright (never
``playwright install``) and skips, with the reason, when either is missing.
"""

from __future__ import annotations

import json
import os
import re
import struct
from pathlib import Path
from typing import Any

import pytest

from tactful.audit import load_report, render_html, render_markdown, report_json, write_reports
from tactful.audit._report import ratio_figure_svg

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
GROUPS = [
    "men",
    "women",
    "white",
    "non-white",
    "christian",
    "non-christian",
    "lgbt",
    "straight",
    "disability",
]


# --------------------------------------------------------------------------- a hand-made report


def _flag_rows(ratios: list[float | None]) -> list[dict[str, Any]]:
    rows = []
    for k, (g, r) in enumerate(zip(GROUPS, ratios)):
        rows.append(
            {
                "group": g,
                "n": 100 + k,
                "n_tn": 0 if r is None else 50 + k,
                "n_fp": 0 if r is None else 5 + k,
                "i_fpr": None if r is None else 0.1 * r,
                "fpr": 0.1,
                "ratio": r,
                "ratio_low": None if r is None else r - 0.25,
                "ratio_high": None if r is None else r + 0.25,
            }
        )
    return rows


def _score_rows(ratios: list[float | None]) -> list[dict[str, Any]]:
    return [
        {
            "group": g,
            "n": 100,
            "n_tn": 40,
            "i_median": None if r is None else 0.2 * r,
            "median": 0.2,
            "ratio": r,
            "ratio_low": None if r is None else r - 0.1,
            "ratio_high": None if r is None else r + 0.1,
        }
        for g, r in zip(GROUPS, ratios)
    ]


def _worst(rows: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    b = max((r for r in rows if r["ratio"] is not None), key=lambda r: r["ratio"])
    w = {k: b[k] for k in ("group", "ratio", "ratio_low", "ratio_high", "n_tn")}
    w.update(
        {"n_fp": b["n_fp"], "i_fpr": b["i_fpr"]} if kind == "flag" else {"i_median": b["i_median"]}
    )
    return w


def _standardized(ratios: list[float | None]) -> dict[str, Any]:
    """A within-data-set table: standardized ratio = half the pooled one, composition 2."""
    rows = [
        {
            "group": g,
            "n": 100,
            "n_tn": 53,
            "n_fp": 8,
            "expected_fp": None if r is None else 16 / r,
            "standardized_ratio": None if r is None else r / 2,
            "standardized_ratio_low": None if r is None else r / 2 - 0.125,
            "standardized_ratio_high": None if r is None else r / 2 + 0.125,
            "composition_ratio": None if r is None else 2.0,
        }
        for g, r in zip(GROUPS, ratios)
    ]
    worst = max(
        (r for r in rows if r["standardized_ratio"] is not None),
        key=lambda r: r["standardized_ratio"],
    )
    return {"groups": rows, "worst": worst}


def _block(flag: list[float | None], score: list[float | None] | None) -> dict[str, Any]:
    f = _flag_rows(flag)
    s = None if score is None else _score_rows(score)
    return {
        "n": 120,
        "n_negative": 100,
        "n_positive": 20,
        "fpr": 0.1,
        "flag": {"groups": f, "worst": _worst(f, "flag")},
        "score": None if s is None else {"groups": s, "worst": _worst(s, "score")},
    }


def hand_made_report() -> dict[str, Any]:
    """Two moderators (one without scores), one set per family, fixed numbers."""
    base = [1.0, 1.5, 0.5, 2.5, 0.75, 1.25, 2.0, 0.9, None]
    mods = [("lexicon", True), ("random", False)]
    results, families = [], []
    for m, has_scores in mods:
        for set_id, family in (("ss_stormfront", "traditional"), ("ss_openai", "genai")):
            score = [r if r is None else r * 0.8 for r in base] if has_scores else None
            results.append(
                {
                    "moderator": m,
                    "set": set_id,
                    "dataset": set_id,
                    "family": family,
                    **_block(base, score),
                }
            )
            families.append(
                {
                    "moderator": m,
                    "family": family,
                    "sets": [set_id],
                    **_block(base, score),
                    "standardized": _standardized(base),
                }
            )
    terms = [
        {
            "term": t,
            "coef": 0.5,
            "std_err": 0.1,
            "z": 5.0,
            "p_value": 1e-6,
            "ci_low": 0.3,
            "ci_high": 0.7,
        }
        for t in ["const", *GROUPS, "has_slur", "genai", "word_length"]
    ]
    fit = {"terms": terms, "method": "logit", "dropped": {"straight": "constant"}, "n": 240}
    return {
        "schema": "tactful.audit/2",
        "title": "Identity-related speech suppression audit",
        "parameters": {
            "datasets": ["traditional", "genai"],
            "n_resamples": 100,
            "confidence": 0.95,
            "seed": 0,
            "limit": 200,
        },
        "groups": GROUPS,
        "notes": ["Ratios <b>are</b> i-FPR / FPR & friends."],
        "moderators": [
            {"label": m, "name": m, "version": "1", "config": {"threshold": 0.5}, "key": "0" * 64}
            for m, _ in mods
        ],
        "datasets": [
            {
                "set": s,
                "dataset": s,
                "family": f,
                "labeling": "hate",
                "primary": True,
                "group_source": src,
                "n": 120,
                "n_positive": 20,
                "n_negative": 100,
                "n_has_slur": 3,
                "group_counts": dict.fromkeys(GROUPS, 10),
                "mean_words": 12.5,
            }
            for s, f, src in (
                ("ss_stormfront", "traditional", "paper tags"),
                ("ss_openai", "genai", "paper tags"),
            )
        ],
        "skipped": [],
        "results": results,
        "families": families,
        "summary": [
            {
                "moderator": p["moderator"],
                "family": p["family"],
                "fpr": p["fpr"],
                "flag": p["flag"]["worst"],
                "score": p["score"] and p["score"]["worst"],
                "standardized": p["standardized"]["worst"],
            }
            for p in families
        ],
        "regressions": [
            {
                "moderator": m,
                "sets": ["ss_stormfront", "ss_openai"],
                "n": 240,
                "flag": fit,
                "score": fit if s else None,
            }
            for m, s in mods
        ],
        "tagger_agreement": {
            "ss_openai": [
                {"group": g, "accuracy": 0.975, "precision": 0.9, "recall": 0.8} for g in GROUPS
            ]
        },
    }


# --------------------------------------------------------------------------- rendering


def test_markdown_has_the_paper_views_with_exact_cells():
    md = render_markdown(hand_made_report())
    # Table 4: worst flag group = non-white (2.5), worst score group = non-white (2.0).
    assert (
        "| lexicon | traditional | 0.100 | 2.50 | [2.25, 2.75] | non-white | 8 / 53 "
        "| 2.00 | [1.90, 2.10] | non-white | 40 |"
    ) in md
    assert (
        "| random | genai | 0.100 | 2.50 | [2.25, 2.75] | non-white | 8 / 53 | – | – | – | – |"
        in md
    )
    # Tables 13–14: a group without true negatives has no ratio.
    assert "| disability | 108 | 0 | 0 | – | 0.100 | – | – |" in md
    assert "| genai | 0.500 | 0.100 | 5.00 | 1.00e-06 | [0.3, 0.7] |" in md
    assert "Method: logit; fitted on 240 rows; left out: straight (constant)." in md
    assert "| women | 0.975 | 0.900 | 0.800 |" in md
    # Within data sets: the worst standardized group (2.5 / 2) with its split.
    assert (
        "| lexicon | traditional | non-white | 53 | 8 | 6.400 | 1.25 | [1.12, 1.38] | 2.00 |" in md
    )
    assert "lexicon · traditional (pooled: ss_stormfront) · within data sets (standardized)" in md
    assert "| disability | 53 | 8 | – | – | – | – |" in md
    for heading in (
        "(Table 4)",
        "(Figure 1)",
        "(Tables 11–12)",
        "(Tables 13–14)",
        "(Tables 15–16)",
        "Identity tagger agreement",
    ):
        assert heading in md


def test_html_is_self_contained_and_escapes_text():
    report = hand_made_report()
    page = render_html(report, [("fig-traditional", "a <caption>", "<svg></svg>")])
    assert page.startswith("<!DOCTYPE html>")
    for forbidden in ("<script", "<link", 'src="http', 'href="http', "url(http", "@import"):
        assert forbidden not in page
    assert "Ratios &lt;b&gt;are&lt;/b&gt; i-FPR / FPR &amp; friends." in page
    assert (
        '<figure class="ratio-plot" id="fig-traditional"><svg></svg><figcaption>a &lt;caption&gt;.'
        in page
    )


def test_worst_rows_are_highlighted_once_per_table():
    page = render_html(hand_made_report())
    # Per-group tables: pooled (2 families x (2 flag + 1 score + 2 standardized)) + per set
    # (2 sets x (2 flag + 1 score)), and the summary's within-data-set table has none.
    assert page.count('<tr class="worst">') == 16
    assert (
        page.count("<table>") == 2 + 1 + 2 + 16 + 3 + 1
    )  # summary (2), data sets, per set, per group, regressions, agreement


def test_figure_svg_is_deterministic_and_marks_missing_ratios():
    data = {
        "title": "traditional: i-FPR / FPR (flags)",
        "groups": GROUPS,
        "series": [
            {
                "label": "lexicon",
                "color": "#0072B2",
                "ratio": [1.0, 2.0, None, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0],
                "low": [0.9] * 9,
                "high": [1.1] * 9,
            }
        ],
    }
    a, b = ratio_figure_svg(data, salt="fig-x"), ratio_figure_svg(data, salt="fig-x")
    assert a == b
    assert a.startswith("<svg") and a.rstrip().endswith("</svg>")
    assert ">n/a<" in a and ">lexicon<" in a and ">ratio = 1<" in a
    assert a.count('id="patch_') >= 8 + 1  # 8 bars + the axes background


def test_write_reports_writes_three_files(tmp_path: Path):
    report = hand_made_report()
    paths = write_reports(report, tmp_path / "out")
    assert sorted(p.name for p in paths.values()) == ["report.html", "report.json", "report.md"]
    text = paths["json"].read_text(encoding="utf-8")
    assert text == report_json(report)
    assert json.loads(text) == report
    html = paths["html"].read_text(encoding="utf-8")
    assert [
        fid
        for fid in ("fig-traditional", "fig-traditional-score", "fig-genai", "fig-genai-score")
        if f'id="{fid}"' in html
    ] == ["fig-traditional", "fig-traditional-score", "fig-genai", "fig-genai-score"]
    # A saved report renders again, alone.
    assert render_markdown(load_report(paths["json"])) == render_markdown(report)


def _figure_ids(html: str) -> list[str]:
    return re.findall(r'<figure class="ratio-plot" id="([^"]+)">', html)


def test_a_plot_with_nothing_to_draw_is_left_out(tmp_path: Path):
    report = hand_made_report()
    # The lexicon's scores give no ratio anywhere (a median score of 0), like the real lexicon.
    for p in report["families"]:
        if p["moderator"] == "lexicon":
            for g in p["score"]["groups"]:
                g.update(ratio=None, ratio_low=None, ratio_high=None)
            p["score"]["worst"] = None
    html = write_reports(report, tmp_path)["html"].read_text(encoding="utf-8")
    # random has no scores at all, lexicon none to draw: no score figure is left.
    assert _figure_ids(html) == ["fig-traditional", "fig-genai"]
    assert "-score" not in "".join(_figure_ids(html))

    # With a second moderator that has score ratios, the figure is back without the lexicon.
    report = hand_made_report()
    extra = json.loads(json.dumps([p for p in report["families"] if p["moderator"] == "lexicon"]))
    for p in report["families"]:
        if p["moderator"] == "lexicon":
            for g in p["score"]["groups"]:
                g.update(ratio=None, ratio_low=None, ratio_high=None)
    for p in extra:
        p["moderator"] = "builtin"
    report["families"] += extra
    report["moderators"].append({**report["moderators"][0], "label": "builtin", "name": "builtin"})
    html = write_reports(report, tmp_path)["html"].read_text(encoding="utf-8")
    assert _figure_ids(html) == [
        "fig-traditional",
        "fig-traditional-score",
        "fig-genai",
        "fig-genai-score",
    ]
    assert "not drawn, no ratio defined: lexicon" in html
    score_svg = html.split('id="fig-genai-score">')[1].split("</svg>")[0]
    assert ">builtin<" in score_svg and ">lexicon" not in score_svg


# --------------------------------------------------------------------------- the browser


def _data_dir() -> Path:
    env = os.environ.get("TACTFUL_DATA")
    return (
        Path(env).expanduser() if env else Path(__file__).resolve().parents[2] / "shared" / "data"
    )


def _real_report(out: Path) -> dict[str, Any] | None:
    """A small real audit (random + lexicon, 150 rows per data set), or None without data."""
    if not (_data_dir() / "speech_suppression").is_dir():
        return None
    from tactful.audit import run_audit

    return run_audit(
        ["lexicon", "random"],
        datasets="traditional,genai",
        data_dir=_data_dir(),
        out=out,
        limit=150,
        n_resamples=50,
        progress=False,
    )


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    return struct.unpack(">II", head[16:24])


@pytest.mark.browser
def test_report_opens_in_chromium_with_figures(tmp_path: Path):
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not found (apt-get install -y chromium)")
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
    )

    report = _real_report(tmp_path / "audit")
    if report is None:
        report = hand_made_report()
        write_reports(report, tmp_path / "audit")
    html_path = tmp_path / "audit" / "report.html"
    families = list(dict.fromkeys(p["family"] for p in report["families"]))
    expected_ids = []
    for f in families:
        expected_ids.append(f"fig-{f}")
        # A score figure only where some moderator has a score ratio to draw.
        if any(
            g["ratio"] is not None
            for p in report["families"]
            if p["family"] == f and p["score"] is not None
            for g in p["score"]["groups"]
        ):
            expected_ids.append(f"fig-{f}-score")

    problems: list[str] = []
    requests: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.on(
                "console",
                lambda m: (
                    problems.append(f"console {m.type}: {m.text}")
                    if m.type in ("error", "warning")
                    else None
                ),
            )
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(html_path.as_uri(), wait_until="load")

            figures = page.locator("figure.ratio-plot")
            assert figures.count() == len(expected_ids)
            ids = [figures.nth(i).get_attribute("id") for i in range(figures.count())]
            assert ids == expected_ids
            for i in range(figures.count()):
                fig = figures.nth(i)
                fig.scroll_into_view_if_needed()
                assert fig.is_visible()
                box = fig.locator("svg").bounding_box()
                assert box is not None and box["width"] > 600 and box["height"] > 200
                # Bars are matplotlib patches: at least one per group of the first moderator.
                assert fig.locator("svg g[id^='patch_']").count() >= len(report["groups"])
            # Table 4, then the within-data-set table: one row per summary row each.
            tables = page.locator("#summary table")
            assert tables.count() == 2
            for i in range(2):
                assert tables.nth(i).locator("tbody tr").count() == len(report["summary"])
            assert tables.nth(1).locator("thead th").all_inner_texts()[-3:] == [
                "standardized ratio",
                "95% CI",
                "composition ratio",
            ]
            shot = tmp_path / "report.png"
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()

    assert problems == []
    assert [u for u in requests if not u.startswith(("file://", "data:"))] == []
    width, height = _png_size(shot)
    assert width == 1280 and height > 2000
    assert shot.stat().st_size > 50_000  # a page of tables and plots, not a blank image
