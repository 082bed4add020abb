"""Flag suppression per group with and without the texts that hold a slur.

The audit's worst traditional group for the builtin models is "women", and its
harmless rows are mostly TweetEval hate's "not hate" tweets, many of them with
"bitch", "hoe" or "whore" aimed at someone. The tagger counts such a word both as a
mention of the group and as a slur (``has_slur``). This script splits each family's
true negatives by ``has_slur`` and gives the per-group i-FPR and flag ratio
(:func:`tactful.audit.metrics.suppression_table`) on all of them and on those
without a slur, from the answers a finished ``tactful audit`` run keeps in its
store (nothing is recomputed; a text the store lacks is an error)::

    tactful audit -m builtin --datasets traditional,genai --out out/audit
    python research/audit_slur_split.py --store out/audit/store.sqlite -m builtin

Paper: Anigboro et al. (2024) fit the same split as a ``has_slur`` term of their
regressions; this is its plain count.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd

import tactful
from tactful.audit import build_audit_sets
from tactful.audit.metrics import suppression_table, worst_group
from tactful.store import ResultStore


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", required=True, help="the audit's store.sqlite")
    ap.add_argument("-m", "--moderator", default="builtin")
    ap.add_argument("--datasets", default="traditional")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--n-resamples", type=int, default=200)
    args = ap.parse_args()

    store = ResultStore(args.store)
    mod = tactful.load(args.moderator)
    sets, _, _ = build_audit_sets(args.datasets, data_dir=args.data_dir, store=store)
    by_family: dict[str, list] = {}
    for s in sets:
        if s.primary:
            by_family.setdefault(s.family, []).append(s)
    for family, chosen in by_family.items():
        texts = [t for s in chosen for t in s.texts]
        flags, _ = store.flags_and_max_scores(mod, texts)
        flags = np.asarray(flags, dtype=float)
        if np.isnan(flags).any():
            sys.exit(
                f"error: {int(np.isnan(flags).sum())} {family} texts have no stored answer "
                f"from {args.moderator}: run tactful audit first."
            )
        y = np.concatenate([s.y_true for s in chosen])
        groups = [g for s in chosen for g in s.groups]
        slur = np.concatenate([s.has_slur for s in chosen])
        print(
            f"{family}: {int((y == 0).sum()):,} true negatives, {int(slur[y == 0].sum()):,} with a slur"
        )
        for label, keep in (("all", np.ones_like(slur)), ("no slur", ~slur)):
            idx = np.flatnonzero(keep)
            table = suppression_table(
                y[idx], flags[idx] > 0, [groups[i] for i in idx], n_resamples=args.n_resamples
            )
            worst = worst_group(table)
            rows = ", ".join(
                f"{r.group} {r.ratio:.2f} ({r.n_fp}/{r.n_tn})"
                for r in table.itertuples()
                if r.ratio is not pd.NA
            )
            head = (
                f"worst {worst['group']} {worst['ratio']:.2f} "
                f"[{worst['ratio_low']:.2f}, {worst['ratio_high']:.2f}]"
                if worst
                else "no ratio"
            )
            print(f"  {label:8s} {head}; every group: {rows}")


if __name__ == "__main__":
    main()
