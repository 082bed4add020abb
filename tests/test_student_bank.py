"""A student's examples from the teacher-label bank (``tactful.train._student.bank_examples``):
the bank's probabilities become soft targets by text, in the student's head order. No torch,
no data folder: the bank sources are replaced by two written here."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tactful._heads import SEQ_HEADS
from tactful.errors import ConfigError, DataError
from tactful.train import _bank_sources
from tactful.train._bank import TeacherId, text_key, write_bank
from tactful.train._mixture import NAN, Example
from tactful.train._student import bank_examples

TEACHER = TeacherId("builtin-large", "2.2.2", "cd" * 32)
# The teacher's heads in another order than the student's, and one fewer.
HEADS = ("jailbreak", "toxicity")
CHAT = ["you absolute idiot", "have a nice day", "a dev prompt"]
VARIANTS = ["absolute idiot", "have a nice day", "a nice day"]


@pytest.fixture
def bank(tmp_path, monkeypatch):
    monkeypatch.setattr(
        _bank_sources,
        "BANK_SOURCES",
        {"chat": lambda d: iter(CHAT), "variants": lambda d: iter(VARIANTS)},
    )
    monkeypatch.setattr(
        "tactful.train._student.BANK_SOURCES", _bank_sources.BANK_SOURCES, raising=True
    )
    for source, texts, probs in (
        ("chat", CHAT, [[0.0, 1.0], [0.5, 0.02], [0.9, 0.9]]),
        ("variants", VARIANTS[:2] + VARIANTS[2:], [[0.25, 0.75], [0.1, 0.1], [0.0, 0.5]]),
    ):
        keys = np.frombuffer(b"".join(text_key(t) for t in texts), np.uint8).reshape(-1, 32)
        write_bank(tmp_path, TEACHER, source, HEADS, keys, np.array(probs), np.zeros(3, bool))
    return tmp_path


def _labels(**kw):
    return [float(kw[h]) if h in kw else NAN for h in SEQ_HEADS]


def test_soft_targets_by_text_in_the_students_head_order(bank):
    mixture = [
        Example("you absolute idiot", "toxicchat", _labels(toxicity=1)),
        Example("you absolute idiot", "toxicchat", _labels(toxicity=1)),  # a repeat
        Example("a lexicon row", "jigsaw_sentences", _labels(toxicity=0)),  # not banked
        Example("have a nice day", "menace", _labels(toxicity=0)),  # a hard-only template
    ]
    out, summary = bank_examples(mixture, bank, TEACHER, bank, held_out=frozenset({"a dev prompt"}))
    texts = [e.text for e in out]
    # The mixture first (repeats kept), then the banked texts it lacks, once each,
    # in the sources' order; the held-out text nowhere.
    assert texts == [
        "you absolute idiot",
        "you absolute idiot",
        "a lexicon row",
        "have a nice day",
        "absolute idiot",
        "a nice day",
    ]
    t, j = SEQ_HEADS.index("toxicity"), SEQ_HEADS.index("jailbreak")
    first = out[0].soft_seq
    assert first is not None
    assert first[t] == pytest.approx(math.log(0.9999 / 0.0001))  # 1.0 clipped to 1 - 1e-4
    assert first[j] == pytest.approx(math.log(0.0001 / 0.9999))
    assert all(math.isnan(v) for i, v in enumerate(first) if i not in (t, j))
    assert out[2].soft_seq is None  # the bank does not hold it
    # A hard-only template keeps its label alone on the head it labels (toxicity) and
    # learns the teacher's other heads; the first source's probabilities win.
    menace = out[3].soft_seq
    assert menace is not None and math.isnan(menace[t])
    assert menace[j] == pytest.approx(0.0)  # logit of 0.5, from "chat"
    assert out[4].source == "bank:variants" and all(math.isnan(v) for v in out[4].seq)
    assert out[4].soft_seq[t] == pytest.approx(math.log(0.75 / 0.25), abs=1e-3)
    assert summary == {
        "examples": 6,
        "with_soft_targets": 5,
        "with_soft_characters": 0,
        "mixture": 4,
        "bank_only": 2,
        "bank_only_by_source": {"chat": 0, "variants": 2},
        "bank_rows": {"chat": 3, "variants": 3},
    }


def test_a_sample_of_bank_only_texts_and_the_refusals(bank):
    out, summary = bank_examples([], bank, TEACHER, bank, max_bank_only=2, seed=1)
    assert summary["bank_only"] == 2 and len(out) == 2
    assert {e.text for e in out} < set(CHAT) | set(VARIANTS)
    again, _ = bank_examples([], bank, TEACHER, bank, max_bank_only=2, seed=1)
    assert [e.text for e in again] == [e.text for e in out]  # seeded
    other = TeacherId("builtin", "2.1.2", "ef" * 32)
    with pytest.raises(
        ConfigError, match=r"holds no labels of builtin 2\.1\.2 .*--teacher builtin"
    ):
        bank_examples([], bank / "nowhere", other, bank)
    # Another model file under the same name and version: its rows are not the teacher's.
    renamed = TeacherId("builtin-large", "2.2.2", "00" * 32)
    write_bank(bank, renamed, "chat", HEADS, np.zeros((1, 32), np.uint8), np.zeros((1, 2)), [False])
    with pytest.raises(
        DataError, match=r"was labelled by builtin-large 2\.2\.2 \(model sha256 000000"
    ):
        bank_examples([], bank, TEACHER, bank)


def test_span_texts_get_the_teachers_character_logits(bank, monkeypatch):
    from tactful.train._bank import write_chars

    monkeypatch.setattr("tactful.train._student.CHAR_SOURCES", ("chat",))
    text = "you absolute idiot"
    probs = np.full(len(text), 0.1, np.float16)
    probs[13:] = 0.9  # "idiot"
    probs[3] = np.nan  # the space: no token covered it
    write_chars(bank, TEACHER, "chat", {text_key(text): probs})
    mixture = [Example(text, "toxicspans", _labels(toxicity=1))]
    out, summary = bank_examples(mixture, bank, TEACHER, bank)
    tox = out[0].soft_tox
    assert tox is not None and len(tox) == len(text)
    assert tox[13] == pytest.approx(math.log(0.9 / 0.1), abs=2e-3)
    assert tox[0] == pytest.approx(math.log(0.1 / 0.9), abs=2e-3)
    assert math.isnan(tox[3])
    assert summary["with_soft_characters"] == 1
    assert out[1].soft_tox is None  # a banked text whose characters the bank does not hold


def test_a_category_student_takes_a_category_teachers_scores(tmp_path, monkeypatch):
    from tactful._heads import CATEGORY_HEADS

    monkeypatch.setattr(
        "tactful.train._student.BANK_SOURCES", {"chat": lambda d: iter(CHAT[:2])}, raising=True
    )
    monkeypatch.setattr(
        "tactful.train._student.source_texts", lambda s, d: iter(CHAT[:2]), raising=True
    )
    # A category teacher: toxicity and two of the 13 categories.
    heads = ("toxicity", "self-harm", "harassment")
    keys = np.frombuffer(b"".join(text_key(t) for t in CHAT[:2]), np.uint8).reshape(-1, 32)
    probs = np.array([[0.9, 0.02, 0.8], [0.1, 0.5, 0.02]])
    write_bank(tmp_path, TEACHER, "chat", heads, keys, probs, np.zeros(2, bool))
    wide = [float("nan")] * len(CATEGORY_HEADS)
    mixture = [Example("you absolute idiot", "harm_requests", wide)]
    out, summary = bank_examples(mixture, tmp_path, TEACHER, tmp_path, heads=CATEGORY_HEADS)
    assert [e.text for e in out] == ["you absolute idiot", "have a nice day"]
    assert all(len(e.seq) == len(e.soft_seq) == 21 for e in out)
    soft = dict(zip(CATEGORY_HEADS, out[1].soft_seq, strict=True))
    assert soft["self-harm"] == pytest.approx(0.0, abs=2e-3)  # logit of 0.5
    assert soft["harassment"] == pytest.approx(math.log(0.02 / 0.98), abs=2e-2)
    assert soft["toxicity"] == pytest.approx(math.log(0.1 / 0.9), abs=2e-3)
    assert math.isnan(soft["hate"]) and math.isnan(soft["jailbreak"])  # not the teacher's
    # The eight-head student of the same bank takes toxicity alone.
    narrow, _ = bank_examples([], tmp_path, TEACHER, tmp_path)
    assert len(narrow[0].soft_seq) == 8
    assert summary == {
        "examples": 2,
        "with_soft_targets": 2,
        "with_soft_characters": 0,
        "mixture": 1,
        "bank_only": 1,
        "bank_only_by_source": {"chat": 1},
        "bank_rows": {"chat": 2},
    }
    # what a run read is read again after a later leg appended rows: the first ones
    first, summary = bank_examples([], tmp_path, TEACHER, tmp_path, rows={"chat": 1})
    assert [e.text for e in first] == ["you absolute idiot"] and summary["bank_rows"] == {"chat": 1}
    with pytest.raises(DataError) as err:
        bank_examples([], tmp_path, TEACHER, tmp_path, rows={"chat": 3})
    assert str(err.value) == (
        f"[T020] The bank in {tmp_path} holds 2 rows of chat by {TEACHER.folder}, not the 3 the run "
        "read: the run cannot be rebuilt from it."
    )
