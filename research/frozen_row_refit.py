"""Can one sequence row learn indirect threats on a frozen encoder? (issue 11; measured, not shipped)

    python research/frozen_row_refit.py -m builtin-large --head threat [--lam 0.1] [--share 1]
        [--no-anchors] [--cache runs/frozen_L.npz] [--json]

The suite's ``threat_indirect`` functionality (``It would be a real shame if something
happened to your kids``) is the one both models fail. Retraining the encoder with the
``menace`` training templates taught the words, not the threat (README, "A 2.3.0
candidate"). This script measures the cheap route: keep the encoder and every other
head, and fit a residual correction of one row of the sequence head on the shipped
model's pooled states (those :func:`tactful.train.pooled_features`
reads, first 256 tokens of the raw text),

    logit' = logit + z · d + c,    z = the pooled states, standardized,

by weighted logistic loss with an L2 penalty ``lam`` on ``d``, on

* the menace training templates (1) and the contrast, technical, identity (600 seeded)
  and delicate training templates (0), together weighing ``share`` times the anchors;
* anchors, whose target is the shipped row's own probability (so the row keeps what
  it did): ToxicChat train, and unless ``--no-anchors`` seeded samples of training
  sources (Jigsaw sentences dev rows that no stage trained on and that are not the
  held-out 2,000, SemEval-2021 train, Davidson, OLID train, ParaDetox).

It reports, on dev data only (the suite and every test split stay unread), the share
of each held-out dev set decided right at the card's points (``threat_or`` chosen
again by the card's own rule: the lowest grid point with precision >= 0.99 on the
2,000 held-out Jigsaw sentences dev rows, 0.95 when none has it), ToxicChat dev F1,
and how many held-out Jigsaw rows the row puts over 0.8 / 0.9 / 0.95 with the
precision of those as a toxicity flag. Needs the ``train`` extra (onnx) and scipy.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

from tactful.datasets import load_dataset, load_holistic_descriptors
from tactful.metrics import precision_recall_f1
from tactful.moderators.builtin import SEQ_HEADS, default_model_dir, load_card
from tactful.train import (
    card_stages,
    harmless_dev_texts,
    load_tokenizer,
    offensive_dev_rows,
    or_in_threshold,
    pooled_features,
)

#: Held-out dev sets, in report order: (name, expected flag).
DEV_SETS = (
    ("menace", 1),
    ("contrast", 0),
    ("technical", 0),
    ("identity", 0),
    ("inclusion", 0),
    ("lookalike", 0),
    ("delicate", 0),
)
ANCHOR_SIZES = {"jigsaw": 2500, "semeval": 2000, "davidson": 1500, "olid": 1500, "paradetox": 1000}


def _sample(texts: list[str], n: int, seed: int) -> list[str]:
    unique = sorted(set(texts))
    return random.Random(seed).sample(unique, min(n, len(unique)))


def text_sets(data_dir: str | None, card: dict[str, Any]) -> dict[str, list[tuple[str, int]]]:
    """Every set the script reads: ``(text, label)``; anchors carry label 0 (unused)."""
    from tactful.train import _suite_data as F

    stages = card_stages(card)
    held = offensive_dev_rows(data_dir, stages)
    held_texts = {r.text for r in held}
    dev = harmless_dev_texts(data_dir)
    identity = F.identity_negatives(
        load_holistic_descriptors(data_dir), nouns=F.holistic_person_nouns(data_dir), split="train"
    )
    sets: dict[str, list[tuple[str, int]]] = {
        "pos:menace": [(r.text, 1) for r in F.menace_template_records(split="train")],
        "neg:contrast": [(r.text, 0) for r in F.contrast_template_records(split="train")],
        "neg:technical": [(r.text, 0) for r in F.technical_template_records(split="train")],
        "neg:identity": [(t, 0) for t in _sample([r.text for r in identity], 600, 0)],
        "neg:delicate": [(r.text, 0) for r in F.delicate_template_records(split="train")],
        "anchor:toxicchat": [
            (r.text, r.labels["toxicity"]) for r in load_dataset("toxicchat", "train", data_dir)
        ],
        "dev:menace": [(r.text, 1) for r in F.menace_template_records(split="dev")],
        "dev:contrast": [(t, 0) for t in dev["contrast"]],
        "dev:technical": [(t, 0) for t in dev["technical"]],
        "dev:identity": [(t, 0) for t in dev["identity"]],
        "dev:inclusion": [(t, 0) for t in dev["inclusion"]],
        "dev:lookalike": [(t, 0) for t in dev["lookalike"]],
        "dev:delicate": [(r.text, 0) for r in F.delicate_template_records(split="dev")],
        "dev:toxicchat": [
            (r.text, r.labels["toxicity"]) for r in load_dataset("toxicchat", "dev", data_dir)
        ],
        "jigsaw_heldout": [(r.text, int(r.label or 0)) for r in held],
    }
    sources = {
        "jigsaw": [
            r.text
            for r in load_dataset("jigsaw_sentences", "dev", data_dir)
            if r.text not in held_texts
        ],
        "semeval": [r.text for r in load_dataset("toxicspans", "train", data_dir)],
        "davidson": [r.text for r in load_dataset("davidson", "all", data_dir)],
        "olid": [r.text for r in load_dataset("olid", "train", data_dir)],
        "paradetox": [r.text for r in load_dataset("paradetox", "all", data_dir)],
    }
    for name, texts in sources.items():
        sets[f"anchor:{name}"] = [(t, 0) for t in _sample(texts, ANCHOR_SIZES[name], 0)]
    return sets


def features(
    folder: Path, card: dict[str, Any], sets: dict[str, list[tuple[str, int]]], cache: Path | None
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Pooled states and shipped sequence probabilities per set (cached by model and texts)."""
    import onnx

    names = sorted(sets)
    texts = [t for n in names for t, _ in sets[n]]
    key = hashlib.sha256(
        json.dumps([card["sha256"]["model.onnx"], texts]).encode("utf-8")
    ).hexdigest()
    if cache is not None and cache.is_file():
        with np.load(cache) as z:
            if str(z["key"]) == key:
                x, p = z["x"], z["p"]
                return _split(names, sets, x, p)
    model = onnx.load(str(folder / "model.onnx"))
    max_len = int(card_stages(card)[-1].get("config", {}).get("max_len", 256))
    tok = load_tokenizer(folder / "tokenizer.json", max_len)
    x, p = pooled_features(model, card.get("quantization"), [tok.encode(t).ids for t in texts])
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, key=key, x=x, p=p)
    return _split(names, sets, x, p)


def _split(
    names: list[str], sets: dict[str, list[tuple[str, int]]], x: np.ndarray, p: np.ndarray
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    out, at = {}, 0
    for n in names:
        k = len(sets[n])
        out[n] = (x[at : at + k], p[at : at + k])
        at += k
    return out


def _logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(p.astype(np.float64), 1e-6, 1 - 1e-6)
    return np.log(q / (1 - q))


def fit(
    feats: dict[str, tuple[np.ndarray, np.ndarray]],
    head: int,
    *,
    lam: float,
    share: float,
    anchors: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The residual ``(mean, scale, d, c)`` of one row (see the module docstring)."""
    use = [n for n in feats if n == "anchor:toxicchat" or (anchors and n.startswith("anchor:"))]
    pos = [n for n in feats if n.startswith("pos:")]
    neg = [n for n in feats if n.startswith("neg:")]
    n_anchor = sum(len(feats[n][0]) for n in use)
    n_pos = sum(len(feats[n][0]) for n in pos)
    n_neg = sum(len(feats[n][0]) for n in neg)
    xs, offs, targets, weights = [], [], [], []
    for names, target, w in (
        (use, None, 1.0),
        (pos, 1.0, share * n_anchor * 0.5 / n_pos),
        (neg, 0.0, share * n_anchor * 0.5 / n_neg),
    ):
        for n in names:
            x, p = feats[n]
            xs.append(x)
            offs.append(_logit(p[:, head]))
            targets.append(
                p[:, head].astype(np.float64) if target is None else np.full(len(x), target)
            )
            weights.append(np.full(len(x), w))
    x = np.concatenate(xs).astype(np.float64)
    off, t, w = np.concatenate(offs), np.concatenate(targets), np.concatenate(weights)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    z = (x - mean) / scale
    total = w.sum()

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        d, c = theta[:-1], theta[-1]
        a = off + z @ d + c
        value = np.sum(w * (np.logaddexp(0, a) - t * a)) / total + lam * 0.5 * d @ d / len(d)
        g = w * (1 / (1 + np.exp(-a)) - t) / total
        return float(value), np.concatenate([z.T @ g + lam * d / len(d), [g.sum()]])

    r = minimize(loss, np.zeros(z.shape[1] + 1), jac=True, method="L-BFGS-B")
    return mean, scale, r.x[:-1], float(r.x[-1])


def measure(args: argparse.Namespace) -> dict[str, Any]:
    folder = Path(args.model_dir) if args.model_dir else default_model_dir(args.moderator)
    card = load_card(folder)
    th = card["thresholds"]
    head = SEQ_HEADS.index(args.head)
    sets = text_sets(args.data_dir, card)
    feats = features(folder, card, sets, Path(args.cache) if args.cache else None)
    mean, scale, d, c = fit(feats, head, lam=args.lam, share=args.share, anchors=args.anchors)

    def refit(name: str) -> np.ndarray:
        x, p = feats[name]
        a = _logit(p[:, head]) + ((x - mean) / scale) @ d + c
        out = p.astype(np.float64).copy()
        out[:, head] = 1 / (1 + np.exp(-a))
        return out

    y_j = np.array([label for _, label in sets["jigsaw_heldout"]])
    before_j, after_j = feats["jigsaw_heldout"][1].astype(np.float64), refit("jigsaw_heldout")
    points = {
        "before": dict(th),
        "after": {**th, f"{args.head}_or": or_in_threshold(y_j, after_j[:, head])}
        if args.head != "toxicity"
        else dict(th),
    }

    def flagged(p: np.ndarray, t: dict[str, float]) -> np.ndarray:
        h = SEQ_HEADS.index
        return (
            (p[:, h("toxicity")] >= t["toxicity"])
            | (p[:, h("offensive")] >= t.get("offensive_or", 1.01))
            | (p[:, h("threat")] >= t.get("threat_or", 1.01))
            | (p[:, h("insult")] >= t.get("insult_or", 1.01))
        )

    report: dict[str, Any] = {
        "model": f"{card.get('name', args.moderator)} {card.get('version')}",
        "head": args.head,
        "lam": args.lam,
        "share": args.share,
        "anchors": args.anchors,
        f"{args.head}_or": {k: v.get(f"{args.head}_or") for k, v in points.items()},
        "dev_pass": {},
    }
    for name, expected in DEV_SETS:
        before = flagged(feats[f"dev:{name}"][1].astype(np.float64), points["before"])
        after = flagged(refit(f"dev:{name}"), points["after"])
        report["dev_pass"][name] = [
            round(float(np.mean(before == bool(expected))), 3),
            round(float(np.mean(after == bool(expected))), 3),
        ]
    y_tc = np.array([label for _, label in sets["dev:toxicchat"]])
    report["toxicchat_dev_f1"] = [
        round(precision_recall_f1(y_tc, flagged(p, points[k]).astype(int))["f1"], 4)
        for p, k in (
            (feats["dev:toxicchat"][1].astype(np.float64), "before"),
            (refit("dev:toxicchat"), "after"),
        )
    ]
    report["jigsaw_heldout_over"] = {}
    for t in (0.8, 0.9, 0.95):
        for k, p in (("before", before_j), ("after", after_j)):
            over = p[:, head] >= t
            precision = float(y_j[over].mean()) if over.any() else None
            report["jigsaw_heldout_over"][f"{k}@{t}"] = [
                int(over.sum()),
                None if precision is None else round(precision, 3),
            ]
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-m", "--moderator", default="builtin-large")
    ap.add_argument("--model-dir", default=None, help="another folder of that runtime")
    ap.add_argument("--head", default="threat", choices=SEQ_HEADS)
    ap.add_argument("--lam", type=float, default=0.1)
    ap.add_argument("--share", type=float, default=1.0)
    ap.add_argument("--no-anchors", dest="anchors", action="store_false")
    ap.add_argument("--cache", default=None, help="an .npz file for the features")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    report = measure(args)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(
        f"{report['model']} · {args.head} row · lam {args.lam} · share {args.share} · "
        f"anchors {'all sources' if args.anchors else 'ToxicChat train only'}"
    )
    before, after = report[f"{args.head}_or"].values()
    print(f"  {args.head}_or: {before} -> {after}")
    for name, (b, a) in report["dev_pass"].items():
        print(f"  dev {name:10s} decided right: {b:.3f} -> {a:.3f}")
    b, a = report["toxicchat_dev_f1"]
    print(f"  ToxicChat dev F1: {b:.4f} -> {a:.4f}")
    for key, (n, precision) in report["jigsaw_heldout_over"].items():
        print(f"  held-out Jigsaw rows over {key}: {n} (precision {precision})")


if __name__ == "__main__":
    main()
