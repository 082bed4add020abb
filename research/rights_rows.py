"""Can residual corrections of sequence rows on the frozen encoder tell a right affirmed
from a right denied? (issue 41; measured, not shipped)

    python research/rights_rows.py -m builtin [--lam 0.1] [--share 1] [--templates]
        [--text TEXT ...] [--cache F.npz] [--json]

Both shipped models flag ``Women should be allowed to vote.`` as hate, as they flag its
denial (``research/rights_statements.py``). This script fits, for each row that decides
the flag or names the category (``toxicity``, ``offensive``, ``identity_attack`` and, where
the model has it, ``hate``), the residual of ``research/frozen_row_refit.py``

    logit' = logit + z · d + c,    z = the pooled states, standardized,

on training pairs of its own (a right affirmed: 0; the same right denied: 1) in frames,
rights and groups that none of the probe's sentences use, anchored on the shipped row's own
probabilities for ToxicChat train and seeded samples of the training sources; with
``--templates`` the exclusion and derogation training templates (1) and the inclusion
ones (0) join the pairs. It reports the probe (``rights_statements.py``'s sentences, never
fitted on) before and after, the held-out dev sets of ``frozen_row_refit.py`` and the
held-out exclusion and derogation templates decided right at the card's points (flags from
the sequence scores alone), and ToxicChat dev F1. Needs the ``train`` extra (onnx) and
scipy.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from frozen_row_refit import DEV_SETS, _logit, features, fit, text_sets
from rights_statements import AFFIRM, DENY, GROUPS

from tactful.metrics import precision_recall_f1
from tactful.moderators.builtin import SEQ_HEADS, default_model_dir, load_card

#: Training pairs: frames, rights and groups that the probe does not use.
TRAIN_GROUPS = (
    "Bisexual people",
    "Gay men",
    "Nonbinary people",
    "Sikhs",
    "Hindus",
    "Catholics",
    "Asian Americans",
    "Latinos",
    "Refugees",
    "Deaf people",
    "Older people",
    "Single mothers",
)
TRAIN_RIGHTS = (
    "adopt children",
    "own a home",
    "run for office",
    "teach in our schools",
    "worship in public",
    "open a business",
    "hold hands in public",
    "become citizens",
)
TRAIN_FRAMES = (
    ("{g} ought to be permitted to {r}.", "{g} ought not to be permitted to {r}."),
    ("{g} must be free to {r}.", "{g} must never be free to {r}."),
    ("Let {g} {r}.", "Don't let {g} {r}."),
    ("It's right that {g} can {r}.", "It's wrong that {g} can {r}."),
    ("{g} have the right to {r}.", "{g} have no right to {r}."),
    (
        "Nobody should stop {g} if they want to {r}.",
        "Somebody should stop {g} if they want to {r}.",
    ),
    ("The law should let {g} {r}.", "The law should forbid {g} to {r}."),
    ("I'm glad {g} are allowed to {r} here.", "I'm angry {g} are allowed to {r} here."),
)


def template_sets() -> dict[str, list[tuple[str, int]]]:
    """The exclusion, inclusion and derogation training templates (fitted with
    ``--templates``) and their held-out dev templates (reported)."""
    from tactful.train import _suite_data as F

    out: dict[str, list[tuple[str, int]]] = {}
    for split, prefix in (("train", ""), ("dev", "dev:")):
        exc = F.exclusion_template_records(split=split)
        der = F.derogation_template_records(split=split)
        tox = [(r.text, 1) for r in exc + der if r.labels.get("toxicity") == 1]
        inc = [(r.text, 0) for r in exc if r.labels.get("toxicity") == 0]
        if split == "train":
            out["tpl_pos"], out["tpl_neg"] = tox, inc
        else:
            out[f"{prefix}exclusion_derogation"], out[f"{prefix}inclusion_t"] = tox, inc
    return out


def rights_sets() -> dict[str, list[tuple[str, int]]]:
    pos, neg = [], []
    for yes, no in TRAIN_FRAMES:
        for g in TRAIN_GROUPS:
            for r in TRAIN_RIGHTS:
                neg.append((yes.format(g=g, r=r), 0))
                pos.append((no.format(g=g, r=r), 1))
    return {
        "pos:denied": pos,
        "neg:affirmed": neg,
        "probe:affirm": [(s.format(g=g), 0) for s in AFFIRM for g in GROUPS],
        "probe:deny": [(s.format(g=g), 1) for s in DENY for g in GROUPS],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-m", "--moderator", default="builtin")
    ap.add_argument("--model-dir", default=None)
    ap.add_argument("--lam", type=float, default=0.1)
    ap.add_argument("--share", type=float, default=1.0)
    ap.add_argument("--cache", default=None)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--templates", action="store_true", help="fit the templates too")
    ap.add_argument("--text", action="append", default=[], help="a text to show (repeatable)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    folder = Path(args.model_dir) if args.model_dir else default_model_dir(args.moderator)
    card = load_card(folder)
    th = card["thresholds"]
    sets = text_sets(args.data_dir, card)
    # the script's own pairs replace frozen_row_refit's menace positives and contrast negatives
    sets = {k: v for k, v in sets.items() if not k.startswith(("pos:", "neg:"))} | rights_sets()
    sets |= template_sets()
    sets["texts"] = [(t, 0) for t in args.text]
    feats = features(folder, card, sets, Path(args.cache) if args.cache else None)
    if args.templates:  # the fit reads the pos: and neg: sets
        feats["pos:templates"], feats["neg:templates"] = feats["tpl_pos"], feats["tpl_neg"]
    names = list(card["heads"])
    if len(names) != feats["probe:affirm"][1].shape[1]:
        raise SystemExit(f"the card's {len(names)} heads are not the graph's sequence outputs")
    categories = names[len(SEQ_HEADS) :]
    rows = [h for h in ("toxicity", "offensive", "identity_attack", "hate") if h in names]
    fits = {
        h: fit(feats, names.index(h), lam=args.lam, share=args.share, anchors=True) for h in rows
    }

    def probs(name: str, after: bool) -> np.ndarray:
        x, p = feats[name]
        out = p.astype(np.float64).copy()
        if after:
            for h, (mean, scale, d, c) in fits.items():
                i = names.index(h)
                out[:, i] = 1 / (1 + np.exp(-(_logit(p[:, i]) + ((x - mean) / scale) @ d + c)))
        return out

    def flagged(p: np.ndarray) -> np.ndarray:
        i = names.index
        return (
            (p[:, i("toxicity")] >= th["toxicity"])
            | (p[:, i("offensive")] >= th.get("offensive_or", 1.01))
            | (p[:, i("threat")] >= th.get("threat_or", 1.01))
            | (p[:, i("insult")] >= th.get("insult_or", 1.01))
            | np.any(
                [p[:, i(c)] >= th.get(f"{c}_or", th.get(c, 0.5)) for c in categories]
                or [np.zeros(len(p), bool)],
                axis=0,
            )
        )

    report: dict[str, Any] = {
        "model": f"{card.get('name', args.moderator)} {card.get('version')}",
        "rows": rows,
        "lam": args.lam,
        "share": args.share,
        "train_pairs": len(sets["pos:denied"]),
    }
    for key in ("probe:affirm", "probe:deny"):
        report[key] = {
            "flagged": [int(flagged(probs(key, a)).sum()) for a in (False, True)],
            "n": len(sets[key]),
        }
        if "hate" in names:
            report[key]["hate_over_point"] = [
                int((probs(key, a)[:, names.index("hate")] >= th["hate"]).sum())
                for a in (False, True)
            ]
    report["dev_pass"] = {}
    for name, expected in (*DEV_SETS, ("exclusion_derogation", 1)):
        if f"dev:{name}" in feats:
            report["dev_pass"][name] = [
                round(float(np.mean(flagged(probs(f"dev:{name}", a)) == bool(expected))), 3)
                for a in (False, True)
            ]
    y = np.array([label for _, label in sets["dev:toxicchat"]])
    report["toxicchat_dev_f1"] = [
        round(precision_recall_f1(y, flagged(probs("dev:toxicchat", a)).astype(int))["f1"], 4)
        for a in (False, True)
    ]
    if args.text:
        i = names.index("toxicity")
        report["texts"] = {
            t: {
                "toxicity": [round(float(probs("texts", a)[k, i]), 3) for a in (False, True)],
                "flagged": [bool(flagged(probs("texts", a))[k]) for a in (False, True)],
            }
            for k, t in enumerate(args.text)
        }
    print(json.dumps(report, indent=None if not args.json else 2))


if __name__ == "__main__":
    main()
