"""Cross-fitted operating points (issue 11 item 4): ToxicChat train folds, runs that
leave one out, and a ship that chooses the toxicity and jailbreak points on dev
plus every train row scored by the run that did not see it.

The ship test needs no torch: its "runs" are folders whose export is model 1.2.0's
ONNX graph, so every fold's scores are 1.2.0's and the chosen points can be
recomputed here from 1.2.0's scores of ToxicChat dev and train.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import tactful.train as tt
from tactful._heads import SEQ_HEADS
from tactful.datasets import load_dataset
from tactful.errors import ConfigError
from tactful.metrics import precision_recall_f1
from tactful.moderators.builtin import BuiltinModerator, default_model_dir, load_card

# --------------------------------------------------------------- the folds


def _toxicchat_folder(root: Path, n: int = 40) -> Path:
    """A data folder with a tiny ToxicChat (``n`` train prompts, 4 test): every 4th
    prompt toxic, every 10th a jailbreak (toxic too)."""
    (root / "toxicchat").mkdir(parents=True)

    def instance(i: int) -> dict:
        toxic, jb = int(i % 4 == 0 or i % 10 == 0), int(i % 10 == 0)
        return {
            "id": f"id{i}",
            "instance": f"prompt number {i}",
            "annotations": {
                "toxicity": {"majority_human": str(toxic)},
                "jailbreaking": {"majority_human": str(jb)},
            },
        }

    for split, rows in (("train", n), ("test", 4)):
        body = {"instances": [instance(i) for i in range(rows)]}
        (root / "toxicchat" / f"toxicchat0124_{split}_human.json").write_text(json.dumps(body))
    return root


def test_folds_cover_train_stratified_and_fixed(tmp_path):
    data = _toxicchat_folder(tmp_path / "data")
    train = load_dataset("toxicchat", "train", data)
    folds = tt.toxicchat_folds(data, 2)
    assert set(folds) == {r.text for r in train}
    assert set(folds.values()) == {1, 2}
    # each (toxicity, jailbreak) pair is dealt round-robin: the folds differ by at
    # most one row per pair
    for key in {(r.labels["toxicity"], r.labels["jailbreak"]) for r in train}:
        per = Counter(
            folds[r.text] for r in train if (r.labels["toxicity"], r.labels["jailbreak"]) == key
        )
        assert abs(per[1] - per[2]) <= 1, (key, per)
    assert tt.toxicchat_folds(data, 2) == folds  # seeded
    three = tt.toxicchat_folds(data, 3)
    assert set(three.values()) == {1, 2, 3} and set(three) == set(folds)
    with pytest.raises(ValueError, match="cross-fitting needs at least 2 folds, not 1"):
        tt.toxicchat_folds(data, 1)


@pytest.mark.parametrize("bad", ["0/2", "3/2", "1/1", "1", "a/b", "1/2/3", ""])
def test_holdout_must_be_k_of_n(bad):
    from tactful.train._distill import parse_holdout

    with pytest.raises(ConfigError) as err:
        parse_holdout(bad)
    assert str(err.value).endswith(
        "holdout must be K/N, fold K of N ToxicChat train folds with 1 <= K <= N and N >= 2, "
        f"not {bad!r}."
    )
    assert parse_holdout("2/3") == (2, 3) and parse_holdout(None) is None


def test_distill_examples_leave_the_fold_out(data_dir):
    full, seed = tt.distill_examples(data_dir, extra=500)
    folds = tt.toxicchat_folds(data_dir, 2)
    for k in (1, 2):
        ex, run_seed = tt.distill_examples(data_dir, extra=500, holdout=f"{k}/2")
        assert run_seed == seed
        assert not any(folds.get(e.text) == k for e in ex)
        # every other example stays, in the same order
        assert [e.text for e in ex] == [e.text for e in full if folds.get(e.text) != k]
        assert any(folds.get(e.text) == 3 - k for e in ex)


# ----------------------------------------------------- runs and the ship


def _fake_run(root: Path, name: str, holdout: str | None = None, **config) -> Path:
    """A run folder whose export is model 1.2.0's graph and whose config is stage 7's."""
    run = root / name
    (run / "export").mkdir(parents=True)
    model = default_model_dir("builtin")
    for f in ("model.onnx", "tokenizer.json"):
        shutil.copy(model / f, run / "export" / f)
    (run / "export" / "export.json").write_text(json.dumps({"quantization": "dynamic"}))
    (run / "model.pt").write_bytes(b"weights of " + name.encode())
    cfg = {"stage": 7, "seed": 6, "encoder": "minilm", "layers": 4, "spans": 6000, **config}
    if holdout:
        cfg["holdout"] = holdout
    heads = json.loads((model / "card.json").read_text())["heads"]
    (run / "train.json").write_text(
        json.dumps({"config": cfg, "encoder": "minilm", "heads": heads})
    )
    return run


def test_crossfit_runs_are_checked(tmp_path):
    final = _fake_run(tmp_path, "final")
    one, two = _fake_run(tmp_path, "f1", "1/2"), _fake_run(tmp_path, "f2", "2/2")
    assert tt.crossfit_runs(final, [two, one]) == [(two, 2, 2), (one, 1, 2)]

    def refused(runs, message):
        with pytest.raises(ConfigError) as err:
            tt.crossfit_runs(final, runs)
        assert str(err.value).endswith(message)

    refused([one], "cross-fitting needs one run per fold, K = 1..N of one N; got 1/2.")
    refused([one, one], "cross-fitting needs one run per fold, K = 1..N of one N; got 1/2, 1/2.")
    three = _fake_run(tmp_path, "f3", "3/3")
    refused([one, two, three], "got 1/2, 2/2, 3/3.")
    refused([final], f"{final} left no ToxicChat fold out: train it with --holdout K/N.")
    other = _fake_run(tmp_path, "other", "2/2", spans=0, layers=6)
    refused([one, other], f"{other} was not trained like {final}: layers, spans differ.")
    # a setting the final run's train.json predates counts as its default
    newer = _fake_run(tmp_path, "newer", "2/2", delicate=False)
    assert tt.crossfit_runs(final, [one, newer]) == [(one, 1, 2), (newer, 2, 2)]
    odd = _fake_run(tmp_path, "odd", "2/2", delicate=True)
    refused([one, odd], f"{odd} was not trained like {final}: delicate differ.")
    calm = _fake_run(tmp_path, "calm", "2/2", menace=False)
    assert tt.crossfit_runs(final, [one, calm]) == [(one, 1, 2), (calm, 2, 2)]
    menacing = _fake_run(tmp_path, "menacing", "2/2", menace=True)
    refused([one, menacing], f"{menacing} was not trained like {final}: menace differ.")
    for name in ("exclusion", "injection", "technical", "contrast"):
        # a final run whose train.json predates the flag trained without it
        off = _fake_run(tmp_path, f"no-{name}", "2/2", **{name: False})
        assert tt.crossfit_runs(final, [one, off]) == [(one, 1, 2), (off, 2, 2)]
        on = _fake_run(tmp_path, f"with-{name}", "2/2", **{name: True})
        refused([one, on], f"{on} was not trained like {final}: {name} differ.")
    (two / "export" / "model.onnx").unlink()
    refused([one, two], f"{two} holds no export/model.onnx: tactful train export it.")
    refused(
        [tmp_path / "nowhere"],
        f"{tmp_path / 'nowhere'} is not a training run: it holds no train.json.",
    )


def test_crossfit_runs_of_a_later_stage_follow_the_init_chain(tmp_path):
    """A stage-8 fold starts from its own stage-7 fold: ``init`` differs from the shipped
    run's, so the check walks the chain and asks the same of every stage."""
    s7 = _fake_run(tmp_path, "s7")
    final = _fake_run(tmp_path, "s8", stage=8, seed=8, init=str(s7 / "model.pt"))
    s7f = [_fake_run(tmp_path, f"s7f{k}", f"{k}/2") for k in (1, 2)]
    folds = [
        _fake_run(tmp_path, f"s8f{k}", f"{k}/2", stage=8, seed=8, init=str(s7f[k - 1] / "model.pt"))
        for k in (1, 2)
    ]
    assert tt.crossfit_runs(final, folds) == [(folds[0], 1, 2), (folds[1], 2, 2)]

    def refused(fold, message):
        with pytest.raises(ConfigError) as err:
            tt.crossfit_runs(final, [folds[0], fold])
        assert str(err.value).endswith(message)

    # its stage 7 saw fold 2
    leak = _fake_run(tmp_path, "leak", "2/2", stage=8, seed=8, init=str(s7f[0] / "model.pt"))
    refused(leak, f"{leak} was not trained like {final}: init holdout differ.")
    # its stage 7 was trained otherwise
    odd7 = _fake_run(tmp_path, "odd7", "2/2", spans=0)
    odd = _fake_run(tmp_path, "odd", "2/2", stage=8, seed=8, init=str(odd7 / "model.pt"))
    refused(odd, f"{odd} was not trained like {final}: init spans differ.")
    # from the pretrained encoder, or from weights that are no run
    bare = _fake_run(tmp_path, "bare", "2/2", stage=8, seed=8)
    refused(bare, f"{bare} was not trained like {final}: init differ.")
    (tmp_path / "loose.pt").write_bytes(b"")
    loose = _fake_run(tmp_path, "loose", "2/2", stage=8, seed=8, init=str(tmp_path / "loose.pt"))
    refused(loose, f"{loose} was not trained like {final}: init differ.")


def _fake_soup(root: Path, name: str, *runs: Path) -> Path:
    """A soup folder (``tactful train soup``'s train.json) with an export."""
    soup = _fake_run(root, name)
    (soup / "train.json").write_text(
        json.dumps({"soup_of": [str(r) for r in runs], "encoder": "minilm", "layers": 4})
    )
    return soup


def test_crossfit_runs_of_a_soup_are_soups_of_fold_runs(tmp_path):
    """A soup of a stage-8 and a stage-9 run (both from one stage 7) is cross-fitted by
    soups of the same two stages' fold runs, member by member."""
    s7 = _fake_run(tmp_path, "s7")
    s8 = _fake_run(tmp_path, "s8", stage=8, seed=8, init=str(s7 / "model.pt"))
    s9 = _fake_run(tmp_path, "s9", stage=9, seed=9, init=str(s7 / "model.pt"))
    final = _fake_soup(tmp_path, "soup", s8, s9)
    s7f = [_fake_run(tmp_path, f"s7f{k}", f"{k}/2") for k in (1, 2)]
    s8f, s9f = (
        [
            _fake_run(
                tmp_path,
                f"s{st}f{k}",
                f"{k}/2",
                stage=st,
                seed=st,
                init=str(s7f[k - 1] / "model.pt"),
            )
            for k in (1, 2)
        ]
        for st in (8, 9)
    )
    folds = [_fake_soup(tmp_path, f"soupf{k}", s8f[k - 1], s9f[k - 1]) for k in (1, 2)]
    assert tt.crossfit_runs(final, folds[::-1]) == [(folds[1], 2, 2), (folds[0], 1, 2)]

    def refused(fold, message):
        with pytest.raises(ConfigError) as err:
            tt.crossfit_runs(final, [folds[0], fold])
        assert str(err.value) == "[T010] " + message

    refused(
        s8f[1],
        f"{s8f[1]} is not a soup of 2 runs like {final}: soup the fold runs of its runs, "
        "in the same order.",
    )
    refused(
        _fake_soup(tmp_path, "half", s8f[1]),
        f"{tmp_path / 'half'} is not a soup of 2 runs like {final}: soup the fold runs of its "
        "runs, in the same order.",
    )
    swapped = _fake_soup(tmp_path, "swapped", s9f[1], s8f[1])
    refused(swapped, f"{s9f[1]} was not trained like {s8}: seed, stage differ.")
    mixed = _fake_soup(tmp_path, "mixed", s8f[1], s9f[0])
    refused(mixed, f"The runs of {mixed} left out different ToxicChat folds: 1/2, 2/2.")
    # a member whose stage 7 saw the fold
    leak = _fake_run(tmp_path, "leak", "2/2", stage=9, seed=9, init=str(s7f[0] / "model.pt"))
    refused(
        _fake_soup(tmp_path, "leaky", s8f[1], leak),
        f"{leak} was not trained like {s9}: init holdout differ.",
    )


def test_drop_fold_keeps_the_other_examples_in_order(tmp_path):
    from tactful.train._mixture import Example, drop_fold

    data = _toxicchat_folder(tmp_path / "data")
    folds = tt.toxicchat_folds(data, 2)
    texts = [f"prompt number {i}" for i in range(40)] + ["not in toxicchat"]
    examples = [Example(text=t, source="toxicchat", seq=[]) for t in texts * 2]
    for k in (1, 2):
        kept = drop_fold(examples, data, (k, 2))
        assert [e.text for e in kept] == [t for t in texts * 2 if folds.get(t) != k]
        assert "not in toxicchat" in {e.text for e in kept}
        assert len(kept) == 2 * (41 - sum(f == k for f in folds.values()))


def test_run_holdout_needs_an_init_that_left_out_the_same_fold(tmp_path):
    def stage(name, holdout):
        run = tmp_path / name
        run.mkdir()
        (run / "model.pt").write_bytes(b"")
        cfg = {"encoder": "minilm", "stage": 2, "holdout": holdout}
        (run / "train.json").write_text(json.dumps({"config": cfg}))
        return run / "model.pt"

    cases = [
        (
            stage("full", None),
            "1/2",
            "no ToxicChat fold but this run leaves out ToxicChat fold 1/2",
        ),
        (
            stage("f2", "2/2"),
            "1/2",
            "ToxicChat fold 2/2 but this run leaves out ToxicChat fold 1/2",
        ),
        (stage("f1", "1/2"), None, "ToxicChat fold 1/2 but this run leaves out no ToxicChat fold"),
    ]
    for init, holdout, says in cases:
        with pytest.raises(ConfigError) as err:
            tt.run_training(None, tmp_path / "next", init=init, holdout=holdout)
        assert str(err.value).endswith(
            f"{init} left out {says}: every stage of a cross-fitting chain leaves out the same "
            "fold (--holdout)."
        )
    with pytest.raises(ConfigError, match="holdout must be K/N"):
        tt.run_training(None, tmp_path / "next", holdout="3/2")
    assert not (tmp_path / "next").exists()


def test_ship_chooses_the_points_on_dev_and_cross_fitted_train_rows(tmp_path, data_dir):
    final = _fake_run(tmp_path, "final")
    folds = [_fake_run(tmp_path, f"f{k}", f"{k}/2") for k in (1, 2)]
    card = tt.ship(
        final, tmp_path / "pkg", data_dir, version="9.0.0", crossfit=[str(f) for f in folds]
    )
    dev = load_dataset("toxicchat", "dev", data_dir)
    train = load_dataset("toxicchat", "train", data_dir)
    assert card["dev"]["toxicchat_crossfit_rows"] == len(dev) + len(train) == 2801
    assert "toxicchat_dev_toxicity_f1" not in card["dev"]
    assert card["dev"]["command"].startswith(
        f"tactful train ship {final} --version 9.0.0 --crossfit {folds[0]} --crossfit {folds[1]} "
    )
    assert "(2-fold cross-fitting)" in card["dev"]["command"]
    # the fold runs as data too, in fold order, and read back from the written card
    assert card["dev"]["crossfit_runs"] == [str(folds[0]), str(folds[1])]
    written = json.loads((tmp_path / "pkg" / "card.json").read_text())
    assert tt.card_crossfit_runs(written) == folds
    # every fold run is 1.2.0 here, so the rows' scores are 1.2.0's
    mod = BuiltinModerator(model_dir=str(default_model_dir("builtin")))
    rows = dev + train
    seq, *_ = mod.predict_arrays([r.text for r in rows])
    for head in ("toxicity", "jailbreak"):
        y = np.array([r.labels[head] for r in rows], dtype=int)
        want = tt.best_f1_threshold(y, seq[:, SEQ_HEADS.index(head)], resamples=tt.DEV_RESAMPLES)
        assert card["thresholds"][head] == want[0]
        assert card["dev"][f"toxicchat_crossfit_{head}_f1"] == round(want[1], 4)
    assert (
        json.loads((tmp_path / "pkg" / "card.json").read_text())["thresholds"] == card["thresholds"]
    )
    # no temporary fold folder is left beside the package
    assert sorted(p.name for p in (tmp_path / "pkg").iterdir()) == [
        "card.json",
        "model.onnx",
        "tokenizer.json",
    ]


# A share of the harmless dev sets the packaged model (3.0.0) reaches only above its best
# ToxicChat point: its held-out inclusion rows pass 0.79 at 0.9 (docs/research/model-3.md).
SHARE = 0.8


def test_ship_with_harmless_pass_keeps_the_toxicity_point_at_or_above_the_floor(tmp_path, data_dir):
    final = _fake_run(tmp_path, "final")
    folds = [_fake_run(tmp_path, f"f{k}", f"{k}/2") for k in (1, 2)]
    card = tt.ship(
        final,
        tmp_path / "pkg",
        data_dir,
        version="9.0.0",
        crossfit=[str(f) for f in folds],
        harmless_pass=SHARE,
    )
    # every run is the packaged model here: recompute its scores of each harmless
    # dev set, the floor, and the best point from the floor up
    mod = BuiltinModerator(model_dir=str(default_model_dir("builtin")))
    tox = SEQ_HEADS.index("toxicity")
    sets = tt.harmless_dev_texts(data_dir)
    assert set(sets) == {"identity", "inclusion", "technical", "lookalike", "contrast"}
    scores = {name: mod.predict_arrays(texts)[0][:, tox] for name, texts in sets.items()}
    floor = tt.harmless_floor(scores, SHARE)
    rows = load_dataset("toxicchat", "dev", data_dir) + load_dataset("toxicchat", "train", data_dir)
    seq, *_ = mod.predict_arrays([r.text for r in rows])
    y = np.array([r.labels["toxicity"] for r in rows], dtype=int)
    free = tt.best_f1_threshold(y, seq[:, tox], resamples=tt.DEV_RESAMPLES)
    bound = tt.best_f1_threshold(y, seq[:, tox], resamples=tt.DEV_RESAMPLES, lowest=floor)
    assert free[0] < floor  # the constraint binds for this model at SHARE
    assert card["thresholds"]["toxicity"] == bound[0] >= floor
    assert card["dev"]["toxicchat_crossfit_toxicity_f1"] == round(bound[1], 4)
    assert card["dev"]["harmless_floor"] == floor
    assert card["dev"]["harmless_dev_pass"] == {
        name: round(float((s < bound[0]).mean()), 4) for name, s in scores.items()
    }
    assert min(card["dev"]["harmless_dev_pass"].values()) >= SHARE
    # the card's curve: F1 and every set's pass rate at each grid point, the floor the
    # first point where all pass, the chosen point's figures those recorded above
    curve = card["dev"]["toxicity_curve"]
    grid = curve["threshold"]
    assert grid == tt.THRESHOLD_GRID.tolist()
    assert set(curve) == {"threshold", "f1", *(f"{name}_pass" for name in scores)}
    i = grid.index(card["thresholds"]["toxicity"])
    assert curve["f1"][i] == card["dev"]["toxicchat_crossfit_toxicity_f1"]
    assert {name: curve[f"{name}_pass"][i] for name in scores} == card["dev"]["harmless_dev_pass"]
    passing = [all(curve[f"{name}_pass"][j] >= SHARE for name in scores) for j in range(len(grid))]
    assert grid[passing.index(True)] == floor and all(passing[passing.index(True) :])
    j = grid.index(0.5)
    want = precision_recall_f1(y.tolist(), (seq[:, tox] >= 0.5).astype(int).tolist())["f1"]
    assert curve["f1"][j] == round(want, 4)
    assert curve["contrast_pass"][j] == round(float((scores["contrast"] < 0.5).mean()), 4)
    # the jailbreak point is chosen as without the constraint
    jb = np.array([r.labels["jailbreak"] for r in rows], dtype=int)
    want_jb = tt.best_f1_threshold(
        jb, seq[:, SEQ_HEADS.index("jailbreak")], resamples=tt.DEV_RESAMPLES
    )
    assert card["thresholds"]["jailbreak"] == want_jb[0]
    assert f"--crossfit {folds[1]} --harmless-pass {SHARE} (" in card["dev"]["command"]
    assert f"every harmless dev set passes >= {SHARE}" in card["dev"]["command"]
    # a share no point reaches stops the ship with the sets that fall short
    with pytest.raises(ConfigError) as err:
        tt.ship(final, tmp_path / "pkg2", data_dir, version="9.0.0", harmless_pass=1.0)
    assert "No toxicity point up to 0.95 lets every harmless dev set pass >= 1.0: at 0.95, " in (
        str(err.value)
    )


def test_ship_refuses_a_fold_exported_otherwise(tmp_path, data_dir):
    final = _fake_run(tmp_path, "final")
    folds = [_fake_run(tmp_path, f"f{k}", f"{k}/2") for k in (1, 2)]
    (folds[1] / "export" / "export.json").write_text(json.dumps({"quantization": "weights"}))
    with pytest.raises(ConfigError) as err:
        tt.ship(final, tmp_path / "pkg", data_dir, version="9.0.0", crossfit=folds)
    assert not (tmp_path / "pkg").exists()  # nothing written
    assert str(err.value).endswith(
        f"{folds[1]}'s export has quantization weights, {final}'s dynamic: "
        f"tactful train export {folds[1]} --quantize dynamic."
    )


def test_distill_refuses_a_bad_holdout_before_any_work(tmp_path):
    from typer.testing import CliRunner

    from tactful.cli import app

    out = tmp_path / "student"
    result = CliRunner().invoke(
        app,
        [
            "train",
            "distill",
            str(default_model_dir("builtin")),
            "--out",
            str(out),
            "--holdout",
            "3/2",
        ],
    )
    assert result.exit_code == ConfigError.exit_code
    assert result.output == (
        f"error: [{ConfigError.code}] holdout must be K/N, fold K of N ToxicChat train folds "
        "with 1 <= K <= N and N >= 2, not '3/2'.\n"
    )
    assert not out.exists()


@pytest.mark.needs_model("builtin-large")
def test_card_crossfit_runs_of_a_card_shipped_before_they_were_recorded():
    # builtin-large 2.2.0 names its fold runs only in its dev command
    card = load_card(name="builtin-large")
    assert "crossfit_runs" not in card["dev"]
    assert tt.card_crossfit_runs(card) == [Path("runs/L10df1"), Path("runs/L10df2")]
    # a card chosen on ToxicChat dev alone has none
    assert (
        tt.card_crossfit_runs({"dev": {"command": "tactful train ship runs/x --version 1"}}) == []
    )
    assert tt.card_crossfit_runs({}) == []
    # a recorded list wins over the command
    recorded = {"dev": {"command": "... --crossfit runs/a", "crossfit_runs": ["runs/b"]}}
    assert tt.card_crossfit_runs(recorded) == [Path("runs/b")]
