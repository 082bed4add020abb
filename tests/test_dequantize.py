"""A shipped model folder read back into weights: the state a later student leg starts
from (``tactful train student OUT --init MODEL_FOLDER``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tactful._heads import CATEGORY_HEADS
from tactful.errors import ConfigError
from tactful.moderators.builtin import BuiltinModerator, default_model_dir
from tactful.taxonomy import EXTRA_CATEGORIES

torch = pytest.importorskip("torch", reason="the train extra's torch is not installed")
onnx = pytest.importorskip("onnx", reason="onnx is not installed")

from tactful.train._dequantize import dequantized_state, is_dequantizable


def _names(layers: int) -> set[str]:
    names = {
        f"encoder.embeddings.{p}.weight"
        for p in ("word_embeddings", "position_embeddings", "token_type_embeddings")
    }
    names |= {"encoder.embeddings.LayerNorm.weight", "encoder.embeddings.LayerNorm.bias"}
    for i in range(layers):
        pre = f"encoder.encoder.layer.{i}."
        for lin in (
            "attention.self.query",
            "attention.self.key",
            "attention.self.value",
            "attention.output.dense",
            "intermediate.dense",
            "output.dense",
            "attention.output.LayerNorm",
            "output.LayerNorm",
        ):
            names |= {pre + lin + ".weight", pre + lin + ".bias"}
    return names | {"seq_head.weight", "seq_head.bias", "tok_head.weight", "tok_head.bias"}


def test_the_shipped_model_reads_back_into_every_weight():
    folder = default_model_dir("builtin")
    assert is_dequantizable(folder) and not is_dequantizable(folder / "model.onnx")
    state, info = dequantized_state(folder)
    card = json.loads((folder / "card.json").read_text())
    # the grafted rows of tactful's own categories are left out: a student trains the 21
    assert card["heads"] == [*CATEGORY_HEADS, *EXTRA_CATEGORIES]
    assert info["version"] == card["version"] and info["heads"] == list(CATEGORY_HEADS)
    assert info["dropped_heads"] == list(EXTRA_CATEGORIES)
    assert info["layers"] == 6 and info["model.onnx sha256"] == card["sha256"]["model.onnx"]
    assert set(state) == _names(6)
    assert state["encoder.embeddings.word_embeddings.weight"].shape == (30522, 384)
    assert state["encoder.encoder.layer.5.attention.self.value.weight"].shape == (384, 384)
    assert state["encoder.encoder.layer.0.intermediate.dense.weight"].shape == (1536, 384)
    assert state["seq_head.weight"].shape == (21, 384) and state["tok_head.weight"].shape == (
        6,
        384,
    )
    assert all(t.dtype == torch.float32 for t in state.values())
    # the mapping is the graph's: each weight quantizes back to the stored int8 exactly
    from onnx import numpy_helper

    inits = {
        t.name: numpy_helper.to_array(t)
        for t in onnx.load(str(folder / "model.onnx")).graph.initializer
    }
    # the graft made the head float: its first 21 rows, as stored
    assert np.array_equal(state["seq_head.weight"].numpy(), inits["model.seq_head.weight"][:21])
    assert np.array_equal(state["seq_head.bias"].numpy(), inits["model.seq_head.bias"][:21])
    qkv = inits["Attention_2_qkv_weight_quantized"]
    qkv_s = inits["Attention_2_qkv_weight_scale"]
    key = state["encoder.encoder.layer.2.attention.self.key.weight"].numpy()
    assert np.array_equal(np.rint(key.T / qkv_s[384:768]), qkv[:, 384:768])
    assert np.array_equal(
        state["encoder.encoder.layer.2.attention.self.key.bias"].numpy(),
        inits["Attention_2_qkv_bias"][384:768],
    )


def test_an_int8_head_reads_back_as_it_was_exported(tmp_path):
    """The head as the export quantizes it (builtin up to 3.0.0): each row quantizes back
    to the stored int8, within half a step of the float head; every other weight is the
    float-headed graph's."""
    from int8_head import int8_seq_head
    from onnx import numpy_helper

    src = default_model_dir("builtin")
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "card.json").write_text((src / "card.json").read_text())
    model = int8_seq_head(onnx.load(str(src / "model.onnx")), tmp_path / "q")
    onnx.save(model, str(folder / "model.onnx"))
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    assert "model.seq_head.weight" not in inits
    state, info = dequantized_state(folder)
    float_state, _ = dequantized_state(src)
    assert info["heads"] == list(CATEGORY_HEADS) and state["seq_head.weight"].shape == (21, 384)
    seq_q = inits["model.seq_head.weight_Transposed_quantized"][:, :21]
    seq_s = inits["model.seq_head.weight_Transposed_scale"][:21]
    assert np.array_equal(np.rint(state["seq_head.weight"].numpy().T / seq_s), seq_q)
    diff = np.abs(state["seq_head.weight"].numpy() - float_state["seq_head.weight"].numpy())
    # model 3.4.0's 21 rows are its leg's exported int8 rows, made float by the graft of
    # tactful's own two rows: they quantize back to themselves
    assert (diff.max(axis=1) <= seq_s / 2 * (1 + 1e-6)).all() and diff.max() == 0
    assert all(torch.equal(state[k], float_state[k]) for k in state if not k.startswith("seq"))


def test_a_graph_that_is_not_the_fused_export_is_refused_in_one_line(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    src = default_model_dir("builtin")
    (folder / "card.json").write_text((src / "card.json").read_text())
    m = onnx.load(str(src / "model.onnx"))
    kept = [t for t in m.graph.initializer if not t.name.startswith("Attention_")]
    del m.graph.initializer[:]
    m.graph.initializer.extend(kept)
    onnx.save(m, str(folder / "model.onnx"))
    with pytest.raises(ConfigError) as err:
        dequantized_state(folder)
    assert str(err.value) == (
        f"[T010] {folder / 'model.onnx'} is not a fused dynamic int8 export: no "
        "'Attention_0_qkv_weight_quantized' (only such a graph can be read back into weights)."
    )


def test_a_float_head_that_is_not_one_transposed_gemm_is_refused_in_one_line(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    src = default_model_dir("builtin")
    (folder / "card.json").write_text((src / "card.json").read_text())
    m = onnx.load(str(src / "model.onnx"))
    [gemm] = [n for n in m.graph.node if "model.seq_head.weight" in n.input]
    for a in gemm.attribute:
        if a.name == "transB":
            a.i = 0
    onnx.save(m, str(folder / "model.onnx"))
    with pytest.raises(ConfigError) as err:
        dequantized_state(folder)
    assert str(err.value) == (
        "[T010] The model's sequence head is neither one float Gemm of model.seq_head.weight "
        "(transB=1) nor a dynamically quantized one (MatMulInteger): tactful train "
        "student --init cannot refit it."
    )


def test_a_student_leg_from_a_model_folder_checks_its_heads_and_layers(tmp_path):
    from tactful.train._student import _init_from_model

    folder = default_model_dir("builtin")
    with pytest.raises(ConfigError) as err:
        _init_from_model(folder, tmp_path / "a", categories=False, layers=None)
    assert str(err.value) == (
        f"[T010] --init {folder}: its card lists 21 heads, this run trains 8 (add --categories)."
    )
    with pytest.raises(ConfigError) as err:
        _init_from_model(folder, tmp_path / "b", categories=True, layers=4)
    assert str(err.value) == f"[T010] --init {folder}: its encoder keeps 6 layers, not --layers 4."
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    info = _init_from_model(folder, tmp_path / "c", categories=True, layers=6)
    card = json.loads((folder / "card.json").read_text())
    assert info["dir"] == str(folder) and info["version"] == card["version"]
    saved = torch.load(tmp_path / "c" / "init.pt", weights_only=True)
    assert set(saved) == _names(6)


def test_the_weights_read_back_score_as_the_shipped_graph():
    pytest.importorskip("transformers", reason="the train extra is not installed")
    from tactful.train import MultiTaskModel

    folder = default_model_dir("builtin")
    state, info = dequantized_state(folder)
    model = MultiTaskModel("minilm", layers=info["layers"], heads=info["heads"]).eval()
    model.load_state_dict(state, strict=True)
    mod = BuiltinModerator(model_dir=str(folder))
    texts = ["You are a worthless idiot", "How do I kill a python process?", "I love my dog"]
    probs, *_ = mod.predict_arrays(texts)
    for text, want in zip(texts, probs, strict=True):
        ids = torch.tensor([mod._tokenizer.encode(text, add_special_tokens=True).ids])
        with torch.no_grad():
            seq, _ = model(ids, torch.ones_like(ids))
        # the float graph against the int8 one (activations quantized per call), on the
        # heads a student trains (the card's first 21)
        assert np.abs(torch.sigmoid(seq)[0].numpy() - want[: len(info["heads"])]).max() < 0.1
    assert probs[0][0] > 0.5 > probs[1][0]


def test_a_run_from_a_model_folder_continues_the_models_chain(tmp_path):
    from tactful.train._provenance import card_stages, run_stages

    folder = default_model_dir("builtin")
    _, info = dequantized_state(folder)
    before = card_stages(json.loads((folder / "card.json").read_text()))
    assert info["stages"] == before and len(before) >= 1
    run = tmp_path / "leg"
    run.mkdir()
    config = {"init": str(run / "init.pt"), "seed": 7, "stage": 7}
    (run / "train.json").write_text(json.dumps({"config": config, "init_model": info}))
    stages = run_stages(run)
    assert stages[:-1] == before
    assert (stages[-1]["stage"], stages[-1]["seed"]) == (7, 7)
    # a record whose init leads back to itself is refused, not followed forever
    (run / "train.json").write_text(json.dumps({"config": config}))
    with pytest.raises(ConfigError) as err:
        run_stages(run)
    assert str(err.value) == f"[T010] {run / 'train.json'}: a run's init leads back to itself."
