"""Entry points: train the multi-task model, export it, cross-validate DeTexD."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

import numpy as np

__all__ = ["cv_detexd", "main", "run_training", "soup", "stage_mixture"]

log = logging.getLogger("tactful.train")


def _setup_logging(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(message)s")
    for h in (logging.FileHandler(out / "train.log"), logging.StreamHandler(sys.stderr)):
        h.setFormatter(fmt)
        log.addHandler(h)
    log.setLevel(logging.INFO)


#: Stage 2: a short chat-domain pass from the stage-1 weights. ToxicChat train twice,
#: and a replay of 500 rows of every other source so the other heads are kept.
STAGE2_CAPS = {
    "toxicchat": None, "jailbreak_inthewild": 300, "gptfuzzer": 77, "deepset_injections": 300,
    "detexd": 500, "toxicspans": 500, "toxicspans_raters": 500, "davidson": 500, "olid": 500,
    "toxigen": 500, "jigsaw_sentences": 500,
}
STAGE2_REPEATS = {"toxicchat": 2, "detexd": 1, "jailbreak_inthewild": 1}

#: Stage 3: the chat stage again at 256 tokens. At 128 tokens 29 % of the toxic
#: ToxicChat train prompts were cut before their end (12 % are longer than 256), so
#: stage 3 reads ToxicChat three times at the runtime's window length, with
#: the jailbreak sources and a smaller replay of every other source.
STAGE3_CAPS = {
    "toxicchat": None, "jailbreak_inthewild": 300, "gptfuzzer": 77, "deepset_injections": 300,
    "detexd": 500, "toxicspans": 1000, "toxicspans_raters": 500, "davidson": 300, "olid": 300,
    "toxigen": 300, "jigsaw_sentences": 300,
}
STAGE3_REPEATS = {"toxicchat": 3, "detexd": 1, "jailbreak_inthewild": 1}

#: Stage 4: stage 3's mixture (the same draw for the same seed) with one change:
#: the in-the-wild jailbreaks and GPTFuzzer templates feed the jailbreak head only,
#: not the toxicity head. ToxicChat labels a role-play template toxic only when it
#: asks for harm, and the templates' blanket "toxic" pushed benign role-play prompts
#: over the toxicity threshold.
#: Stage 5: stage 4 (the same draw, the same jailbreak choice) with the toxic-span
#: targets of the ToxicSpans paper (characters > 50 % of a post's raters marked)
#: instead of the SemEval-2021 train file's, which are the union of the raters'
#: spans in 5,767 of its 7,939 posts (``build_mixture(span_gold="raters")``).
#: Stage 6: stage 5 with three times the ToxicSpans posts (SemEval train 3,000,
#: rater-level comments 3,000, both with the > 50 %-of-raters targets), so the
#: span head, trained on the union targets in stages 1-4, is re-targeted on more
#: data (a different draw from stage 5's).
STAGE6_CAPS = {**STAGE3_CAPS, "toxicspans": 3000, "toxicspans_raters": 3000}

#: Later stages, each starting from the weights given by ``--init``.
STAGES = {
    2: {"caps": STAGE2_CAPS, "repeats": STAGE2_REPEATS, "lr": 3e-5, "head_lr": 1e-4, "max_len": 128},
    3: {"caps": STAGE3_CAPS, "repeats": STAGE3_REPEATS, "lr": 3e-5, "head_lr": 1e-4, "max_len": 256},
    4: {"caps": STAGE3_CAPS, "repeats": STAGE3_REPEATS, "lr": 3e-5, "head_lr": 1e-4, "max_len": 256,
        "seed_offset": 2, "jailbreak_toxic": False},
    5: {"caps": STAGE3_CAPS, "repeats": STAGE3_REPEATS, "lr": 3e-5, "head_lr": 1e-4, "max_len": 256,
        "seed_offset": 2, "jailbreak_toxic": False, "span_gold": "raters"},
    6: {"caps": STAGE6_CAPS, "repeats": STAGE3_REPEATS, "lr": 3e-5, "head_lr": 1e-4, "max_len": 256,
        "seed_offset": 2, "jailbreak_toxic": False, "span_gold": "raters"},
}


def stage_mixture(
    data_dir: str | None, stage: int, seed: int = 0, jailbreak_toxic: bool | None = None
) -> tuple[list, int]:
    """The training examples of ``stage`` (1 = the full mixture) and the seed the run uses.

    ``jailbreak_toxic`` overrides the stage's own choice (stage 1: True; see
    :data:`STAGES`) of whether the jailbreak templates are toxicity positives.
    """
    from ._mixture import build_mixture

    st = STAGES.get(stage, {})
    if jailbreak_toxic is None:
        jailbreak_toxic = st.get("jailbreak_toxic", True)
    if stage == 1:
        return build_mixture(data_dir, seed=seed, jailbreak_toxic=jailbreak_toxic), seed
    run_seed = seed + st.get("seed_offset", stage - 1)
    examples = build_mixture(
        data_dir, seed=run_seed, caps=st["caps"], repeats=st["repeats"], jailbreak_toxic=jailbreak_toxic,
        span_gold=st.get("span_gold", "semeval"),
    )
    return examples, run_seed


def run_training(
    data_dir: str | None, out: Path, *, epochs: float = 1.0, seed: int = 0, export: bool = True,
    init: Path | None = None, stage: int = 2, jailbreak_toxic: bool | None = None,
) -> Path:
    """Build the mixture, train, and export ONNX into ``out/export``.

    With ``init`` (the ``model.pt`` of the previous stage), run ``stage`` of
    :data:`STAGES` instead: a chat-domain pass at a lower learning rate.
    """
    from ._export import export_onnx
    from ._loop import TrainConfig, train

    _setup_logging(out)
    if init is None:
        examples, _ = stage_mixture(data_dir, 1, seed, jailbreak_toxic)
        cfg = TrainConfig(epochs=epochs, seed=seed)
    else:
        st = STAGES[stage]
        examples, run_seed = stage_mixture(data_dir, stage, seed, jailbreak_toxic)
        cfg = TrainConfig(
            epochs=epochs, seed=run_seed, lr=st["lr"], head_lr=st["head_lr"], max_len=st["max_len"],
            init=str(init), stage=stage,
        )
    if jailbreak_toxic is not None:
        cfg.jailbreak_toxic = jailbreak_toxic
    log.info("mixture: %d examples (stage %d)", len(examples), cfg.stage)
    model = train(examples, out, cfg)
    if export:
        export_onnx(model, out / "export")
    return out


def soup(runs: list[Path], out: Path, *, export: bool = True) -> Path:
    """Uniform weight average ("model soup", Wortsman et al., ICML 2022) of runs
    that share an architecture and a starting point; exported like a run."""
    import torch

    from ._export import export_onnx
    from ._model import MultiTaskModel

    _setup_logging(out)
    states = [torch.load(r / "model.pt", map_location="cpu") for r in runs]
    avg = {
        k: sum(st[k].float() for st in states) / len(states) if states[0][k].is_floating_point() else states[0][k]
        for k in states[0]
    }
    model = MultiTaskModel()
    model.load_state_dict(avg)
    torch.save(avg, out / "model.pt")
    (out / "train.json").write_text(json.dumps({"soup_of": [str(r) for r in runs]}, indent=2))
    log.info("soup of %s", ", ".join(map(str, runs)))
    if export:
        export_onnx(model, out / "export")
    return out


def cv_detexd(data_dir: str | None, out: Path, *, epochs: float = 5.0, seed: int = 0, folds: int = 5) -> dict:
    """Stratified 5-fold CV of the delicate head trained on DeTexD alone.

    Each fold fine-tunes all-MiniLM-L6-v2 on four folds and scores the fifth at
    threshold 0.5; the F1 over the pooled out-of-fold predictions and the mean
    per-fold F1 are reported.
    """
    from .._heads import SEQ_HEADS
    from ..datasets import load_dataset
    from ..metrics import precision_recall_f1
    from ._loop import TrainConfig, load_tokenizer, predict, train
    from ._mixture import build_mixture

    _setup_logging(out)
    k = SEQ_HEADS.index("delicate")
    y_all, p_all, per_fold = [], [], []
    for f in range(folds):
        t0 = time.time()
        ex = build_mixture(data_dir, seed=seed, sources=["detexd"], detexd_split=f"cv{f}-train", repeats={"detexd": 1})
        model = train(ex, out / f"fold{f}", TrainConfig(epochs=epochs, seed=seed, max_len=256, checkpoint_every=10_000))
        test = load_dataset("detexd", f"cv{f}-test", data_dir)
        probs = predict(model, [r.text for r in test], load_tokenizer(max_len=256))[:, k]
        y = np.array([r.label for r in test])
        m = precision_recall_f1(y, (probs >= 0.5).astype(int))
        per_fold.append(m)
        y_all.append(y)
        p_all.append(probs)
        log.info("fold %d: %s (%.0fs)", f, m, time.time() - t0)
    y, p = np.concatenate(y_all), np.concatenate(p_all)
    pooled = precision_recall_f1(y, (p >= 0.5).astype(int))
    result = {
        "protocol": f"stratified {folds}-fold CV (seed {seed}), MiniLM fine-tuned on DeTexD train folds, threshold 0.5",
        "pooled": pooled,
        "mean_f1": float(np.mean([m["f1"] for m in per_fold])),
        "folds": per_fold,
        "epochs": epochs,
    }
    (out / "cv_detexd.json").write_text(json.dumps(result, indent=2, default=float))
    log.info("DeTexD CV: %s", result)
    return result


def cv_detexd_frozen(data_dir: str | None, out: Path, *, seed: int = 0, folds: int = 5) -> dict:
    """Stratified 5-fold CV of a delicate classifier on *frozen* all-MiniLM-L6-v2.

    Mean-pooled embeddings (256-token truncation) of the pretrained encoder, then
    a class-balanced logistic regression whose C is chosen by an inner 5-fold CV on
    each training fold; out-of-fold predictions at threshold 0.5 are pooled.
    """
    import torch
    from sklearn.linear_model import LogisticRegressionCV

    from ..datasets import load_dataset
    from ..metrics import precision_recall_f1
    from ._loop import Encoded, collate, load_tokenizer
    from ._model import MultiTaskModel

    _setup_logging(out)
    rows = load_dataset("detexd", "all", data_dir)
    index = {r.id: i for i, r in enumerate(rows)}
    tok = load_tokenizer(max_len=256)
    model = MultiTaskModel().eval()
    encs = [tok.encode(r.text).ids for r in rows]
    emb = np.zeros((len(rows), model.encoder.config.hidden_size), dtype=np.float32)
    order = sorted(range(len(rows)), key=lambda i: len(encs[i]))
    with torch.inference_mode():
        for k in range(0, len(order), 32):
            idx = order[k : k + 32]
            b = collate([Encoded(encs[i], [], [-100] * len(encs[i]), [-100] * len(encs[i])) for i in idx])
            h = model.encoder(input_ids=b["input_ids"], attention_mask=b["attention_mask"]).last_hidden_state
            m = b["attention_mask"].unsqueeze(-1).float()
            emb[idx] = ((h * m).sum(1) / m.sum(1)).numpy()
    y_all, p_all, per_fold = [], [], []
    for f in range(folds):
        tr = [index[r.id] for r in load_dataset("detexd", f"cv{f}-train", data_dir)]
        te = [index[r.id] for r in load_dataset("detexd", f"cv{f}-test", data_dir)]
        y = np.array([rows[i].label for i in range(len(rows))])
        clf = LogisticRegressionCV(Cs=10, cv=5, class_weight="balanced", max_iter=5000, scoring="f1")
        clf.fit(emb[tr], y[tr])
        p = clf.predict_proba(emb[te])[:, 1]
        per_fold.append(precision_recall_f1(y[te], (p >= 0.5).astype(int)))
        y_all.append(y[te])
        p_all.append(p)
        log.info("frozen fold %d: %s", f, per_fold[-1])
    y, p = np.concatenate(y_all), np.concatenate(p_all)
    result = {
        "protocol": f"stratified {folds}-fold CV (seed {seed}), frozen all-MiniLM-L6-v2 mean pooling + "
        "class-balanced logistic regression (C by inner 5-fold CV), threshold 0.5",
        "pooled": precision_recall_f1(y, (p >= 0.5).astype(int)),
        "mean_f1": float(np.mean([m["f1"] for m in per_fold])),
        "folds": per_fold,
    }
    (out / "cv_detexd_frozen.json").write_text(json.dumps(result, indent=2, default=float))
    log.info("DeTexD frozen CV: %s", result)
    return result


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m tactful.train")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--out", type=Path, default=Path("runs/builtin"))
    ap.add_argument("--epochs", type=float, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cv", choices=["detexd", "detexd-frozen"], default=None)
    ap.add_argument("--ship", action="store_true", help="copy --out's export into the package and write card.json")
    ap.add_argument("--version", default="1.0.0")
    ap.add_argument("--init", type=Path, default=None, help="start a later stage from this model.pt")
    ap.add_argument("--soup", type=Path, nargs="+", default=None, metavar="RUN",
                    help="average the model.pt of these runs into --out and export it")
    ap.add_argument("--stage", type=int, choices=sorted(STAGES), default=2, help="which later stage --init runs")
    ap.add_argument("--jailbreak-toxic", action=argparse.BooleanOptionalAction, default=None,
                    help="make the jailbreak templates toxicity positives (default: the stage's own choice)")
    a = ap.parse_args(argv)
    if a.ship:
        from ._card import ship

        _setup_logging(a.out)
        pkg = Path(__file__).resolve().parents[1] / "models" / "builtin"
        card = ship(a.out, pkg, a.data_dir, version=a.version)
        log.info("shipped to %s: thresholds %s dev %s", pkg, card["thresholds"], card["dev"])
    elif a.soup:
        soup(a.soup, a.out)
    elif a.cv == "detexd-frozen":
        cv_detexd_frozen(a.data_dir, a.out, seed=a.seed)
    elif a.cv == "detexd":
        cv_detexd(a.data_dir, a.out, epochs=a.epochs or 5.0, seed=a.seed)
    else:
        run_training(
            a.data_dir, a.out, epochs=a.epochs or 1.0, seed=a.seed, init=a.init, stage=a.stage,
            jailbreak_toxic=a.jailbreak_toxic,
        )
