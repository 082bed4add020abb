"""``triage``: human-AI collaborative annotation after ToxicChat (Lin et al., 2023, §3).

On a trial set with human labels, pick the threshold below which rows may be
left to the machine (toxic rate among them within the absolute safe rate),
with bootstrap CIs; then split a new file into ``auto_nontoxic`` and
``needs_human``. The console's review queue reads ``needs_human``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from .._registry import Moderator
from ..errors import DataError
from ..metrics import bootstrap_ci
from ..params import Constraints, Float, Int, Nullable, PathLike, Str, validate_arguments
from . import metrics as M
from ._common import ask, head_values, in_sample, moderator_block, resolve_moderator
from ._rows import Rows, rows_from, write_rows

__all__ = ["AUTO_FILE", "CURVE_POINTS", "HIST_BINS", "HUMAN_FILE", "triage"]

#: Stems of the two files a triage writes (the suffix follows the new file's format).
AUTO_FILE, HUMAN_FILE = "auto_nontoxic", "needs_human"
#: Points of the trial curve kept in the report (the full curve has one per distinct score).
CURVE_POINTS = 400
#: Bins of the score histogram per class in the report.
HIST_BINS = 40


class _Triage:
    _parameter_constraints: ClassVar[Constraints] = {
        "trial": PathLike(),
        "new": Nullable(PathLike()),
        "out": Nullable(PathLike()),
        "safe_rate": Float(0.0, 1.0),
        "head": Str(nonempty=True),
        "n_resamples": Int(1),
        "seed": Int(0),
        "store": Nullable(PathLike()),
    }


def _ci(metric: Any, *arrays: Any, n_resamples: int, seed: int) -> dict[str, float]:
    ci = bootstrap_ci(metric, *arrays, n_resamples=n_resamples, seed=seed)
    return {"point": ci.point, "low": ci.low, "high": ci.high}


def _thin(curve: Any, k: int) -> list[list[float]]:
    """At most ``k`` rows of the curve, evenly spread, first and last kept."""
    idx = np.unique(np.linspace(0, len(curve) - 1, min(k, len(curve))).round().astype(int))
    sub = curve.iloc[idx]
    return [
        [float(t), float(s), float(r)]
        for t, s, r in zip(sub["threshold"], sub["share_auto"], sub["toxic_rate"], strict=True)
    ]


def _histogram(y: np.ndarray, s: np.ndarray) -> dict[str, list[float] | list[int]]:
    """Score counts per class in HIST_BINS equal bins of [0, 1] (scores are in [0, 1])."""
    edges = np.linspace(0.0, 1.0, HIST_BINS + 1)
    return {
        "edges": edges.tolist(),
        "toxic": np.histogram(s[y], edges)[0].tolist(),
        "nontoxic": np.histogram(s[~y], edges)[0].tolist(),
    }


def _labelled(rows: Rows, what: str) -> np.ndarray:
    if not rows.texts:
        raise DataError(f"The {what} {rows.source} has no row.")
    if not rows.labelled:
        missing = sum(v is None for v in rows.labels)
        raise DataError(
            f"The {what} {rows.source} needs a label on every row ({missing} of "
            f"{len(rows.labels)} have none)."
        )
    return np.asarray(rows.labels, dtype=bool)


def _selection_cis(
    y: np.ndarray, s: np.ndarray, safe: float, n_resamples: int, seed: int
) -> dict[str, Any]:
    # Each resample re-runs the threshold search: the intervals cover the whole
    # procedure (which threshold the trial set would pick), not one fixed cut.
    def pick(t: np.ndarray, x: np.ndarray) -> M.TriagePoint:
        return M.triage_threshold(t, x, safe_rate=safe)

    kw = {"n_resamples": n_resamples, "seed": seed}
    return {
        "share_auto": _ci(lambda t, x: pick(t, x).share_auto, y, s, **kw),
        "n_missed": _ci(lambda t, x: float(pick(t, x).n_missed), y, s, **kw),
        "miss_rate": _ci(lambda t, x: pick(t, x).miss_rate, y, s, **kw),
    }


def _fixed_cis(
    y: np.ndarray, s: np.ndarray, thr: float, n_resamples: int, seed: int
) -> dict[str, Any]:
    kw = {"n_resamples": n_resamples, "seed": seed}
    return {
        "share_auto": _ci(lambda t, x: M.triage_at(t, x, thr).share_auto, y, s, **kw),
        "toxic_rate": _ci(lambda t, x: M.triage_at(t, x, thr).toxic_rate, y, s, **kw),
        "n_missed": _ci(lambda t, x: float(M.triage_at(t, x, thr).n_missed), y, s, **kw),
        "miss_rate": _ci(lambda t, x: M.triage_at(t, x, thr).miss_rate, y, s, **kw),
    }


def triage(
    moderator: str | Moderator = "builtin",
    *,
    trial: str | os.PathLike[str] = "toxicchat:train_full",
    new: str | os.PathLike[str] | None = None,
    out: str | os.PathLike[str] | None = None,
    safe_rate: float = 0.01,
    head: str = "toxicity",
    options: dict[str, Any] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    store: str | os.PathLike[str] | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    progress: bool = False,
) -> dict[str, Any]:
    """Choose a triage threshold on a labelled trial set and split a new file with it.

    Parameters
    ----------
    moderator : str or Moderator, default="builtin"
        A registered name (built with ``options``) or an instance.
    trial : path or data set reference, default="toxicchat:train_full"
        Rows with a human label on every row: a CSV/JSONL file with ``text`` and
        ``label`` columns, or ``NAME[:SPLIT]`` of a data set.
    new : path or data set reference, optional
        Rows to split. When they carry labels, the report also says what the
        threshold did on them (share saved, toxic rate, misses, with CIs).
    out : path, optional
        Folder for ``auto_nontoxic`` and ``needs_human`` (CSV for a CSV or data
        set input, JSONL for a JSONL input), columns ``id, text, score`` then the
        input's other columns. Without ``out`` nothing is written.
    safe_rate : float in [0, 1], default=0.01
        Largest toxic rate allowed among the rows left to the machine.
    head : str, default="toxicity"
        The score that ranks rows (``Analysis.scores[head]``, or ``delicate``...).
    options : dict, optional
        Keyword options of a named moderator.
    data_dir : path, optional
        Data folder for data set references.
    store : path, optional
        SQLite result store (answers kept once, runs resumable).
    n_resamples : int, default=1000
        Bootstrap resamples per confidence interval (95 %, percentile).
    seed : int, default=0
        Seed of the bootstrap.
    progress : bool, default=False
        Progress bars on stderr.

    Returns
    -------
    dict
        The report (JSON-ready): ``command``, ``moderator``, ``trial`` (the cut
        as :class:`~tactful.assist.metrics.TriagePoint` fields, CIs, the curve),
        ``new`` (counts, files, and ``outcome`` when labelled).
    """
    p = validate_arguments("triage", _Triage._parameter_constraints, locals())
    mod = resolve_moderator(moderator, options)
    trial_rows = rows_from(trial, data_dir=data_dir)
    y = _labelled(trial_rows, "trial set")
    analyses = ask(mod, trial_rows.texts, store=store, progress=progress, description="trial set")
    _, s = head_values(analyses, head, mod.name)
    cut = M.triage_threshold(y, s, safe_rate=p["safe_rate"])
    report: dict[str, Any] = {
        "command": "triage",
        "moderator": moderator_block(mod),
        "head": head,
        "safe_rate": p["safe_rate"],
        "n_resamples": n_resamples,
        "seed": seed,
        "rule": "rows scoring < threshold are auto-labelled non-toxic; all others go to a person",
        "trial": {
            "source": trial_rows.source,
            **cut.to_dict(),
            "ci": _selection_cis(y, s, p["safe_rate"], n_resamples, seed),
            "curve": _thin(M.triage_curve(y, s), CURVE_POINTS),
            "histogram": _histogram(y, s),
        },
    }
    report["in_sample"] = [in_sample(mod, f"trial set {trial_rows.source}", trial_rows.texts)]
    if new is not None:
        new_rows = rows_from(new, data_dir=data_dir)
        report["new"] = _split(mod, new_rows, cut.threshold, p, progress)
        report["in_sample"].append(in_sample(mod, f"new rows {new_rows.source}", new_rows.texts))
    return report


def _split(
    mod: Moderator, rows: Rows, threshold: float, p: dict[str, Any], progress: bool
) -> dict[str, Any]:
    analyses = ask(mod, rows.texts, store=p["store"], progress=progress, description="new file")
    _, s = head_values(analyses, p["head"], mod.name)
    auto = s < threshold
    block: dict[str, Any] = {
        "source": rows.source,
        "n": len(rows.texts),
        "n_auto": int(auto.sum()),
        "n_human": int((~auto).sum()),
        "share_auto": float(auto.mean()) if auto.size else None,
    }
    if rows.labelled:
        y = np.asarray(rows.labels, dtype=bool)
        block["outcome"] = {
            **M.triage_at(y, s, threshold).to_dict(),
            "ci": _fixed_cis(y, s, threshold, p["n_resamples"], p["seed"]),
        }
    if p["out"] is not None:
        block["files"] = _write_split(rows, s, auto, Path(p["out"]))
    return block


def _write_split(rows: Rows, s: np.ndarray, auto: np.ndarray, out: Path) -> dict[str, str]:
    fmt = rows.fmt or "csv"
    extra = [k for k in dict.fromkeys(k for r in rows.raw for k in r) if k not in ("id", "text")]
    fields = ["id", "text", "score", *extra]
    records = [
        {**raw, "id": rid, "text": text, "score": float(score)}
        for raw, rid, text, score in zip(rows.raw, rows.ids, rows.texts, s, strict=True)
    ]
    files = {}
    for stem, keep in ((AUTO_FILE, auto), (HUMAN_FILE, ~auto)):
        chosen = [r for r, k in zip(records, keep, strict=True) if k]
        path = write_rows(out / f"{stem}.{fmt}", chosen, fields, fmt)
        files[stem] = str(path)
    return files
