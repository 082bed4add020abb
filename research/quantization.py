"""Export quantizations of one run side by side: speed, batch invariance, distance to float32.

    python research/quantization.py [--export runs/t2_s1/export] [--texts 60] [--calibrate 300] [--json out.json]

From a run's ``export/model.fp32.onnx`` (and ``model.fused.onnx`` when there) it
builds, in a temporary folder, the dynamic int8 file that models up to 1.2.0
shipped and the weight-only int8 file of model 2.0
(:func:`tactful.train.quantize_weights_int8`), then runs the first ``--texts``
ToxicChat test prompts through each with onnxruntime on one thread:

* CPU ms per prompt, one prompt per call, and the ratio to the float32 graph
  (the baseline, in the same run); the weight-only file both with the runtime's
  fold (``session.disable_quant_qdq``) and without it;
* the largest difference of any head's probability between a prompt alone and the
  same prompt in padded, length-sorted batches of 16 (batch invariance);
* the largest and the mean difference of the toxicity probability from the float32 graph.

One more file is static int8 (``--calibrate N``, default 300): onnxruntime's
``quantize_static`` in QDQ format with activation scales fixed by MinMax
calibration on the first N ToxicChat *train* prompts (never test), per-channel
int8 weights, for the MatMuls with a weight, except each layer's feed-forward
output projection, whose input (after GELU) has outliers that per-tensor
scales cannot hold; those stay float32. Fixed scales keep a text's scores
independent of its batch-mates, like weight-only int8, while the arithmetic is int8.

Needs the ``train`` extra (onnx) and the data folder.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from tactful.datasets import load_dataset


def _session(path: Path, fold: bool) -> ort.InferenceSession:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.log_severity_level = 3
    if fold:
        opts.add_session_config_entry("session.disable_quant_qdq", "1")
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def _alone(sess: ort.InferenceSession, encs: list[np.ndarray]) -> np.ndarray:
    feeds = ({"input_ids": e[None], "attention_mask": np.ones_like(e)[None]} for e in encs)
    return np.stack([sess.run(["seq"], f)[0][0] for f in feeds])


def _batched(sess: ort.InferenceSession, encs: list[np.ndarray], size: int = 16) -> np.ndarray:
    order = sorted(range(len(encs)), key=lambda i: len(encs[i]))
    out: np.ndarray | None = None
    for b in range(0, len(order), size):
        ks = order[b : b + size]
        n = max(len(encs[k]) for k in ks)
        ids = np.zeros((len(ks), n), dtype=np.int64)
        mask = np.zeros_like(ids)
        for r, k in enumerate(ks):
            ids[r, : len(encs[k])] = encs[k]
            mask[r, : len(encs[k])] = 1
        seq = sess.run(["seq"], {"input_ids": ids, "attention_mask": mask})[0]
        if out is None:
            out = np.zeros((len(encs), seq.shape[1]), dtype=np.float32)
        out[ks] = seq
    assert out is not None
    return out


def _static(fp32: Path, dst: Path, tok: Tokenizer, texts: list[str]) -> None:
    """Static int8 of ``fp32`` (see the module docstring), calibrated on ``texts``."""
    import re

    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.encs = iter(np.array(tok.encode(t).ids, dtype=np.int64) for t in texts)

        def get_next(self) -> dict[str, np.ndarray] | None:
            e = next(self.encs, None)
            if e is None:
                return None
            return {"input_ids": e[None], "attention_mask": np.ones_like(e)[None]}

    pre = dst.with_suffix(".pre.onnx")
    quant_pre_process(str(fp32), str(pre), skip_symbolic_shape=True)
    graph = onnx.load(str(pre)).graph
    weights = {t.name for t in graph.initializer}
    nodes = [
        n.name
        for n in graph.node
        if n.op_type == "MatMul"
        and n.input[1] in weights
        and not re.search(r"layer\.\d+/output/dense", n.name)  # feed-forward output
    ]
    quantize_static(
        str(pre),
        str(dst),
        Reader(),
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
        op_types_to_quantize=["MatMul"],
        nodes_to_quantize=nodes,
        calibrate_method=CalibrationMethod.MinMax,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--export", type=Path, default=Path("runs/t2_s1/export"))
    ap.add_argument("--texts", type=int, default=60)
    ap.add_argument("--calibrate", type=int, default=300, help="train prompts for static int8")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    fp32 = args.export / "model.fp32.onnx"
    if not fp32.is_file():
        print(
            f"error: no {fp32}: export a run first (tactful train run ... --export)",
            file=sys.stderr,
        )
        return 2
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from tactful.train import quantize_weights_int8

    tok = Tokenizer.from_file(str(args.export / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=256)
    texts = [r.text for r in load_dataset("toxicchat", "test")[: args.texts]]
    encs = [np.array(tok.encode(t).ids, dtype=np.int64) for t in texts]
    with tempfile.TemporaryDirectory() as tmp:
        weights, dynamic = Path(tmp) / "weights.onnx", Path(tmp) / "dynamic.onnx"
        static = Path(tmp) / "static.onnx"
        calib = [r.text for r in load_dataset("toxicchat", "train")[: args.calibrate]]
        _static(fp32, static, tok, calib)
        quantize_weights_int8(fp32, weights)
        fused = args.export / "model.fused.onnx"
        quantize_dynamic(
            str(fused if fused.is_file() else fp32),
            str(dynamic),
            weight_type=QuantType.QInt8,
            per_channel=True,
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},  # as export_onnx
        )
        files = {
            "float32 (baseline)": (fp32, False),
            "dynamic int8 (models <= 1.2.0)": (dynamic, False),
            "weight-only int8, folded at load (model 2.0)": (weights, True),
            "weight-only int8, not folded": (weights, False),
            "static int8, calibrated (feed-forward output in float32)": (static, False),
        }
        rows = []
        base_ms = base_tox = None
        for name, (path, fold) in files.items():
            sess = _session(path, fold)
            t0 = time.process_time()
            alone = _alone(sess, encs)
            ms = 1000 * (time.process_time() - t0) / len(encs)
            batched = _batched(sess, encs)
            if base_ms is None:
                base_ms, base_tox = ms, alone[:, 0]
            rows.append(
                {
                    "file": name,
                    "mb": round(path.stat().st_size / 1e6, 1),
                    "ms_per_text": round(ms, 1),
                    "speed_vs_float32": round(base_ms / ms, 2),
                    "max_alone_vs_batched": float(np.abs(alone - batched).max()),
                    "max_toxicity_vs_float32": float(np.abs(alone[:, 0] - base_tox).max()),
                    "mean_toxicity_vs_float32": float(np.abs(alone[:, 0] - base_tox).mean()),
                }
            )
    print(f"{len(encs)} ToxicChat test prompts, one thread, {args.export}")
    print(
        "| file | MB | ms/prompt | speed vs float32 | max alone−batched "
        "| max / mean Δ toxicity vs float32 |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['file']} | {r['mb']} | {r['ms_per_text']} | {r['speed_vs_float32']}× | "
            f"{r['max_alone_vs_batched']:.1e} | {r['max_toxicity_vs_float32']:.3f} / "
            f"{r['mean_toxicity_vs_float32']:.4f} |"
        )
    if args.json:
        args.json.write_text(json.dumps({"export": str(args.export), "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
