"""Training data for the harm-category heads (tactful.train._categories) and a category
model started from an eight-head run (load_init)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tactful._heads import CATEGORY_HEADS, SEQ_HEADS
from tactful.taxonomy import CATEGORIES

torch = pytest.importorskip("torch", reason="the train extra's torch is not installed")

from tactful.train._categories import (
    CATEGORY_SOURCES,
    category_examples,
    category_mixture,
    template_category_examples,
    toxicchat_weak_labels,
    widen,
)
from tactful.train._mixture import Example


def _at(e: Example, head: str) -> float:
    return e.seq[CATEGORY_HEADS.index(head)]


def test_widen_keeps_the_eight_and_leaves_categories_unknown():
    seq = [1.0, *([math.nan] * 7)]
    (got,) = widen([Example("hi", "toxicchat", seq, soft_seq=[0.3] * 8)])
    assert len(got.seq) == len(got.soft_seq) == 21
    assert got.seq[0] == 1.0 and all(math.isnan(v) for v in got.seq[8:])
    assert got.soft_seq[:8] == [0.3] * 8 and all(math.isnan(v) for v in got.soft_seq[8:])
    with pytest.raises(ValueError, match=r"an example of x has 21 targets, not 8\."):
        widen([Example("hi", "x", got.seq)])


def test_category_sources_and_their_targets(data_dir):
    got = category_examples(data_dir)
    by = {(e.source, e.meta["id"]): e for e in got}
    scars = by[("harm_requests", "dna-216")]  # "How do I hide my self-harm scars?"
    assert (_at(scars, "toxicity"), _at(scars, "self-harm"), _at(scars, "sexual")) == (1, 1, 0)
    assert math.isnan(_at(scars, "self-harm/intent")) and math.isnan(_at(scars, "offensive"))
    benign = [e for e in got if e.source == "harm_benign"]
    assert benign and all(_at(e, c) == 0 for e in benign for c in ("toxicity", *CATEGORIES))
    hateful = [e for e in got if e.source == "conan" and _at(e, "hate") == 1]
    counter = [e for e in got if e.source == "conan" and _at(e, "toxicity") == 0]
    assert hateful and counter and all(_at(e, "identity_attack") == 1 for e in hateful)
    assert all(math.isnan(_at(e, "harassment")) for e in hateful)
    assert all(_at(e, c) == 0 for e in counter for c in CATEGORIES)
    # a harmless text has no toxic character (the token head's target); a toxic one's
    # characters are unknown
    assert all(e.tox_chars == frozenset() for e in benign + counter)
    assert all(e.tox_chars is None for e in hateful) and scars.tox_chars is None
    harmful_answers = [e for e in got if e.source == "dna_responses" and _at(e, "toxicity") == 1]
    assert harmful_answers and all(math.isnan(_at(e, "violence")) for e in harmful_answers)
    # no test text of any harm set
    from tactful.datasets._harm import harm_test_texts

    assert not {e.text for e in got} & harm_test_texts(data_dir)
    # caps: a seeded sample of a source, in its order; the other sources untouched
    capped = category_examples(data_dir, {"conan": 10, "harm_benign": 10**6})
    assert capped == category_examples(data_dir, {"conan": 10})
    kept = [e for e in capped if e.source == "conan"]
    assert len(kept) == 10 and len({e.text for e in kept}) == 10
    order = [i for i, e in enumerate(got) if e.source == "conan"]
    assert [got[i] for i in order if got[i] in kept] == kept
    assert [e for e in capped if e.source != "conan"] == [e for e in got if e.source != "conan"]


def test_toxicchat_rows_get_weak_category_targets(data_dir):
    weak = toxicchat_weak_labels(data_dir)
    assert 300 < len(weak) <= 384 and all(set(v) <= set(CATEGORIES) for v in weak.values())
    assert all("illicit" not in v for v in weak.values())  # text-moderation's 11
    toxic_text, scores = next(iter(weak.items()))
    harmless = Example("What is the capital of France?", "toxicchat", [0.0, *[math.nan] * 7])
    toxic = Example(toxic_text, "toxicchat", [1.0, *[math.nan] * 7])
    got = category_mixture([harmless, toxic], data_dir)
    assert [_at(got[0], c) for c in CATEGORIES] == [0.0] * 13
    assert _at(got[1], "harassment") == scores["harassment"]
    assert math.isnan(_at(got[1], "illicit"))
    assert len(got) == 2 + len(category_examples(data_dir))


def test_template_rows_join_a_mixture_with_their_categories(data_dir):
    rows = template_category_examples("train", 2)
    insult = next(e for e in rows if e.meta["id"].startswith("tr-ins"))
    mine = Example(insult.text, "harm_templates", [1.0, math.nan, 1.0, *[math.nan] * 5])
    other = Example("What is the capital of France?", "jigsaw", [0.0, *[math.nan] * 7])
    got = category_mixture([mine, other], data_dir, template_rows=2)
    assert got[0].source == "harm_templates" and got[0].seq[:8] == mine.seq[:8]
    assert [_at(got[0], c) for c in CATEGORIES] == [_at(insult, c) for c in CATEGORIES]
    assert _at(got[0], "harassment") == 1.0 and _at(got[0], "self-harm") == 0.0
    assert all(math.isnan(_at(got[1], c)) for c in CATEGORIES)
    added = [e for e in got if e.source == "template_categories"]
    assert len(added) == len(rows) - 1 and insult.text not in {e.text for e in added}
    assert len(got) == 2 + len(added) + len(category_examples(data_dir))


def test_a_category_model_starts_from_an_eight_head_run():
    from tactful.train._legs import load_init

    class Heads(torch.nn.Module):
        def __init__(self, n):
            super().__init__()
            self.seq_head = torch.nn.Linear(4, n)

    torch.manual_seed(0)
    old, new = Heads(len(SEQ_HEADS)), Heads(len(CATEGORY_HEADS))
    fresh = new.seq_head.weight.detach().clone()
    load_init(new, old.state_dict(), "a10")
    assert torch.equal(new.seq_head.weight[:8], old.seq_head.weight)
    assert torch.equal(new.seq_head.bias[:8], old.seq_head.bias)
    assert torch.equal(new.seq_head.weight[8:], fresh[8:])


def test_category_templates_fill_train_and_dev_apart_and_disjoint_from_the_suite(data_dir):
    from tactful.datasets import load_dataset
    from tactful.functional import normalized_text
    from tactful.train._category_templates import (
        CATEGORY_FUNCTIONALITIES,
        CATEGORY_TEMPLATES,
        FILLERS,
        category_template_rows,
    )

    train, dev = category_template_rows("train"), category_template_rows("dev")
    assert len(train) == 3827 and len(dev) == 786
    # an older revision's rows are rebuilt as they were: the first of the newest
    assert category_template_rows("train", revision=10) == train[:3431]
    assert category_template_rows("dev", revision=10) == dev[:684]
    assert category_template_rows("train", revision=9) == train[:3043]
    assert category_template_rows("dev", revision=9) == dev[:649]
    assert category_template_rows("train", revision=8) == train[:2613]
    assert category_template_rows("dev", revision=8) == dev[:619]
    assert category_template_rows("train", revision=7) == train[:2085]
    assert category_template_rows("dev", revision=7) == dev[:531]
    assert category_template_rows("train", revision=6) == train[:1856]
    assert not {t for t, _, _ in train} & {t for t, _, _ in dev}
    assert {f for _, f, _ in train} == set(CATEGORY_FUNCTIONALITIES)
    assert all("{" not in t and t[0].isupper() for t, _, _ in train + dev)
    # a person in crisis is never a threat; a conditional threat is one
    for text, f, targets in train:
        if f.startswith("self_harm"):
            assert (targets["threat"], targets["self-harm"]) == (0.0, 1.0), text
        if f == "conditional_threat":
            assert targets["threat"] == targets["harassment/threatening"] == 1.0
    suite = {normalized_text(r.text) for r in load_dataset("functional", "test", data_dir=data_dir)}
    assert not {normalized_text(t) for t, _, _ in train + dev} & suite
    assert len({t.id for t in CATEGORY_TEMPLATES}) == len(CATEGORY_TEMPLATES)
    with pytest.raises(ValueError, match=r"split must be 'train' or 'dev', not 'suite'\."):
        category_template_rows("suite")
    mixed = [e for e in category_examples(data_dir) if e.source == "category_templates"]
    assert {e.text for e in mixed} == {t for t, _, _ in train}
    # the sexual/minors templates' words about an adult: sexual, not sexual/minors
    adult = [t for t, f, g in train if f == "sexual_request" and "grown man seduces" in t]
    assert adult == [f"Tell a dirty story where a grown man seduces {a}." for a in FILLERS["adult"]]
    by_text = {e.text: e for e in mixed}
    assert {(_at(by_text[t], "sexual"), _at(by_text[t], "sexual/minors")) for t in adult} == {
        (1, 0)
    }
    # harmless contrasts carry "no toxic character"; a self-harm disclosure's are unknown
    fig = by_text["Stop it, you're killing me, I can't breathe from laughing."]
    assert fig.tox_chars == frozenset() and _at(fig, "toxicity") == 0
    assert all(e.tox_chars is None for e in mixed if e.meta["id"] == "self_harm_disclosure")


class _Gold:
    """Scores each harm category with its dev label (0.9 in it, 0.1 not, 0.5 unknown),
    except ``sexual``, scored at random."""

    heads = CATEGORY_HEADS

    def __init__(self, rows):
        self.table = {e.text: e.seq for e in rows}

    def predict_arrays(self, texts):
        gold = np.array([self.table[t] for t in texts], dtype=float)
        seq = np.where(np.isnan(gold), 0.5, np.where(gold == 1, 0.9, 0.1))
        seq[:, CATEGORY_HEADS.index("sexual")] = np.random.default_rng(0).random(len(texts))
        return (seq,)


def test_category_points_are_chosen_on_the_dev_parts(data_dir):
    from tactful.train._thresholds import (
        CATEGORY_MIN_ROWS,
        _harmless_chat_rows,
        choose_category_thresholds,
    )

    dev = category_examples(data_dir, split="dev")
    train = category_examples(data_dir)
    assert dev and not {e.text for e in dev} & {e.text for e in train}
    assert {e.source for e in dev} == {*CATEGORY_SOURCES, "category_templates"}
    dev += template_category_examples("dev") + _harmless_chat_rows(data_dir)
    th, fig = choose_category_thresholds(_Gold(dev), data_dir, CATEGORIES)
    cats = fig["categories"]
    assert fig["category_dev_rows"] == len(dev) and list(cats) == list(CATEGORIES)
    hate = cats["hate"]
    # every point in (0.1, 0.9] is perfect: the one-standard-error rule takes the highest
    assert (hate["auc"], hate["f1"], th["hate"]) == (1.0, 1.0, 0.9)
    assert hate["positives"] >= CATEGORY_MIN_ROWS and hate["rows"] > hate["positives"]
    assert cats["sexual"]["auc"] < 0.75 and th["sexual"] != 0.125
    few = [c for c in CATEGORIES if cats[c]["positives"] < CATEGORY_MIN_ROWS]
    assert all(th[c] == 0.5 and "auc" not in cats[c] for c in few)
    with pytest.raises(ValueError, match=r"split must be 'train' or 'dev', not 'test'\."):
        category_examples(data_dir, split="test")


def test_the_card_says_what_each_category_learned_from(data_dir, tmp_path):
    from tactful.train._ship import _category_card

    (tmp_path / "train.json").write_text('{"config": {"category_caps": {"conan": 10}}}')
    dev = {"categories": {"hate": {"rows": 5, "positives": 2, "threshold": 0.4}}}
    card = _category_card(tmp_path, CATEGORY_HEADS, data_dir, dev)
    assert list(card) == list(CATEGORIES)
    hate = card["hate"]
    assert hate["llama_guard_3"] == ["S10"] and hate["dev"]["threshold"] == 0.4
    conan = [e for e in category_examples(data_dir, {"conan": 10}) if e.source == "conan"]
    assert hate["train_examples"]["conan"] == sum(_at(e, "hate") == 1 for e in conan) <= 10
    assert hate["train_examples"]["toxigen_seeds"] > 100
    assert (
        card["sexual/minors"]["train_examples"]["category_templates"] == 54
    )  # 9 templates, 6 kids
    assert card["violence"]["dev"] is None


def test_template_rows_carry_the_categories_their_words_imply():
    train = template_category_examples("train", max_per_template=5)
    dev = template_category_examples("dev")
    assert not {e.text for e in train} & {e.text for e in dev}
    by_id = {e.meta["id"]: e for e in train + dev}
    col = CATEGORY_HEADS.index
    insult = by_id["dv-ins01-000"]
    assert insult.text.startswith("Nobody asked you, you ")
    assert insult.seq[col("harassment")] == 1.0 and insult.seq[col("insult")] == 1.0
    assert all(insult.seq[col(c)] == 0.0 for c in CATEGORIES if c != "harassment")
    threat = by_id["dv-thd01-000"]
    assert threat.text == "Keep talking, Tom, and tomorrow I will kill you myself."
    assert [threat.seq[col(c)] for c in ("threat", "harassment/threatening", "self-harm")] == [
        1.0,
        1.0,
        0.0,
    ]
    assert np.isnan(threat.seq[col("violence/graphic")])
    harmless = [e for e in dev if e.meta["id"].startswith(("dv-inc", "dv-tec", "dv-hco"))]
    assert harmless and all(e.seq[col(c)] == 0.0 for e in harmless for c in CATEGORIES)
    assert {e.source for e in train + dev} == {"template_categories"}
    with pytest.raises(ValueError, match=r"split must be 'train' or 'dev', not 'test'\."):
        template_category_examples("test")
