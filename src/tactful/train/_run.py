"""Entry points: train the multi-task model, export it, cross-validate DeTexD."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

import numpy as np

__all__ = ["cv_detexd", "main", "run_training"]

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


def run_training(
    data_dir: str | None, out: Path, *, epochs: float = 1.0, seed: int = 0, export: bool = True,
    init: Path | None = None,
) -> Path:
    """Build the mixture, train, and export ONNX into ``out/export``.

    With ``init`` (a stage-1 ``model.pt``), run stage 2 instead: the chat-domain
    pass of :data:`STAGE2_CAPS` at a lower learning rate.
    """
    from ._export import export_onnx
    from ._loop import TrainConfig, train
    from ._mixture import build_mixture

    _setup_logging(out)
    if init is None:
        examples = build_mixture(data_dir, seed=seed)
        cfg = TrainConfig(epochs=epochs, seed=seed)
    else:
        examples = build_mixture(data_dir, seed=seed + 1, caps=STAGE2_CAPS, repeats=STAGE2_REPEATS)
        cfg = TrainConfig(epochs=epochs, seed=seed + 1, lr=3e-5, head_lr=1e-4, init=str(init))
    log.info("mixture: %d examples", len(examples))
    model = train(examples, out, cfg)
    if export:
        export_onnx(model, out / "export")
    return out


def cv_detexd(data_dir: str | None, out: Path, *, epochs: float = 3.0, seed: int = 0, folds: int = 5) -> dict:
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


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m tactful.train")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--out", type=Path, default=Path("runs/builtin"))
    ap.add_argument("--epochs", type=float, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cv", choices=["detexd"], default=None)
    ap.add_argument("--ship", action="store_true", help="copy --out's export into the package and write card.json")
    ap.add_argument("--version", default="1.0.0")
    ap.add_argument("--init", type=Path, default=None, help="stage 2: start from this stage-1 model.pt")
    a = ap.parse_args(argv)
    if a.ship:
        from ._card import ship

        _setup_logging(a.out)
        pkg = Path(__file__).resolve().parents[1] / "models" / "builtin"
        card = ship(a.out, pkg, a.data_dir, version=a.version)
        log.info("shipped to %s: thresholds %s dev %s", pkg, card["thresholds"], card["dev"])
    elif a.cv == "detexd":
        cv_detexd(a.data_dir, a.out, epochs=a.epochs or 3.0, seed=a.seed)
    else:
        run_training(a.data_dir, a.out, epochs=a.epochs or 1.0, seed=a.seed, init=a.init)
