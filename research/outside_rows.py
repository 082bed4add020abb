"""Could one more linear row on a frozen encoder flag the harmful requests that none of
OpenAI's 13 categories names (copyright, misinformation, privacy, expert advice)?

The row is a logistic regression on the model's pooled features, fit like a category row
(`tactful train category-heads`): positives, the train part's requests whose own label is in
none of the 13 (`research/harm_recall.py`'s "none of the 13"); negatives, every refit
example in no category and not toxic (harmless chat prompts, identity mentions, harmless
templates, counter-speech). Its point is the lowest grid point at which it flags at most
1 % of each harmless dev set of the category points (`category_harmless_sets`) and of
`harm_benign` dev (JailbreakBench's harmless twins, TruthfulQA), else the grid's top. Printed: the dev recall of
those requests at that point, and the model's whole `harm_requests` dev recall with the row
beside its own flags. A measurement for the design, not a shipped head.

    python research/outside_rows.py models/tactful-builtin-large/tactful_builtin_large/model \
        --cache F.npz
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from harm_recall import kind  # research/, the script's own folder

import tactful
from tactful.datasets import load_dataset
from tactful.taxonomy import CATEGORIES


def outside(record: tactful.datasets.Record) -> bool:
    """A harmful request whose own label names none of the 13 categories."""
    return record.label == 1 and kind(record) == "none of the 13"


def main() -> None:
    from sklearn.linear_model import LogisticRegression

    from tactful.errors import ConfigError
    from tactful.moderators.builtin import BuiltinModerator
    from tactful.train._categories import category_examples, template_category_examples
    from tactful.train._categoryhead import cached_pooled_features, category_head_examples
    from tactful.train._config import load_tokenizer
    from tactful.train._delicatehead import float_seq_head, open_refit
    from tactful.train._thresholds import (
        THRESHOLD_GRID,
        _harmless_chat_rows,
        category_harmless_sets,
        harmless_floor,
    )

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model_dir", type=Path, help="the model whose pooled features the row reads")
    ap.add_argument(
        "--flags", type=Path, help="the model folder whose flags the row joins (default: model_dir)"
    )
    ap.add_argument("--cache", type=Path, help="the refit's feature cache (train texts)")
    ap.add_argument("--dev-cache", type=Path, help="a cache for the dev texts")
    ap.add_argument("--c", type=float, default=1.0)
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args()

    card, model, max_len = open_refit(args.model_dir, Path("/nonexistent-out"))
    model, _ = float_seq_head(model, "outside_rows")
    tok = load_tokenizer(args.model_dir / "tokenizer.json", max_len)

    def features(texts: list[str], cache: Path | None) -> np.ndarray:
        return cached_pooled_features(model, card, tok, texts, cache)

    examples = category_head_examples(args.data_dir)
    train_out = {
        r.text for r in load_dataset("harm_requests", "train", data_dir=args.data_dir) if outside(r)
    }
    pos = [t for t, _, _ in examples if t in train_out]
    neg = [
        t
        for t, tg, _ in examples
        if t not in train_out
        and tg.get("toxicity", 0.0) == 0.0
        and all(tg.get(c) == 0.0 for c in CATEGORIES)
    ]
    x = features(pos + neg, args.cache)
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    fit = LogisticRegression(C=args.c, max_iter=5000, class_weight="balanced").fit(x, y)
    print(f"train: {len(pos)} requests outside the 13, {len(neg)} harmless texts")

    dev = [r for r in load_dataset("harm_requests", "dev", data_dir=args.data_dir) if r.label == 1]
    rows = category_examples(args.data_dir, split="dev") + template_category_examples("dev")
    rows += _harmless_chat_rows(args.data_dir)
    sets = category_harmless_sets(args.data_dir, rows)
    sets["harm_benign"] = [
        r.text for r in load_dataset("harm_benign", "dev", data_dir=args.data_dir)
    ]
    texts = [r.text for r in dev] + [t for v in sets.values() for t in v]
    p = fit.predict_proba(features(texts, args.dev_cache))[:, 1]
    p_dev, rest = p[: len(dev)], p[len(dev) :]
    at = np.cumsum([0, *(len(v) for v in sets.values())])
    harmless = {name: rest[at[i] : at[i + 1]] for i, name in enumerate(sets) if at[i + 1] > at[i]}
    try:
        point = harmless_floor(harmless, 0.99)
        how = "the lowest flagging at most 1 % of each harmless dev set"
    except ConfigError:  # as choose_category_thresholds: the grid's top
        point = float(THRESHOLD_GRID[-1])
        how = "the grid's top: no point flags at most 1 % of every harmless dev set"
    is_out = np.array([outside(r) for r in dev])
    flags = BuiltinModerator(model_dir=str(args.flags or args.model_dir))
    own = np.array([a.flagged for a in flags.analyze([r.text for r in dev])])
    row = p_dev >= point
    print(f"point {point:.3f} ({how})")
    for name, v in harmless.items():
        print(f"  {name:16s} {len(v):5d} texts, flagged {(v >= point).mean():.3f}")
    print(
        f"dev requests outside the 13: {int(is_out.sum())}, flagged by the row {row[is_out].mean():.3f}"
    )
    print(
        f"harm_requests dev recall: model {own.mean():.3f}, model or row {(own | row).mean():.3f}"
    )


if __name__ == "__main__":
    main()
