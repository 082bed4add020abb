"""Weight-only int8 export: a text's answer does not depend on its batch-mates.

A small attention model is built with ``onnx.helper`` (embedding table, a
projection, masked self-attention, mean pooling and the runtime's three outputs),
then quantized the way ``tactful train`` exports: :func:`quantize_weights_int8`
("weights") or onnxruntime's dynamic int8 (models up to 1.2.0). No torch needed.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from tactful._heads import SEQ_HEADS, SPAN_TYPES
from tactful.moderators.builtin import BuiltinModerator, default_model_dir

onnx = pytest.importorskip("onnx", reason="onnx is in the dev and train extras")

from onnx import TensorProto, helper, numpy_helper

D = 64
TEXTS = [
    "hi",
    "you are an idiot and everyone knows it",
    "How do I support my lesbian daughter after she came out?",
    "I will kill you",
    "The weather is nice today, let's go to the beach and have a picnic with friends.",
    " ".join(["a long text that needs more than one window of the runtime"] * 40),
    "ok",
    "Black people are wonderful",
]


def _tiny_model(path, vocab: int, n_heads: int = len(SEQ_HEADS)) -> None:
    rng = np.random.default_rng(0)

    def init(name, *shape, scale=0.3):
        return numpy_helper.from_array(
            (rng.standard_normal(shape) * scale).astype(np.float32), name
        )

    inits = [
        init("emb", vocab, D, scale=1.0),
        init("w1", D, D, scale=0.2),
        init("ws", D, n_heads, scale=0.5),
        init("wt", D, 1, scale=0.5),
        init("wk", D, len(SPAN_TYPES), scale=0.5),
        numpy_helper.from_array(np.array(1.0 / np.sqrt(D), np.float32), "inv_sqrt_d"),
        numpy_helper.from_array(np.array(-1e4, np.float32), "neg"),
        numpy_helper.from_array(np.array(1.0, np.float32), "one"),
        numpy_helper.from_array(np.array([-1], np.int64), "axis_last"),
        numpy_helper.from_array(np.array([1], np.int64), "axis_one"),
    ]
    n = helper.make_node
    nodes = [
        n("Gather", ["emb", "input_ids"], ["e"]),
        n("MatMul", ["e", "w1"], ["h0"]),
        n("Tanh", ["h0"], ["h"]),
        n("Cast", ["attention_mask"], ["m"], to=TensorProto.FLOAT),
        n("Transpose", ["h"], ["ht"], perm=[0, 2, 1]),
        n("MatMul", ["h", "ht"], ["s0"]),
        n("Mul", ["s0", "inv_sqrt_d"], ["s1"]),
        n("Unsqueeze", ["m", "axis_one"], ["m1"]),  # [B, 1, T]: mask the keys
        n("Sub", ["one", "m1"], ["pad"]),
        n("Mul", ["pad", "neg"], ["bias"]),
        n("Add", ["s1", "bias"], ["s2"]),
        n("Softmax", ["s2"], ["p"], axis=-1),
        n("MatMul", ["p", "h"], ["a"]),
        n("Unsqueeze", ["m", "axis_last"], ["m2"]),  # [B, T, 1]: mean over real tokens
        n("Mul", ["a", "m2"], ["am"]),
        n("ReduceSum", ["am", "axis_one"], ["num"], keepdims=0),
        n("ReduceSum", ["m2", "axis_one"], ["den"], keepdims=0),
        n("Div", ["num", "den"], ["pooled"]),
        n("MatMul", ["pooled", "ws"], ["sl"]),
        n("Sigmoid", ["sl"], ["seq"]),
        n("MatMul", ["a", "wt"], ["tl"]),
        n("Squeeze", ["tl", "axis_last"], ["tl2"]),
        n("Sigmoid", ["tl2"], ["tok_toxic"]),
        n("MatMul", ["a", "wk"], ["kl"]),
        n("Softmax", ["kl"], ["tok_type"], axis=-1),
    ]
    i64 = TensorProto.INT64
    graph = helper.make_graph(
        nodes,
        "tiny",
        [
            helper.make_tensor_value_info("input_ids", i64, ["batch", "tokens"]),
            helper.make_tensor_value_info("attention_mask", i64, ["batch", "tokens"]),
        ],
        [
            helper.make_tensor_value_info("seq", TensorProto.FLOAT, ["batch", n_heads]),
            helper.make_tensor_value_info("tok_toxic", TensorProto.FLOAT, ["batch", "tokens"]),
            helper.make_tensor_value_info(
                "tok_type", TensorProto.FLOAT, ["batch", "tokens", len(SPAN_TYPES)]
            ),
        ],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def _folder(tmp_path, quantization: str):
    from tokenizers import Tokenizer

    from tactful.train import quantize_weights_int8

    src = default_model_dir()
    folder = tmp_path / quantization
    folder.mkdir()
    shutil.copy(src / "tokenizer.json", folder / "tokenizer.json")
    vocab = Tokenizer.from_file(str(src / "tokenizer.json")).get_vocab_size()
    fp32 = tmp_path / "tiny.fp32.onnx"
    if not fp32.exists():
        _tiny_model(fp32, vocab)
    if quantization == "weights":
        assert quantize_weights_int8(fp32, folder / "model.onnx") == 2  # emb and w1
    else:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        quantize_dynamic(str(fp32), str(folder / "model.onnx"), weight_type=QuantType.QInt8)
    thresholds = {h: 0.5 for h in SEQ_HEADS} | {"span": 0.5}
    card = {"name": "tiny", "version": "0", "quantization": quantization, "thresholds": thresholds}
    (folder / "card.json").write_text(json.dumps(card))
    return folder


def _seq(mod, texts):
    return mod.predict_arrays(texts)[0]


def test_weight_only_int8_file_is_small_and_folds_to_float(tmp_path):
    folder = _folder(tmp_path, "weights")
    m = onnx.load(str(folder / "model.onnx"))
    ints = {t.name: t for t in m.graph.initializer if t.data_type == TensorProto.INT8}
    assert {"emb_q", "w1_q"} <= set(ints)
    assert [n.op_type for n in m.graph.node[:2]] == ["DequantizeLinear", "DequantizeLinear"]
    # about a quarter of the float32 file: the table dominates both
    assert (folder / "model.onnx").stat().st_size < 0.3 * (
        tmp_path / "tiny.fp32.onnx"
    ).stat().st_size
    # int8 weights, float activations: within int8 rounding of the float32 graph
    fp32 = tmp_path / "fp32"
    fp32.mkdir()
    shutil.copy(folder / "tokenizer.json", fp32 / "tokenizer.json")
    shutil.copy(tmp_path / "tiny.fp32.onnx", fp32 / "model.onnx")
    (fp32 / "card.json").write_text((folder / "card.json").read_text())
    a = _seq(BuiltinModerator(model_dir=str(folder)), TEXTS)
    b = _seq(BuiltinModerator(model_dir=str(fp32)), TEXTS)
    assert np.abs(a - b).max() < 0.05


def test_a_texts_answer_does_not_depend_on_its_batch_mates(tmp_path):
    folder = str(_folder(tmp_path, "weights"))
    alone = BuiltinModerator(model_dir=folder, batching="text")
    together = BuiltinModerator(model_dir=folder, batching="sorted", batch_size=8, threads=1)
    s_alone, s_together = _seq(alone, TEXTS), _seq(together, TEXTS)
    assert np.abs(s_alone - s_together).max() <= 1e-4
    # each text on its own call, and all of them padded into shared calls
    one_by_one = np.concatenate([_seq(together, [t]) for t in TEXTS])
    assert np.abs(one_by_one - s_together).max() <= 1e-4
    a, b = alone.analyze(TEXTS), together.analyze(TEXTS)
    assert [x.flagged for x in a] == [x.flagged for x in b]
    assert [x.spans for x in a] == [x.spans for x in b]
    for x, y in zip(a, b, strict=True):
        assert all(abs(x.scores[h] - y.scores[h]) <= 1e-4 for h in x.scores)


def test_dynamic_int8_moves_with_batch_mates(tmp_path):
    # why the export changed: the same graph, dynamic int8, padded batches
    folder = str(_folder(tmp_path, "dynamic"))
    alone = _seq(BuiltinModerator(model_dir=folder, batching="text"), TEXTS)
    together = _seq(BuiltinModerator(model_dir=folder, batching="sorted", threads=1), TEXTS)
    assert np.abs(alone - together).max() > 1e-3
