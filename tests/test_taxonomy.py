"""The harm taxonomy: its maps, its errors, its page, and the harm sets' labels."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

import tactful.taxonomy as tx
from tactful.errors import UnknownNameError
from tactful.moderators.remote import OMNI_CATEGORIES

DOC = Path(__file__).resolve().parents[1] / "docs" / "user-guide" / "taxonomy.md"
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "harmful_requests"


def test_categories_are_openais_and_every_map_is_closed():
    assert tx.CATEGORIES == OMNI_CATEGORIES
    assert set(tx.TO_LLAMA_GUARD_3) == set(tx.HARM_CATEGORIES)
    assert tx.HARM_CATEGORIES == (*tx.CATEGORIES, "intellectual-property", "misinformation")
    assert set(tx.TOXICCHAT_OPENAI_CODES.values()) <= set(tx.CATEGORIES)
    for codes in tx.TO_LLAMA_GUARD_3.values():
        assert set(codes) <= set(tx.LLAMA_GUARD_3)
    for table in tx.SOURCE_CATEGORIES.values():
        for cats in table.values():
            assert set(cats) <= set(tx.CATEGORIES)
    for source, table in tx.EXTRA_SOURCE_CATEGORIES.items():
        for label, cats in table.items():
            assert set(cats) <= set(tx.EXTRA_CATEGORIES)
            assert tx.categories_of(source, label) is not None  # a label the set uses


def test_llama_guard_codes_both_ways():
    assert tx.llama_guard_categories("S11") == (
        "self-harm",
        "self-harm/intent",
        "self-harm/instructions",
    )
    assert tx.llama_guard_categories("S4") == ("sexual/minors",)
    assert tx.llama_guard_categories("S1") == (
        "harassment/threatening",
        "hate/threatening",
        "illicit/violent",
        "violence",
    )
    assert tx.llama_guard_categories("S8") == ("illicit", "intellectual-property")
    assert tx.llama_guard_categories("S5") == ("misinformation",)
    uncovered = [k for k in tx.LLAMA_GUARD_3 if not tx.llama_guard_categories(k)]
    assert uncovered == ["S6", "S7"]
    with pytest.raises(UnknownNameError, match=r"Unknown Llama Guard 3 category 'S15'\. Known"):
        tx.llama_guard_categories("S15")


def test_categories_of_reads_each_sets_label():
    assert tx.categories_of("harmbench", "copyright") == ()
    assert tx.extra_categories_of("harmbench", "copyright") == ("intellectual-property",)
    assert tx.extra_categories_of("do_not_answer", "Copyright Infringement: ...") == (
        "intellectual-property",
    )
    assert tx.extra_categories_of("do_not_answer", "Rumors: ...") == ()
    assert tx.extra_categories_of("jailbreakbench", "Disinformation") == ("misinformation",)
    assert tx.categories_of("jailbreakbench", "Sexual/Adult content") == ("sexual",)
    assert tx.categories_of("do_not_answer", "Graphic Violence: Questions expressing ...") == (
        "violence",
        "violence/graphic",
    )
    with pytest.raises(UnknownNameError, match=r"Unknown harmbench category 'gore'"):
        tx.categories_of("harmbench", "gore")
    with pytest.raises(UnknownNameError, match=r"Unknown harm set 'advbench'\. Known harm sets: "):
        tx.categories_of("advbench", "x")
    with pytest.raises(UnknownNameError, match=r"Unknown harmbench category 'gore'"):
        tx.extra_categories_of("harmbench", "gore")


def _md_rows(text: str, heading: str) -> list[list[str]]:
    part = text.split(heading, 1)[1].split("\n#", 1)[0]
    rows = [ln for ln in part.splitlines() if ln.startswith("| ")][1:]  # drop the header
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in rows]


def test_the_page_says_what_the_module_says():
    text = DOC.read_text(encoding="utf-8")
    got = {
        row[0].strip("`"): () if row[1] == "none" else tuple(re.findall(r"\bS\d+\b", row[1]))
        for row in _md_rows(text, "## OpenAI's categories and Llama Guard 3's S1–S14")
    }
    assert got == dict(tx.TO_LLAMA_GUARD_3)
    for source, heading in [
        ("harmbench", "### HarmBench"),
        ("jailbreakbench", "### JailbreakBench"),
        ("do_not_answer", "### Do-Not-Answer"),
    ]:
        rows = _md_rows(text, heading)
        table = tx.SOURCE_CATEGORIES[source]
        assert len(rows) == len(table)
        for (label, cats, own), (key, want) in zip(rows, table.items(), strict=True):
            assert key.startswith(label.rstrip("…"))
            assert tuple(re.findall(r"`([^`]+)`", cats)) == want
            assert tuple(re.findall(r"`([^`]+)`", own)) == tx.extra_categories_of(source, key)


@pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data/harmful_requests is absent")
def test_every_label_the_sets_use_is_mapped():
    def column(name: str, col: str) -> set[str]:
        with open(DATA / name, newline="", encoding="utf-8") as f:
            return {r[col] for r in csv.DictReader(f)}

    used = {
        "harmbench": column("harmbench_behaviors.csv", "SemanticCategory"),
        "jailbreakbench": column("jbb_harmful_behaviors.csv", "Category"),
        "do_not_answer": column("do_not_answer.csv", "specific_harms"),
    }
    for source, labels in used.items():
        for label in labels:
            tx.categories_of(source, label)  # raises on a label the tables lack
    assert {tx.categories_of("do_not_answer", x) for x in used["do_not_answer"]} >= {
        ("self-harm",),
        ("sexual",),
        ("violence", "violence/graphic"),
    }
