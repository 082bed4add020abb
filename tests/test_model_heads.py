"""A model's sequence heads: the eight, then harm categories; a run records them and
every reader of the run (load_run, soup, ship) builds the model with them."""

from __future__ import annotations

import json

import pytest

from tactful._heads import CATEGORY_HEADS, SEQ_HEADS, check_heads

torch = pytest.importorskip("torch", reason="the train extra's torch is not installed")
pytest.importorskip("transformers", reason="the train extra is not installed")


def test_check_heads_takes_the_eight_then_categories_once():
    assert check_heads(SEQ_HEADS) == SEQ_HEADS
    assert check_heads(list(CATEGORY_HEADS)) == CATEGORY_HEADS
    assert len(CATEGORY_HEADS) == 21
    # tactful's own categories are harm categories too, after the 13 (a refit grafts them)
    wider = (*CATEGORY_HEADS, "intellectual-property", "misinformation")
    assert check_heads(wider) == wider
    for bad in (SEQ_HEADS[1:], (*SEQ_HEADS, "gore"), (*SEQ_HEADS, "sexual", "sexual")):
        with pytest.raises(ValueError, match=r": a model's heads are toxicity, offensive, "):
            check_heads(bad)


def test_a_model_with_category_heads_round_trips_through_its_run(tmp_path):
    from tactful.train import MultiTaskModel
    from tactful.train._run import load_run, run_heads

    torch.manual_seed(0)
    model = MultiTaskModel("minilm", layers=1, heads=CATEGORY_HEADS).eval()
    assert model.heads == CATEGORY_HEADS and model.seq_head.out_features == 21
    ids = torch.tensor([[101, 2017, 2024, 102]])
    mask = torch.ones_like(ids)
    with torch.no_grad():
        seq, tok = model(ids, mask)
    assert seq.shape == (1, 21) and tok.shape == (1, 4, 6)
    run = tmp_path / "run"
    run.mkdir()
    torch.save(model.state_dict(), run / "model.pt")
    info = {"config": {"encoder": "minilm", "layers": 1}, "heads": list(CATEGORY_HEADS)}
    (run / "train.json").write_text(json.dumps(info))
    assert run_heads(run) == CATEGORY_HEADS
    with torch.no_grad():
        assert torch.equal(load_run(run)(ids, mask)[0], seq)  # a strict load: 21 wide
    # a run written before category heads has the eight
    (run / "train.json").write_text(json.dumps({"config": {"encoder": "minilm"}}))
    assert run_heads(run) == SEQ_HEADS
