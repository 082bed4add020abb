"""Cross-validate on DeTexD: the fine-tuned and the frozen-encoder protocols."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..params import (
    Constraints,
    Float,
    Int,
    Nullable,
    OneOf,
    PathLike,
    validate_params,
)
from ._config import TrainConfig, load_tokenizer, require_train_extra
from ._encoders import ENCODER_INFO, ENCODERS
from ._mixture import build_mixture
from ._run import _setup_logging, log

__all__ = [
    "CV_PROTOCOLS",
    "cross_validate",
]


#: The cross-validation protocols of :func:`cross_validate`.
CV_PROTOCOLS: tuple[str, ...] = ("detexd", "detexd-frozen")


_CV_CONSTRAINTS: Constraints = {
    "data_dir": Nullable(PathLike()),
    "out": PathLike(),
    "protocol": OneOf(CV_PROTOCOLS),
    "epochs": Float(0, None, closed="neither"),
    "seed": Int(0),
    "folds": OneOf([5]),
    "encoder": OneOf(ENCODERS),
}


def cross_validate(
    data_dir: str | Path | None,
    out: str | Path,
    *,
    protocol: str = "detexd",
    epochs: float = 5.0,
    seed: int = 0,
    folds: int = 5,
    encoder: str = "minilm",
) -> dict[str, Any]:
    """Stratified 5-fold cross-validation of the delicate head on DeTexD.

    ``protocol="detexd"``: each fold fine-tunes the encoder on four folds
    (DeTexD alone, ``epochs`` passes, 256 tokens) and scores the fifth.
    ``protocol="detexd-frozen"``: mean-pooled embeddings of the *frozen*
    pretrained encoder (256-token truncation) and a class-balanced logistic
    regression whose C is chosen by an inner 5-fold CV on each training fold.

    Both pool the out-of-fold predictions at threshold 0.5 and report that F1
    (``"pooled"``) and the mean per-fold F1; the result is also written to
    ``out/cv_detexd.json`` (``cv_detexd_frozen.json``). ``folds`` is 5: the
    DeTexD loader's ``cv0..cv4`` splits.
    """
    p = validate_params(
        "cross_validate",
        _CV_CONSTRAINTS,
        data_dir=data_dir,
        out=out,
        protocol=protocol,
        epochs=epochs,
        seed=seed,
        folds=folds,
        encoder=encoder,
    )
    require_train_extra()
    _setup_logging(p["out"])
    if p["protocol"] == "detexd-frozen":
        return _cv_frozen(
            p["data_dir"], p["out"], seed=p["seed"], folds=p["folds"], encoder=p["encoder"]
        )
    return _cv_finetuned(
        p["data_dir"],
        p["out"],
        epochs=p["epochs"],
        seed=p["seed"],
        folds=p["folds"],
        encoder=p["encoder"],
    )


def _cv_finetuned(
    data_dir: Path | None, out: Path, *, epochs: float, seed: int, folds: int, encoder: str
) -> dict[str, Any]:
    from .._heads import SEQ_HEADS
    from ..datasets import load_dataset
    from ..metrics import precision_recall_f1
    from ._loop import predict, train

    k = SEQ_HEADS.index("delicate")
    y_all, p_all, per_fold = [], [], []
    for f in range(folds):
        t0 = time.time()
        ex = build_mixture(
            data_dir,
            seed=seed,
            sources=["detexd"],
            detexd_split=f"cv{f}-train",
            repeats={"detexd": 1},
        )
        cfg = TrainConfig(
            epochs=epochs, seed=seed, max_len=256, checkpoint_every=10_000, encoder=encoder
        )
        model = train(ex, out / f"fold{f}", cfg)
        test = load_dataset("detexd", f"cv{f}-test", data_dir)
        tok = load_tokenizer(max_len=256, encoder=encoder)
        probs = predict(model, [r.text for r in test], tok)[:, k]
        y = np.array([r.label for r in test])
        m = precision_recall_f1(y, (probs >= 0.5).astype(int))
        per_fold.append(m)
        y_all.append(y)
        p_all.append(probs)
        log.info("fold %d: %s (%.0fs)", f, m, time.time() - t0)
    y, pr = np.concatenate(y_all), np.concatenate(p_all)
    result = {
        "protocol": f"stratified {folds}-fold CV (seed {seed}), {ENCODER_INFO[encoder].model} "
        "fine-tuned on DeTexD train folds, threshold 0.5",
        "pooled": precision_recall_f1(y, (pr >= 0.5).astype(int)),
        "mean_f1": float(np.mean([m["f1"] for m in per_fold])),
        "folds": per_fold,
        "epochs": epochs,
        "encoder": encoder,
    }
    (out / "cv_detexd.json").write_text(json.dumps(result, indent=2, default=float))
    log.info("DeTexD CV: %s", result)
    return result


def _cv_frozen(
    data_dir: Path | None, out: Path, *, seed: int, folds: int, encoder: str
) -> dict[str, Any]:
    import torch
    from sklearn.linear_model import LogisticRegressionCV

    from ..datasets import load_dataset
    from ..metrics import precision_recall_f1
    from ._loop import Encoded, collate
    from ._model import MultiTaskModel

    rows = load_dataset("detexd", "all", data_dir)
    index = {r.id: i for i, r in enumerate(rows)}
    tok = load_tokenizer(max_len=256, encoder=encoder)
    model = MultiTaskModel(encoder).eval()
    encs = [tok.encode(r.text).ids for r in rows]
    emb = np.zeros((len(rows), model.encoder.config.hidden_size), dtype=np.float32)
    order = sorted(range(len(rows)), key=lambda i: len(encs[i]))
    with torch.inference_mode():
        for k in range(0, len(order), 32):
            idx = order[k : k + 32]
            b = collate(
                [Encoded(encs[i], [], [-100] * len(encs[i]), [-100] * len(encs[i])) for i in idx]
            )
            h = model.encoder(
                input_ids=b["input_ids"], attention_mask=b["attention_mask"]
            ).last_hidden_state
            m = b["attention_mask"].unsqueeze(-1).float()
            emb[idx] = ((h * m).sum(1) / m.sum(1)).numpy()
    y = np.array([r.label for r in rows])
    y_all, p_all, per_fold = [], [], []
    for f in range(folds):
        tr = [index[r.id] for r in load_dataset("detexd", f"cv{f}-train", data_dir)]
        te = [index[r.id] for r in load_dataset("detexd", f"cv{f}-test", data_dir)]
        clf = LogisticRegressionCV(
            Cs=10, cv=5, class_weight="balanced", max_iter=5000, scoring="f1"
        )
        clf.fit(emb[tr], y[tr])
        pr = clf.predict_proba(emb[te])[:, 1]
        per_fold.append(precision_recall_f1(y[te], (pr >= 0.5).astype(int)))
        y_all.append(y[te])
        p_all.append(pr)
        log.info("frozen fold %d: %s", f, per_fold[-1])
    yy, pp = np.concatenate(y_all), np.concatenate(p_all)
    result = {
        "protocol": f"stratified {folds}-fold CV (seed {seed}), frozen {ENCODER_INFO[encoder].model} "
        "mean pooling + "
        "class-balanced logistic regression (C by inner 5-fold CV), threshold 0.5",
        "pooled": precision_recall_f1(yy, (pp >= 0.5).astype(int)),
        "mean_f1": float(np.mean([m["f1"] for m in per_fold])),
        "folds": per_fold,
        "encoder": encoder,
    }
    (out / "cv_detexd_frozen.json").write_text(json.dumps(result, indent=2, default=float))
    log.info("DeTexD frozen CV: %s", result)
    return result
