"""Distillation: the teacher's cached logits, the student's soft targets and loss."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="distillation needs the train extra (torch)")
pytest.importorskip("transformers", reason="distillation needs the train extra")

from tactful._heads import SEQ_HEADS
from tactful.errors import ConfigError
from tactful.train import (
    Example,
    MultiTaskModel,
    TrainConfig,
    load_tokenizer,
    run_layers,
    teacher_logits,
)
from tactful.train._loop import collate, encode, loss_fn


@pytest.fixture(scope="module")
def teacher(tmp_path_factory):
    run = tmp_path_factory.mktemp("teacher")
    torch.manual_seed(0)
    model = MultiTaskModel("minilm", layers=1)
    torch.save(model.state_dict(), run / "model.pt")
    (run / "train.json").write_text(json.dumps({"config": {"encoder": "minilm", "layers": 1}}))
    return run


def test_a_student_keeps_the_first_layers(teacher):
    assert MultiTaskModel("minilm", layers=2).layers == 2
    assert len(MultiTaskModel("minilm", layers=2).encoder.encoder.layer) == 2
    assert run_layers(teacher) == 1
    with pytest.raises(ValueError, match=r"layers must be in \[1, 6\], not 7"):
        MultiTaskModel("minilm", layers=7)


def test_teacher_logits_per_character_and_cached(teacher, tmp_path, monkeypatch):
    import tactful.train._distill as d

    monkeypatch.setattr(d, "TEACHER_PART", 2)
    texts = ["you are an idiot", "hi", "  spaced  out ", " ".join(["word"] * 400)]
    seq, chars = teacher_logits(teacher, texts, tmp_path / "cache")
    assert seq.shape == (4, len(SEQ_HEADS)) and np.isfinite(seq).all()
    assert [len(c) for c in chars] == [len(t) for t in texts]
    # characters no token covers (spaces, the text beyond 256 tokens) have no target
    assert np.isnan(chars[0][3]) and not np.isnan(chars[0][0]) and not np.isnan(chars[0][4])
    assert np.isnan(chars[2][:2]).all() and not np.isnan(chars[2][2])
    assert not np.isnan(chars[3][0]) and np.isnan(chars[3][-1])
    # "idiot" is one token: the same logit on all its characters
    assert len(set(chars[0][11:16].tolist())) == 1
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [
        "part-0000.npz",
        "part-0001.npz",
    ]
    # a second call reads the parts instead of running the teacher
    import tactful.train._run as r

    real_load_run = r.load_run
    monkeypatch.setattr(r, "load_run", lambda _: pytest.fail("the teacher ran again"))
    seq2, chars2 = teacher_logits(teacher, texts, tmp_path / "cache")
    assert np.allclose(seq2, seq) and {c.dtype for c in chars2} == {np.dtype(np.float32)}
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(chars, chars2, strict=True))
    # other texts: only the ones not cached run, into a new part; the order is the caller's
    ran: list[list[str]] = []
    real = d._torch_teacher

    def counting(*args, **kw):
        run = real(*args, **kw)

        def wrapped(chunk):
            ran.append(list(chunk))
            return run(chunk)

        return wrapped

    monkeypatch.setattr(d, "_torch_teacher", counting)
    monkeypatch.setattr(r, "load_run", real_load_run)
    seq3, chars3 = teacher_logits(teacher, ["other", texts[1], texts[0]], tmp_path / "cache")
    assert ran == [["other"]]
    assert np.allclose(seq3[1:], seq[[1, 0]]) and len(chars3[0]) == len("other")
    assert np.array_equal(chars3[2], chars[0], equal_nan=True)
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [
        "part-0000.npz",
        "part-0001.npz",
        "part-0002.npz",
    ]
    with pytest.raises(ConfigError, match="distinct texts"):
        teacher_logits(teacher, ["a", "a"], tmp_path / "other")


def test_soft_token_targets_are_the_mean_over_the_students_characters():
    tok = load_tokenizer(max_len=32)
    text = "you idiot"
    soft = np.full(len(text), np.nan, dtype=np.float32)
    soft[0:3] = 1.0  # "you"
    soft[4:6] = 2.0  # the teacher split "idiot" as "id" + "iot"
    soft[6:9] = 5.0
    ex = Example(text, "t", [math.nan] * len(SEQ_HEADS), soft_seq=[0.5] * 8, soft_tox=soft)
    enc = encode(ex, tok)
    words = [tok.id_to_token(i) for i in enc.ids]
    assert words == ["[CLS]", "you", "idiot", "[SEP]"]
    assert math.isnan(enc.soft_tok[0]) and math.isnan(enc.soft_tok[3])
    assert enc.soft_tok[1] == 1.0
    assert enc.soft_tok[2] == pytest.approx((2 * 2.0 + 3 * 5.0) / 5)


def test_distillation_loss_mixes_hard_and_soft_terms():
    cfg = TrainConfig(alpha=0.25, temperature=2.0, tok_weight=1.0, type_weight=0.0)
    tok = load_tokenizer(max_len=32)
    seq = [math.nan] * len(SEQ_HEADS)
    seq[0] = 1.0
    ex = Example("hello there", "t", seq, soft_seq=[0.0] * len(SEQ_HEADS))
    batch = collate([encode(ex, tok)])
    n = batch["input_ids"].shape[1]
    s = torch.full((1, len(SEQ_HEADS)), 0.5)
    t = torch.zeros((1, n, 6))
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    hard = bce(torch.tensor([0.5]), torch.tensor([1.0]))
    soft = bce(s.flatten() / 2, torch.full((len(SEQ_HEADS),), 0.5)) * 4
    got = loss_fn(s, t, batch, cfg)
    assert float(got) == pytest.approx(float(0.75 * hard + 0.25 * soft), rel=1e-6)
    # without a teacher the same batch is the hard loss alone
    plain = collate([encode(Example("hello there", "t", seq), tok)])
    assert float(loss_fn(s, t, plain, cfg)) == pytest.approx(float(hard), rel=1e-6)


def test_token_alpha_weighs_the_token_term_apart_from_the_heads():
    tok = load_tokenizer(max_len=32)
    seq = [math.nan] * len(SEQ_HEADS)
    text = "you idiot"
    soft = np.full(len(text), 3.0, dtype=np.float32)
    gold = Example(text, "t", seq, tox_chars=frozenset(range(4, 9)), soft_tox=soft)
    batch = collate([encode(gold, tok)])
    n = batch["input_ids"].shape[1]
    s = torch.zeros((1, len(SEQ_HEADS)))
    t = torch.zeros((1, n, 6))
    t[0, :, 0] = 0.5
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    hard = bce(torch.tensor([0.5, 0.5]), torch.tensor([0.0, 1.0]))
    soft_term = bce(torch.tensor([0.25, 0.25]), torch.sigmoid(torch.tensor([1.5, 1.5]))) * 4

    def loss(**kw):
        cfg = TrainConfig(tok_weight=1.0, type_weight=0.0, temperature=2.0, **kw)
        return float(loss_fn(s, t, batch, cfg))

    assert loss(alpha=0.5) == pytest.approx(float(0.5 * hard + 0.5 * soft_term), rel=1e-6)
    assert loss(alpha=0.5, token_alpha=0.2) == pytest.approx(
        float(0.8 * hard + 0.2 * soft_term), rel=1e-6
    )
    # token_alpha 0: the gold characters alone, also where the teacher spoke
    assert loss(alpha=0.5, token_alpha=0.0) == pytest.approx(float(hard), rel=1e-6)
    # ... and a text with no gold spans then teaches the token head nothing
    bare = collate([encode(Example(text, "t", seq, soft_tox=soft), tok)])
    cfg = TrainConfig(tok_weight=1.0, type_weight=0.0, token_alpha=0.0)
    assert float(loss_fn(s, t, bare, cfg)) == 0.0
    with pytest.raises(ValueError, match="token_alpha"):
        TrainConfig(token_alpha=1.5)


def test_gold_spans_only_keeps_the_teacher_off_texts_with_gold_spans():
    from tactful.train._distill import with_soft_targets

    seq = [math.nan] * len(SEQ_HEADS)
    texts = ["you idiot", "hello"]
    exs = [Example(texts[0], "t", seq, tox_chars=frozenset({4})), Example(texts[1], "t", seq)]
    logits = np.arange(2 * len(SEQ_HEADS), dtype=np.float32).reshape(2, -1)
    chars = [np.full(9, 2.0, np.float32), np.full(5, -1.0, np.float32)]
    both = with_soft_targets(exs[::-1], texts, logits, chars)
    assert both[0].soft_seq == [float(v) for v in logits[1]] and both[0].soft_tox is chars[1]
    assert both[1].soft_tox is chars[0]
    gold_only = with_soft_targets(exs, texts, logits, chars, soft_on_gold=False)
    assert gold_only[0].soft_tox is None and gold_only[0].soft_seq == [float(v) for v in logits[0]]
    assert gold_only[1].soft_tox is chars[1]


def test_hard_only_sources_keep_their_labels_where_they_have_them():
    from tactful.train._distill import with_soft_targets

    tox, ia = SEQ_HEADS.index("toxicity"), SEQ_HEADS.index("identity_attack")
    labelled = [math.nan] * len(SEQ_HEADS)
    labelled[tox] = labelled[ia] = 1.0
    texts = ["women are lesser people", "hello"]
    exs = [Example(texts[0], "derogation", labelled), Example(texts[1], "derogation", labelled)]
    exs.append(Example(texts[0], "toxicchat", labelled))
    logits = np.arange(2 * len(SEQ_HEADS), dtype=np.float32).reshape(2, -1)
    chars = [np.zeros(len(t), np.float32) for t in texts]
    out = with_soft_targets(exs, texts, logits, chars, hard_only=frozenset({"derogation"}))
    # the labelled heads of a hard-only row get no teacher target; the others keep it
    assert math.isnan(out[0].soft_seq[tox]) and math.isnan(out[0].soft_seq[ia])
    others = [i for i in range(len(SEQ_HEADS)) if i not in (tox, ia)]
    assert [out[0].soft_seq[i] for i in others] == [float(logits[0][i]) for i in others]
    assert math.isnan(out[1].soft_seq[tox]) and out[1].soft_tox is chars[1]
    # a row of another source with the same text keeps every teacher target
    assert out[2].soft_seq == [float(v) for v in logits[0]]


def test_soft_templates_keep_the_teacher_where_it_agrees_with_the_label():
    from tactful.train._distill import with_soft_targets

    tox, ia = SEQ_HEADS.index("toxicity"), SEQ_HEADS.index("identity_attack")
    toxic, harmless = [math.nan] * len(SEQ_HEADS), [math.nan] * len(SEQ_HEADS)
    toxic[tox] = toxic[ia] = 1.0
    harmless[tox] = 0.0
    texts = ["they should lose the vote", "they should keep the vote"]
    exs = [Example(texts[0], "exclusion", toxic), Example(texts[1], "exclusion", harmless)]
    logits = np.zeros((2, len(SEQ_HEADS)), np.float32)
    logits[0, tox], logits[0, ia] = 2.5, -1.0  # right on toxicity, wrong on identity_attack
    logits[1, tox] = 0.75  # wrong: calls the harmless text toxic
    chars = [np.zeros(len(t), np.float32) for t in texts]
    hard = frozenset({"exclusion"})
    out = with_soft_targets(exs, texts, logits, chars, hard_only=hard, soft_where_agrees=True)
    assert out[0].soft_seq[tox] == 2.5 and math.isnan(out[0].soft_seq[ia])
    assert math.isnan(out[1].soft_seq[tox])
    # heads without a label keep the teacher either way
    assert out[1].soft_seq[ia] == 0.0
    # ... and without the option every labelled head is gold-only
    plain = with_soft_targets(exs, texts, logits, chars, hard_only=hard)
    assert math.isnan(plain[0].soft_seq[tox])
    logits[1, tox] = -0.75
    (agree,) = with_soft_targets(
        exs[1:], texts, logits, chars, hard_only=hard, soft_where_agrees=True
    )
    assert agree.soft_seq[tox] == -0.75


def test_toxigen_adds_statements_no_other_example_holds(data_dir):
    from collections import Counter

    from tactful.datasets import load_dataset
    from tactful.train._distill import distill_examples

    base, seed = distill_examples(data_dir, stage=10, extra=0, derogation=True)
    more, seed2 = distill_examples(data_dir, stage=10, extra=0, derogation=True, toxigen=500)
    assert seed2 == seed and len(more) == len(base) + 500
    added = Counter(e.text for e in more) - Counter(e.text for e in base)
    assert sum(added.values()) == 500 and len(added) == 500
    assert not set(added) & {e.text for e in base}
    new = [e for e in more if e.text in added]
    assert {e.source for e in new} == {"toxigen"}
    # ToxiGen's label teaches offensive and identity attack; toxicity is the teacher's
    label = {r.text: r.label for r in load_dataset("toxigen", None, data_dir)}
    tox, off, ia = (SEQ_HEADS.index(h) for h in ("toxicity", "offensive", "identity_attack"))
    assert all(math.isnan(e.seq[tox]) for e in new)
    assert all(e.seq[off] == e.seq[ia] == label[e.text] for e in new)
    assert 0 < sum(e.seq[off] for e in new) < 500
    # a seeded sample: the same rows again, and other rows for another seed
    again, _ = distill_examples(data_dir, stage=10, extra=0, derogation=True, toxigen=500)
    assert [e.text for e in again] == [e.text for e in more]
    other, _ = distill_examples(data_dir, stage=10, seed=1, extra=0, derogation=True, toxigen=500)
    assert {e.text for e in other if e.source == "toxigen"} != {
        e.text for e in more if e.source == "toxigen"
    }


def test_the_delicate_templates_join_the_student_and_keep_their_gold_labels(data_dir):
    from tactful.train._distill import HARD_ONLY_SOURCES, distill_examples
    from tactful.train._templates import DELICATE_SOURCE

    base, seed = distill_examples(data_dir, extra=0, derogation=True)
    both, seed2 = distill_examples(data_dir, extra=0, derogation=True, delicate=True)
    added = [e for e in both if e.source == DELICATE_SOURCE]
    assert seed2 == seed and len(added) == 357 and len(both) == len(base) + 357
    assert DELICATE_SOURCE in HARD_ONLY_SOURCES


def test_the_menace_templates_join_the_student_and_keep_their_gold_labels(data_dir):
    from tactful.train._distill import HARD_ONLY_SOURCES, distill_examples
    from tactful.train._templates import DELICATE_SOURCE, DEROGATION_SOURCE, MENACE_SOURCE

    base, seed = distill_examples(data_dir, extra=0, derogation=True, delicate=True)
    more, seed2 = distill_examples(data_dir, extra=0, derogation=True, delicate=True, menace=True)
    added = [e for e in more if e.source == MENACE_SOURCE]
    assert seed2 == seed and len(added) == 359 and len(more) == len(base) + 359
    # the teacher never learned these rows: their labelled heads learn from gold only
    assert {DEROGATION_SOURCE, DELICATE_SOURCE, MENACE_SOURCE} <= HARD_ONLY_SOURCES


def test_the_exclusion_injection_technical_contrast_templates_join_the_student(data_dir):
    from collections import Counter

    from tactful.train._distill import HARD_ONLY_SOURCES, distill_examples, with_soft_targets
    from tactful.train._templates import (
        CONTRAST_SOURCE,
        DELICATE_SOURCE,
        DEROGATION_SOURCE,
        EXCLUSION_SOURCE,
        INJECTION_SOURCE,
        MENACE_SOURCE,
        TECHNICAL_SOURCE,
    )

    own = {"derogation": True, "delicate": True, "menace": True}
    base, seed = distill_examples(data_dir, stage=10, extra=0, **own)
    more, seed2 = distill_examples(
        data_dir,
        stage=10,
        extra=0,
        **own,
        exclusion=True,
        injection=True,
        technical=True,
        contrast=True,
    )
    counts = Counter(e.source for e in more)
    assert seed2 == seed
    sources = (EXCLUSION_SOURCE, INJECTION_SOURCE, TECHNICAL_SOURCE, CONTRAST_SOURCE)
    assert [counts[s] for s in sources] == [1440, 256, 93, 309]
    assert set(sources) <= HARD_ONLY_SOURCES
    assert len(more) == len(base) + 1440 + 256 + 93 + 309
    assert Counter(e.text for e in more if e.source not in HARD_ONLY_SOURCES) == Counter(
        e.text for e in base if e.source not in HARD_ONLY_SOURCES
    )
    # the toxicity head gets the exclusion rows' gold labels (1, and 0 for the inclusions)
    tox = SEQ_HEADS.index("toxicity")
    exclusions = [e for e in more if e.source == EXCLUSION_SOURCE]
    assert Counter(e.seq[tox] for e in exclusions) == {1.0: 720, 0.0: 720}
    # the jailbreak head gets the injections' gold labels (1, and 0 for the lookalikes)
    jb = SEQ_HEADS.index("jailbreak")
    injections = [e for e in more if e.source == INJECTION_SOURCE]
    assert Counter(e.seq[jb] for e in injections) == {1.0: 192, 0.0: 64}
    # ... and no teacher target where it has one
    e = next(e for e in injections if e.seq[jb] == 1.0)
    logits = np.zeros((1, len(SEQ_HEADS)), np.float32)
    (soft,) = with_soft_targets(
        [e], [e.text], logits, [np.zeros(len(e.text))], hard_only=HARD_ONLY_SOURCES
    )
    assert math.isnan(soft.soft_seq[jb]) and math.isnan(soft.soft_seq[SEQ_HEADS.index("toxicity")])
    # the teacher never learned these rows: their labelled heads learn from gold only
    assert HARD_ONLY_SOURCES == {
        DEROGATION_SOURCE,
        DELICATE_SOURCE,
        MENACE_SOURCE,
        EXCLUSION_SOURCE,
        INJECTION_SOURCE,
        TECHNICAL_SOURCE,
        CONTRAST_SOURCE,
    }


def _student_run(root, name, *, layers=1, holdout=None):
    run = root / name
    run.mkdir()
    torch.manual_seed(1)
    torch.save(MultiTaskModel("minilm", layers=layers).state_dict(), run / "model.pt")
    cfg = {"encoder": "minilm", "layers": layers, "stage": 7, "holdout": holdout}
    (run / "train.json").write_text(json.dumps({"config": cfg}))
    return run / "model.pt"


def test_a_later_stage_of_a_student_starts_from_its_weights(teacher, tmp_path, monkeypatch):
    """``distill(init=...)``: stage 10's rates, the init run's layers, its weights."""
    import tactful.train._distill as d

    init = _student_run(tmp_path, "s7")
    start = torch.load(init, weights_only=True)
    seen = {}

    def examples(data_dir, **kw):
        seen.update(kw)
        labels = [math.nan] * len(SEQ_HEADS)
        labels[SEQ_HEADS.index("toxicity")] = 1.0
        return [Example("you are an idiot", "toxicchat", labels)], 10

    monkeypatch.setattr(d, "distill_examples", examples)
    out = d.distill(teacher, tmp_path / "s10", init=init, extra=0, epochs=1, export=False)
    assert seen["stage"] == 10
    cfg = json.loads((out / "train.json").read_text())["config"]
    assert (cfg["stage"], cfg["lr"], cfg["head_lr"]) == (10, 2e-5, 1e-4)
    assert (cfg["init"], cfg["layers"], cfg["seed"]) == (str(init), 1, 10)
    assert f"initialized from {init}" in (out / "train.log").read_text()
    after = torch.load(out / "model.pt", weights_only=True)
    # one step at 2e-5 from the init weights: near them, not at a fresh draw
    emb = "encoder.embeddings.word_embeddings.weight"
    assert 0 < (after[emb] - start[emb]).abs().max().item() < 1e-3
    # without init the student is stage 7 at the distillation rates
    seen.clear()
    out7 = d.distill(teacher, tmp_path / "s7b", layers=1, extra=0, epochs=1, export=False)
    cfg7 = json.loads((out7 / "train.json").read_text())["config"]
    assert seen["stage"] == 7 and (cfg7["stage"], cfg7["lr"], cfg7["head_lr"]) == (7, 5e-5, 1e-3)
    assert cfg7["init"] is None


def test_a_later_stage_of_a_student_is_checked_before_any_work(teacher, tmp_path):
    from tactful.train import distill

    init = _student_run(tmp_path, "s7", layers=1)
    fold = _student_run(tmp_path, "s7f1", layers=1, holdout="1/2")
    out = tmp_path / "next"
    cases = [
        ({"init": tmp_path / "none.pt"}, f"The init weights {tmp_path / 'none.pt'} do not exist."),
        (
            {"init": init, "layers": 4},
            (
                f"{init} kept 1 encoder layers, not 4: a later stage keeps its init's layers "
                "(leave out --layers)."
            ),
        ),
        (
            {"init": init, "holdout": "1/2"},
            (
                f"{init} left out no ToxicChat fold but this run leaves out ToxicChat fold 1/2: "
                "every stage of a cross-fitting chain leaves out the same fold (--holdout)."
            ),
        ),
        (
            {"init": fold, "holdout": "2/2"},
            (
                f"{fold} left out ToxicChat fold 1/2 but this run leaves out ToxicChat fold 2/2: "
                "every stage of a cross-fitting chain leaves out the same fold (--holdout)."
            ),
        ),
        (
            {"init": init, "stage": 7},
            (
                "The 'stage' parameter of distill must be one of 2, 3, 4, 5, 6, 8, 9, 10 or None. "
                "Got 7 instead."
            ),
        ),
    ]
    for kw, says in cases:
        with pytest.raises(ConfigError) as err:
            distill(teacher, out, **kw)
        assert str(err.value) == f"[{ConfigError.code}] {says}"
    assert not out.exists()
