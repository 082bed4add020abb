"""A model's category rows on the category dev rows: per category AUC and F1 at the
card's points, and the flag rate of each dev template functionality (harmful ones
should be flagged, harmless look-alikes not). Run it on dev to choose between models;
the test parts are for the card.

    python research/category_dev.py src/tactful/models/builtin /tmp/B32
    python research/category_dev.py --templates-of 10 src/tactful/models/builtin /tmp/B35

``--templates-of N`` prints, for each dev template that revision N of the category
templates added, the share of its rows flagged and flagged in each of its positive
categories.
"""

from __future__ import annotations

import argparse
import math
import re
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


def by_template(models: list[str], revision: int) -> None:
    """Each dev template of ``revision``: its rows (the dev rows revision ``revision``
    added to the one before, as :func:`category_template_rows` fills them), their share
    flagged, and flagged in each category the functionality labels 1."""
    from tactful.train._category_templates import (
        CATEGORY_FUNCTIONALITIES,
        CATEGORY_TEMPLATES,
        category_template_rows,
    )

    before = len(category_template_rows("dev", revision=revision - 1)) if revision > 1 else 0
    added = [text for text, _, _ in category_template_rows("dev", revision=revision)[before:]]
    mods = [(m, tactful.load("builtin", model_dir=m)) for m in models]
    print("template".ljust(12), "rows", "what".ljust(20), *(f"{m[-18:]:>18}" for m in models))
    for t in (t for t in CATEGORY_TEMPLATES if t.split == "dev" and t.since == revision):
        # the template's rows: its words around any filler (the first letter is upper-cased)
        pattern = re.sub(r"\\\{\w+\\\}", ".+", re.escape(t.text))
        texts = [x for x in added if re.fullmatch(pattern, x, re.IGNORECASE)]
        got = [m.analyze(texts) for _, m in mods]
        cats = [c for c, v in CATEGORY_FUNCTIONALITIES[t.functionality].items()
                if v == 1.0 and c in HARM_CATEGORIES]  # fmt: skip
        print(t.id.ljust(12), f"{len(texts):4d}", "flagged".ljust(20),
              *(f"{np.mean([a.flagged for a in g]):>18.3f}" for g in got))  # fmt: skip
        for c in cats:
            print(" " * 17, c.ljust(20),
                  *(f"{np.mean([a.flags.get(c, False) for a in g]):>18.3f}" for g in got))  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", help="model folders")
    ap.add_argument("--templates-of", type=int, metavar="N", help="per dev template of revision N")
    args = ap.parse_args()
    if args.templates_of:
        by_template(args.models, args.templates_of)
        return
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
