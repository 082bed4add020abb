"""ONNX export and int8 quantization of the trained model."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import torch

from ._model import ExportWrapper, MultiTaskModel
from ._quantize import QUANTIZATIONS, quantize_weights_int8

__all__ = ["export_onnx"]

log = logging.getLogger("tactful.train")


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
    # eval() on the wrapper too: torch.onnx.export restores the mode the wrapper had,
    # and a new module is in training mode, which would leave dropout on in `model`.
    wrapper = ExportWrapper(model).eval()
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
