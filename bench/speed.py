"""Speed of the builtin moderator against two PyTorch baselines, in one run.

All three use the same fine-tuned weights (a training run's ``model.pt``) on the
ToxicChat 0124 test texts (2,853):

(a) ``transformers.pipeline("text-classification", batch_size=32)`` over an HF
    model class carrying our encoder + mean pooling + sequence head, as a user
    would run it (truncation at 512 tokens);
(b) PyTorch eager fp32, texts sorted by length, batches of 32, truncation at
    256 tokens (the builtin window);
(c) ``tactful.load("builtin").analyze`` — the whole analysis: normalization,
    windows over the whole text (not truncation), onnxruntime int8, spans —
    with the default per-text calls (single-threaded, one per CPU core at a
    time), and again with ``batching="sorted"`` (length-sorted batches across
    texts, whose scores depend on the batch-mates).

(b) reads at most 256 tokens of a text while (c) reads all of it; both token
counts are printed, so the ratio c/b is a lower bound of the same-work ratio.

Prints texts/s for each, the ratios c/a and c/b, and toxicity F1 of each at the
card's toxicity threshold. Also the peak RSS of ``tactful check`` on one text.

The weights of (a) and (b) must be the ones the shipped model was built from:
``--run-dir`` defaults to the run named in the shipped card, and the run's files
are checked against the sha256 the card pins for them
(:func:`tactful.train.verify_run`) before anything is timed. A missing run
folder (runs are not kept in git) or other weights stop the bench with one line
and exit code 2.

    python bench/speed.py [--run-dir RUN] [--limit N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def _hf_model(run_dir: Path):
    import torch
    from transformers import BertConfig, BertModel, BertPreTrainedModel
    from transformers.modeling_outputs import SequenceClassifierOutput

    from tactful.moderators.builtin import SEQ_HEADS
    from tactful.train import encoder_dir, run_encoder

    class MeanPooledClassifier(BertPreTrainedModel):
        def __init__(self, config):
            super().__init__(config)
            self.bert = BertModel(config, add_pooling_layer=False)
            self.classifier = torch.nn.Linear(config.hidden_size, config.num_labels)

        def forward(self, input_ids=None, attention_mask=None, token_type_ids=None, **_):
            h = self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            m = attention_mask.unsqueeze(-1).to(h.dtype)
            return SequenceClassifierOutput(
                logits=self.classifier((h * m).sum(1) / m.sum(1).clamp(min=1.0))
            )

    # A BERT-shaped baseline: the builtin (MiniLM) encoder is a BertModel.
    cfg = BertConfig.from_pretrained(str(encoder_dir(run_encoder(run_dir))))
    cfg.num_labels = len(SEQ_HEADS)
    cfg.id2label = dict(enumerate(SEQ_HEADS))
    cfg.label2id = {h: i for i, h in enumerate(SEQ_HEADS)}
    cfg.problem_type = "multi_label_classification"
    model = MeanPooledClassifier(cfg)
    state = torch.load(run_dir / "model.pt", map_location="cpu", weights_only=True)
    model.bert.load_state_dict(
        {k[len("encoder.") :]: v for k, v in state.items() if k.startswith("encoder.")}
    )
    model.classifier.load_state_dict(
        {"weight": state["seq_head.weight"], "bias": state["seq_head.bias"]}
    )
    return model.eval()


def _window_tokens(n: int, max_tokens: int, stride: int) -> int:
    """Tokens the builtin reads for a text of ``n`` tokens: windows of ``max_tokens``
    (with [CLS] and [SEP]) that overlap by ``stride``, as the runtime cuts them."""
    body, total, start = max_tokens - 2, 0, 0
    while True:
        total += min(body, max(0, n - start)) + 2
        if start + body >= n:
            return total
        start += body - stride


def checked_run_dir(run_dir: Path | None) -> Path:
    """The run folder to time: ``run_dir`` or the shipped card's run, checked against
    the card's pins; on failure one line on stderr and exit code 2."""
    from tactful.errors import TactfulError
    from tactful.moderators.builtin import load_card
    from tactful.train import verify_run

    try:
        return verify_run(load_card(), run_dir)
    except TactfulError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def check_peak_rss_mb() -> float:
    """Peak RSS of `tactful check` on one text: a fresh wrapper process whose only
    child is the command, so RUSAGE_CHILDREN is that command's peak alone."""
    code = (
        "import resource, subprocess, sys; "
        "subprocess.run([sys.executable, '-m', 'tactful', 'check', 'you absolute idiot', '--json'], "
        "check=True, capture_output=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return int(out.stdout.strip()) / 1024


def _f1(y, p, t):
    from tactful.metrics import precision_recall_f1

    return precision_recall_f1(y, (np.asarray(p) >= t).astype(int))["f1"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--run-dir",
        type=Path,
        default=None,
        help="the run the shipped card was built from (default: the one its card names)",
    )
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument(
        "--memory-only", action="store_true", help="only the peak RSS of `tactful check`"
    )
    a = ap.parse_args()
    if a.memory_only:
        print(f"check_peak_rss_mb {check_peak_rss_mb():.1f}")
        return
    run_dir = checked_run_dir(a.run_dir)

    import torch
    from transformers import AutoTokenizer, pipeline

    import tactful
    from tactful.datasets import load_dataset
    from tactful.moderators.builtin import SEQ_HEADS
    from tactful.train import encoder_dir, load_run, load_tokenizer, predict, run_encoder

    torch.set_num_threads(2)
    recs = load_dataset("toxicchat", "test", a.data_dir)[: a.limit]
    texts = [r.text for r in recs]
    y = np.array([r.label for r in recs])
    k = SEQ_HEADS.index("toxicity")
    mod = tactful.load("builtin").load()
    t_tox = float(mod.card["thresholds"]["toxicity"])
    res: dict = {
        "n": len(texts),
        "threshold": t_tox,
        "run_dir": str(run_dir),
        "version": mod.version,
    }

    # (c) builtin, warmed up on a few texts first
    mod.analyze(texts[:8])
    t0 = time.perf_counter()
    out = mod.analyze(texts)
    res["builtin_tps"] = len(texts) / (time.perf_counter() - t0)
    res["builtin_f1"] = _f1(y, [o.scores["toxicity"] for o in out], t_tox)
    # the same, with length-sorted batches across texts (batching="sorted")
    fast = tactful.load("builtin", batching="sorted").load()
    fast.analyze(texts[:8])
    t0 = time.perf_counter()
    out_sorted = fast.analyze(texts)
    res["builtin_sorted_tps"] = len(texts) / (time.perf_counter() - t0)
    res["builtin_sorted_f1"] = _f1(y, [o.scores["toxicity"] for o in out_sorted], t_tox)
    from tokenizers import Tokenizer

    from tactful.moderators.builtin import default_model_dir

    counter = Tokenizer.from_file(str(default_model_dir() / "tokenizer.json"))
    counter.no_truncation()
    encs = counter.encode_batch(texts, add_special_tokens=False)
    cfg = mod.config()
    res["builtin_tokens"] = sum(
        _window_tokens(len(e.ids), cfg["max_tokens"], cfg["stride"]) for e in encs
    )
    res["eager_tokens"] = sum(min(len(e.ids) + 2, 256) for e in encs)
    res["builtin_sorted_max_score_diff"] = max(
        abs(a.scores["toxicity"] - b.scores["toxicity"]) for a, b in zip(out, out_sorted)
    )

    # (b) eager fp32, length-sorted
    model = load_run(run_dir)
    tok = load_tokenizer(max_len=256, encoder=run_encoder(run_dir))
    predict(model, texts[:8], tok)
    t0 = time.perf_counter()
    p = predict(model, texts, tok, batch_size=32)[:, k]
    res["eager_sorted_tps"] = len(texts) / (time.perf_counter() - t0)
    res["eager_sorted_f1"] = _f1(y, p, t_tox)

    # (a) transformers pipeline
    hf = _hf_model(run_dir)
    hf_tok = AutoTokenizer.from_pretrained(str(encoder_dir(run_encoder(run_dir))))
    pipe = pipeline(
        "text-classification",
        model=hf,
        tokenizer=hf_tok,
        device=-1,
        top_k=None,
        function_to_apply="sigmoid",
    )
    pipe(texts[:8], batch_size=32, truncation=True, max_length=512)
    t0 = time.perf_counter()
    got = pipe(texts, batch_size=32, truncation=True, max_length=512)
    res["pipeline_tps"] = len(texts) / (time.perf_counter() - t0)
    res["pipeline_f1"] = _f1(
        y, [next(d["score"] for d in g if d["label"] == "toxicity") for g in got], t_tox
    )

    res["speedup_vs_pipeline"] = res["builtin_tps"] / res["pipeline_tps"]
    res["speedup_vs_eager_sorted"] = res["builtin_tps"] / res["eager_sorted_tps"]
    res["sorted_speedup_vs_pipeline"] = res["builtin_sorted_tps"] / res["pipeline_tps"]
    res["sorted_speedup_vs_eager_sorted"] = res["builtin_sorted_tps"] / res["eager_sorted_tps"]

    res["check_peak_rss_mb"] = check_peak_rss_mb()
    res["model_mb"] = (
        Path(tactful.__file__).parent / "models" / "builtin" / "model.onnx"
    ).stat().st_size / 1e6

    for key, v in res.items():
        print(f"{key:28s} {v:.4f}" if isinstance(v, float) else f"{key:28s} {v}")
    if a.json:
        a.json.write_text(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
