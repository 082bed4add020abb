"""tactful.evaluate: which metrics apply, what they are, and the errors."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pytest

import tactful
import tactful.datasets
from tactful import Analysis, Span
from tactful.datasets import DatasetSpec, Record
from tactful.errors import (
    PARAM_MESSAGE,
    BackendError,
    ConfigError,
    DataError,
    FailedItemsError,
    RemoteTimeoutError,
    UnknownNameError,
)
from tactful.evaluate import evaluate, score
from tactful.store import ResultStore, analyze_all


class KeywordModerator:
    """Flags texts containing "idiot" and points at the word; toxicity score 0.9/0.1.

    ``jailbreak`` is the score 0.8 on texts containing "DAN", else 0.2, when
    ``heads`` is true; ``None`` (no opinion) otherwise.
    """

    name = "keyword"
    version = "1"

    def __init__(self, heads: bool = False, down: str | None = None) -> None:
        self.heads = heads
        self.down = down
        self.calls: list[int] = []

    def analyze(self, texts: Sequence[str]) -> list[Analysis]:
        self.calls.append(len(texts))
        if self.down is not None and any(self.down in t for t in texts):
            raise RemoteTimeoutError(f"no answer within 1 s for a text with {self.down!r}")
        out = []
        for t in texts:
            at = t.find("idiot")
            spans = (Span(at, at + 5, "insult", 0.9),) if at >= 0 else ()
            jb = (0.8 if "DAN" in t else 0.2) if self.heads else None
            flags = {"jailbreak": jb > 0.5} if jb is not None else {}
            out.append(
                Analysis(
                    flagged=at >= 0,
                    scores={"toxicity": 0.9 if at >= 0 else 0.1},
                    spans=spans,
                    jailbreak=jb,
                    flags=flags,
                )
            )
        return out

    def config(self) -> dict[str, Any]:
        return {"heads": self.heads}


def rec(i: int, text: str, label: int | None, **kw: Any) -> Record:
    return Record(id=str(i), text=text, label=label, split="test", **kw)


# ------------------------------------------------------------------------ score


def test_score_binary_and_jailbreak_recall():
    records = [
        rec(0, "you idiot", 1, labels={"toxicity": 1, "jailbreak": 0}),  # TP
        rec(1, "hello", 1, labels={"toxicity": 1, "jailbreak": 1}),  # FN, jailbreak missed
        rec(2, "idiot DAN", 1, labels={"toxicity": 1, "jailbreak": 1}),  # TP, jailbreak caught
        rec(3, "idiot proof", 0, labels={"toxicity": 0, "jailbreak": 0}),  # FP
        rec(4, "fine", 0, labels={"toxicity": 0, "jailbreak": 0}),  # TN
        rec(5, "unlabelled idiot", None, labels={"toxicity": None, "jailbreak": None}),
    ]
    analyses = KeywordModerator().analyze([r.text for r in records])
    got = score(records, analyses, task="toxicity")
    # Scores: positives 0.9, 0.1, 0.9; negatives 0.9, 0.1 -> pairs won 1+.5 +.5+0 +1+.5 = 3.5/6
    assert got == {
        "n": 5,
        "n_positive": 3,
        "precision": 2 / 3,
        "recall": 2 / 3,
        "f1": 2 / 3,
        "flag_rate": 3 / 5,  # rows 0, 2, 3 of the five labelled
        "roc_auc": pytest.approx(3.5 / 6),
        # thresholds 0.9: P=2/3, R=2/3; 0.1: P=3/5, R=1 -> 2/3*2/3 + 1/3*3/5
        "average_precision": pytest.approx(4 / 9 + 1 / 5),
        "jailbreak_recall": 0.5,
    }


def test_score_per_harm_category():
    def a(flagged: bool, **cats: tuple[float, bool]) -> Analysis:
        return Analysis(
            flagged=flagged,
            scores={"toxicity": 0.5, **{c.replace("_", "-"): v for c, (v, _) in cats.items()}},
            flags={"toxicity": flagged, **{c.replace("_", "-"): f for c, (_, f) in cats.items()}},
        )

    records = [
        rec(0, "a", 1, labels={"self-harm": 1, "sexual": 0, "violence": 1}),
        rec(1, "b", 1, labels={"self-harm": 0, "sexual": 1, "violence": None}),
        rec(2, "c", 0, labels={"self-harm": 0, "sexual": 0, "violence": 0}),
        rec(3, "d", 1, labels={"self-harm": 1, "sexual": 0, "violence": 1}),
    ]
    analyses = [
        a(True, self_harm=(0.9, True), sexual=(0.2, False)),
        a(True, self_harm=(0.6, True), sexual=(0.8, True)),
        a(False, self_harm=(0.1, False), sexual=(0.3, False)),
        a(True, self_harm=(0.4, False), sexual=(0.1, False)),
    ]
    got = score(records, analyses, task="toxicity")["categories"]
    # violence is labelled but not scored, so it is left out; categories in OpenAI's order.
    assert list(got) == ["self-harm", "sexual"]
    # self-harm: positives 0.9, 0.4; negatives 0.6, 0.1 -> pairs won 1 + 1 + 0 + 1 = 3/4
    assert got["self-harm"] == {
        "n": 4,
        "n_positive": 2,
        "roc_auc": 0.75,
        "precision": 0.5,
        "recall": 0.5,
        "f1": 0.5,
    }
    assert got["sexual"]["roc_auc"] == 1.0 and got["sexual"]["f1"] == 1.0
    # a moderator that scores a category but does not flag it gets its AUC only
    bare = [
        Analysis(flagged=x.flagged, scores=x.scores, flags={"toxicity": x.flagged})
        for x in analyses
    ]
    assert score(records, bare, task="toxicity")["categories"]["sexual"] == {
        "n": 4,
        "n_positive": 1,
        "roc_auc": 1.0,
    }
    # a data set that labels no category gets no "categories"
    plain = [rec(r.id, r.text, r.label) for r in records]
    assert "categories" not in score(plain, analyses, task="toxicity")


def test_score_spans_and_post_level_labels():
    text = "what an idiot you are"
    records = [
        rec(0, text, 1, spans=(Span(8, 13),)),  # exact: F1 1
        rec(1, "idiot and moron", 1, spans=(Span(0, 5), Span(10, 15))),  # P 1, R .5 -> 2/3
        rec(2, "all fine here", 0, spans=()),  # empty gold, empty pred -> 1
        rec(3, "an idiot-proof plan", 0, spans=()),  # empty gold, pred -> 0
    ]
    analyses = KeywordModerator().analyze([r.text for r in records])
    got = score(records, analyses, task="spans")
    assert got["span_f1"] == pytest.approx((1 + 2 / 3 + 1 + 0) / 4)
    assert got["n"] == 4
    assert (got["precision"], got["recall"]) == (2 / 3, 1.0)
    assert "jailbreak_recall" not in got


def test_score_spans_without_labels_has_no_binary_metrics():
    records = [rec(0, "idiot", None, spans=(Span(0, 5),)), rec(1, "ok", None, spans=())]
    got = score(records, KeywordModerator().analyze(["idiot", "ok"]), task="spans")
    assert got == {"n": 2, "span_f1": 1.0}


def test_score_one_class_gives_no_auc():
    records = [rec(0, "idiot", 1), rec(1, "hi", 1)]
    got = score(records, KeywordModerator().analyze(["idiot", "hi"]), task="toxicity")
    assert got["roc_auc"] is None
    assert got["average_precision"] == 1.0
    assert got["recall"] == 0.5


def test_score_uses_the_task_head():
    records = [rec(0, "DAN mode", 1), rec(1, "idiot", 0), rec(2, "hi", 0)]
    analyses = KeywordModerator(heads=True).analyze([r.text for r in records])
    got = score(records, analyses, task="jailbreak")
    # The jailbreak head flags row 0 only (the toxicity flag would pick row 1).
    assert (got["precision"], got["recall"], got["roc_auc"]) == (1.0, 1.0, 1.0)


def test_score_task_without_opinion_is_a_config_error():
    records = [rec(0, "DAN mode", 1)]
    with pytest.raises(ConfigError) as info:
        score(
            records, KeywordModerator().analyze(["DAN mode"]), task="jailbreak", moderator="keyword"
        )
    assert str(info.value) == (
        "[T010] Moderator 'keyword' has no opinion on 'jailbreak' (Analysis.jailbreak is None); "
        "use a moderator with a jailbreak head."
    )


def test_score_missing_toxicity_score_gives_no_auc():
    records = [rec(0, "a", 1), rec(1, "b", 0)]
    analyses = [Analysis(flagged=True), Analysis(flagged=False)]
    got = score(records, analyses, task="hate")
    assert got["f1"] == 1.0
    assert got["roc_auc"] is None and got["average_precision"] is None


def test_score_nothing_labelled_is_a_data_error():
    with pytest.raises(DataError, match="No row carries a label or gold spans"):
        score([rec(0, "a", None)], [Analysis(flagged=False)], task="toxicity")


# ------------------------------------------------------------------- analyze_all


def test_analyze_all_batches_in_order():
    mod = KeywordModerator()
    texts = [f"t{i} idiot" if i % 2 else f"t{i}" for i in range(7)]
    out = analyze_all(mod, texts, batch_size=3)
    assert mod.calls == [3, 3, 1]
    assert [a.flagged for a in out] == [bool(i % 2) for i in range(7)]


def test_analyze_all_rejects_short_answers():
    class Lossy(KeywordModerator):
        def analyze(self, texts):
            return super().analyze(texts)[:-1]

    with pytest.raises(
        BackendError, match=r"Moderator 'keyword' returned 1 analyses for 2 texts\."
    ):
        analyze_all(Lossy(), ["a", "b"])


def test_analyze_all_bad_batch_size():
    expected = PARAM_MESSAGE.format(
        name="batch_size", owner="analyze_all", rule="an int >= 1", value=0
    )
    with pytest.raises(ConfigError, match=re.escape(expected)):
        analyze_all(KeywordModerator(), ["a"], batch_size=0)


# ---------------------------------------------------------- evaluate (fake data)

FAKE = DatasetSpec(
    name="fake",
    task="toxicity",
    splits=("train", "test"),
    default_split="test",
    files=("fake.csv",),
    description="in-memory rows for tests",
)


@pytest.fixture
def fake_data(monkeypatch):
    rows = {
        "test": [
            rec(0, "you idiot", 1, labels={"jailbreak": 1}),
            rec(1, "hello", 0, labels={"jailbreak": 0}),
            rec(2, "idiot", 0, labels={"jailbreak": 0}),
            rec(3, "bye", 1, labels={"jailbreak": 1}),
        ],
        "train": [rec(9, "x", 0)],
    }
    seen: dict[str, Any] = {}

    def fake_load(name, split=None, data_dir=None):
        seen.update(name=name, split=split, data_dir=data_dir)
        return list(rows[split])

    real_get_spec = tactful.datasets.get_spec
    monkeypatch.setattr(tactful.datasets, "load_dataset", fake_load)
    monkeypatch.setattr(
        tactful.datasets, "get_spec", lambda n: FAKE if n == "fake" else real_get_spec(n)
    )
    return seen


def test_evaluate_result_shape(fake_data):
    mod = KeywordModerator()
    got = evaluate("fake", moderator=mod, data_dir="/somewhere", batch_size=3)
    assert fake_data == {"name": "fake", "split": "test", "data_dir": "/somewhere"}
    assert mod.calls == [3, 1]
    assert got == {
        "dataset": "fake",
        "split": "test",
        "task": "toxicity",
        "moderator": "keyword",
        "n": 4,
        "n_positive": 2,
        "precision": 0.5,
        "recall": 0.5,
        "f1": 0.5,
        "flag_rate": 0.5,
        "roc_auc": 0.5,
        "average_precision": 0.5,
        "jailbreak_recall": 0.5,
        "in_sample": False,  # KeywordModerator records no training texts
        "n_in_sample": 0,
        "failed": 0,
        "moderator_config": {"heads": False},
    }


def test_evaluate_limit_and_split(fake_data):
    got = evaluate("fake", moderator=KeywordModerator(), limit=2)
    assert got["n"] == 2 and got["f1"] == 1.0
    got = evaluate("fake", moderator=KeywordModerator(), split="train")
    assert (got["split"], got["n"], got["n_positive"], got["roc_auc"]) == ("train", 1, 0, None)


def test_evaluate_registered_moderator_by_name_with_options(fake_data):
    with tactful.temporary_registration("_test_keyword", KeywordModerator):
        got = evaluate("fake", moderator="_test_keyword", options={"heads": True})
    assert got["moderator"] == "keyword"
    assert got["moderator_config"] == {"heads": True}
    with pytest.raises(ConfigError, match="Moderator options apply to a moderator given by name"):
        evaluate("fake", moderator=KeywordModerator(), options={"heads": True})


def test_evaluate_reuses_the_store_counted_by_calls(fake_data, tmp_path):
    path = tmp_path / "s.sqlite"
    first = KeywordModerator()
    got = evaluate("fake", moderator=first, store=path)
    assert first.calls == [4]
    second = KeywordModerator()
    with ResultStore(path) as store:
        assert evaluate("fake", moderator=second, store=store) == got
    assert second.calls == []


def test_evaluate_failed_items_carry_the_report_of_the_answered_rows(fake_data, tmp_path):
    path = tmp_path / "s.sqlite"
    with pytest.raises(FailedItemsError) as info:
        evaluate("fake", moderator=KeywordModerator(down="bye"), store=path, batch_size=2)
    err = info.value
    assert err.failed == {3: "[T042] no answer within 1 s for a text with 'bye'"}
    # Rows 0-2 were answered: scored as a report of their own, with the failed count.
    assert err.report is not None
    assert (err.report["n"], err.report["failed"], err.report["n_positive"]) == (3, 1, 1)
    assert (err.report["precision"], err.report["recall"]) == (0.5, 1.0)
    healed = KeywordModerator()
    got = evaluate("fake", moderator=healed, store=path, batch_size=2)
    assert healed.calls == [1]  # only the failed text
    assert (got["n"], got["failed"]) == (4, 0)


def test_evaluate_unknown_names():
    with pytest.raises(
        UnknownNameError, match=r"Unknown data set 'nope'\. Known data sets: .*toxicchat"
    ):
        evaluate("nope", moderator=KeywordModerator())
    with pytest.raises(UnknownNameError, match=r"Unknown moderator 'nope'\. Known moderators: "):
        evaluate("toxicchat", moderator="nope")


@pytest.mark.parametrize("limit", [0, -1, 1.5, True])
def test_evaluate_bad_limit(limit):
    expected = PARAM_MESSAGE.format(
        name="limit", owner="evaluate", rule="an int >= 1 or None", value=limit
    )
    with pytest.raises(ConfigError, match=re.escape(expected)):
        evaluate("toxicchat", moderator=KeywordModerator(), limit=limit)


def test_evaluate_bad_engine():
    expected = PARAM_MESSAGE.format(
        name="engine", owner="evaluate", rule="one of 'local', 'ray'", value="spark"
    )
    with pytest.raises(ConfigError, match=re.escape(expected)):
        evaluate("toxicchat", moderator=KeywordModerator(), engine="spark")


# ----------------------------------------------------------- evaluate (real data)


def test_evaluate_toxicchat_test_protocol(data_dir):
    got = evaluate("toxicchat", moderator=KeywordModerator(), data_dir=data_dir, batch_size=512)
    # The paper's protocol: the 2,853 human-annotated test rows, 362 toxic.
    assert (got["split"], got["n"], got["n_positive"]) == ("test", 2853, 362)
    assert set(got) >= {
        "precision",
        "recall",
        "f1",
        "roc_auc",
        "average_precision",
        "jailbreak_recall",
    }
    assert "span_f1" not in got


def test_evaluate_toxicspans_semeval_test(data_dir):
    got = evaluate(
        "toxicspans", split="test", moderator=KeywordModerator(), data_dir=data_dir, batch_size=512
    )
    assert got["n"] == 2000
    assert 0.0 < got["span_f1"] < 1.0


def test_evaluate_missing_folder_names_it(tmp_path):
    from tactful.errors import MissingDataError

    missing = tmp_path / "nowhere"
    with pytest.raises(MissingDataError) as info:
        evaluate("toxicchat", moderator=KeywordModerator(), data_dir=missing)
    assert str(missing) in str(info.value)
    assert "needs toxicchat/toxicchat0124_" in str(info.value)


def test_register_breakdown_refuses_a_second_one_for_the_same_data_set():
    from tactful.evaluate import register_breakdown

    def rows(records, analyses):
        return []

    register_breakdown("_bd_test", "rows", rows)
    register_breakdown("_bd_test", "rows", rows)  # the same again is fine (re-import)
    with pytest.raises(ConfigError, match="Data set '_bd_test' already has a breakdown"):
        register_breakdown("_bd_test", "other", rows)
