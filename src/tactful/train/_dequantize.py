"""A shipped model folder back to trainable weights: the state dict of its
:class:`~tactful.train._model.MultiTaskModel`, read from the int8 ``model.onnx``.

A student's full weights (``model.pt``, some 90 MB for six MiniLM layers) are not
training state the repository keeps, so a chain of student legs used to end with the
session that ran it. The shipped graph is committed, and it holds every weight: the
fused ``dynamic`` export (:func:`tactful.train.export_onnx` with ``quantize="dynamic"``)
keeps each matrix as int8 with one scale per output column (the embedding tables and
the embeddings' LayerNorm as uint8 with one scale and zero point), and the biases and
the other LayerNorms as float32. Dequantized (``(q - zero_point) * scale``), they start
the next leg: ``tactful train student OUT --init MODEL_FOLDER``.

The sequence head may be float: ``tactful train category-heads --graft`` makes an int8
head one float ``Gemm`` to add rows to it. A grafted row of tactful's own categories
(:data:`~tactful.taxonomy.EXTRA_CATEGORIES`) is not one a student trains, so it is left
out of the state and named in ``dropped_heads``: a graft adds it again after the leg.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..taxonomy import EXTRA_CATEGORIES
from ._delicatehead import SEQ_BIAS, SEQ_WEIGHT, _seq_gemm
from ._provenance import card_stages

__all__ = ["dequantized_state", "is_dequantizable"]

_EMB = "model.encoder.embeddings."
_MATMUL = re.compile(
    r"^/model/encoder/encoder/layer\.(\d+)/(attention/output|intermediate|output)/dense/MatMul_quant$"
)


def is_dequantizable(path: str | Path) -> bool:
    """Whether ``path`` is a model folder (``model.onnx`` and ``card.json``) rather than a
    ``model.pt``."""
    p = Path(path)
    return p.is_dir() and (p / "model.onnx").is_file() and (p / "card.json").is_file()


def dequantized_state(folder: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``MultiTaskModel`` state dict (torch float32 tensors, keys as in a run's
    ``model.pt``) of the fused ``dynamic`` graph in ``folder``, and what it is: the
    card's name, version and heads, and the number of encoder layers.

    The sequence head is read as the graph keeps it: int8 (``MatMulInteger`` of
    :data:`SEQ_WEIGHT` quantized) or one float ``Gemm`` (``transB=1``, a graft's). The
    rows of :data:`~tactful.taxonomy.EXTRA_CATEGORIES` are dropped: the state's heads
    (``heads``) are the card's without them, and ``dropped_heads`` names them.

    Raises :class:`~tactful.errors.ConfigError` (one line) when the graph is not a
    fused ``dynamic`` export of a ``MultiTaskModel`` (a ``weights`` or float export,
    a large model whose attention is not fused).
    """
    import json

    import onnx
    import torch
    from onnx import numpy_helper

    folder = Path(folder)
    card = json.loads((folder / "card.json").read_text())
    model = onnx.load(str(folder / "model.onnx"))
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}

    def arr(name: str) -> np.ndarray:
        if name not in inits:
            raise ConfigError(
                f"{folder / 'model.onnx'} is not a fused dynamic int8 export: no {name!r} "
                "(only such a graph can be read back into weights)."
            )
        return numpy_helper.to_array(inits[name])

    def deq(base: str) -> np.ndarray:
        q = arr(base + "_quantized").astype(np.float32)
        zp = arr(base + "_zero_point").astype(np.float32)
        return (q - zp) * arr(base + "_scale").astype(np.float32)

    state: dict[str, np.ndarray] = {}
    for part in ("word_embeddings", "position_embeddings", "token_type_embeddings"):
        state[f"encoder.embeddings.{part}.weight"] = deq(f"{_EMB}{part}.weight")
    for part in ("weight", "bias"):
        state[f"encoder.embeddings.LayerNorm.{part}"] = deq(f"{_EMB}LayerNorm.{part}")

    attention = sorted(
        (int(n.name.split("_")[1]), n) for n in graph.node if n.op_type == "QAttention"
    )
    if not attention:
        arr("Attention_0_qkv_weight_quantized")  # raises: not a fused graph
    for layer, node in attention:
        w = deq(node.input[1].removesuffix("_quantized"))  # [hidden, 3 * hidden]
        b = arr(node.input[2])
        hidden = w.shape[0]
        for k, name in enumerate(("query", "key", "value")):
            cols = slice(k * hidden, (k + 1) * hidden)
            state[f"encoder.encoder.layer.{layer}.attention.self.{name}.weight"] = w[:, cols].T
            state[f"encoder.encoder.layer.{layer}.attention.self.{name}.bias"] = b[cols]
    layers = len(attention)
    for node in graph.node:
        if node.op_type != "MatMulInteger":
            continue
        weight = node.input[1].removesuffix("_quantized")
        found = _MATMUL.match(node.name)
        if found:
            key = f"encoder.encoder.layer.{found[1]}.{found[2].replace('/', '.')}.dense"
        elif node.name == "/model/tok_head/MatMul_quant":
            key = "tok_head"
        elif node.input[1].startswith(SEQ_WEIGHT):
            key = "seq_head"
        else:
            continue
        state[f"{key}.weight"] = deq(weight).T
        state[f"{key}.bias"] = arr(f"model.{key}.bias")
    for layer in range(layers):
        for ln in ("attention.output.LayerNorm", "output.LayerNorm"):
            for part in ("weight", "bias"):
                key = f"encoder.encoder.layer.{layer}.{ln}.{part}"
                state[key] = arr(f"model.{key}")
    if "seq_head.weight" not in state:
        # a graft's float head: one Gemm (transB=1), else refused in one line
        _seq_gemm(model, "student --init")
        state["seq_head.weight"] = arr(SEQ_WEIGHT)
        state["seq_head.bias"] = arr(SEQ_BIAS)
    heads = tuple(card.get("heads") or ())
    if "seq_head.weight" not in state or state["seq_head.weight"].shape[0] != len(heads):
        raise ConfigError(
            f"{folder / 'model.onnx'}: its sequence head does not have the card's "
            f"{len(heads)} heads."
        )
    keep = [i for i, h in enumerate(heads) if h not in EXTRA_CATEGORIES]
    dropped = [h for h in heads if h in EXTRA_CATEGORIES]
    for part in ("weight", "bias"):
        state[f"seq_head.{part}"] = state[f"seq_head.{part}"][keep]
    tensors = {
        k: torch.from_numpy(np.array(v, dtype=np.float32, copy=True)) for k, v in state.items()
    }
    info = {
        "name": card.get("name"),
        "version": card.get("version"),
        "heads": [heads[i] for i in keep],
        "dropped_heads": dropped,
        "layers": layers,
        "encoder": card.get("encoder"),
        "model.onnx sha256": (card.get("sha256") or {}).get("model.onnx"),
        # the chain the model came from: a run that starts from it continues that chain
        "stages": card_stages(card) if card.get("training") else [],
    }
    return tensors, info
