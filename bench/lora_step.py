"""What low-rank adapters cost against a full fine-tune of the same encoder, in one run.

A fold teacher (a teacher that held out the texts it labels) is a run of its own: with
adapters on a frozen encoder it trains fewer parameters, keeps a smaller optimizer state and
commits a small state file. This bench measures, on the same batches of real training
texts, interleaved so that both settings see the same machine load:

- the seconds per optimizer step (forward, backward, AdamW), full fine-tune and adapters,
  and their ratio (the figure to read: absolute speed differs up to 6x between machines);
- the trainable parameters and the bytes of a committed state (trainable weights plus the
  AdamW moments, as ``torch.save`` writes them).

    python bench/lora_step.py [--encoder mpnet] [--r 8] [--steps 6] [--batch-size 16] [--threads 2] [--json out.json]

Needs the train extra (torch, the encoder: ``tactful train assemble-encoder mpnet``).
"""

from __future__ import annotations

import argparse
import io
import json
import time
from pathlib import Path

import torch

from tactful.train import (
    MultiTaskModel,
    TrainConfig,
    batch_plan,
    collate,
    encode,
    load_tokenizer,
    loss_fn,
    multitask_lora,
    stage_mixture,
    trainable_state,
)


def _state_bytes(model: torch.nn.Module, opt: torch.optim.Optimizer) -> int:
    buf = io.BytesIO()
    torch.save({"trainable": trainable_state(model), "opt": opt.state_dict()}, buf)
    return buf.getbuffer().nbytes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--encoder", default="mpnet")
    ap.add_argument("--r", type=int, default=8)
    ap.add_argument("--steps", type=int, default=6, help="timed steps per setting")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)

    cfg = TrainConfig(batch_size=a.batch_size, encoder=a.encoder, threads=a.threads)
    examples = stage_mixture(None, 1, 0)[0][: a.batch_size * (a.steps + 1) * 4]
    tok = load_tokenizer(max_len=cfg.max_len, encoder=a.encoder)
    data = [encode(ex, tok) for ex in examples]
    plan = batch_plan(data, cfg)[: a.steps + 1]  # the first batch warms up, untimed

    full = MultiTaskModel(a.encoder)
    lora = multitask_lora(a.encoder, r=a.r, alpha=2.0 * a.r)
    models = {"full": full, "lora": lora}
    opts = {
        k: torch.optim.AdamW([p for p in m.parameters() if p.requires_grad], lr=1e-5)
        for k, m in models.items()
    }
    seconds: dict[str, list[float]] = {k: [] for k in models}
    for i, batch_ids in enumerate(plan):
        batch = collate([data[j] for j in batch_ids])
        for k in ("full", "lora") if i % 2 == 0 else ("lora", "full"):
            m, opt = models[k], opts[k]
            m.train()
            t0 = time.perf_counter()
            seq, tokl = m(batch["input_ids"], batch["attention_mask"])
            loss = loss_fn(seq, tokl, batch, cfg)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if i:
                seconds[k].append(time.perf_counter() - t0)
    out = {
        "encoder": a.encoder,
        "r": a.r,
        "threads": a.threads,
        "batch_size": a.batch_size,
        "steps": a.steps,
    }
    for k, m in models.items():
        out[k] = {
            "seconds_per_step": round(sum(seconds[k]) / len(seconds[k]), 3),
            "trainable_parameters": sum(p.numel() for p in m.parameters() if p.requires_grad),
            "state_bytes": _state_bytes(m, opts[k]),
        }
    out["lora_over_full_step_time"] = round(
        out["lora"]["seconds_per_step"] / out["full"]["seconds_per_step"], 3
    )
    out["lora_over_full_state_bytes"] = round(
        out["lora"]["state_bytes"] / out["full"]["state_bytes"], 4
    )
    print(json.dumps(out, indent=2))
    if a.json:
        a.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
