"""The threat row refit on a frozen encoder: its dev figures by strength and weight (issue 41)

    python research/threat_row.py MODEL_DIR [--c 1 --c 0.3] [--weight 1 --weight 3]
        [--cache F.npz] [--json]

``tactful train category-heads MODEL --head threat`` refits the threat row of the
sequence head by logistic regression on the pooled states, from the rows of
:func:`tactful.train.category_head_examples` that label ``threat``. This script fits
that row for each ``--c`` (scikit-learn's ``C``) and each weight of the category rows
that are no threat (``THREAT_CATEGORY_WEIGHT`` in the command), and reports on the dev
rows the command chooses the threat point on (the held-out category templates and
toxic-language templates; the suite and every test split stay unread): AUC, the best F1
on the threshold grid and its point, and per template family the share at or above 0.5,
beside the model's own threat row. Needs the ``train`` extra (onnx) and scikit-learn.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import onnx
import onnx.numpy_helper
from sklearn.linear_model import LogisticRegression

from tactful._heads import CATEGORY_HEADS
from tactful.metrics import roc_auc
from tactful.moderators.builtin import load_card
from tactful.train import (
    THRESHOLD_GRID,
    cached_pooled_features,
    category_examples,
    category_head_examples,
    load_tokenizer,
    template_category_examples,
)

TH = CATEGORY_HEADS.index("threat")


def figures(y: np.ndarray, p: np.ndarray, family: np.ndarray) -> dict:
    f1 = []
    for t in THRESHOLD_GRID:
        hit = p >= t
        f1.append(2 * float((hit & (y == 1)).sum()) / max(1, int(hit.sum() + y.sum())))
    best = int(np.argmax(f1))
    return {
        "auc": round(float(roc_auc(y, p) or 0.0), 4),
        "best_f1": round(f1[best], 4),
        "at": round(float(THRESHOLD_GRID[best]), 3),
        "share_at_0.5": {
            f: round(float((p[family == f] >= 0.5).mean()), 2) for f in sorted(set(family))
        },
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("--c", type=float, action="append")
    ap.add_argument("--weight", type=float, action="append")
    ap.add_argument("--cache", type=Path)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    card = load_card(a.model_dir)
    model = onnx.load(str(a.model_dir / "model.onnx"))
    tok = load_tokenizer(a.model_dir / "tokenizer.json", 256)
    rows = [(t, g["threat"], s) for t, g, s in category_head_examples(a.data_dir) if "threat" in g]
    x = cached_pooled_features(model, card, tok, [t for t, _, _ in rows], a.cache)
    y = np.array([v for _, v, _ in rows])
    source = np.array([s for _, _, s in rows])
    dev = category_examples(a.data_dir, split="dev") + template_category_examples("dev")
    dev = [e for e in dev if not np.isnan(e.seq[TH])]
    xd = cached_pooled_features(model, card, tok, [e.text for e in dev], a.cache)
    yd = np.array([int(e.seq[TH]) for e in dev])
    family = np.array([str(e.meta.get("id", e.source))[:6] for e in dev])
    init = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    w, b = init["model.seq_head.weight"], init["model.seq_head.bias"]
    out = {
        "train_rows": {
            f"{s} {int(v >= 0.5)}": int(((source == s) & ((y >= 0.5) == bool(v))).sum())
            for s in sorted(set(source))
            for v in (0, 1)
        },
        "dev_rows": len(dev),
        "dev_threats": int(yd.sum()),
        "shipped": figures(yd, 1 / (1 + np.exp(-(xd @ w[TH] + b[TH]))), family),
    }
    for c in a.c or [1.0]:
        for weight in a.weight or [1.0, 3.0]:
            sw = np.where((source == "category_examples") & (y < 0.5), weight, 1.0)
            wt = np.concatenate([y * sw, (1 - y) * sw])
            keep = wt > 0
            fit = LogisticRegression(C=c, max_iter=5000).fit(
                np.concatenate([x, x])[keep],
                np.concatenate([np.ones(len(y), int), np.zeros(len(y), int)])[keep],
                sample_weight=wt[keep],
            )
            out[f"c={c} weight={weight}"] = figures(yd, fit.predict_proba(xd)[:, 1], family)
    if a.json:
        print(json.dumps(out, indent=2))
        return
    for k, v in out.items():
        print(k, v)


if __name__ == "__main__":
    main()
