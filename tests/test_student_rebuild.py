"""A bank student's examples are rebuilt from its ``train.json`` (``tactful train
trained-texts`` records what a shipped student saw), from the committed bank of
``builtin-large`` 2.2.2 and the data folder."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from pathlib import Path

import pytest

from tactful._heads import CATEGORY_HEADS
from tactful.errors import ConfigError
from tactful.train._bank import TeacherId
from tactful.train._distill import recorded_stage_examples
from tactful.train._student import student_examples

BANK = Path(__file__).resolve().parents[1] / "training" / "bank"
TEACHER = TeacherId(
    "builtin-large", "2.2.2", "cc4a2dca34c2b7bf60751dc9bbc502dabd7c9705328cff98a6eb0f44b98a05a5"
)


KWARGS: dict = {
    "stage": 10,
    "categories": True,
    "max_bank_only": 50,
    "category_repeat": 3,
    "delicate": True,
}


@pytest.fixture(scope="module")
def built(data_dir):
    return student_examples(data_dir, bank=BANK, teacher=TEACHER, **KWARGS)


def _record(seed, summary):
    """What student() writes: the config and the bank's summary."""
    return {
        "stage": 10,
        "seed": seed,
        "config": {"teacher": f"bank:{TEACHER.folder}", "heads": list(CATEGORY_HEADS),
                   "delicate": True, "spans": 0, "targeted": False},
        "teacher_bank": {"bank": str(BANK), "teacher": dataclasses.asdict(TEACHER), **summary},
    }  # fmt: skip


def test_a_category_students_examples_rebuild_from_its_record(data_dir, built):
    examples, seed, summary = built
    # each category template row three times, and the record says so
    assert summary["categories"]["category_repeat"] == 3
    assert Counter(e.source for e in examples)["category_templates"] == 3 * 3827
    assert seed == 10 and summary["bank_only"] == 50 and summary["max_bank_only"] == 50
    assert len(examples) == summary["examples"] == summary["mixture"] + 50
    assert all(len(e.seq) == len(CATEGORY_HEADS) for e in examples)
    # a bank of the eight heads gives the categories no soft target
    assert summary["categories"]["with_soft_category_targets"] == 0
    assert all(e.soft_seq is None or all(math.isnan(v) for v in e.soft_seq[8:]) for e in examples)
    assert "draw_seed" not in summary
    again, again_seed = recorded_stage_examples(data_dir, _record(seed, summary))
    assert again_seed == seed
    assert [e.text for e in again] == [e.text for e in examples]
    assert Counter(e.source for e in again) == Counter(e.source for e in examples)


def test_legs_that_share_a_draw_seed_hold_the_same_texts(data_dir, built):
    examples, seed, summary = built
    other, other_seed, other_summary = student_examples(
        data_dir, bank=BANK, teacher=TEACHER, seed=1, draw_seed=0, **KWARGS
    )
    # the rows of seed 0, the 50 banked texts among them, in seed 1's order and run seed
    assert other_seed == 11 and seed == 10
    assert other_summary == {**summary, "draw_seed": 0}
    assert Counter(e.text for e in other) == Counter(e.text for e in examples)
    assert [e.text for e in other] != [e.text for e in examples]
    # trained-texts rebuilds such a leg from its record
    again, again_seed = recorded_stage_examples(data_dir, _record(other_seed, other_summary))
    assert again_seed == 11
    assert [e.text for e in again] == [e.text for e in other]


def test_a_negative_draw_seed_is_refused_in_one_line(data_dir):
    with pytest.raises(ConfigError) as err:
        student_examples(data_dir, bank=BANK, teacher=TEACHER, draw_seed=-1, **KWARGS)
    assert str(err.value) == "[T010] draw_seed must be 0 or more, not -1."


def test_a_hard_source_learns_its_labels_alone(data_dir, built):
    examples, seed, summary = built
    hard, hard_seed, hard_summary = student_examples(
        data_dir, bank=BANK, teacher=TEACHER, hard_sources=["harm_requests"], **KWARGS
    )
    assert hard_seed == seed and hard_summary == {**summary, "hard_sources": ["harm_requests"]}
    assert [e.text for e in hard] == [e.text for e in examples]
    tox = CATEGORY_HEADS.index("toxicity")

    def soft_tox(rows, source, labelled=True):
        return [
            e.soft_seq[tox]
            for e in rows
            if e.source == source and e.soft_seq is not None and math.isnan(e.seq[tox]) != labelled
        ]

    # the teacher scores harm_requests' banked texts; a hard source keeps a label alone
    before, after = soft_tox(examples, "harm_requests"), soft_tox(hard, "harm_requests")
    assert len(before) == len(after) > 500
    assert not any(math.isnan(v) for v in before) and all(math.isnan(v) for v in after)
    # a head the row does not label (Do-Not-Answer's harms outside the 13 leave toxicity
    # unknown) keeps the teacher's score, and every other source is as it was
    unlabelled = soft_tox(hard, "harm_requests", labelled=False)
    assert len(unlabelled) > 100 and not any(math.isnan(v) for v in unlabelled)
    assert unlabelled == soft_tox(examples, "harm_requests", labelled=False)
    assert soft_tox(hard, "harm_benign") == soft_tox(examples, "harm_benign")
    again, _ = recorded_stage_examples(data_dir, _record(hard_seed, hard_summary))
    assert [e.text for e in again] == [e.text for e in hard]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {**KWARGS, "hard_sources": ["harm_requests", "toxicchat"]},
            (
                "[T010] hard_sources: toxicchat is not a category source (harm_requests, "
                "harm_benign, dna_responses, conan, dialoconan, toxigen_seeds)."
            ),
        ),
        (
            {**KWARGS, "categories": False, "hard_sources": ["harm_requests"]},
            "[T010] hard_sources needs categories: they are category sources.",
        ),
    ],
)
def test_a_hard_source_outside_the_category_sources_is_refused(data_dir, kwargs, message):
    with pytest.raises(ConfigError) as err:
        student_examples(data_dir, bank=BANK, teacher=TEACHER, **kwargs)
    assert str(err.value) == message
