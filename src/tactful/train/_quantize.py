"""Weight-only int8 quantization of an exported ONNX graph (no torch needed)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["QUANTIZATIONS", "quantize_weights_int8"]

#: How :func:`export_onnx` makes the shipped ``model.onnx``: ``"dynamic"``
#: (models up to 1.2.0: int8 activations whose scales come from each call's whole
#: input, so a text's scores move with its batch-mates) or ``"weights"`` (int8
#: weights, float activations: a text's scores do not depend on the other texts
#: of its call).
QUANTIZATIONS = ("dynamic", "weights", "none")


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
