"""How often the ToxicSpans rater rule rebuilds the SemEval-2021 gold spans.

For every SemEval-2021 post (train, trial = ``dev``, test) whose text is in the
ToxicSpans rater-level data, compare the SemEval gold offsets with the offsets
that more than 50 % of the post's raters marked (the ``toxicspans_raters``
loader's ground truth), and count the posts with no gold span.

    python scripts/span_gold_agreement.py
"""

from __future__ import annotations

import argparse

from tactful.datasets import load_dataset, span_offsets


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default=None)
    a = ap.parse_args()
    raters = {r.text: span_offsets(r.spans or ()) for r in load_dataset("toxicspans_raters", "all", a.data_dir)}
    print(f"{'split':6} {'posts':>6} {'matched':>7} {'same':>6} {'empty gold':>10} {'empty, rater rule not':>21}")
    for split in ("train", "dev", "test"):
        rows = load_dataset("toxicspans", split, a.data_dir)
        matched = [(span_offsets(r.spans or ()), raters[r.text]) for r in rows if r.text in raters]
        same = sum(g == m for g, m in matched)
        empty = [m for g, m in matched if not g]
        print(f"{split:6} {len(rows):6} {len(matched):7} {same:6} {len(empty):10} {sum(bool(m) for m in empty):21}")


if __name__ == "__main__":
    main()
