"""Where a moderator misses harmful requests: `harm_requests` recall by source set and by
what the set's label implies (one of OpenAI's 13 categories, none of them, or no label).

"None of the 13" are harms the sets name that no OpenAI category covers (HarmBench's
copyright and misinformation behaviours, JailbreakBench's privacy, expert-advice and
government behaviours): a model whose only flags are toxicity and the 13 categories can
flag them only as toxic language. Run it on dev; the test part is for the card.

    python research/harm_recall.py builtin --split dev
    python research/harm_recall.py builtin --split dev --at 0.775 --at 0.9

``--at P`` also prints how the toxicity score alone ranks the harmful requests against
``harm_benign``'s harmless ones (ROC AUC), and the share of each at or above ``P``.
"""

from __future__ import annotations

import argparse
from collections import Counter

import tactful
from tactful.datasets import load_dataset
from tactful.taxonomy import categories_of


def kind(record: tactful.datasets.Record) -> str:
    """What a harmful request's own label implies."""
    label = record.meta.get("category")
    if label is None:
        return "no label"
    return "in the 13" if categories_of(record.meta["set"], label) else "none of the 13"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", nargs="?", default="builtin")
    ap.add_argument("--split", default="dev")
    ap.add_argument("-O", "--option", action="append", default=[], help="KEY=VALUE")
    ap.add_argument("--at", type=float, action="append", default=[], help="a toxicity point")
    args = ap.parse_args()
    options = dict(o.split("=", 1) for o in args.option)
    rows = [r for r in load_dataset("harm_requests", args.split) if r.label == 1]
    model = tactful.load(args.model, **options)
    got = model.analyze([r.text for r in rows])
    n: Counter[tuple[str, str]] = Counter()
    hit: Counter[tuple[str, str]] = Counter()
    for r, a in zip(rows, got, strict=True):
        for key in ((r.meta["set"], kind(r)), ("all", kind(r)), ("all", "all")):
            n[key] += 1
            hit[key] += a.flagged
    print(f"{'set':20s} {'label':16s} {'rows':>5s} {'flagged':>8s} {'recall':>7s}")
    for key in sorted(n, key=lambda k: (k[0] == "all", k)):
        print(f"{key[0]:20s} {key[1]:16s} {n[key]:5d} {hit[key]:8d} {hit[key] / n[key]:7.3f}")
    if args.at:
        from tactful.metrics import roc_auc

        harmless = model.analyze([r.text for r in load_dataset("harm_benign", args.split)])
        pos = [a.scores["toxicity"] for a in got]
        neg = [a.scores["toxicity"] for a in harmless]
        auc = roc_auc([1] * len(pos) + [0] * len(neg), pos + neg)
        print(f"toxicity alone: ROC AUC {auc:.3f} ({len(pos)} harmful, {len(neg)} harmless)")
        for t in args.at:
            share = sum(p >= t for p in pos) / len(pos), sum(p >= t for p in neg) / len(neg)
            print(f"  at {t}: harmful {share[0]:.3f}, harmless {share[1]:.3f}")


if __name__ == "__main__":
    main()
