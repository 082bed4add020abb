"""Threat-typed spans on the functional suite's threat and self-harm items, with the span-type
rule of a model with harm categories (a span is typed a threat only in a text whose threat
score is at least half its point) and without it (the threat point set to 0, which lets every
text's spans keep the token head's types; the spans and their places are the same).

    python research/span_types.py builtin-large
"""

from __future__ import annotations

import argparse
from collections import Counter

import tactful
from tactful.functional import build_suite, case_records


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", nargs="?", default="builtin-large")
    args = ap.parse_args()
    recs = [
        r
        for r in case_records(build_suite())
        if any(k in r.meta["functionality"] for k in ("threat", "self_harm"))
    ]
    texts = [r.text for r in recs]
    n: Counter[str] = Counter(r.meta["functionality"] for r in recs)
    got = {}
    for mode, kw in (("without", {"thresholds": {"threat": 0.0}}), ("with", {})):
        count: Counter[str] = Counter()
        for r, a in zip(recs, tactful.load(args.model, **kw).analyze(texts), strict=True):
            count[r.meta["functionality"]] += any(s.label == "threat" for s in a.spans)
        got[mode] = count
    print(f"{'functionality':32s} {'items':>5s}  items with a threat span: without / with the rule")
    for f in sorted(n):
        print(f"{f:32s} {n[f]:5d}  {got['without'][f]:4d} / {got['with'][f]:4d}")


if __name__ == "__main__":
    main()
