"""Seeded, resumable training of :class:`MultiTaskModel` on CPU."""

from __future__ import annotations

import json
import logging
import math
import random
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer
from torch import nn

from .._heads import SEQ_HEADS
from ._config import TrainConfig, load_tokenizer
from ._mixture import Example
from ._model import MultiTaskModel

__all__ = ["Encoded", "collate", "encode", "predict", "train"]

log = logging.getLogger("tactful.train")


@dataclass(slots=True)
class Encoded:
    ids: list[int]
    seq: list[float]
    tox: list[int]  # per token: 1/0, -100 = ignore
    typ: list[int]  # per token: type index, -100 = ignore
    soft_seq: list[float] | None = None  # teacher logits per head (NaN = none)
    soft_tok: list[float] | None = None  # teacher toxic logit per token (NaN = none)


def encode(ex: Example, tok: Tokenizer) -> Encoded:
    # Training reads the raw text: the runtime's normalizer only folds obfuscations
    # back to plain words (identity on clean text), which the model sees here.
    enc = tok.encode(ex.text)
    tox, typ = [], []
    soft: list[float] | None = None if ex.soft_tox is None else []
    for (s, e), special in zip(enc.offsets, enc.special_tokens_mask):
        if soft is not None:
            # the teacher's tokens differ from the student's: the mean of its
            # per-character logits over this token's characters
            part = ex.soft_tox[s:e] if e > s and not special else ()
            known = [float(v) for v in part if not math.isnan(v)]
            soft.append(sum(known) / len(known) if known else math.nan)
        if special or e <= s:
            tox.append(-100)
            typ.append(-100)
            continue
        chars = range(s, e)
        if ex.tox_chars is None:
            tox.append(-100)
        else:
            tox.append(int(any(c in ex.tox_chars for c in chars)))
        if ex.type_chars is None:
            typ.append(-100)
        else:
            c = Counter(ex.type_chars[i] for i in chars if i in ex.type_chars)
            typ.append(c.most_common(1)[0][0] if c else -100)
    return Encoded(enc.ids, ex.seq, tox, typ, ex.soft_seq, soft)


def batch_plan(data: list[Encoded], cfg: TrainConfig) -> list[list[int]]:
    """The run's batches, in order: a function of the seed, the batch size and the
    epochs alone, so that the step is the data cursor (a fractional epoch is a prefix
    of the next epoch's order)."""
    rng = random.Random(cfg.seed)
    n_epochs = math.ceil(cfg.epochs)
    plan: list[list[int]] = []
    for _ in range(n_epochs):
        plan.extend(_batches(data, cfg.batch_size, rng))
    return plan[: round(len(plan) * cfg.epochs / n_epochs)]


def _batches(data: list[Encoded], batch_size: int, rng: random.Random) -> list[list[int]]:
    """Length-bucketed batches: sort by length within chunks, shuffle the batches."""
    order = list(range(len(data)))
    rng.shuffle(order)
    chunk = batch_size * 50
    batches: list[list[int]] = []
    for i in range(0, len(order), chunk):
        part = sorted(order[i : i + chunk], key=lambda j: len(data[j].ids))
        batches.extend(part[k : k + batch_size] for k in range(0, len(part), batch_size))
    rng.shuffle(batches)
    return batches


def collate(items: list[Encoded]) -> dict[str, torch.Tensor]:
    n = max(len(x.ids) for x in items)
    ids = torch.zeros(len(items), n, dtype=torch.long)
    mask = torch.zeros(len(items), n, dtype=torch.long)
    tox = torch.full((len(items), n), -100, dtype=torch.long)
    typ = torch.full((len(items), n), -100, dtype=torch.long)
    for i, x in enumerate(items):
        L = len(x.ids)
        ids[i, :L] = torch.tensor(x.ids)
        mask[i, :L] = 1
        tox[i, :L] = torch.tensor(x.tox)
        typ[i, :L] = torch.tensor(x.typ)
    seq = torch.tensor([x.seq for x in items], dtype=torch.float32)
    out = {"input_ids": ids, "attention_mask": mask, "seq": seq, "tox": tox, "typ": typ}
    if any(x.soft_seq is not None or x.soft_tok is not None for x in items):
        soft_seq = torch.full(seq.shape, math.nan)
        soft_tok = torch.full((len(items), n), math.nan)
        for i, x in enumerate(items):
            if x.soft_seq is not None:
                soft_seq[i] = torch.tensor(x.soft_seq, dtype=torch.float32)
            if x.soft_tok is not None:
                soft_tok[i, : len(x.soft_tok)] = torch.tensor(x.soft_tok, dtype=torch.float32)
        out["soft_seq"], out["soft_tok"] = soft_seq, soft_tok
    return out


def _soft_bce(student: torch.Tensor, teacher: torch.Tensor, t: float) -> torch.Tensor:
    """Binary distillation loss at temperature ``t`` (Hinton et al., 2015), scaled by t²."""
    target = torch.sigmoid(teacher / t)
    return nn.functional.binary_cross_entropy_with_logits(student / t, target) * t * t


def _mix(hard: torch.Tensor | None, soft: torch.Tensor | None, alpha: float) -> torch.Tensor | None:
    if soft is None:
        return hard
    if hard is None:
        return soft
    return (1 - alpha) * hard + alpha * soft


def loss_fn(seq_logits, tok_logits, batch, cfg: TrainConfig) -> torch.Tensor:
    """Hard-label losses of the sequence heads, the toxic-token head and the span
    types; with a teacher's soft targets in ``batch``, the sequence and toxic-token
    terms are ``(1 - alpha) * hard + alpha * soft`` (a term with no target is left
    out; the toxic-token term uses ``cfg.token_alpha`` when it is set, and with
    ``token_alpha == 0`` no soft token target counts)."""
    bce = nn.functional.binary_cross_entropy_with_logits
    loss = seq_logits.new_zeros(())
    target = batch["seq"]
    known = ~torch.isnan(target)
    hard = bce(seq_logits[known], target[known]) if known.any() else None
    soft = None
    if "soft_seq" in batch:
        k = ~torch.isnan(batch["soft_seq"])
        if k.any():
            soft = _soft_bce(seq_logits[k], batch["soft_seq"][k], cfg.temperature)
    term = _mix(hard, soft, cfg.alpha)
    if term is not None:
        loss = loss + term
    tox = batch["tox"]
    m = tox != -100
    hard = bce(tok_logits[..., 0][m], tox[m].float()) if m.any() else None
    soft = None
    tok_alpha = cfg.alpha if cfg.token_alpha is None else cfg.token_alpha
    if "soft_tok" in batch and tok_alpha > 0:
        k = ~torch.isnan(batch["soft_tok"])
        if k.any():
            soft = _soft_bce(tok_logits[..., 0][k], batch["soft_tok"][k], cfg.temperature)
    term = _mix(hard, soft, tok_alpha)
    if term is not None:
        loss = loss + cfg.tok_weight * term
    typ = batch["typ"]
    m = typ != -100
    if m.any():
        loss = loss + cfg.type_weight * nn.functional.cross_entropy(tok_logits[..., 1:][m], typ[m])
    return loss


def train(examples: list[Example], out: Path, cfg: TrainConfig) -> MultiTaskModel:
    """Train and write ``out/model.pt`` (state dict) and ``out/train.json``.

    Resumable: a checkpoint ``out/ckpt.pt`` is written every ``checkpoint_every``
    steps; a rerun with the same examples and config continues from it.
    """
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    tok = load_tokenizer(max_len=cfg.max_len, encoder=cfg.encoder)
    t0 = time.time()
    data = [encode(ex, tok) for ex in examples]
    log.info("encoded %d examples in %.1fs", len(data), time.time() - t0)

    plan = batch_plan(data, cfg)
    total = len(plan)

    model = MultiTaskModel(cfg.encoder, layers=cfg.layers, heads=cfg.heads or SEQ_HEADS)
    if cfg.init:
        model.load_state_dict(torch.load(cfg.init, map_location="cpu", weights_only=True))
        log.info("initialized from %s", cfg.init)
    heads = [p for n, p in model.named_parameters() if not n.startswith("encoder.")]
    enc = [p for n, p in model.named_parameters() if n.startswith("encoder.")]
    opt = torch.optim.AdamW(
        [{"params": enc, "lr": cfg.lr}, {"params": heads, "lr": cfg.head_lr}],
        weight_decay=cfg.weight_decay,
    )
    warm = max(1, int(cfg.warmup * total))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (total - s) / max(1, total - warm))
    )
    step = 0
    ckpt = out / "ckpt.pt"
    if ckpt.exists():
        # weights_only: tensors, numbers and dicts only; nothing in a checkpoint runs code.
        state = torch.load(ckpt, map_location="cpu", weights_only=True)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        step = state["step"]
        torch.set_rng_state(state["torch_rng"])
        log.info("resumed from step %d/%d", step, total)

    model.train()
    t0, seen, run_loss = time.time(), 0, 0.0
    while step < total:
        batch = collate([data[j] for j in plan[step]])
        seq_logits, tok_logits = model(batch["input_ids"], batch["attention_mask"])
        loss = loss_fn(seq_logits, tok_logits, batch, cfg)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        step += 1
        seen += len(plan[step - 1])
        run_loss += float(loss.detach())
        if step % 50 == 0 or step == total:
            el = time.time() - t0
            log.info(
                "step %d/%d loss %.4f  %.1f ex/s  eta %.1f min",
                step,
                total,
                run_loss / 50,
                seen / el,
                (total - step) * (el / max(1, seen)) * cfg.batch_size / 60,
            )
            run_loss = 0.0
        if step % cfg.checkpoint_every == 0 or step == total:
            tmp = out / "ckpt.pt.tmp"
            torch.save(
                {
                    "model": model.state_dict(),
                    "opt": opt.state_dict(),
                    "sched": sched.state_dict(),
                    "step": step,
                    "torch_rng": torch.get_rng_state(),
                },
                tmp,
            )
            tmp.replace(ckpt)
    torch.save(model.state_dict(), out / "model.pt")
    counts = Counter(ex.source for ex in examples)
    (out / "train.json").write_text(
        json.dumps(
            {
                "config": asdict(cfg),
                "examples": len(examples),
                "steps": total,
                "sources": dict(sorted(counts.items())),
                "seconds": round(time.time() - t0, 1),
                "heads": list(getattr(model, "heads", SEQ_HEADS)),
            },
            indent=2,
        )
    )
    return model


def predict(
    model: MultiTaskModel, texts: list[str], tok: Tokenizer, batch_size: int = 32
) -> np.ndarray:
    """Sequence-head probabilities of ``texts`` (eager PyTorch, length-sorted batches).

    Returns an array of shape ``(len(texts), len(model.heads))`` in the texts' order;
    ``tok`` is :func:`~tactful.train.load_tokenizer` of the model's encoder.
    """
    model.eval()
    encs = [tok.encode(t).ids for t in texts]
    order = sorted(range(len(texts)), key=lambda i: len(encs[i]))
    width = len(getattr(model, "heads", SEQ_HEADS))
    out = np.zeros((len(texts), width), dtype=np.float32)
    with torch.inference_mode():
        for k in range(0, len(order), batch_size):
            idx = order[k : k + batch_size]
            b = collate(
                [
                    Encoded(
                        encs[i],
                        [0.0] * width,
                        [-100] * len(encs[i]),
                        [-100] * len(encs[i]),
                    )
                    for i in idx
                ]
            )
            seq, _ = model(b["input_ids"], b["attention_mask"])
            out[idx] = torch.sigmoid(seq).numpy()
    return out
