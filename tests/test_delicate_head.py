"""The delicate-head refit (``tactful train delicate-head``): one row of the sequence
head swapped, every other score bit-identical, and the texts it learns from."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import numpy as np
import pytest

import tactful.train as tt
from tactful._heads import SEQ_HEADS
from tactful.errors import ConfigError
from tactful.moderators.builtin import default_model_dir, load_card

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

D = SEQ_HEADS.index("delicate")


def _tiny_head(
    hidden: int = 4, heads: tuple[str, ...] = SEQ_HEADS
) -> tuple[object, np.ndarray, np.ndarray]:
    """pooled [N, hidden] -> Gemm(model.seq_head.weight, transB=1) -> Sigmoid -> seq."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    w = rng.normal(size=(len(heads), hidden)).astype(np.float32)
    b = rng.normal(size=len(heads)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node(
                "Gemm",
                ["pooled", "model.seq_head.weight", "model.seq_head.bias"],
                ["logits"],
                transB=1,
            ),
            helper.make_node("Sigmoid", ["logits"], ["seq"]),
        ],
        "tiny",
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [None, hidden])],
        [helper.make_tensor_value_info("seq", TensorProto.FLOAT, [None, len(heads)])],
        [
            numpy_helper.from_array(w, "model.seq_head.weight"),
            numpy_helper.from_array(b, "model.seq_head.bias"),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), w, b


def _run(model: object, x: np.ndarray) -> np.ndarray:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(["seq"], {"pooled": x})[0]


def test_a_new_delicate_row_changes_the_delicate_score_and_no_other():
    model, w, b = _tiny_head()
    row = np.array([0.5, -1.0, 2.0, 0.25], np.float32)
    new = tt.with_delicate_row(model, row, -0.75)
    x = np.random.default_rng(1).normal(size=(5, 4)).astype(np.float32)
    before, after = _run(model, x), _run(new, x)
    others = [i for i in range(len(SEQ_HEADS)) if i != D]
    np.testing.assert_array_equal(before[:, others], after[:, others])
    np.testing.assert_allclose(after[:, D], 1 / (1 + np.exp(-(x @ row - 0.75))), rtol=1e-6)
    # only that row and that bias entry of the initializers change
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in new.graph.initializer}
    want_w, want_b = w.copy(), b.copy()
    want_w[D], want_b[D] = row, -0.75
    np.testing.assert_array_equal(inits["model.seq_head.weight"], want_w)
    np.testing.assert_array_equal(inits["model.seq_head.bias"], want_b)
    # the graph keeps its nodes; the input model is left as it was
    assert [n.op_type for n in new.graph.node] == ["Gemm", "Sigmoid"]
    np.testing.assert_array_equal(_run(model, x), before)


def test_builtins_quantized_head_is_made_one_float_gemm_of_its_dequantized_weight(tmp_path):
    from int8_head import int8_seq_head
    from onnx import numpy_helper

    from tactful.moderators.builtin import BuiltinModerator

    # the int8 head builtin is exported with (a graft has made the shipped one float)
    src = int8_seq_head(onnx.load(str(default_model_dir("builtin") / "model.onnx")), tmp_path)
    inits = {i.name: numpy_helper.to_array(i) for i in src.graph.initializer}
    q = inits["model.seq_head.weight_Transposed_quantized"].astype(np.float32)
    zp = inits["model.seq_head.weight_Transposed_zero_point"].astype(np.float32)
    scale = inits["model.seq_head.weight_Transposed_scale"].astype(np.float32)
    model, dequantized = tt.float_seq_head(src)
    assert dequantized
    heads = [n for n in model.graph.node if "model.seq_head.weight" in n.input]
    assert [(n.op_type, list(n.input)) for n in heads] == [
        ("Gemm", ["/model/Div_output_0", "model.seq_head.weight", "model.seq_head.bias"])
    ]
    assert not [
        n for n in model.graph.node if n.input and n.input[0] == "/model/Div_output_0_quantized"
    ]
    got = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    assert "model.seq_head.weight_Transposed_quantized" not in got
    np.testing.assert_array_equal(got["model.seq_head.weight"], ((q - zp) * scale).T)
    assert len(model.graph.node) == len(src.graph.node) - 5  # six nodes become one
    # the scores move only by the rounding of the one int8 step of the head's weights and
    # the pooled activation: 3.3.0's refit rows widen the weights' range, so the step is
    # coarser (offensive 0.913 -> 0.921 on the insult)
    texts = ["You are a worthless idiot.", "How do I bake bread?", "I will find you."]
    shipped = BuiltinModerator()
    ids = [shipped._tokenizer.encode(t).ids for t in texts]
    before = tt.pooled_features(src, "dynamic", ids)[1]
    after = tt.pooled_features(model, "dynamic", ids)[1]
    assert np.abs(after - before).max() < 0.01
    # a float head comes back as it was
    tiny = _tiny_head()[0]
    assert tt.float_seq_head(tiny) == (tiny, False)


def test_a_head_that_is_neither_float_nor_dynamically_quantized_is_refused(tmp_path):
    tiny = _tiny_head()[0]
    for a in tiny.graph.node[0].attribute:
        if a.name == "transB":
            a.i = 0
    with pytest.raises(ConfigError) as err:
        tt.float_seq_head(tiny)
    assert str(err.value) == (
        "[T010] The model's sequence head is neither one float Gemm of model.seq_head.weight "
        "(transB=1) nor a dynamically quantized one (MatMulInteger): tactful train "
        "delicate-head cannot refit it."
    )


def test_refit_refuses_to_write_over_its_own_model(tmp_path):
    model = tmp_path / "m"
    shutil.copytree(default_model_dir("builtin"), model)
    with pytest.raises(
        ConfigError, match=r"^\[T010\] --out must be another folder than the model's\.$"
    ):
        tt.refit_delicate_head(model, model, version="9.9.9")


@pytest.mark.needs_model("builtin-large")
def test_the_large_models_pooled_states_are_what_its_delicate_row_reads():
    """The features the refit learns from are the tensor its head reads: the shipped
    delicate probability is the sigmoid of the shipped row over them."""
    from tactful.train import pooled_features
    from tactful.train._config import load_tokenizer

    folder = default_model_dir("builtin-large")
    card = load_card(folder)
    model = onnx.load(str(folder / "model.onnx"))
    tok = load_tokenizer(folder / "tokenizer.json", 256)
    texts = ["My father died on Sunday.", "What's the weather like?", "I will kill you"]
    x, probs = pooled_features(model, card["quantization"], [tok.encode(t).ids for t in texts])
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    w, b = inits["model.seq_head.weight"][D], inits["model.seq_head.bias"][D]
    np.testing.assert_allclose(probs[:, D], 1 / (1 + np.exp(-(x @ w + b))), rtol=1e-4)
    from tactful.moderators.builtin import BuiltinModerator

    shipped = BuiltinModerator(model_dir=str(folder)).predict_arrays(texts)[0]
    np.testing.assert_allclose(probs, shipped, atol=1e-5)


def test_the_quantized_models_pooled_states_are_read_one_text_per_call():
    """builtin's head is dynamically quantized: the pooled states are the tensor its
    DynamicQuantizeLinear reads, and one text per call gives the runtime's scores."""
    from tactful.train._config import load_tokenizer
    from tactful.train._delicatehead import _pooled_tensor, pooled_features

    folder = default_model_dir("builtin")
    card = load_card(folder)
    model = onnx.load(str(folder / "model.onnx"))
    assert card["quantization"] == "dynamic"
    assert _pooled_tensor(model) == "/model/Div_output_0"
    tok = load_tokenizer(folder / "tokenizer.json", 256)
    texts = ["My father died on Sunday.", "What's the weather like?", "I will kill you"]
    x, probs = pooled_features(model, card["quantization"], [tok.encode(t).ids for t in texts])
    assert x.shape == (3, 384) and probs.shape == (3, len(card["heads"]))
    from tactful.moderators.builtin import BuiltinModerator

    shipped = BuiltinModerator(model_dir=str(folder)).predict_arrays(texts)[0]
    np.testing.assert_allclose(probs, shipped, atol=1e-5)


@pytest.mark.needs_model("builtin-large")
def test_the_refit_learns_from_training_templates_and_drawn_detexd_rows(data_dir):
    card = load_card(name="builtin-large")
    got = tt.delicate_head_examples(data_dir, card)
    sources = Counter(s for _, _, s in got)
    held = tt.delicate_dev_rows(data_dir, tt.card_stages(card))
    assert sources["detexd"] == 1023 - len(held) == 648
    assert sources["identity_negatives"] == 400 and sources["toxicchat"] == 1000
    assert {s for _, y, s in got if y == 1} == {"detexd", "delicate_templates"}
    from tactful.train import delicate_template_records

    dev = {r.text for r in delicate_template_records(split="dev")}
    assert dev.isdisjoint(t for t, _, _ in got)
    assert {t for t, _, _ in got}.isdisjoint(r.text for r in held)
    # seeded: the same texts twice
    assert tt.delicate_head_examples(data_dir, card) == got
    assert json.dumps(got)  # plain (text, label, source) tuples
