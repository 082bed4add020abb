"""The bands of ``builtin-cascade``: which texts go to the large model, and what that buys.

    python bench/cascade.py [--split dev|test] [--choose] [--small-dir DIR] [--large-dir DIR]
                            [--top 15] [--json out.json]

Both models analyse the ToxicChat 0124 rows of ``--split`` once, each text alone
(``Moderator.analyze``, default settings). A cascade with bands (toxicity
``[lo, hi]``, jailbreak ``[lo, hi]``) answers a text with the large model's
analysis when the small model's toxicity or jailbreak probability lies in its
band, and with the small one's otherwise (``CascadeModerator.uncertain``; both
models are batch-invariant, so this is the answer the cascade gives, which
``tests/test_cascade.py`` checks). For each pair of bands of a grid, the script
prints F1 and jailbreak recall of the routed answers (``tactful.evaluate.score``)
and the share of texts sent to the large model, beside the two models alone.

``--choose`` (run it on ``dev``): the bands with the smallest share sent that
give the large model's toxicity decision on at least ``--capture`` (90 %) of the
texts where the two models' decisions differ. The rule needs no labels (on 280
dev rows with 38 toxic ones, "reach the large model's F1" is met by bands that
send 3 % and catch two or three texts), and a cascade can only change answers
where the models disagree. The package's defaults (``DEFAULT_TOXICITY_BAND``,
``DEFAULT_JAILBREAK_BAND``) come from it. Speed is measured by
``bench/models.py -m builtin-cascade``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tactful import Analysis
from tactful.datasets import Record, load_dataset
from tactful.evaluate import score
from tactful.moderators.builtin import BuiltinLargeModerator, BuiltinModerator
from tactful.moderators.cascade import (
    DEFAULT_JAILBREAK_BAND,
    DEFAULT_TOXICITY_BAND,
    CascadeModerator,
)

TOXICITY_LOWS = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5)
TOXICITY_HIGHS = (0.8, 0.9, 0.95, 0.98, 1.0)
#: A jailbreak band of [1, 1] sends (almost) nothing on the jailbreak head.
JAILBREAK_BANDS = ((1.0, 1.0), *itertools.product((0.1, 0.3, 0.5), (0.9, 0.99, 1.0)))


def routed(
    records: Sequence[Record],
    small: Sequence[Analysis],
    large: Sequence[Analysis],
    tox: Sequence[float],
    jb: Sequence[float],
) -> dict[str, Any]:
    """F1, jailbreak recall, share sent and share of differences captured of one band pair."""
    rule = CascadeModerator(toxicity_band=tox, jailbreak_band=jb)
    sent = [rule.uncertain(a) for a in small]
    answers = [b if s else a for a, b, s in zip(small, large, sent, strict=True)]
    m = score(records, answers, task="toxicity", moderator="builtin-cascade")
    differ = [a.flagged != b.flagged for a, b in zip(small, large, strict=True)]
    return {
        "toxicity_band": list(tox),
        "jailbreak_band": list(jb),
        "captured": sum(d and s for d, s in zip(differ, sent, strict=True)) / max(1, sum(differ)),
        "f1": m["f1"],
        "precision": m["precision"],
        "recall": m["recall"],
        "jailbreak_recall": m["jailbreak_recall"],
        "sent": sum(sent) / len(sent),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", default="dev", choices=("dev", "test"))
    ap.add_argument("--choose", action="store_true", help="Print the chosen bands.")
    ap.add_argument("--small-dir", default=None)
    ap.add_argument("--large-dir", default=None)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--capture", type=float, default=0.9, help="--choose: share of differences.")
    ap.add_argument("--top", type=int, default=15, help="Grid rows printed (best F1 first).")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)

    records = load_dataset("toxicchat", args.split, args.data_dir)
    texts = [r.text for r in records]
    small_m = BuiltinModerator(model_dir=args.small_dir)
    large_m = BuiltinLargeModerator(model_dir=args.large_dir)
    small, large = small_m.analyze(texts), large_m.analyze(texts)
    alone = {
        name: {k: score(records, a, task="toxicity")[k] for k in ("f1", "jailbreak_recall")}
        for name, a in ((small_m.version, small), (large_m.version, large))
    }
    grid = [
        routed(records, small, large, (lo, hi), jb)
        for lo, hi in itertools.product(TOXICITY_LOWS, TOXICITY_HIGHS)
        for jb in JAILBREAK_BANDS
    ]
    default = routed(records, small, large, DEFAULT_TOXICITY_BAND, DEFAULT_JAILBREAK_BAND)
    print(f"ToxicChat {args.split}, {len(records):,} rows")
    for name, m in alone.items():
        print(f"  alone {name}: F1 {m['f1']:.4f}  JR {m['jailbreak_recall']:.4f}")

    def line(r: dict[str, Any]) -> str:
        return (
            f"  tox {r['toxicity_band']}  jb {r['jailbreak_band']}:  F1 {r['f1']:.4f}  "
            f"P {r['precision']:.3f} R {r['recall']:.3f}  JR {r['jailbreak_recall']:.4f}  "
            f"sent {r['sent']:.1%}  captured {r['captured']:.0%}"
        )

    print("  default bands:")
    print(line(default))
    print(f"  grid, best F1 first (top {args.top} of {len(grid)}):")
    for r in sorted(grid, key=lambda r: (-r["f1"], r["sent"]))[: args.top]:
        print(line(r))
    out: dict[str, Any] = {"split": args.split, "alone": alone, "default": default}
    differ = sum(a.flagged != b.flagged for a, b in zip(small, large, strict=True))
    print(f"  the two models' toxicity decisions differ on {differ} texts")
    if args.choose:
        ok = [r for r in grid if r["captured"] >= args.capture]
        if not ok:
            print(f"  no bands capture {args.capture:.0%} of the differences", file=sys.stderr)
            return 1
        chosen = min(ok, key=lambda r: (r["sent"], -r["captured"], -r["f1"]))
        print(f"  chosen (smallest share sent capturing >= {args.capture:.0%} of them):")
        print(line(chosen))
        out["chosen"] = chosen
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
