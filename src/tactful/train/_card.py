"""Ship a trained run: operating points chosen on dev data, and the model card."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .._hashing import sha256_file
from .._heads import SEQ_HEADS, SPAN_TYPES
from ..errors import ConfigError
from ..params import (
    Check,
    Constraints,
    Float,
    Nullable,
    OneOf,
    PathLike,
    Str,
    validate_params,
)
from ._config import TrainConfig
from ._encoders import ENCODER_INFO

if TYPE_CHECKING:
    from ..datasets import Record

__all__ = [
    "MODEL_FILES",
    "RUN_MISMATCH_MESSAGE",
    "RUN_MISSING_MESSAGE",
    "THRESHOLD_GRID",
    "SourceRun",
    "best_f1_threshold",
    "card_stages",
    "choose_delicate_threshold",
    "choose_span_threshold",
    "choose_thresholds",
    "crossfit_runs",
    "crossfit_threshold_f1",
    "delicate_dev_rows",
    "delicate_dev_shares",
    "harmless_dev_texts",
    "harmless_floor",
    "install_export",
    "offensive_dev_rows",
    "repoint_delicate",
    "run_span_gold",
    "run_stages",
    "ship",
    "source_run",
    "span_sets",
    "verify_run",
]

#: The thresholds tried on dev data (0.05 to 0.95 by 0.025).
THRESHOLD_GRID = np.round(np.arange(0.05, 0.951, 0.025), 3)

#: Bootstrap resamples of ToxicChat dev behind the toxicity and jailbreak points
#: (:func:`best_f1_threshold`): the 280-row carve-out alone is too few rows to trust
#: the argmax of one sample.
DEV_RESAMPLES = 1000

#: The fewest held-out DeTexD rows on which the delicate point is chosen
#: (:func:`choose_delicate_threshold`); with fewer the head keeps 0.5.
DELICATE_MIN_ROWS = 100

#: A run folder named by a card is not there ({run}, {version}, {card_run}).
RUN_MISSING_MESSAGE = (
    "No run folder at {run}: model {version} was built from the run {card_run}, and runs are "
    "not kept in git; pass the folder of a copy of that run."
)
#: A run's file is not the one the card was built from ({path}, {version}, {got}, {want}).
RUN_MISMATCH_MESSAGE = (
    "{path} is not the file model {version} was built from: sha256 {got}, its card pins {want}."
)


def _grid_outcomes(y: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row and :data:`THRESHOLD_GRID` point: hit, false alarm and miss of ``p >= t``."""
    truth = np.asarray(y).astype(bool)
    pred = np.asarray(p, dtype=np.float64)[:, None] >= THRESHOLD_GRID[None, :]
    return pred & truth[:, None], pred & ~truth[:, None], ~pred & truth[:, None]


def _weighted_grid_f1(
    weights: np.ndarray, outcomes: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> np.ndarray:
    """F1 per grid point for each row of ``weights`` (row counts of a resample)."""
    hit, false_alarm, miss = outcomes
    tp, fp, fn = weights @ hit, weights @ false_alarm, weights @ miss
    den = 2 * tp + fp + fn
    return np.divide(2 * tp, den, out=np.zeros_like(den, dtype=np.float64), where=den > 0)


def grid_f1(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The F1 of ``p >= t`` at each point ``t`` of :data:`THRESHOLD_GRID`."""
    return _weighted_grid_f1(np.ones((1, len(y))), _grid_outcomes(y, p))[0]


def best_f1_threshold(
    y: np.ndarray,
    p: np.ndarray,
    *,
    resamples: int = 0,
    seed: int = 0,
    lowest: float | None = None,
) -> tuple[float, float]:
    """The threshold of :data:`THRESHOLD_GRID` with the best F1 of ``p >= t``, and that F1.

    ``lowest`` leaves out the grid's thresholds below it (:func:`harmless_floor`).

    With ``resamples`` > 0 the threshold maximises the *mean* F1 over that many
    bootstrap resamples of the rows (seeded), not the F1 of the one sample: on a
    small dev set (ToxicChat's carve-out has 280 rows, 38 toxic) the plain argmax
    follows a handful of rows, the mean over resamples is the expected F1 of a
    threshold. The F1 returned is always the plain F1 of the chosen threshold.
    Ties go to the lowest threshold.
    """
    n = len(y)
    outcomes = _grid_outcomes(y, p)
    plain = _weighted_grid_f1(np.ones((1, n)), outcomes)[0]
    if resamples > 0:
        rows = np.random.default_rng(seed).integers(0, n, (resamples, n))
        counts = np.zeros((resamples, n))
        np.add.at(counts, (np.arange(resamples)[:, None], rows), 1.0)
        criterion = _weighted_grid_f1(counts, outcomes).mean(axis=0)
    else:
        criterion = plain
    if lowest is not None:
        criterion = np.where(THRESHOLD_GRID >= lowest - 1e-9, criterion, -np.inf)
    best = int(np.argmax(criterion > criterion.max() - 1e-12))
    return float(THRESHOLD_GRID[best]), float(plain[best])


def crossfit_threshold_f1(
    y: np.ndarray,
    p: np.ndarray,
    *,
    folds: int = 5,
    repeats: int = 20,
    resamples: int = DEV_RESAMPLES,
    seed: int = 0,
) -> float:
    """The F1 that choosing a point with :func:`best_f1_threshold` on these rows
    can honestly claim: each fold's rows are flagged at the point chosen on the
    other folds, the F1 is pooled over all rows, and the mean over ``repeats``
    stratified splits (seeded) is returned.
    """
    y = np.asarray(y).astype(int)
    p = np.asarray(p, dtype=np.float64)
    rng = np.random.default_rng(seed)
    scores = []
    for _ in range(repeats):
        fold = np.empty(len(y), dtype=int)
        for label in (0, 1):
            idx = rng.permutation(np.flatnonzero(y == label))
            fold[idx] = np.arange(len(idx)) % folds
        pred = np.zeros(len(y), dtype=bool)
        for k in range(folds):
            out = fold == k
            t, _ = best_f1_threshold(y[~out], p[~out], resamples=resamples, seed=seed + k)
            pred[out] = p[out] >= t
        tp = int((pred & (y == 1)).sum())
        den = int(pred.sum()) + int(y.sum())
        scores.append(2 * tp / den if den else 0.0)
    return float(np.mean(scores))


def delicate_dev_rows(
    data_dir: str | Path | None, stages: list[dict[str, Any]] | None = None
) -> list[Record]:
    """The DeTexD rows (of all 1,023) that none of ``stages`` drew: the delicate
    head's only labelled source, so its only held-out dev rows. Stage 1 with seed
    0 when None."""
    from ..datasets import load_dataset
    from ._distill import recorded_stage_examples

    drawn: set[str] = set()
    for stage in stages or [{"stage": 1, "seed": 0}]:
        examples, _ = recorded_stage_examples(data_dir, stage)
        drawn |= {e.text for e in examples if e.source == "detexd"}
    return [r for r in load_dataset("detexd", "all", data_dir) if r.text not in drawn]


def choose_delicate_threshold(
    mod: Any, rows: Sequence[Record]
) -> tuple[float | None, dict[str, Any]]:
    """The delicate point on held-out DeTexD rows (:func:`delicate_dev_rows`), and
    its dev figures.

    The point maximises the mean F1 over :data:`DEV_RESAMPLES` bootstrap
    resamples (:func:`best_f1_threshold`); ``detexd_heldout_delicate_crossfit_f1``
    (:func:`crossfit_threshold_f1`) is the figure to quote, since the plain F1 is
    measured on the rows the point was chosen on. With fewer than
    :data:`DELICATE_MIN_ROWS` rows the point is None (the head keeps 0.5).
    """
    fig: dict[str, Any] = {"detexd_heldout_rows": len(rows)}
    if len(rows) < DELICATE_MIN_ROWS:
        return None, fig
    y = np.array([r.label for r in rows], dtype=int)
    p = mod.predict_arrays([r.text for r in rows])[0][:, SEQ_HEADS.index("delicate")]
    point, f1 = best_f1_threshold(y, p, resamples=DEV_RESAMPLES)
    fig["detexd_heldout_delicate_f1"] = round(f1, 4)
    fig["detexd_heldout_delicate_crossfit_f1"] = round(crossfit_threshold_f1(y, p), 4)
    at_half = grid_f1(y, p)[int(np.flatnonzero(THRESHOLD_GRID == 0.5)[0])]
    fig["detexd_heldout_delicate_f1_at_0.5"] = round(float(at_half), 4)
    return point, fig


def delicate_dev_shares(
    before: Any, after: Any, old_point: float, new_point: float, data_dir: str | Path | None
) -> dict[str, Any]:
    """What a new delicate head or point does on dev sets, before and after: the
    held-out grief and illness templates called delicate (all are), ToxicChat dev
    prompts labelled non-toxic called delicate (chat is rarely delicate), and each
    harmless dev set of :func:`harmless_dev_texts` called delicate (``harmless``)."""
    from ..datasets import load_dataset
    from ..functional import delicate_template_records

    templates = [r.text for r in delicate_template_records(split="dev")]
    chat = [r.text for r in load_dataset("toxicchat", "dev", data_dir) if r.labels["toxicity"] == 0]
    d = SEQ_HEADS.index("delicate")

    def shares(texts: list[str]) -> tuple[float, float]:
        """The share called delicate before and after (one pass when the model is the same)."""
        old = before.predict_arrays(texts)[0][:, d]
        new = old if after is before else after.predict_arrays(texts)[0][:, d]
        return round(float((old >= old_point).mean()), 4), round(
            float((new >= new_point).mean()), 4
        )

    tb, ta = shares(templates)
    cb, ca = shares(chat)
    harmless = {}
    for name, texts in harmless_dev_texts(data_dir).items():
        hb, ha = shares(texts)
        harmless[name] = {"n": len(texts), "before": hb, "after": ha}
    return {
        "dev_templates": len(templates),
        "dev_templates_delicate_before": tb,
        "dev_templates_delicate": ta,
        "toxicchat_dev_nontoxic": len(chat),
        "toxicchat_dev_nontoxic_delicate_before": cb,
        "toxicchat_dev_nontoxic_delicate": ca,
        "harmless": harmless,
    }


def harmless_pass_rates(scores: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each harmless set's pass rate (the share of its scores below the point) at
    every point of :data:`THRESHOLD_GRID`."""
    return {
        name: (np.asarray(s, dtype=np.float64)[:, None] < THRESHOLD_GRID[None, :]).mean(axis=0)
        for name, s in scores.items()
    }


def harmless_floor(scores: dict[str, np.ndarray], pass_rate: float) -> float:
    """The lowest threshold of :data:`THRESHOLD_GRID` at which every harmless set
    passes: at least ``pass_rate`` of each set's scores are below it.

    ``scores`` maps a set's name to its rows' toxicity scores (every row harmless,
    :func:`harmless_dev_texts`). A set's pass rate only grows with the threshold,
    so every grid point from the floor up passes too.

    Raises
    ------
    ConfigError
        No grid point lets every set pass; the message names the sets that fall
        short at the grid's top and their pass rates there.
    """
    top = float(THRESHOLD_GRID[-1])
    rates = harmless_pass_rates(scores)
    ok = np.all([r >= pass_rate - 1e-12 for r in rates.values()], axis=0)
    if not ok.any():
        short = ", ".join(
            f"{name} {r[-1]:.3f}" for name, r in rates.items() if r[-1] < pass_rate - 1e-12
        )
        raise ConfigError(
            f"No toxicity point up to {top} lets every harmless dev set pass >= {pass_rate}: "
            f"at {top}, {short}."
        )
    return float(THRESHOLD_GRID[int(np.argmax(ok))])


def harmless_dev_texts(data_dir: str | Path | None) -> dict[str, list[str]]:
    """The harmless dev sets behind :func:`harmless_floor`, by name: texts no
    training mixture holds, all of them harmless.

    ``identity``: the held-out HolisticBias and audit-group identity templates
    (:func:`tactful.functional.identity_negatives`, ``split="dev"``);
    ``inclusion``: the held-out inclusion templates' rows (a group affirmed or
    defended); ``technical``: the held-out technical-verb rows ("kill a zombie
    process"); ``lookalike``: the held-out injection lookalikes ("ignore my earlier
    message"); ``contrast``: the held-out contrast rows (the menace and
    violent-request words in harmless messages). The sets ``scripts/compare_runs.py``
    reports pass rates for.
    """
    from ..datasets import load_holistic_descriptors
    from ..functional import (
        contrast_template_records,
        exclusion_template_records,
        holistic_person_nouns,
        identity_negatives,
        injection_template_records,
        technical_template_records,
    )

    identity = identity_negatives(
        load_holistic_descriptors(data_dir), nouns=holistic_person_nouns(data_dir), split="dev"
    )
    return {
        "identity": [r.text for r in identity],
        "inclusion": [r.text for r in exclusion_template_records(split="dev") if r.label == 0],
        "technical": [r.text for r in technical_template_records(split="dev")],
        "lookalike": [r.text for r in injection_template_records(split="dev") if r.label == 0],
        "contrast": [r.text for r in contrast_template_records(split="dev")],
    }


def run_stages(run_dir: str | Path) -> list[dict[str, Any]]:
    """The ``train.json`` of a run and of every run it started from (``init``), oldest first.

    Each gets ``"stage"`` (1 for a run from the pretrained encoder) and ``"seed"``
    (the mixture seed), from its config; a later-stage run written before stages
    were recorded counts as stage 2.
    A soup (``tactful train soup``) lists the stages of all its runs, each once.
    """
    info = json.loads((Path(run_dir) / "train.json").read_text())
    if "soup_of" in info:
        merged: list[dict[str, Any]] = []
        for run in info["soup_of"]:
            merged.extend(s for s in run_stages(Path(run)) if s not in merged)
        return merged
    out: list[dict[str, Any]] = []
    path: Path | None = Path(run_dir) / "train.json"
    while path is not None:
        info = json.loads(path.read_text())
        init = info["config"].get("init")
        info["stage"] = info["config"].get("stage", 2 if init else 1)
        info["seed"] = info["config"]["seed"]
        out.append(info)
        path = Path(init).parent / "train.json" if init else None
    return out[::-1]


def stage_keys(stages: list[dict[str, Any]]) -> list[str]:
    """The card's key of each stage of a chain, oldest first: ``stage7``, ``stage10``,
    and ``stage10_2`` for a second run of the same stage (``distill --init`` from a
    stage-10 student), so that no stage of the chain drops out of the card."""
    seen: Counter[int] = Counter()
    keys = []
    for s in stages:
        seen[s["stage"]] += 1
        n = seen[s["stage"]]
        keys.append(f"stage{s['stage']}" + (f"_{n}" if n > 1 else ""))
    return keys


def offensive_dev_rows(
    data_dir: str | Path | None, stages: list[dict[str, Any]] | None = None
) -> list[Record]:
    """2,000 Jigsaw sentences dev rows (seeded) that none of ``stages`` trained on."""
    from ..datasets import load_dataset
    from ._mixture import build_mixture
    from ._run import STAGES

    trained: set[str] = set()
    for stage in stages or [{"seed": 0}]:
        st = STAGES.get(stage.get("stage", 1), {})
        # The whole mixture, then its Jigsaw rows: the sources share one random
        # draw, so asking for Jigsaw alone would sample other rows.
        trained |= {
            e.text
            for e in build_mixture(
                data_dir, seed=stage["seed"], caps=st.get("caps"), repeats=st.get("repeats")
            )
            if e.source == "jigsaw_sentences"
        }
    held = [r for r in load_dataset("jigsaw_sentences", "dev", data_dir) if r.text not in trained]
    return random.Random(0).sample(held, min(2000, len(held)))


def card_stages(card: dict[str, Any]) -> list[dict[str, Any]]:
    """The stage records of a card's ``training`` (a soup, a chain of stages or one run);
    a chain's stages in training order."""
    training = card["training"]
    if "stages" in training:
        return list(training["stages"])
    if "examples" in training:
        return [training]
    chain = [v for k, v in training.items() if k.startswith("stage")]
    return sorted(chain, key=lambda st: int(st.get("stage", 1)))


def run_span_gold(stages: list[dict[str, Any]] | None) -> str:
    """The ``span_gold`` of a run's last stage (see :data:`~tactful.train.STAGES`)."""
    from ._run import STAGES

    return STAGES.get((stages or [{"stage": 1}])[-1].get("stage", 1), {}).get(
        "span_gold", "semeval"
    )


def span_sets(
    mod: Any, texts: list[str], arrays: tuple[Any, ...], thr: float
) -> list[frozenset[int]]:
    """The character offsets the builtin's spans cover, per text, at span threshold ``thr``.

    ``arrays``: ``mod.predict_arrays(texts)``, computed once for any number of thresholds.
    """
    from ..datasets import span_offsets

    seq, tox, typ, norms, offs = arrays
    return [
        span_offsets(mod._spans(x, norms[i], offs[i], tox[i], typ[i], seq[i], thr=thr))
        if x
        else frozenset()
        for i, x in enumerate(texts)
    ]


def trial_span_key(span_gold: str) -> str:
    """The card's ``dev`` key of the SemEval trial span F1 scored on ``span_gold``."""
    return (
        "toxicspans_trial_span_f1" if span_gold == "semeval" else "toxicspans_trial_raters_span_f1"
    )


def choose_span_threshold(
    mod: Any,
    data_dir: str | Path | None,
    span_gold: str = "semeval",
    grid: Sequence[float] | None = None,
) -> tuple[float, float]:
    """The span threshold with the best span F1 on SemEval-2021 trial, and that F1.

    ``span_gold="raters"`` scores against the > 50 %-of-raters characters of the
    trial posts (the targets such a run was trained on), else the SemEval file's.
    ``grid`` (default the card's grid) are the thresholds tried: ``(t,)`` gives the
    trial F1 at ``t``.
    """
    from ..datasets import load_dataset, span_offsets
    from ..metrics import span_f1

    trial = load_dataset("toxicspans", "dev", data_dir)
    texts = [r.text for r in trial]
    arrays = mod.predict_arrays(texts)
    if span_gold == "raters":
        majority = {
            r.text: span_offsets(r.spans)
            for r in load_dataset("toxicspans_raters", "all", data_dir)
        }
        gold = [majority[x] for x in texts]
    else:
        gold = [span_offsets(r.spans) for r in trial]
    best = (0.5, -1.0)
    for t in THRESHOLD_GRID if grid is None else grid:
        f = span_f1(gold, span_sets(mod, texts, arrays, float(t)))
        if f > best[1] + 1e-12:
            best = (float(t), float(f))
    return best


def or_in_threshold(y: np.ndarray, p: np.ndarray, precision: float = 0.99) -> float:
    """The lowest threshold of :data:`THRESHOLD_GRID` at which ``p >= t`` predicts ``y``
    with at least ``precision`` (0.95 when none does): a head's OR-in point."""
    from ..metrics import precision_recall_f1

    return next(
        (
            float(t)
            for t in THRESHOLD_GRID
            if precision_recall_f1(y, (p >= t).astype(int))["precision"] >= precision
        ),
        0.95,
    )


#: TrainConfig's defaults: the settings of a run whose train.json predates them.
_CONFIG_DEFAULTS: dict[str, Any] = {
    f.name: f.default for f in fields(TrainConfig) if f.default is not MISSING
}


def crossfit_runs(
    run_dir: str | Path, fold_runs: Sequence[str | Path]
) -> list[tuple[Path, int, int]]:
    """Check ``fold_runs`` as the cross-fitting runs of ``run_dir``; return ``(run, K, N)``.

    Each must be a run trained with ``holdout="K/N"`` (see
    :func:`~tactful.train.distill_examples`), with an export, every fold K of one N
    exactly once, and otherwise the settings of ``run_dir`` (the fold scores
    stand in for the scores the shipped run would give to rows it did not see).
    A later stage's ``init`` may differ: it must then be a run that left out the
    same fold and was trained like ``run_dir``'s ``init``, stage by stage.
    When ``run_dir`` is a soup (``tactful train soup``), each fold run must be a
    soup of as many runs, all of which left out its fold, the i-th trained like
    ``run_dir``'s i-th.
    """
    from ._distill import parse_holdout

    def info(run: Path) -> dict[str, Any]:
        path = run / "train.json"
        if not path.is_file():
            raise ConfigError(f"{run} is not a training run: it holds no train.json.")
        return dict(json.loads(path.read_text()))

    def config(run: Path) -> dict[str, Any]:
        return dict(info(run).get("config") or {})

    def soup_of(run: Path) -> list[Path]:
        return [Path(r) for r in info(run).get("soup_of") or []]

    def differ(want: dict[str, Any], got: dict[str, Any], holdout: str) -> list[str]:
        """The settings in which ``got`` (a run that left out ``holdout``) is not ``want``."""
        if got.pop("holdout", None) != holdout:
            return ["holdout"]
        want.pop("holdout", None)
        mine, theirs = want.pop("init", None), got.pop("init", None)
        # A setting one train.json lacks was added to TrainConfig after that run:
        # the run trained with its default (e.g. delicate=False before --delicate).
        diff = sorted(
            k
            for k in set(want) | set(got)
            if want.get(k, _CONFIG_DEFAULTS.get(k)) != got.get(k, _CONFIG_DEFAULTS.get(k))
        )
        if (mine is None) != (theirs is None):
            diff.append("init")
        elif mine is not None and mine != theirs:
            init_run, fold_init = Path(mine).parent, Path(theirs).parent
            if not (fold_init / "train.json").is_file() or not (init_run / "train.json").is_file():
                diff.append("init")
            else:
                diff += [f"init {k}" for k in differ(config(init_run), config(fold_init), holdout)]
        return diff

    def check(run: Path, fold_run: Path) -> tuple[int, int]:
        """``fold_run``'s fold (K, N), after checking it was trained like ``run``."""
        got = config(fold_run)
        holdout = got.get("holdout")
        fold = parse_holdout(holdout)
        if fold is None:
            raise ConfigError(
                f"{fold_run} left no ToxicChat fold out: train it with --holdout K/N."
            )
        diff = differ(config(run), got, str(holdout))
        if diff:
            raise ConfigError(f"{fold_run} was not trained like {run}: {', '.join(diff)} differ.")
        return fold

    members = soup_of(Path(run_dir))
    out: list[tuple[Path, int, int]] = []
    for fold_run in map(Path, fold_runs):
        if not members:
            held = {check(Path(run_dir), fold_run)}
        else:
            parts = soup_of(fold_run)
            if len(parts) != len(members):
                raise ConfigError(
                    f"{fold_run} is not a soup of {len(members)} runs like {run_dir}: soup the "
                    "fold runs of its runs, in the same order."
                )
            held = {check(m, p) for m, p in zip(members, parts, strict=True)}
            if len(held) > 1:
                raise ConfigError(
                    f"The runs of {fold_run} left out different ToxicChat folds: "
                    + ", ".join(f"{k}/{n}" for k, n in sorted(held))
                    + "."
                )
        holdout = held.pop()
        if not (fold_run / "export" / "model.onnx").is_file():
            raise ConfigError(f"{fold_run} holds no export/model.onnx: tactful train export it.")
        out.append((fold_run, *holdout))
    folds = sorted((k, n) for _, k, n in out)
    n = folds[0][1] if folds else 0
    if folds != [(k, n) for k in range(1, n + 1)]:
        raise ConfigError(
            "cross-fitting needs one run per fold, K = 1..N of one N; got "
            + (", ".join(f"{k}/{m}" for k, m in folds) or "none")
            + "."
        )
    return out


def choose_thresholds(
    model_dir: str | Path,
    data_dir: str | Path | None,
    stages: list[dict[str, Any]] | None = None,
    crossfit: list[tuple[str | Path, int, int]] | None = None,
    harmless_pass: float | None = None,
) -> dict[str, Any]:
    """Per-head operating points on dev data (never test).

    ``stages`` (see :func:`run_stages`) tell which Jigsaw sentences the training
    stages sampled, so that the offensive dev rows exclude them; stage 1 with
    seed 0 when None.

    toxicity, jailbreak: ToxicChat dev (the 10% carved from the human-annotated
    train rows), the best mean F1 over :data:`DEV_RESAMPLES` bootstrap resamples;
    offensive (F1), and offensive_or, threat_or and insult_or (precision >= 0.99 as a
    toxicity flag: the point at which comment toxicity, a threat or an insult alone
    flags a text): 2,000 Jigsaw sentences dev rows no training stage sampled; span: SemEval-2021 trial (:func:`choose_span_threshold`,
    with the gold of the last stage's span targets); delicate: the DeTexD rows no
    training stage drew (:func:`choose_delicate_threshold`, when there are at least
    :data:`DELICATE_MIN_ROWS`). Heads without a held-out dev set keep 0.5.

    ``crossfit`` (model folders with the fold K of N each left out, see
    :func:`crossfit_runs`) adds ToxicChat train's rows to the toxicity and
    jailbreak choice, each scored by the model that did not see its fold: for
    ToxicChat 0124, 2,801 rows (384 toxic, 113 jailbreaks) instead of dev's 280 (38, 14).

    ``harmless_pass`` makes the toxicity point see a dev fairness measure: it is
    the best point at or above :func:`harmless_floor` of the toxicity scores of
    :func:`harmless_dev_texts`, so that every harmless dev set passes at least
    that share. ``dev`` then records the floor (``harmless_floor``), each set's
    pass rate at the chosen point (``harmless_dev_pass``) and what the floor
    trades (``toxicity_curve``: at each grid point, the toxicity F1 on the rows
    the point is chosen on and each set's pass rate).
    """
    from ..datasets import load_dataset
    from ..moderators.builtin import BuiltinModerator

    mod = BuiltinModerator(model_dir=str(model_dir))
    dev = load_dataset("toxicchat", "dev", data_dir)
    seq, *_ = mod.predict_arrays([r.text for r in dev])
    rows = list(dev)
    if crossfit:
        from ._mixture import toxicchat_folds

        train_rows = load_dataset("toxicchat", "train", data_dir)
        folds = toxicchat_folds(data_dir, crossfit[0][2])
        for fold_dir, k, _ in crossfit:
            held = [r for r in train_rows if folds.get(r.text) == k]
            seq_f, *_ = BuiltinModerator(model_dir=str(fold_dir)).predict_arrays(
                [r.text for r in held]
            )
            seq = np.concatenate([seq, seq_f])
            rows += held
    th: dict[str, float] = {h: 0.5 for h in SEQ_HEADS}
    dev_fig: dict[str, Any] = {}
    where = "crossfit" if crossfit else "dev"
    harmless: dict[str, np.ndarray] = {}
    floor = None
    if harmless_pass is not None:
        tox = SEQ_HEADS.index("toxicity")
        harmless = {
            name: mod.predict_arrays(texts)[0][:, tox]
            for name, texts in harmless_dev_texts(data_dir).items()
        }
        floor = harmless_floor(harmless, harmless_pass)
    for head in ("toxicity", "jailbreak"):
        y = np.array([r.labels[head] for r in rows], dtype=int)
        t, f1 = best_f1_threshold(
            y,
            seq[:, SEQ_HEADS.index(head)],
            resamples=DEV_RESAMPLES,
            lowest=floor if head == "toxicity" else None,
        )
        th[head] = t
        dev_fig[f"toxicchat_{where}_{head}_f1"] = round(f1, 4)
        if head == "toxicity" and floor is not None:
            # what the floor trades: F1 and each set's pass rate at every grid point
            rates = harmless_pass_rates(harmless)
            at = int(np.flatnonzero(THRESHOLD_GRID == t)[0])
            curve: dict[str, Any] = {
                "threshold": THRESHOLD_GRID.tolist(),
                "f1": [round(float(v), 4) for v in grid_f1(y, seq[:, SEQ_HEADS.index(head)])],
            }
            for name, r in rates.items():
                curve[f"{name}_pass"] = [round(float(v), 4) for v in r]
            dev_fig["harmless_floor"] = floor
            dev_fig["harmless_dev_pass"] = {
                name: round(float(r[at]), 4) for name, r in rates.items()
            }
            dev_fig["toxicity_curve"] = curve
    if crossfit:
        dev_fig["toxicchat_crossfit_rows"] = len(rows)
    # Comment toxicity: Jigsaw sentences dev rows that no training stage sampled.
    held = offensive_dev_rows(data_dir, stages)
    seq_j, *_ = mod.predict_arrays([r.text for r in held])
    y = np.array([r.label for r in held])
    p_off = seq_j[:, SEQ_HEADS.index("offensive")]
    th["offensive"], f1 = best_f1_threshold(y, p_off)
    dev_fig["jigsaw_sentences_heldout_dev_offensive_f1"] = round(f1, 4)
    # The OR-in points: the lowest threshold whose precision on that set is >= 0.99:
    # comment toxicity (or a threat) alone flags a text only when it is near certain.
    th["offensive_or"] = or_in_threshold(y, p_off)
    th["threat_or"] = or_in_threshold(y, seq_j[:, SEQ_HEADS.index("threat")])
    th["insult_or"] = or_in_threshold(y, seq_j[:, SEQ_HEADS.index("insult")])
    span_gold = run_span_gold(stages)
    th["span"], f = choose_span_threshold(mod, data_dir, span_gold)
    dev_fig[trial_span_key(span_gold)] = round(f, 4)
    point, fig = choose_delicate_threshold(mod, delicate_dev_rows(data_dir, stages))
    if point is not None:
        th["delicate"] = point
    dev_fig.update(fig)
    return {"thresholds": th, "dev": dev_fig}


#: The files of a model folder that its card pins.
MODEL_FILES = ("model.onnx", "tokenizer.json")


def install_export(run_dir: str | Path, folder: str | Path) -> dict[str, dict[str, Any]]:
    """Copy ``run_dir``'s export into ``folder``; return the card's ``sha256`` and ``size_bytes``.

    Raises :class:`~tactful.errors.ConfigError`, copying nothing, when a file of
    :data:`MODEL_FILES` is not in ``run_dir/export``.
    """
    run_dir, folder = Path(run_dir), Path(folder)
    for name in MODEL_FILES:
        if not (run_dir / "export" / name).is_file():
            raise ConfigError(f"{run_dir}: no export/{name}; train, soup or export the run first.")
    folder.mkdir(parents=True, exist_ok=True)
    for name in MODEL_FILES:
        shutil.copy(run_dir / "export" / name, folder / name)
    return {
        "sha256": {n: sha256_file(folder / n) for n in MODEL_FILES},
        "size_bytes": {n: (folder / n).stat().st_size for n in MODEL_FILES},
    }


#: The card's ``runtime`` line for each :data:`~tactful.train.QUANTIZATIONS` choice.
_RUNTIMES = {
    "dynamic": "onnxruntime; BERT graph fusion + dynamic int8 quantization of MatMul "
    "weights (per output channel)",
    "weights": "onnxruntime; int8 weights (per output channel, embeddings per row) "
    "folded to float32 at load; float32 activations, so a text's scores do not depend "
    "on its batch-mates",
    "none": "onnxruntime; BERT graph fusion, float32",
}

_SHIP_CONSTRAINTS: Constraints = {
    "run_dir": PathLike(),
    "package_dir": Nullable(PathLike()),
    "data_dir": Nullable(PathLike()),
    "version": Str(nonempty=True),
    "name": OneOf(["builtin", "builtin-large"]),
    "crossfit": Nullable(
        Check(
            "a non-empty list of run folders",
            lambda v: (
                isinstance(v, list)
                and bool(v)
                and all(isinstance(x, (str, os.PathLike)) for x in v)
            ),
        )
    ),
    "harmless_pass": Nullable(Float(0, 1, closed="right")),
}


def export_quantization(run_dir: str | Path) -> str:
    """The quantization of a run's export (``export/export.json``; exports written
    before that file were all dynamic int8)."""
    recorded = Path(run_dir) / "export" / "export.json"
    return (
        str(json.loads(recorded.read_text())["quantization"]) if recorded.is_file() else "dynamic"
    )


def ship(
    run_dir: str | Path,
    package_dir: str | Path | None = None,
    data_dir: str | Path | None = None,
    *,
    version: str,
    name: str = "builtin",
    crossfit: Sequence[str | Path] | None = None,
    harmless_pass: float | None = None,
) -> dict[str, Any]:
    """Copy a run's export into a model folder and write its ``card.json``.

    Parameters
    ----------
    run_dir : path
        A run or soup folder with ``model.pt``, ``train.json`` and ``export/``.
    package_dir : path, optional
        The model folder; default the packaged model ``name``'s folder.
    data_dir : path, optional
        The data folder, for the operating points (:func:`choose_thresholds`).
    version : str
        The model's version.
    name : {"builtin", "builtin-large"}, default="builtin"
        The moderator the card describes.
    crossfit : list of paths, optional
        Cross-fitting runs of ``run_dir`` (:func:`crossfit_runs`): the toxicity
        and jailbreak points are then chosen on ToxicChat dev and train, each
        train row scored by the run that left its fold out.
    harmless_pass : float in (0, 1], optional
        The toxicity point is then the best one at which every harmless dev set
        (:func:`harmless_dev_texts`) passes at least this share
        (:func:`choose_thresholds`).

    Returns
    -------
    dict
        The card. Besides the model files' pins it records ``source_run``: the
        run folder and the sha256 of its ``model.pt`` and ``export/model.onnx``,
        which ``bench/speed.py`` checks (:func:`verify_run`).
    """
    from ._run import run_encoder, run_layers

    p = validate_params(
        "ship",
        _SHIP_CONSTRAINTS,
        run_dir=run_dir,
        package_dir=package_dir,
        data_dir=data_dir,
        version=version,
        name=name,
        crossfit=list(crossfit) if isinstance(crossfit, (list, tuple)) else crossfit,
        harmless_pass=harmless_pass,
    )
    run: Path = p["run_dir"]
    fold_runs = crossfit_runs(run, p["crossfit"]) if p["crossfit"] else []
    if p["package_dir"] is None:
        from ..moderators.builtin import default_model_dir

        folder = default_model_dir(p["name"])
    else:
        folder = p["package_dir"]
    encoder = run_encoder(run)
    weights = run / "model.pt"
    if not weights.is_file():
        raise ConfigError(f"{run} holds no model.pt: train or soup the run first.")
    quantization = export_quantization(run)
    # a fold exported otherwise would choose points for other scores: refuse before writing
    for fold_run, _, _ in fold_runs:
        got = export_quantization(fold_run)
        if got != quantization:
            raise ConfigError(
                f"{fold_run}'s export has quantization {got}, {run}'s {quantization}: "
                f"tactful train export {fold_run} --quantize {quantization}."
            )
    pins = install_export(run, folder)
    stages = run_stages(run)
    soup_of = json.loads((run / "train.json").read_text()).get("soup_of")
    if soup_of:
        train_info: dict[str, Any] = {"soup_of": soup_of, "stages": stages}
    else:
        train_info = (
            dict(zip(stage_keys(stages), stages, strict=True)) if len(stages) > 1 else stages[0]
        )
    info = ENCODER_INFO[encoder]
    layers = run_layers(run)
    # a student that kept the encoder's first layers says how many
    architecture = (
        info.architecture
        if layers is None
        else re.sub(r"-L\d+-", f"-L{layers}-", info.architecture)
    )
    card: dict[str, Any] = {
        "name": p["name"],
        "version": p["version"],
        "encoder": encoder,
        "base_model": info.base_model
        + ("" if layers is None else f"; the student keeps its first {layers} layers"),
        "architecture": f"{architecture} encoder, mean pooling, linear sequence head "
        f"({', '.join(SEQ_HEADS)}) and linear token head (toxic + type: {', '.join(SPAN_TYPES)})",
        "runtime": _RUNTIMES[quantization],
        "quantization": quantization,
        "heads": list(SEQ_HEADS),
        "span_types": list(SPAN_TYPES),
        "training": train_info,
        "source_run": {
            "dir": str(run),
            "sha256": {
                "model.pt": sha256_file(weights),
                "export/model.onnx": pins["sha256"]["model.onnx"],
            },
        },
        **pins,
        "thresholds": {h: 0.5 for h in SEQ_HEADS} | {"span": 0.5},
        "figures": [],
    }
    (folder / "card.json").write_text(json.dumps(card, indent=2) + "\n")
    with tempfile.TemporaryDirectory(prefix="tactful-crossfit-") as tmp:
        fold_dirs: list[tuple[str | Path, int, int]] = []
        for fold_run, k, n in fold_runs:
            fold_dir = Path(tmp) / f"fold{k}"
            fold_dir.mkdir()
            fold_card = {**card, **install_export(fold_run, fold_dir)}
            (fold_dir / "card.json").write_text(json.dumps(fold_card) + "\n")
            fold_dirs.append((fold_dir, k, n))
        chosen = choose_thresholds(
            folder,
            p["data_dir"],
            stages,
            crossfit=fold_dirs or None,
            harmless_pass=p["harmless_pass"],
        )
    card["thresholds"] = chosen["thresholds"]
    crossfit_cmd = "".join(f" --crossfit {r}" for r, _, _ in fold_runs)
    harmless_cmd, harmless_why = "", ""
    if p["harmless_pass"] is not None:
        harmless_cmd = f" --harmless-pass {p['harmless_pass']}"
        harmless_why = (
            f", toxicity only at or above the lowest point where every harmless dev set "
            f"passes >= {p['harmless_pass']}"
        )
    where = (
        f"ToxicChat dev and train, each train row scored by the run without its fold "
        f"({len(fold_runs)}-fold cross-fitting)"
        if fold_runs
        else "ToxicChat dev"
    )
    card["dev"] = {
        **chosen["dev"],
        "command": f"tactful train ship {run} --version {p['version']}{crossfit_cmd}"
        f"{harmless_cmd} "
        f"(thresholds on a 0.05..0.95 grid: toxicity and jailbreak the best mean F1 over "
        f"{DEV_RESAMPLES} bootstrap resamples of {where}{harmless_why}, the others max F1 "
        f"on dev)",
    }
    if fold_runs:
        # the fold runs as data, in fold order, for tools that score the same rows again
        card["dev"]["crossfit_runs"] = [str(r) for r, _, _ in sorted(fold_runs, key=lambda f: f[1])]
    (folder / "card.json").write_text(json.dumps(card, indent=2) + "\n")
    return card


_REPOINT_CONSTRAINTS: Constraints = {
    "model_dir": PathLike(),
    "out": PathLike(),
    "data_dir": Nullable(PathLike()),
    "version": Str(nonempty=True),
}


def repoint_delicate(
    model_dir: str | Path,
    out: str | Path,
    data_dir: str | Path | None = None,
    *,
    version: str,
) -> dict[str, Any]:
    """Choose a shipped model's delicate point on the DeTexD rows its training never
    drew; write the model with that point to ``out``.

    Only the card changes (``thresholds.delicate``, the ``dev`` figures of
    :func:`choose_delicate_threshold`, ``version`` and a ``delicate_point`` record of
    what it was before); every model file is copied unchanged. The held-out rows
    are rebuilt from the card's stages (:func:`delicate_dev_rows`), as
    ``scripts/trained_texts.py`` rebuilds them.

    Raises
    ------
    ConfigError
        ``out`` is the model's own folder, or fewer than :data:`DELICATE_MIN_ROWS`
        DeTexD rows are held out (nothing is written).
    """
    from ..moderators.builtin import BuiltinModerator, load_card

    p = validate_params(
        "repoint_delicate",
        _REPOINT_CONSTRAINTS,
        model_dir=model_dir,
        out=out,
        data_dir=data_dir,
        version=version,
    )
    src: Path = p["model_dir"]
    dst: Path = p["out"]
    if src.resolve() == dst.resolve():
        raise ConfigError("--out must be another folder than the model's.")
    card = load_card(src)
    rows = delicate_dev_rows(p["data_dir"], card_stages(card))
    point, fig = choose_delicate_threshold(BuiltinModerator(model_dir=str(src)), rows)
    if point is None:
        raise ConfigError(
            f"{src}: its training drew all but {len(rows)} of the DeTexD rows; the delicate "
            f"point needs at least {DELICATE_MIN_ROWS} held-out rows."
        )
    dst.mkdir(parents=True, exist_ok=True)
    for name in card.get("sha256", {}):
        shutil.copy(src / name, dst / name)
    new = json.loads(json.dumps(card))
    new["version"] = p["version"]
    new["thresholds"]["delicate"] = point
    new.setdefault("dev", {}).update(fig)
    new["delicate_point"] = {
        "from": {"version": card.get("version"), "delicate": card["thresholds"].get("delicate")},
        "command": f"tactful train delicate-point {src} --out {dst} --version {p['version']} "
        f"(the best mean F1 over {DEV_RESAMPLES} bootstrap resamples of the {len(rows)} "
        f"DeTexD rows no training stage drew; cross-fitted F1: the point chosen on 4 of 5 "
        f"folds, 20 stratified splits)",
    }
    mod = BuiltinModerator(model_dir=str(src))
    new["delicate_point"]["dev"] = delicate_dev_shares(
        mod, mod, float(card["thresholds"].get("delicate", 0.5)), point, p["data_dir"]
    )
    (dst / "card.json").write_text(json.dumps(new, indent=2) + "\n")
    return new


@dataclass(frozen=True, slots=True)
class SourceRun:
    """The training run a model card was built from.

    ``sha256`` maps files of the run folder (``"model.pt"``,
    ``"export/model.onnx"``) to the hashes the card pins for them. Cards shipped
    before ``source_run`` was recorded name the run in their ``dev.command`` and
    pin it through its export, whose ``model.onnx`` is the shipped file.
    """

    dir: Path
    sha256: dict[str, str]
    version: str


_LEGACY_SHIP = re.compile(r"--ship --out (\S+)")


def source_run(card: dict[str, Any]) -> SourceRun:
    """The run ``card`` was built from (see :class:`SourceRun`).

    Raises
    ------
    ConfigError
        The card names no run.
    """
    version = str(card.get("version", "?"))
    recorded = card.get("source_run")
    if isinstance(recorded, dict):
        return SourceRun(Path(recorded["dir"]), dict(recorded["sha256"]), version)
    found = _LEGACY_SHIP.search(str(card.get("dev", {}).get("command", "")))
    shipped = card.get("sha256", {}).get("model.onnx")
    if found is None or shipped is None:
        raise ConfigError(
            f"Model {version}'s card does not name the run it was built from: "
            "ship it again with `tactful train ship`."
        )
    return SourceRun(Path(found.group(1)), {"export/model.onnx": shipped}, version)


_LEGACY_CROSSFIT = re.compile(r"--crossfit (\S+)")


def card_crossfit_runs(card: dict[str, Any]) -> list[Path]:
    """The cross-fitting runs a card's toxicity and jailbreak points were chosen with.

    ``dev.crossfit_runs`` (fold order) where ``train ship`` recorded it; cards
    shipped before it (builtin-large 2.2.0) name them only in ``dev.command``,
    whose ``--crossfit`` arguments are read instead. Empty for a card chosen on
    ToxicChat dev alone. Check the folders with :func:`crossfit_runs` before use.
    """
    dev = card.get("dev", {})
    recorded = dev.get("crossfit_runs")
    if isinstance(recorded, list):
        return [Path(r) for r in recorded]
    command = str(dev.get("command", "")).split(" (")[0]
    return [Path(r) for r in _LEGACY_CROSSFIT.findall(command)]


def verify_run(card: dict[str, Any], run_dir: str | Path | None = None) -> Path:
    """Check that ``run_dir`` (default: the card's own run) holds the weights the card
    was built from; return the folder.

    Every file the card pins for its run (:func:`source_run`) must be there with
    that sha256: a copy of the run elsewhere passes, other weights do not.

    Raises
    ------
    ConfigError
        :data:`RUN_MISSING_MESSAGE` when the folder is not there,
        :data:`RUN_MISMATCH_MESSAGE` when a file differs or is missing.
    """
    src = source_run(card)
    run = Path(run_dir) if run_dir is not None else src.dir
    if not run.is_dir():
        raise ConfigError(
            RUN_MISSING_MESSAGE.format(run=run, version=src.version, card_run=src.dir)
        )
    for rel, want in sorted(src.sha256.items()):
        path = run / rel
        got = sha256_file(path) if path.is_file() else "(no such file)"
        if got != want:
            raise ConfigError(
                RUN_MISMATCH_MESSAGE.format(path=path, version=src.version, got=got, want=want)
            )
    return run
