"""The moderator console in Debian's Chromium, driven by Playwright, against a real server.

Never ``playwright install``: the tests launch ``/usr/bin/chromium`` and skip,
with the reason, when it or Playwright is missing. Screenshots are written to
``$TACTFUL_ARTIFACTS`` when set, else to the test's temporary folder.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

import tactful
from tactful.service import BackgroundServer, ServiceSettings, create_app

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not CHROMIUM.exists():
    pytest.skip(f"Debian's chromium is not at {CHROMIUM}", allow_module_level=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


def _page(browser: Any, *, bypass_csp: bool) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=bypass_csp)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    pg.errors = errors
    yield pg
    context.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A page that ignores the console's Content-Security-Policy.

    The CSP forbids inline script, so it would stop an XSS payload even if the
    console rendered texts as HTML; without it, only rendering as text does.
    """
    yield from _page(browser, bypass_csp=True)


@pytest.fixture
def csp_page(browser: Any) -> Iterator[Any]:
    """A page under the console's own CSP (the console must work within it)."""
    yield from _page(browser, bypass_csp=False)


@pytest.fixture
def artifacts(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("TACTFUL_ARTIFACTS") or tmp_path / "artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def start(labels: Path, *moderators: str) -> BackgroundServer:
    srv = BackgroundServer(create_app(ServiceSettings(moderators=moderators, labels=labels)))
    return srv.start().wait_ready()


def analyze_in_console(page: Any, texts: Sequence[str]) -> None:
    page.fill("#texts", "\n".join(texts))
    page.click("#analyze-btn")
    page.wait_for_function(
        "n => document.querySelectorAll('#results tbody tr').length === n",
        arg=len(texts),
        timeout=120_000,  # a busy machine
    )


# Code-point offsets of each <mark> in a cell, measured in the page itself.
MARKS_JS = """cell => {
  const out = []; let pos = 0;
  for (const node of cell.childNodes) {
    const n = Array.from(node.textContent).length;
    if (node.nodeName === 'MARK') out.push({start: pos, end: pos + n, label: node.dataset.label,
                                           dataStart: +node.dataset.start, dataEnd: +node.dataset.end,
                                           text: node.textContent});
    pos += n;
  }
  return out;
}"""


def test_spans_are_highlighted_at_the_right_characters(
    csp_page: Any, tmp_path: Path, artifacts: Path
) -> None:
    page = csp_page
    texts = ["you absolute idiot", "🙂🙂 shut up, you stupid moron", "what a lovely day"]
    srv = start(tmp_path / "labels.sqlite", "builtin")
    try:
        page.goto(srv.url + "/")
        page.wait_for_selector("#model option", state="attached")
        analyze_in_console(page, texts)
        expected = httpx.post(srv.url + "/v1/analyze", json={"input": texts}, timeout=120).json()[
            "results"
        ]
        assert expected[0]["spans"] and expected[1]["spans"]  # the model does find them
        cells = page.query_selector_all("#results tbody td.text")
        for text, cell, want in zip(texts, cells, expected, strict=True):
            assert cell.text_content() == text
            marks = cell.evaluate(MARKS_JS)
            assert [(m["start"], m["end"], m["label"]) for m in marks] == [
                (s["start"], s["end"], s["label"]) for s in want["spans"]
            ]
            for m in marks:
                assert (m["dataStart"], m["dataEnd"]) == (m["start"], m["end"])
                assert m["text"] == text[m["start"] : m["end"]]
        verdicts = [v.text_content() for v in page.query_selector_all("#results td.verdict")]
        assert verdicts == ["FLAGGED" if r["flagged"] else "ok" for r in expected]
        page.screenshot(path=str(artifacts / "console_spans.png"), full_page=True)
        assert page.errors == []
    finally:
        srv.stop()


def test_an_xss_payload_is_shown_never_run(page: Any, tmp_path: Path, artifacts: Path) -> None:
    payloads = [
        "<script>window.__xss = 1</script> you idiot",
        '<img src=x onerror="window.__xss = 2"> idiot',
        '"><svg onload="window.__xss = 3"></svg>',
    ]
    srv = start(tmp_path / "labels.sqlite", "lexicon")
    try:
        page.goto(srv.url + "/")
        page.wait_for_selector("#model option", state="attached")
        analyze_in_console(page, payloads)
        cells = page.query_selector_all("#results tbody td.text")
        assert [c.text_content() for c in cells] == payloads
        assert page.evaluate("window.__xss") is None
        for tag in ("script", "img", "svg"):
            assert page.query_selector_all(f"#results {tag}") == []
        # ... and in the review queue too.
        page.click("#tab-btn-review")
        page.wait_for_function("document.querySelectorAll('#queue tbody tr').length === 3")
        assert page.evaluate("window.__xss") is None
        assert page.query_selector_all("#queue img, #queue script, #queue svg") == []
        page.screenshot(path=str(artifacts / "console_xss.png"), full_page=True)
        assert page.errors == []
    finally:
        srv.stop()


def test_a_label_from_the_review_queue_survives_a_restart(
    page: Any, tmp_path: Path, artifacts: Path
) -> None:
    labels = tmp_path / "labels.sqlite"
    texts = ["you idiot", "have a nice day", "you absolute moron", "thanks a lot"]
    srv = start(labels, "lexicon")
    try:
        page.goto(srv.url + "/")
        page.wait_for_selector("#model option", state="attached")
        page.fill("#who", "Ana María")
        page.dispatch_event("#who", "change")
        analyze_in_console(page, texts)
        page.click("#tab-btn-review")
        page.wait_for_function("document.querySelectorAll('#queue tbody tr').length === 4")
        first = page.query_selector("#queue tbody tr")
        item_id = int(first.get_attribute("data-item-id"))
        text = first.query_selector("td.text").text_content()
        override = first.query_selector("button.override")
        label = override.get_attribute("data-label")
        override.click()
        page.wait_for_function(
            'id => !document.querySelector(`#queue tr[data-item-id="${id}"]`)', arg=item_id
        )
        page.screenshot(path=str(artifacts / "console_review.png"), full_page=True)
    finally:
        srv.stop()

    srv = start(labels, "lexicon")  # a new server process state, the same SQLite file
    try:
        page.goto(srv.url + "/")
        page.wait_for_selector("#model option", state="attached")
        page.click("#tab-btn-labels")
        page.wait_for_selector("#labels tbody tr")
        rows = page.query_selector_all("#labels tbody tr")
        assert len(rows) == 1
        assert int(rows[0].get_attribute("data-item-id")) == item_id
        assert rows[0].query_selector("td.who").text_content() == "Ana María"
        assert rows[0].query_selector("td.text").text_content() == text
        assert rows[0].query_selector("td.label").text_content() == label.replace("_", " ")
        assert rows[0].query_selector("td.decision").text_content() == "override"
        page.click("#tab-btn-review")
        page.wait_for_function("document.querySelectorAll('#queue tbody tr').length === 3")
        assert page.query_selector(f'#queue tr[data-item-id="{item_id}"]') is None
        # The export carries it too.
        with page.expect_download() as download:
            page.click("#tab-btn-labels")
            page.click("#export-jsonl")
        [row] = [json.loads(x) for x in Path(download.value.path()).read_text().splitlines()]
        assert (row["item_id"], row["who"], row["label"]) == (item_id, "Ana María", label)
        page.screenshot(path=str(artifacts / "console_labels_after_restart.png"), full_page=True)
        assert page.errors == []
    finally:
        srv.stop()


class SlowLexicon:
    """``lexicon`` that takes 40 ms per text: an upload of 60 texts takes seconds."""

    name = "test-slow"
    version = "1"

    def __init__(self) -> None:
        self._lexicon = tactful.load("lexicon")

    def config(self) -> dict[str, Any]:
        return {}

    def analyze(self, texts: Sequence[str]) -> list[tactful.Analysis]:
        time.sleep(0.04 * len(texts))
        return self._lexicon.analyze(texts)


def test_a_progress_indicator_shows_for_slow_uploads_only(
    page: Any, tmp_path: Path, artifacts: Path
) -> None:
    upload = tmp_path / "needs_human.jsonl"
    upload.write_text(
        "".join(json.dumps({"id": i, "text": f"text {i} idiot"}) + "\n" for i in range(60)),
        encoding="utf-8",
    )
    with tactful.temporary_registration("test-slow", SlowLexicon):
        srv = start(tmp_path / "labels.sqlite", "test-slow")
    try:
        page.goto(srv.url + "/")
        page.wait_for_selector("#model option", state="attached")
        # Record whether the indicator is ever shown.
        page.evaluate(
            """() => { window.__shown = 0;
            new MutationObserver(() => { if (!document.getElementById('progress').hidden)
              window.__shown++; }).observe(document.getElementById('progress'),
              {attributes: true}); }"""
        )
        analyze_in_console(page, ["quick"])  # 40 ms: no indicator
        assert page.evaluate("window.__shown") == 0
        page.set_input_files("#file", str(upload))
        page.click("#upload-btn")
        page.wait_for_selector("#progress", state="visible", timeout=10_000)
        page.wait_for_function("document.getElementById('progress-bar').value > 0")
        page.screenshot(path=str(artifacts / "console_upload_progress.png"), full_page=True)
        page.wait_for_function(
            "document.querySelectorAll('#results tbody tr').length === 60", timeout=60_000
        )
        page.wait_for_selector("#progress", state="hidden")
        assert page.evaluate("window.__shown") > 0
        assert page.query_selector("#results tbody td.text").text_content() == "text 0 idiot"
        assert page.errors == []
    finally:
        srv.stop()


def test_the_console_asks_for_an_api_key_when_the_server_wants_one(
    page: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_CONSOLE_KEYS", "desk:k-desk-1")
    settings = ServiceSettings(
        moderators=("lexicon",), labels=tmp_path / "l.sqlite", api_keys_env="TEST_CONSOLE_KEYS"
    )
    with BackgroundServer(create_app(settings)) as srv:
        srv.wait_ready()
        page.goto(srv.url + "/")
        page.wait_for_selector("#key-box", state="visible")
        assert "API key is required" in page.text_content("#error")
        page.fill("#api-key", "k-desk-1")
        page.dispatch_event("#api-key", "change")
        page.wait_for_selector("#model option", state="attached")
        page.wait_for_selector("#error", state="hidden")
        analyze_in_console(page, ["you idiot"])
        page.click("#tab-btn-review")
        page.wait_for_selector("#queue tbody tr button.accept")
        page.click("#queue tbody tr button.accept")
        page.wait_for_selector("#queue-empty", state="visible")
        [row] = httpx.get(
            srv.url + "/console/api/labels", headers={"Authorization": "Bearer k-desk-1"}
        ).json()["labels"]
        assert (row["who"], row["key"], row["decision"]) == ("desk", "desk", "accept")


class CategoryHeads:
    """A moderator with harm-category heads: flags self-harm and self-harm/intent on texts
    that say "alone", nothing on the others."""

    name = "test-categories"
    version = "1"

    def config(self) -> dict[str, Any]:
        return {}

    def analyze(self, texts: Sequence[str]) -> list[tactful.Analysis]:
        out = []
        for t in texts:
            hit = "alone" in t
            cats = {"self-harm": hit, "self-harm/intent": hit, "threat": False}
            out.append(
                tactful.Analysis(
                    flagged=hit,
                    scores={
                        "toxicity": 0.9 if hit else 0.1,
                        **{c: float(v) for c, v in cats.items()},
                    },
                    flags=cats,
                )
            )
        return out


def test_the_console_names_the_harm_categories_a_text_is_flagged_with(
    csp_page: Any, tmp_path: Path, artifacts: Path
) -> None:
    page = csp_page
    with tactful.temporary_registration("test-categories", CategoryHeads):
        srv = start(tmp_path / "labels.sqlite", "test-categories")
    try:
        info = httpx.get(srv.url + "/console/api/info", timeout=30).json()
        assert info["harm_categories"][:2] == ["harassment", "harassment/threatening"]
        page.goto(srv.url + "/")
        page.wait_for_selector("#model option", state="attached")
        analyze_in_console(page, ["I feel so alone tonight", "what a lovely day"])
        cells = [c.text_content() for c in page.query_selector_all("#results td.scores")]
        assert cells[0].endswith(" · harm: self-harm, self-harm/intent")
        assert "harm:" not in cells[1]
        page.screenshot(path=str(artifacts / "console_harm.png"), full_page=True)
        assert page.errors == []
    finally:
        srv.stop()
