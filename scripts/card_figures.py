"""Write the builtin model's measured figures into its card (``card.json``).

Every figure is stored with the command that produced it. The evaluations run
here (same code as ``tactful eval``); the cross-validation, speed and robustness
figures are read from the JSON files their own commands wrote in this run:

    tactful train --cv detexd --out runs/cv_detexd            # -> runs/cv_detexd/cv_detexd.json
    python bench/speed.py --run-dir runs/builtin --json runs/speed.json
    python bench/robustness.py --moderator builtin --json runs/robustness.json
    python scripts/card_figures.py --cv runs/cv_detexd/cv_detexd.json \\
        --speed runs/speed.json --robustness runs/robustness.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tactful.evaluate import evaluate
from tactful.moderators.builtin import default_model_dir


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--cv", type=Path, default=None)
    ap.add_argument("--speed", type=Path, default=None)
    ap.add_argument("--robustness", type=Path, default=None)
    a = ap.parse_args()
    figures: list[dict] = []

    def add(name: str, value, command: str) -> None:
        figures.append({"name": name, "value": round(value, 4) if isinstance(value, float) else value, "command": command})

    for dataset, keys in (
        ("toxicchat", ("precision", "recall", "f1", "roc_auc", "jailbreak_recall")),
        ("toxicspans", ("span_f1",)),
    ):
        res = evaluate(dataset, moderator="builtin", split="test", data_dir=a.data_dir)
        cmd = f"tactful eval {dataset} --split test --moderator builtin --json"
        for k in keys:
            add(f"{dataset} test {k} (n={res['n']})", res[k], cmd)
    if a.cv:
        cv = json.loads(a.cv.read_text())
        cmd = "tactful train --cv detexd --out runs/cv_detexd"
        add("detexd 5-fold CV F1 (pooled out-of-fold, threshold 0.5)", cv["pooled"]["f1"], cmd)
        add("detexd 5-fold CV precision (pooled)", cv["pooled"]["precision"], cmd)
        add("detexd 5-fold CV recall (pooled)", cv["pooled"]["recall"], cmd)
        add("detexd 5-fold CV mean per-fold F1", cv["mean_f1"], cmd)
    if a.speed:
        sp = json.loads(a.speed.read_text())
        cmd = "python bench/speed.py --run-dir runs/builtin"
        for k in ("builtin_tps", "pipeline_tps", "eager_sorted_tps", "speedup_vs_pipeline",
                  "speedup_vs_eager_sorted", "builtin_f1", "eager_sorted_f1", "pipeline_f1",
                  "check_peak_rss_mb", "model_mb"):
            add(f"speed/size: {k} (ToxicChat test, n={sp['n']})", sp[k], cmd)
    if a.robustness:
        rb = json.loads(a.robustness.read_text())
        cmd = "python bench/robustness.py --moderator builtin --seed 0"
        for k, v in rb.items():
            if k not in ("moderator", "seed"):
                add(f"obfuscation: {k}", v, cmd)

    path = default_model_dir() / "card.json"
    card = json.loads(path.read_text())
    card["figures"] = figures
    path.write_text(json.dumps(card, indent=2) + "\n")
    for f in figures:
        print(f"{f['name']:70s} {f['value']}")


if __name__ == "__main__":
    main()
