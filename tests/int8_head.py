"""An int8 sequence head made from a float one: the graph ``builtin`` shipped before a
graft made its head float (``tactful train category-heads --graft``), for the tests of
the code that reads both."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def int8_seq_head(model: Any, work: Path) -> Any:
    """A copy of ``model`` whose float sequence head (one ``Gemm`` of
    ``model.seq_head.weight``) is dynamically quantized as the shipped export quantizes
    it (``MatMulInteger`` of the int8 weight, per column); the rest of the graph is kept.
    A model whose head is int8 already comes back as it is."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from tactful.train._delicatehead import SEQ_WEIGHT

    gemm = [n.name for n in model.graph.node if n.op_type == "Gemm" and SEQ_WEIGHT in n.input]
    if not gemm:
        return model
    work.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(work / "float-head.onnx"))
    quantize_dynamic(
        str(work / "float-head.onnx"),
        str(work / "int8-head.onnx"),
        weight_type=QuantType.QInt8,
        per_channel=True,
        # the quantizer makes the Gemm a MatMul (named so) and an Add first
        nodes_to_quantize=[*gemm, *(g + "_MatMul" for g in gemm)],
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )
    return onnx.load(str(work / "int8-head.onnx"))
