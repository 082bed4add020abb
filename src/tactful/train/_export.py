"""ONNX export and int8 quantization of the trained model."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import torch

from ._model import ExportWrapper, MultiTaskModel

__all__ = ["QUANTIZATIONS", "export_onnx", "quantize_weights_int8"]

#: How :func:`export_onnx` makes the shipped ``model.onnx``: ``"dynamic"``
#: (models up to 1.2.0: int8 activations whose scales come from each call's whole
#: input, so a text's scores move with its batch-mates) or ``"weights"`` (int8
#: weights, float activations: a text's scores do not depend on the other texts
#: of its call).
QUANTIZATIONS = ("dynamic", "weights", "none")

log = logging.getLogger("tactful.train")


def quantize_weights_int8(src: Path, dst: Path, *, min_elements: int = 4096) -> int:
    """Weight-only int8: every large MatMul weight and embedding table of ``src``
    stored as int8 with one scale per output channel (per row for a table),
    followed by a ``DequantizeLinear`` node; activations stay float32.

    Symmetric scales (zero point 0): ``scale = max|w| / 127`` per channel. The
    graph computes in float32 as before, so a row's outputs depend on its own
    input only (batch-invariant up to float rounding), and the file is about a
    quarter of the float32 one. Returns the number of tensors quantized.
    """
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    m = onnx.load(str(src))
    g = m.graph
    inits = {t.name: t for t in g.initializer}
    done: dict[str, str] = {}
    new_nodes = []
    for node in g.node:
        if node.op_type in ("MatMul", "Attention"):
            pos, axis = 1, 1  # weight [K, N] (fused Q, K, V: [K, 3N]): one scale per column
        elif node.op_type == "Gather":
            pos, axis = 0, 0  # table [V, D]: one scale per row
        else:
            continue
        name = node.input[pos]
        t = inits.get(name)
        if t is None or t.data_type != onnx.TensorProto.FLOAT or len(t.dims) != 2:
            continue
        w = numpy_helper.to_array(t)
        if w.size < min_elements:
            continue
        if name not in done:
            amax = np.abs(w).max(axis=1 - axis)
            scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
            shape = (1, -1) if axis == 1 else (-1, 1)
            q = np.clip(np.rint(w / scale.reshape(shape)), -127, 127).astype(np.int8)
            g.initializer.remove(t)
            g.initializer.extend(
                [
                    numpy_helper.from_array(q, name + "_q"),
                    numpy_helper.from_array(scale, name + "_scale"),
                    numpy_helper.from_array(np.zeros_like(scale, dtype=np.int8), name + "_zp"),
                ]
            )
            new_nodes.append(
                helper.make_node(
                    "DequantizeLinear",
                    [name + "_q", name + "_scale", name + "_zp"],
                    [name + "_dq"],
                    name=name + "_DequantizeLinear",
                    axis=axis,
                )
            )
            done[name] = name + "_dq"
        node.input[pos] = done[name]
    for i, n in enumerate(new_nodes):
        g.node.insert(i, n)
    onnx.save(m, str(dst))
    return len(done)


def export_onnx(
    model: MultiTaskModel, out_dir: Path, *, quantize: str = "weights"
) -> dict[str, Path]:
    """Write ``model.fp32.onnx`` (work file) and the shipped ``model.onnx`` into ``out_dir``.

    Steps: TorchScript-based export with dynamic batch/sequence axes, then one of
    :data:`QUANTIZATIONS`:

    * ``"weights"`` (the default): :func:`quantize_weights_int8` of the unfused
      graph, so every projection and the embedding table are int8 on disk; the
      runtime folds them back to float32 when it loads the file
      (``export.json`` says so), and a text's scores do not depend on its
      batch-mates (``tests/test_builtin.py``).
    * ``"dynamic"`` (models up to 1.2.0): onnxruntime's BERT graph fusion, then
      dynamic int8 quantization of the fused graph's MatMul weights, one scale per
      output channel (per-tensor scales cost the soup of model 1.1.0 1 point of
      ToxicChat F1 at its 0.9 threshold against fp32; per-channel scales kept it
      within 0.1 point).
    * ``"none"``: the fused float32 graph.

    ``export.json`` records the choice for :func:`~tactful.train.ship`.
    """
    if quantize not in QUANTIZATIONS:
        raise ValueError(f"quantize must be one of {QUANTIZATIONS}, not {quantize!r}")
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers.optimizer import optimize_model

    out_dir.mkdir(parents=True, exist_ok=True)
    model.eval()
    # The eager attention graph is the pattern onnxruntime's BERT optimizer fuses
    # into one (Q)Attention op; the SDPA graph is left unfused (measured: 6 fused
    # Attention nodes vs none).
    model.encoder.set_attn_implementation("eager")
    wrapper = ExportWrapper(model)
    ids = torch.tensor([[101, 7592, 2088, 102], [101, 7592, 102, 0]], dtype=torch.long)
    mask = (ids != 0).long()
    fp32 = out_dir / "model.fp32.onnx"
    torch.onnx.export(
        wrapper,
        (ids, mask),
        str(fp32),
        input_names=["input_ids", "attention_mask"],
        output_names=["seq", "tok_toxic", "tok_type"],
        dynamic_axes={
            "input_ids": {0: "batch", 1: "tokens"},
            "attention_mask": {0: "batch", 1: "tokens"},
            "seq": {0: "batch"},
            "tok_toxic": {0: "batch", 1: "tokens"},
            "tok_type": {0: "batch", 1: "tokens"},
        },
        opset_version=17,
        dynamo=False,
    )
    final = out_dir / "model.onnx"
    shutil.copy(model.encoder_path / "tokenizer.json", out_dir / "tokenizer.json")
    (out_dir / "export.json").write_text(json.dumps({"quantization": quantize}) + "\n")
    if quantize == "weights":
        n = quantize_weights_int8(fp32, final)
        log.info("exported %s (%.1f MB, %d int8 weights)", final, final.stat().st_size / 1e6, n)
        return {"fp32": fp32, "model": final}
    fused = out_dir / "model.fused.onnx"
    opt = optimize_model(
        str(fp32),
        model_type="bert",
        num_heads=model.encoder.config.num_attention_heads,
        hidden_size=model.encoder.config.hidden_size,
    )
    opt.save_model_to_file(str(fused))
    if quantize == "dynamic":
        import onnx

        quantize_dynamic(
            str(fused),
            str(final),
            weight_type=QuantType.QInt8,
            per_channel=True,
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    else:
        shutil.copy(fused, final)
    log.info("exported %s (%.1f MB)", final, final.stat().st_size / 1e6)
    return {"fp32": fp32, "fused": fused, "model": final}
