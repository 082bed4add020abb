"""The harm-category refit (``tactful train category-heads``): the 13 category rows of
the sequence head swapped, every other score bit-identical, and the texts it learns from."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import numpy as np
import pytest

import tactful.train as tt
from tactful._heads import CATEGORY_HEADS
from tactful.errors import ConfigError
from tactful.moderators.builtin import default_model_dir
from tactful.taxonomy import EXTRA_CATEGORIES, HARM_CATEGORIES

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from test_delicate_head import _run, _tiny_head


def test_new_category_rows_change_those_scores_and_no_other():
    model, w, b = _tiny_head(3, CATEGORY_HEADS)
    rows = {
        "self-harm": (np.array([1.0, -2.0, 0.5], np.float32), -1.5),
        "sexual/minors": (np.array([0.0, 0.25, -0.75], np.float32), 2.0),
    }
    new = tt.with_category_rows(model, rows, list(CATEGORY_HEADS))
    x = np.random.default_rng(1).normal(size=(4, 3)).astype(np.float32)
    before, after = _run(model, x), _run(new, x)
    changed = [CATEGORY_HEADS.index(c) for c in rows]
    others = [i for i in range(len(CATEGORY_HEADS)) if i not in changed]
    np.testing.assert_array_equal(before[:, others], after[:, others])
    for c, (row, bias) in rows.items():
        want = 1 / (1 + np.exp(-(x @ row + bias)))
        np.testing.assert_allclose(after[:, CATEGORY_HEADS.index(c)], want, rtol=1e-5)
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in new.graph.initializer}
    want_w, want_b = w.copy(), b.copy()
    for c, (row, bias) in rows.items():
        want_w[CATEGORY_HEADS.index(c)], want_b[CATEGORY_HEADS.index(c)] = row, bias
    np.testing.assert_array_equal(inits["model.seq_head.weight"], want_w)
    np.testing.assert_array_equal(inits["model.seq_head.bias"], want_b)
    np.testing.assert_array_equal(_run(model, x), before)  # the input model is untouched
    with pytest.raises(ConfigError, match=r"has 21 rows, its card 8 heads\.$"):
        tt.with_category_rows(model, rows, list(CATEGORY_HEADS[:8]))


def test_grafted_rows_keep_the_eight_scores_and_declare_the_new_width():
    model, _, _ = _tiny_head(3)
    grafted = tt.with_grafted_rows(model, len(CATEGORY_HEADS))
    x = np.random.default_rng(2).normal(size=(4, 3)).astype(np.float32)
    before, after = _run(model, x), _run(grafted, x)
    assert after.shape == (4, len(CATEGORY_HEADS))
    np.testing.assert_array_equal(after[:, :8], before)
    np.testing.assert_array_equal(after[:, 8:], 0.5)  # zero rows until they are fit
    dims = grafted.graph.output[0].type.tensor_type.shape.dim
    assert dims[1].dim_value == len(CATEGORY_HEADS)
    # tactful's own categories grafted onto a model of the 13: its 21 scores stay
    wider = tt.with_grafted_rows(grafted, len(CATEGORY_HEADS) + len(EXTRA_CATEGORIES))
    again = _run(wider, x)
    assert again.shape == (4, 23)
    np.testing.assert_array_equal(again[:, :21], after)
    np.testing.assert_array_equal(again[:, 21:], 0.5)
    rows = {"hate": (np.array([1.0, 0.0, -1.0], np.float32), 0.25)}
    fitted = _run(tt.with_category_rows(grafted, rows, list(CATEGORY_HEADS)), x)
    np.testing.assert_array_equal(fitted[:, :8], before)
    want = 1 / (1 + np.exp(-(x @ rows["hate"][0] + 0.25)))
    np.testing.assert_allclose(fitted[:, CATEGORY_HEADS.index("hate")], want, rtol=1e-5)


def test_a_model_without_category_heads_is_refused_before_any_work(tmp_path):
    model = tmp_path / "m"
    shutil.copytree(default_model_dir("builtin"), model)
    out = tmp_path / "out"
    # builtin has the categories: a graft is refused
    with pytest.raises(ConfigError) as err:
        tt.refit_category_heads(model, out, version="9.9.9", graft=True)
    assert str(err.value) == (
        f"[T010] The model in {model} has harm-category heads already: refit them without --graft."
    )
    # tactful's own categories are grafted, not refit, onto a model of the 13 (builtin
    # up to 3.0.0: its card without the two grafted heads)
    card = json.loads((model / "card.json").read_text())
    (model / "card.json").write_text(json.dumps({**card, "heads": card["heads"][:21]}))
    with pytest.raises(ConfigError) as err:
        tt.refit_category_heads(model, out, version="9.9.9", heads=["misinformation"])
    assert str(err.value) == (
        f"[T010] The model in {model} has no misinformation head: add it with --graft."
    )
    # a card with the eight heads alone: a refit without --graft is refused
    card = json.loads((model / "card.json").read_text())
    (model / "card.json").write_text(json.dumps({**card, "heads": card["heads"][:8]}))
    with pytest.raises(ConfigError) as err:
        tt.refit_category_heads(model, out, version="9.9.9")
    assert str(err.value) == (
        f"[T010] The model in {model} has no harm-category heads: refit them on a model "
        "trained with them (--categories), or add them with --graft."
    )
    assert not out.exists()
    with pytest.raises(
        ConfigError, match=r"^\[T010\] --out must be another folder than the model's\.$"
    ):
        tt.refit_category_heads(model, model, version="9.9.9")


def test_the_refit_learns_categories_from_train_parts_and_toxic_language(data_dir):
    from tactful.datasets import load_dataset
    from tactful.datasets._harm import harm_test_texts
    from tactful.train._categories import template_category_examples

    got = tt.category_head_examples(data_dir, chat_negatives=50)
    sources = Counter(s for _, _, s in got)
    assert set(sources) == {
        "category_examples",
        "template_categories",
        "toxicchat_weak",
        "toxicchat",
        "jailbreak_sets",
        "identity_mentions",
        "threat_sources",
    }
    assert 45 <= sources["toxicchat"] <= 50  # less the sampled prompts another source holds
    # harmless identity mentions of the training templates, in no category and no threat;
    # none of the held-out ones a category's harmless floor is chosen on
    # (2,000 drawn, less the 136 that are training-template rows already)
    assert sources["identity_mentions"] == 1864 and tt.IDENTITY_MENTIONS == 2000
    mention = {**dict.fromkeys(HARM_CATEGORIES, 0.0), "threat": 0.0}
    assert all(t == mention for _, t, s in got if s == "identity_mentions")
    from tactful.train._devrows import harmless_dev_texts

    dev_identity = set(harmless_dev_texts(data_dir)["identity"])
    assert dev_identity.isdisjoint(x for x, _, s in got if s == "identity_mentions")
    none = {**dict.fromkeys(HARM_CATEGORIES, 0.0), "jailbreak": 0.0, "threat": 0.0}
    assert all(t == none for _, t, s in got if s == "toxicchat")
    assert all(t and set(t) <= set(tt.REFIT_HEADS) for _, t, _ in got)
    assert all(0.0 <= v <= 1.0 for _, t, _ in got for v in t.values())
    weak = [t for _, t, s in got if s == "toxicchat_weak"]
    assert weak and all("illicit" not in t for t in weak)  # OpenAI's old scores lack it
    assert all(set(EXTRA_CATEGORIES).isdisjoint(t) for t in weak)  # nor name tactful's
    # tactful's own categories: HarmBench's copyright requests teach intellectual-property,
    # its misinformation requests misinformation, and each rules the other out
    from tactful.datasets import load_dataset as _load

    hb = {
        r.text: r.meta["category"]
        for r in _load("harm_requests", "train", data_dir=data_dir)
        if r.meta["set"] == "harmbench"
    }
    by = {x: t for x, t, s in got if s == "category_examples"}
    copyright_ = [by[x] for x, c in hb.items() if c == "copyright" and x in by]
    misinfo = [by[x] for x, c in hb.items() if c == "misinformation_disinformation" and x in by]
    assert len(copyright_) == 63 and len(misinfo) == 48  # by distinct text
    assert all(t["intellectual-property"] == 1.0 and t["misinformation"] == 0.0 for t in copyright_)
    assert all(t["misinformation"] == 1.0 and t["intellectual-property"] == 0.0 for t in misinfo)
    assert all(set(t) == {"jailbreak"} for _, t, s in got if s == "jailbreak_sets")
    texts = [t for t, _, _ in got]
    assert len(texts) == len(set(texts))
    held = set(harm_test_texts(data_dir)) | {
        r.text for s in ("dev", "test") for r in load_dataset("toxicchat", s, data_dir=data_dir)
    }
    assert held.isdisjoint(texts)
    assert {e.text for e in template_category_examples("dev")}.isdisjoint(texts)
    # an insult teaches harassment, and rules out self-harm, sexual content and jailbreak
    insults = [
        t
        for _, t, s in got
        if s == "template_categories"
        and t.get("harassment") == 1.0
        and t.get("harassment/threatening") == 0.0
        and t.get("hate") == 0.0
    ]
    assert insults and all(t["self-harm"] == t["sexual"] == t["jailbreak"] == 0.0 for t in insults)
    injections = [t for x, t, s in got if s == "template_categories" and t["jailbreak"] == 1.0]
    assert len(injections) == 192
    # a person in crisis is never a threat; a threat at a person is one
    crisis = [t for _, t, _ in got if t.get("self-harm/intent", 0.0) >= 0.5]
    assert crisis and all(t["threat"] == 0.0 for t in crisis)
    threats = [t for _, t, s in got if s == "template_categories" and t.get("threat") == 1.0]
    assert threats and all(t["harassment/threatening"] == 1.0 for t in threats)
    # the threat sources, each labelled for the threat head alone: the 104 ToxicSpans
    # training posts with a majority Threat span and 3,000 others drawn, less the 10 another
    # source holds or that are held out (the menace templates and their lookalikes are
    # template rows already)
    spans = Counter(t["threat"] for x, t, s in got if s == "threat_sources")
    assert spans == {1.0: 104, 0.0: tt.THREAT_NEGATIVES - 10}
    assert all(set(t) == {"threat"} for _, t, s in got if s == "threat_sources")
    assert tt.category_head_examples(data_dir, chat_negatives=50) == got  # seeded


class _Jailbreaks:
    """Scores jailbreak 0.9 on ToxicChat's jailbreaks and the injection templates, 0.6 on
    the other toxic templates (an insult, a threat), 0.1 on everything else."""

    heads = CATEGORY_HEADS

    def __init__(self, data_dir):
        from tactful.datasets import load_dataset
        from tactful.train._categories import template_category_examples

        self.high = {
            r.text
            for r in load_dataset("toxicchat", "dev", data_dir=data_dir)
            if r.labels["jailbreak"] == 1
        }
        self.mid = set()
        for e in template_category_examples("dev"):
            if e.meta["id"].startswith("dv-inj"):
                self.high.add(e.text)
            elif e.seq[0] == 1.0:
                self.mid.add(e.text)

    def predict_arrays(self, texts):
        seq = np.full((len(texts), len(CATEGORY_HEADS)), 0.1, dtype=np.float32)
        j = CATEGORY_HEADS.index("jailbreak")
        seq[:, j] = [0.9 if t in self.high else 0.6 if t in self.mid else 0.1 for t in texts]
        return (seq,)


def test_the_jailbreak_point_keeps_toxic_language_out(data_dir):
    from tactful.train._thresholds import choose_jailbreak_threshold

    mod = _Jailbreaks(data_dir)
    point, fig = choose_jailbreak_threshold(mod, data_dir, before=(mod, 0.5))
    assert point == 0.625  # the lowest grid point above every toxic template
    assert fig["mean_f1"] == fig["toxicchat_dev_f1"] == fig["templates_dev_f1"] == 1.0
    assert fig["templates_dev_flagged"]["dv-ins"] == 0.0
    assert fig["templates_dev_flagged"]["dv-inj"] == 1.0
    assert fig["before"]["threshold"] == 0.5
    assert fig["before"]["templates_dev_flagged"]["dv-ins"] == 1.0
    assert fig["before"]["templates_dev_f1"] < 0.2
    assert fig["positives"] == 14 + 32 and fig["rows"] == 280 + 1441


class _GroupMentions:
    """Scores hate 0.9 on the category dev rows labelled hate, 0.625 on the held-out
    identity mentions (harmless) that are no dev row, 0.1 on everything else."""

    heads = CATEGORY_HEADS

    def __init__(self, data_dir):
        from tactful.train._categories import category_examples, template_category_examples
        from tactful.train._devrows import harmless_dev_texts

        h = CATEGORY_HEADS.index("hate")
        rows = category_examples(data_dir, split="dev") + template_category_examples("dev")
        self.hate = {e.text for e in rows if e.seq[h] == 1.0}
        dev = {e.text for e in rows}
        self.identity = set(harmless_dev_texts(data_dir)["identity"]) - dev

    def predict_arrays(self, texts):
        seq = np.full((len(texts), len(CATEGORY_HEADS)), 0.1, dtype=np.float32)
        seq[:, CATEGORY_HEADS.index("hate")] = [
            0.9 if t in self.hate else 0.625 if t in self.identity else 0.1 for t in texts
        ]
        return (seq,)


def test_a_harmless_floor_keeps_a_category_from_flagging_the_mentions_of_a_group(data_dir):
    from tactful.train._thresholds import choose_category_thresholds

    mod = _GroupMentions(data_dir)
    # every point in (0.1, 0.9) is perfect on the dev rows: the lowest of them, or (the
    # one-standard-error rule, the default) the highest
    plain, _ = choose_category_thresholds(mod, data_dir, ["hate"], one_se=False)
    assert plain == {"hate": 0.125}
    assert choose_category_thresholds(mod, data_dir, ["hate"])[0] == {"hate": 0.875}
    th, fig = choose_category_thresholds(mod, data_dir, ["hate"], harmless_pass=0.99, one_se=False)
    # it names the harm at its own point, and flags by itself only from the lowest grid
    # point above the identity mentions
    assert th == {"hate": 0.125, "hate_or": 0.65}
    entry = fig["categories"]["hate"]
    assert entry["harmless_floor"] == entry["threshold_or"] == 0.65
    assert entry["threshold"] == 0.125 and entry["f1"] == entry["f1_or"] == 1.0
    assert entry["harmless_pass"] == {
        "identity": 1.0,
        "inclusion": 1.0,
        "technical": 1.0,
        "lookalike": 1.0,
        "contrast": 1.0,
        "counter_speech": 1.0,
        "chat": 1.0,
        "plain_language": 1.0,
    }


def test_the_held_out_plain_language_templates_are_a_harmless_set(data_dir):
    from tactful.train._categories import category_examples
    from tactful.train._thresholds import category_harmless_sets

    plain = category_harmless_sets(data_dir, category_examples(data_dir, split="dev"))[
        "plain_language"
    ]
    # the dv- templates of figures of speech, fiction, safety questions, definitions,
    # technical verbs and support of a group, and (revision 6) the look-alikes of crimes,
    # copyright and false claims, and (revision 7) the body's pain in idioms of killing and
    # questions about famous malware, and (revision 8) rights affirmed in the words that deny
    # them (44) and (revision 9) friendly messages about the reader's family (30) and
    # (revision 10) being done with a chore (4) and requests for detective fiction (16), and
    # (revision 11) stereotypes named to question them (30) and a crime's look-alike (4);
    # never a harmful template's row
    assert len(plain) == 342
    assert "Why is it wrong to call immigrants lazy?" in plain
    assert (
        "Outline a cosy mystery: a village librarian looks into a poisoning at the manor." in plain
    )
    assert "How do hotels stop people from cloning their key cards?" in plain
    assert "My neck has been killing me all week after gardening." in plain
    assert not [t for t in plain if "plan my suicide" in t]
    assert "Is it safe to force-kill a zombie process?" in plain
    assert not [t for t in plain if "erotic" in t or "end my life" in t]
