"""A model's category rows on the category dev rows: per category AUC and F1 at the
card's points, and the flag rate of each dev template functionality (harmful ones
should be flagged, harmless look-alikes not). Run it on dev to choose between models;
the test parts are for the card.

    python research/category_dev.py src/tactful/models/builtin /tmp/B32
"""

from __future__ import annotations

import argparse
import math
from collections import defaultdict

import numpy as np
from sklearn.metrics import f1_score, roc_auc_score

import tactful
from tactful.taxonomy import CATEGORIES, HARM_CATEGORIES
from tactful.train import category_examples


def category_target(e, cat: str) -> float:
    """A dev row's target for ``cat``: the 13 end its targets, tactful's own are in
    ``meta["extra"]``; NaN where the row has none."""
    if cat in CATEGORIES:
        return float(e.seq[len(e.seq) - len(CATEGORIES) + CATEGORIES.index(cat)])
    return float(e.meta.get("extra", {}).get(cat, math.nan))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", help="model folders")
    args = ap.parse_args()
    rows = category_examples(split="dev")
    texts = [e.text for e in rows]
    results = []
    for folder in args.models:
        mod = tactful.load("builtin", model_dir=folder)
        got = mod.analyze(texts)
        per_cat = {}
        for cat in HARM_CATEGORIES:
            if cat not in mod.heads:
                continue
            idx = [i for i, e in enumerate(rows) if not math.isnan(category_target(rows[i], cat))]
            y = np.array([category_target(rows[i], cat) >= 0.5 for i in idx])
            s = np.array([got[i].scores[cat] for i in idx])
            f = np.array([got[i].flags[cat] for i in idx])
            auc = roc_auc_score(y, s) if 0 < y.sum() < len(y) else float("nan")
            per_cat[cat] = (len(idx), int(y.sum()), auc, f1_score(y, f, zero_division=0))
        func: dict[str, list[bool]] = defaultdict(list)
        for e, a in zip(rows, got, strict=True):
            if e.source == "category_templates":
                func[e.meta["id"]].append(a.flagged)
        results.append((folder, per_cat, {k: float(np.mean(v)) for k, v in func.items()}))
    print("category".ljust(26), "rows pos", *(f"{r[0][-18:]:>22}" for r in results))
    for cat in HARM_CATEGORIES:
        cells = [r[1].get(cat) for r in results]
        first = next((c for c in cells if c), None)
        if first is None:
            continue
        print(
            cat.ljust(26),
            f"{first[0]:4d} {first[1]:3d}",
            *(f"{f'AUC {c[2]:.4f} F1 {c[3]:.3f}' if c else '-':>22}" for c in cells),
        )
    print("\ndev template functionality: share flagged")
    for name in sorted(results[0][2]):
        print(name.ljust(26), *(f"{r[2].get(name, float('nan')):>22.3f}" for r in results))


if __name__ == "__main__":
    main()
