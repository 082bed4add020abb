"""How the SemEval-2021 gold spans relate to the ToxicSpans raters' spans.

For every SemEval-2021 post (train, trial = ``dev``, test), compare its gold
offsets with two rules over the same post's rater-level spans: more than 50 % of
its raters marked the character (the ToxicSpans paper's ground truth, the
``toxicspans_raters`` loader's spans) and at least one rater marked it (the
union). Also counts the posts with no gold span, and those of them the > 50 %
rule gives a span.

    python research/span_gold_agreement.py
"""

from __future__ import annotations

import argparse

from tactful.datasets import load_dataset, span_offsets


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default=None)
    a = ap.parse_args()
    raters = {r.text: r for r in load_dataset("toxicspans_raters", "all", a.data_dir)}
    print(
        f"{'split':6} {'posts':>6} {'matched':>7} {'= >50%':>7} {'= union':>7} {'empty gold':>10} "
        f"{'empty, >50% not':>15}"
    )
    for split in ("train", "dev", "test"):
        rows = load_dataset("toxicspans", split, a.data_dir)
        matched = [(span_offsets(r.spans), raters[r.text]) for r in rows if r.text in raters]
        majority = sum(g == span_offsets(m.spans) for g, m in matched)
        union = sum(g == m.meta["marked_by_any"] for g, m in matched)
        empty = [m for g, m in matched if not g]
        print(
            f"{split:6} {len(rows):6} {len(matched):7} {majority:7} {union:7} {len(empty):10} "
            f"{sum(bool(m.spans) for m in empty):15}"
        )


if __name__ == "__main__":
    main()
