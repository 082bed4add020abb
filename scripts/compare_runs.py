"""Compare training runs on ToxicChat the way the shipped model is chosen.

For each run folder (its ``export/model.onnx`` and ``export/tokenizer.json``, as
written by ``python -m tactful.train``), the int8 export is loaded by the builtin
moderator and its toxicity head scored on ToxicChat dev (average precision: the
selection criterion, no threshold in it) and test (average precision; F1 and
jailbreak recall at the threshold that maximises dev F1 on the card's grid).

    python scripts/compare_runs.py runs/stage4 runs/stage4_s1 runs/soup4
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np

from tactful._heads import SEQ_HEADS
from tactful.datasets import load_dataset
from tactful.metrics import average_precision, jailbreak_recall, precision_recall_f1
from tactful.moderators.builtin import BuiltinModerator, load_card
from tactful.train._card import _best_f1, install_export


def model_folder(run: Path, into: Path) -> Path:
    """A model folder for ``run``'s export: its files and the shipped card, re-pinned to them."""
    try:
        pins = install_export(run, into)
    except FileNotFoundError as exc:
        raise SystemExit(str(exc)) from None
    (into / "card.json").write_text(json.dumps(load_card() | pins))
    return into


def compare(run: Path, data_dir: str | None, tmp: Path) -> dict:
    mod = BuiltinModerator(model_dir=str(model_folder(run, tmp / run.name)))
    k = SEQ_HEADS.index("toxicity")
    dev, test = load_dataset("toxicchat", "dev", data_dir), load_dataset("toxicchat", "test", data_dir)
    p_dev = mod.predict_arrays([r.text for r in dev])[0][:, k]
    p_test = mod.predict_arrays([r.text for r in test])[0][:, k]
    y_dev = np.array([int(r.labels["toxicity"]) for r in dev])
    y_test = np.array([int(r.labels["toxicity"]) for r in test])
    t, dev_f1 = _best_f1(y_dev, p_dev)
    flag = p_test >= t
    jail = [i for i, r in enumerate(test) if r.labels.get("jailbreak") is not None]
    return {
        "run": str(run),
        "dev_ap": average_precision(y_dev, p_dev),
        "test_ap": average_precision(y_test, p_test),
        "dev_threshold": t,
        "dev_f1": dev_f1,
        "test_f1": precision_recall_f1(y_test, flag.astype(int))["f1"],
        "test_jailbreak_recall": jailbreak_recall(
            [bool(flag[i]) for i in jail], [int(test[i].labels["jailbreak"]) for i in jail]
        ),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", type=Path, nargs="+")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'run':28} {'dev AP':>7} {'test AP':>7} {'dev thr':>7} {'test F1':>7} {'JR':>6}")
        for i, run in enumerate(a.runs):
            r = compare(run, a.data_dir, Path(tmp) / str(i))
            rows.append(r)
            print(f"{r['run']:28} {r['dev_ap']:7.3f} {r['test_ap']:7.3f} {r['dev_threshold']:7.3f} "
                  f"{r['test_f1']:7.3f} {r['test_jailbreak_recall']:6.3f}", flush=True)
    if a.json:
        a.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
