"""How noisy is the cross-fitted toxicity F1 that shipping rules compare?

``tactful train crossfit-noise runs/pkg_s22 runs/pkg_s7d [--resamples 2000] [--seed 0]``

Each folder is a model folder written by ``tactful train ship RUN --crossfit F1
--crossfit F2 --to DIR``: its card names the run (``source_run.dir``) and the fold
runs (``dev.crossfit_runs``, :func:`tactful.train.card_crossfit_runs`), which are
checked again with :func:`tactful.train.crossfit_runs`. The ToxicChat dev rows are
scored by the run's export and each ToxicChat train row by the fold run that did not
see it (the rows :func:`tactful.train.choose_thresholds` chooses the toxicity point
on), and each model's flags are its probabilities at its card's toxicity point.

Printed: F1 at that point on all rows, and its SD over ``--resamples`` bootstrap
resamples of the rows. With two or more folders, the paired difference of each
later one against the first on the same resamples (mean, SD, 95 % interval):
the noise of the rows alone, not of the training seed.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np

from .._heads import SEQ_HEADS
from ..datasets import load_dataset
from ..errors import ConfigError, TactfulError
from ..metrics import precision_recall_f1
from ..moderators.builtin import BuiltinModerator
from ._compare import model_folder
from ._mixture import toxicchat_folds
from ._provenance import card_crossfit_runs, crossfit_runs

__all__ = ["bootstrap_f1", "crossfit_plan", "crossfit_scores", "f1_at"]


def _model(run: Path, into: Path) -> BuiltinModerator:
    """The builtin runtime over ``run``'s export."""
    return BuiltinModerator(model_dir=str(model_folder(run, into)))


def _toxicity(mod: BuiltinModerator, texts: list[str]) -> np.ndarray:
    return mod.predict_arrays(texts)[0][:, SEQ_HEADS.index("toxicity")]


def crossfit_plan(folder: Path) -> tuple[Path, list[tuple[Path, int, int]], float]:
    """The run, its checked fold runs and the card's toxicity point of a model folder.

    Raises
    ------
    ConfigError
        When the folder, its card or the runs it names are not usable (one line,
        the folder first).
    """
    try:
        card = json.loads((folder / "card.json").read_text())
        folds_given = card_crossfit_runs(card)
        if folds_given:
            run = Path(card["source_run"]["dir"])
            return run, crossfit_runs(run, folds_given), float(card["thresholds"]["toxicity"])
    except TactfulError as exc:
        # the same error, its message led by the folder
        exc.args = (f"{folder}: {exc.args[0]}", *exc.args[1:]) if exc.args else (str(folder),)
        raise
    except (OSError, ValueError, KeyError) as exc:
        raise ConfigError(f"{folder}: {exc}") from None
    raise ConfigError(f"{folder}: its card was not shipped with --crossfit")


def crossfit_scores(
    run: Path, fold_runs: list[tuple[Path, int, int]], data_dir: str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Labels and cross-fitted toxicity probabilities of dev and train rows."""
    with tempfile.TemporaryDirectory(prefix="tactful-cfnoise-") as tmp:
        dev = load_dataset("toxicchat", "dev", data_dir)
        p = [_toxicity(_model(run, Path(tmp) / "run"), [r.text for r in dev])]
        y = [r.labels["toxicity"] for r in dev]
        train = load_dataset("toxicchat", "train", data_dir)
        folds = toxicchat_folds(data_dir, fold_runs[0][2])
        for fold_run, k, _ in fold_runs:
            held = [r for r in train if folds.get(r.text) == k]
            p.append(_toxicity(_model(fold_run, Path(tmp) / f"fold{k}"), [r.text for r in held]))
            y += [r.labels["toxicity"] for r in held]
    return np.array(y, dtype=int), np.concatenate(p)


def f1_at(y: np.ndarray, flag: np.ndarray) -> float:
    """F1 of the flags ``flag`` against the labels ``y``."""
    return precision_recall_f1(y, flag.astype(int))["f1"]


def bootstrap_f1(y: np.ndarray, flags: list[np.ndarray], resamples: int, seed: int) -> np.ndarray:
    """F1 of each model's ``flags`` on the same ``resamples`` bootstrap resamples of the rows.

    Returns
    -------
    numpy.ndarray
        Shape ``(resamples, len(flags))``.
    """
    rng = np.random.default_rng(seed)
    boot = np.empty((resamples, len(flags)))
    for b in range(resamples):
        i = rng.integers(0, len(y), len(y))
        boot[b] = [f1_at(y[i], f[i]) for f in flags]
    return boot
