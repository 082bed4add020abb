"""How noisy is the cross-fitted toxicity F1 that shipping rules compare?

    python scripts/crossfit_noise.py runs/pkg_s22 runs/pkg_s7d [--resamples 2000] [--seed 0]

Each argument is a model folder written by ``tactful train ship RUN --crossfit F1
--crossfit F2 --to DIR``: its card names the run (``source_run.dir``) and the fold
runs (``dev.crossfit_runs``, :func:`tactful.train.card_crossfit_runs`), which are checked again with
:func:`tactful.train.crossfit_runs`. The ToxicChat dev rows are scored by the
run's export and each ToxicChat train row by the fold run that did not see it
(the rows :func:`tactful.train.choose_thresholds` chooses the toxicity point on),
and each model's flags are its probabilities at its card's toxicity point.

Printed: F1 at that point on all rows, and its SD over ``--resamples`` bootstrap
resamples of the rows. With two or more folders, the paired difference of each
later one against the first on the same resamples (mean, SD, 95 % interval):
the noise of the rows alone, not of the training seed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from tactful.datasets import load_dataset
from tactful.errors import TactfulError
from tactful.metrics import precision_recall_f1
from tactful.moderators.builtin import SEQ_HEADS, BuiltinModerator
from tactful.train import card_crossfit_runs, crossfit_runs, toxicchat_folds

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_runs import model_folder  # a run's export as a model folder


def _model(run: Path, into: Path) -> BuiltinModerator:
    """The builtin runtime over ``run``'s export."""
    return BuiltinModerator(model_dir=str(model_folder(run, into)))


def _toxicity(mod: BuiltinModerator, texts: list[str]) -> np.ndarray:
    return mod.predict_arrays(texts)[0][:, SEQ_HEADS.index("toxicity")]


def crossfit_plan(folder: Path) -> tuple[Path, list[tuple[Path, int, int]], float]:
    """The run, its checked fold runs and the card's toxicity point; a one-line
    ``SystemExit`` when the folder, its card or the runs it names are not usable."""
    try:
        card = json.loads((folder / "card.json").read_text())
        folds_given = card_crossfit_runs(card)
        if not folds_given:
            raise SystemExit(f"error: {folder}: its card was not shipped with --crossfit")
        run = Path(card["source_run"]["dir"])
        return run, crossfit_runs(run, folds_given), float(card["thresholds"]["toxicity"])
    except (OSError, ValueError, KeyError, TactfulError) as exc:
        raise SystemExit(f"error: {folder}: {exc}") from None


def crossfit_scores(
    run: Path, fold_runs: list[tuple[Path, int, int]]
) -> tuple[np.ndarray, np.ndarray]:
    """Labels and cross-fitted toxicity probabilities of dev and train rows."""
    with tempfile.TemporaryDirectory(prefix="tactful-cfnoise-") as tmp:
        dev = load_dataset("toxicchat", "dev")
        p = [_toxicity(_model(run, Path(tmp) / "run"), [r.text for r in dev])]
        y = [r.labels["toxicity"] for r in dev]
        train = load_dataset("toxicchat", "train")
        folds = toxicchat_folds(None, fold_runs[0][2])
        for fold_run, k, _ in fold_runs:
            held = [r for r in train if folds.get(r.text) == k]
            p.append(_toxicity(_model(fold_run, Path(tmp) / f"fold{k}"), [r.text for r in held]))
            y += [r.labels["toxicity"] for r in held]
    return np.array(y, dtype=int), np.concatenate(p)


def f1(y: np.ndarray, flag: np.ndarray) -> float:
    return precision_recall_f1(y, flag.astype(int))["f1"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    flags: list[np.ndarray] = []
    y0: np.ndarray | None = None
    # every folder is checked before any is scored
    plans = [crossfit_plan(folder) for folder in a.folders]
    for folder, (run, fold_runs, point) in zip(a.folders, plans, strict=True):
        y, p = crossfit_scores(run, fold_runs)
        if y0 is not None and not np.array_equal(y, y0):
            raise SystemExit(f"error: {folder}: not the same cross-fitted rows as {a.folders[0]}")
        y0 = y
        flags.append(p >= point)
        print(f"{folder}: {len(y):,} rows, point {point:g}, F1 {f1(y, flags[-1]):.4f}")
    assert y0 is not None
    rng = np.random.default_rng(a.seed)
    boot = np.empty((a.resamples, len(flags)))
    for b in range(a.resamples):
        i = rng.integers(0, len(y0), len(y0))
        boot[b] = [f1(y0[i], f[i]) for f in flags]
    for folder, col in zip(a.folders, boot.T, strict=True):
        print(f"{folder}: bootstrap SD of F1 {col.std():.4f}")
    for j in range(1, len(flags)):
        d = boot[:, j] - boot[:, 0]
        lo, hi = np.percentile(d, [2.5, 97.5])
        print(
            f"{a.folders[j]} - {a.folders[0]}: mean {d.mean():+.4f}, SD {d.std():.4f}, "
            f"95 % interval [{lo:+.4f}, {hi:+.4f}]"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
