"""The speech-suppression audit runner: data sets × moderators → an :class:`AuditReport`.

:func:`run_audit` reproduces, for any registered moderator, the audit of
Anigboro et al. (2024), "Identity-related Speech Suppression in Generative AI
Content Moderation": who gets wrongly flagged more often than everyone else.

The runner only moves data between its parts: the audit views of the data sets
(:mod:`tactful.audit._sets`), the moderators' answers through the result store
(:func:`tactful.store.analyze_all`), the figures (:mod:`tactful.audit._evaluate`)
and the writers (:mod:`tactful.audit._report`). Every moderator answer is kept
in the store, and every expensive derived value is memoized there, so a second
identical run is a fraction of the first and writes a byte-identical
``report.json``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from .._registry import Moderator, load
from ..errors import (
    FAILED_ITEMS_STORED,
    ConfigError,
    FailedItemsError,
)
from ..evaluate import trained_texts
from ..params import Bool, Constraints, Int, Nullable, OneOf, PathLike, validate_arguments
from ..store import (
    ENGINES,
    ResultStore,
    analyze_all,
    code_fingerprint,
    jsonable,
    memo_key,
    moderator_key,
    text_sha256,
)
from ._evaluate import Evaluator
from ._progress import Progress
from ._schema import (
    SCHEMA,
    AuditReport,
    DatasetEntry,
    FamilyResult,
    ModeratorEntry,
    Regression,
    SetResult,
    SummaryRow,
    clean,
)
from ._sets import AuditSet, audit_family_names, build_audit_sets, group_names, resolve_datasets

__all__ = ["AUDIT_FAILED_MESSAGE", "NOTES", "run_audit"]

NOTES = (
    (
        "Jigsaw Kaggle (cjadams et al. 2017), part of the paper's traditional family, is not "
        "reachable offline; the traditional family here is Jigsaw Bias (60,560-row subset), "
        "Stormfront, TweetEval hate and TweetEval offensive."
    ),
    (
        "Ground truth 'violating' = 1. OpenAI moderation: overall = the Toxic column, per category "
        "= that category (rows where it is unknown are left out). TV synopses: 'violating' = the "
        "episode is not PG ok (resp. not PG-13 ok); unrated episodes are excluded by the loader."
    ),
    (
        "Pooled family tables (summary, per-group tables, figures) and the regressions use each "
        "data set once with its primary labeling: ss_openai overall, tv_synopses PG-13 ok."
    ),
    (
        "Identity groups: the paper's tags where the data carries them, the show tag lists for TV "
        "synopses, the tactful identity tagger elsewhere (see each data set's group source); "
        "has_slur comes from the tagger for every row."
    ),
    (
        "Ratios are i-FPR / FPR (flags) and i-median / median of the max category score over true "
        "negatives (scores), with percentile bootstrap confidence intervals; a group without true "
        "negatives has no ratio (null)."
    ),
)

#: The one line of an audit in which some moderator left texts unanswered:
#: ``{counts}`` is ``"NAME: K of N texts (first: ERROR)"`` per such moderator.
AUDIT_FAILED_MESSAGE = (
    "The audit wrote no report: texts failed with {k} of {m} moderators ({counts}); {where}"
)


class _RunAudit:
    """The parameter rules of :func:`run_audit`, declared once."""

    _parameter_constraints: ClassVar[Constraints] = {
        "out": PathLike(),
        "store": Nullable(PathLike()),
        "data_dir": Nullable(PathLike()),
        "n_resamples": Int(1),
        "seed": Int(0),
        "limit": Nullable(Int(1)),
        "progress": Bool(),
        "batch_size": Nullable(Int(1)),
        "engine": OneOf(ENGINES),
    }


def _as_moderator(m: str | Moderator, options: Mapping[str, Mapping[str, Any]]) -> Moderator:
    if isinstance(m, str):
        return load(m, **options.get(m, {}))
    if not hasattr(m, "analyze"):
        raise ConfigError(
            f"The 'moderators' of run_audit must be names or Moderators. Got {m!r} instead."
        )
    return m


def _labels(mods: Sequence[Moderator]) -> list[str]:
    """Display names: the moderator's name, made unique by its key when names repeat."""
    names = [str(m.name) for m in mods]
    return [
        n if names.count(n) == 1 else f"{n}[{moderator_key(m)[:8]}]"
        for n, m in zip(names, mods, strict=True)
    ]


def run_audit(
    moderators: Sequence[str | Moderator],
    *,
    datasets: str | Sequence[str] = ("traditional", "genai"),
    data_dir: str | Path | None = None,
    out: str | Path,
    store: str | Path | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    limit: int | None = None,
    progress: bool = True,
    batch_size: int | None = None,
    engine: str = "local",
    options: Mapping[str, Mapping[str, Any]] | None = None,
) -> AuditReport:
    """Audit moderators for identity-related speech suppression and write the reports.

    For every moderator and every audit set: the false positive rate, the
    per-group i-FPR / FPR ratios with bootstrap CIs (flags) and, when the
    moderator gives scores, the per-group median max-category score over true
    negatives / overall median (scores); the worst group of each; the same over
    each family's pooled rows; flag and score regressions over all pooled rows
    with a ``genai`` indicator (the paper's Tables 15–16); and the identity
    tagger's agreement with the paper's tags.

    Parameters
    ----------
    moderators : sequence of str or Moderator
        Registered names (``"lexicon"``) or moderator objects.
    datasets : str or sequence of str, default ("traditional", "genai")
        Families and/or data set names (``"traditional,ss_openai"``).
    data_dir : path, optional
        The data folder (else ``$TACTFUL_DATA``, else ``../shared/data``).
    out : path
        Folder for ``report.json``, ``report.md`` and ``report.html``.
    store : path, optional
        The SQLite result store; default ``out / "store.sqlite"``.
    n_resamples : int, default 1000
        Bootstrap resamples per confidence interval.
    seed : int, default 0
        Seed of the bootstrap and of the ``limit`` sample.
    limit : int, optional
        Audit at most this many rows per data set (a seeded sample).
    progress : bool, default True
        Show progress bars on stderr.
    batch_size : int, optional
        Texts per moderator call; default: the moderator's own, else 64.
    engine : {"local", "ray"}, default "local"
        How the moderators run over the texts (:func:`tactful.store.analyze_all`).
    options : mapping, optional
        Moderator name → keyword options for ``tactful.load`` (the CLI's ``-O``);
        used for the moderators given by name.

    Returns
    -------
    AuditReport
        The report, exactly as written to ``report.json``.

    Raises
    ------
    FailedItemsError
        When some texts failed with some moderator even when asked alone. Every
        moderator is still run over every text first (their answers are stored),
        then no report is written: the message counts the failed texts per
        moderator, and a re-run asks only for them.
    """
    p = validate_arguments("run_audit", _RunAudit._parameter_constraints, locals())
    if not moderators:
        raise ConfigError(
            "The 'moderators' parameter of run_audit must name at least one moderator."
        )
    # Check every name before creating anything on disk.
    mods = [_as_moderator(m, options or {}) for m in moderators]
    resolve_datasets(datasets)
    out_dir: Path = p["out"]
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"Cannot create the output folder {out_dir}: {exc}.") from None
    with ResultStore(p["store"] or out_dir / "store.sqlite") as db:
        sets, skipped, agreement = build_audit_sets(
            datasets, data_dir=data_dir, store=db, limit=limit, seed=seed, progress=progress
        )
        labels = _labels(mods)
        unique_texts = list(dict.fromkeys(t for s in sets for t in s.texts))
        columns = _answer_columns(db, mods, labels, unique_texts, batch_size, engine, progress)
        results, pooled, regressions = _figures(
            Evaluator(db, n_resamples=n_resamples, seed=seed),
            sets,
            labels,
            unique_texts,
            columns,
            progress,
        )
        report: AuditReport = clean(
            {
                "schema": SCHEMA,
                "title": "Identity-related speech suppression audit",
                "parameters": {
                    "datasets": (
                        list(datasets.split(",")) if isinstance(datasets, str) else list(datasets)
                    ),
                    "n_resamples": n_resamples,
                    "confidence": 0.95,
                    "seed": seed,
                    "limit": limit,
                },
                "groups": list(group_names()),
                "notes": list(NOTES),
                "moderators": [_moderator_entry(m, label, sets) for m, label in zip(mods, labels)],
                "datasets": [_dataset_entry(s) for s in sets],
                "skipped": skipped,
                "results": results,
                "families": pooled,
                "summary": [_summary_row(f) for f in pooled],
                "regressions": regressions,
                "tagger_agreement": agreement,
            }
        )
        from ._report import write_reports

        write_reports(report, out_dir, store=db)
    return report


# --------------------------------------------------------------------------- answers


def _answer_columns(
    db: ResultStore,
    mods: Sequence[Moderator],
    labels: Sequence[str],
    texts: Sequence[str],
    batch_size: int | None,
    engine: str,
    progress: bool,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``flagged`` and the max category score of each moderator's answer to each text.

    Missing answers are asked for through :func:`~tactful.store.analyze_all`
    (stored first). The two columns are then memoized under the hash of the text
    list, so that a re-run on the same texts reads one row instead of 100,000
    answers. Every moderator runs even when one leaves failed texts; then one
    :class:`~tactful.errors.FailedItemsError` counts them per moderator.
    """
    texts_key = memo_key("".join(text_sha256(t) for t in texts).encode("ascii"))
    namespace = f"audit-answer-columns/{code_fingerprint('tactful.store', __name__)}"
    columns: list[tuple[np.ndarray, np.ndarray]] = []
    failures: list[tuple[str, FailedItemsError]] = []
    for mod, label in zip(mods, labels, strict=True):

        def read(mod: Moderator = mod, label: str = label) -> dict[str, Any]:
            analyze_all(
                mod,
                texts,
                store=db,
                batch_size=batch_size,
                engine=engine,
                progress=progress,
                description=f"moderator {label}",
            )
            # Two columns straight from the stored JSON, in SQL.
            flagged, scores = db.flags_and_max_scores(mod, texts)
            return {
                "flagged": "".join("1" if f else "0" for f in flagged.tolist()),
                "max_score": [None if math.isnan(x) else x for x in scores.tolist()],
            }

        try:
            value = db.memo(f"{namespace}/{moderator_key(mod)}", [texts_key], read)
        except FailedItemsError as exc:
            failures.append((label, exc))
            continue
        flagged = np.frombuffer(value["flagged"].encode("ascii"), dtype=np.uint8) == ord("1")
        columns.append((flagged, np.array(value["max_score"], dtype=float).reshape(len(texts))))
    if failures:
        raise _failed(failures, len(mods), len(texts), db)
    return columns


def _failed(
    failures: Sequence[tuple[str, FailedItemsError]], m: int, n: int, db: ResultStore
) -> FailedItemsError:
    """One error for every moderator that left texts unanswered."""
    counts = "; ".join(
        f"{label}: {len(exc.failed):,} of {n:,} texts (first: {next(iter(exc.failed.values()))})"
        for label, exc in failures
    )
    message = AUDIT_FAILED_MESSAGE.format(
        k=len(failures), m=m, counts=counts, where=FAILED_ITEMS_STORED.format(path=db.path)
    )
    failed: dict[int, str] = {}
    for label, exc in failures:
        for i, error in exc.failed.items():
            failed.setdefault(i, f"{label}: {error}")
    return FailedItemsError(message, failed, [])


# --------------------------------------------------------------------------- figures


def _figures(
    evaluator: Evaluator,
    sets: Sequence[AuditSet],
    labels: Sequence[str],
    unique_texts: Sequence[str],
    columns: Sequence[tuple[np.ndarray, np.ndarray]],
    progress: bool,
) -> tuple[list[SetResult], list[FamilyResult], list[Regression]]:
    """Per set, per pooled family and regressions, for every moderator, in report order."""
    families = [f for f in audit_family_names() if any(s.family == f for s in sets)]
    position = {t: i for i, t in enumerate(unique_texts)}
    index = {
        s.id: np.fromiter((position[t] for t in s.texts), dtype=np.int64, count=len(s.texts))
        for s in sets
    }
    results: list[SetResult] = []
    pooled: list[FamilyResult] = []
    regressions: list[Regression] = []
    with Progress(progress) as bars:
        advance: Callable[[int], None] = bars.task(
            "metrics", len(labels) * (len(sets) + len(families) + 1)
        )
        for label, (flag_all, score_all) in zip(labels, columns, strict=True):
            flags: dict[str, np.ndarray] = {}
            scores: dict[str, np.ndarray | None] = {}
            for s in sets:
                flags[s.id] = flag_all[index[s.id]].astype(np.int8)
                sc = score_all[index[s.id]]
                # A moderator "gives scores" on a set when any answer there has one.
                scores[s.id] = None if np.isnan(sc).all() else sc
            for s in sets:
                ev = evaluator.evaluate(
                    s.y_true, s.groups, s.group_codes, flags[s.id], scores[s.id]
                )
                results.append(
                    {
                        "moderator": label,
                        "set": s.id,
                        "dataset": s.dataset,
                        "family": s.family,
                        **ev,
                    }
                )
                advance(1)
            for family in families:
                chosen = [s for s in sets if s.family == family and s.primary]
                fam_scores = [scores[s.id] for s in chosen]
                y_fam = np.concatenate([s.y_true for s in chosen])
                groups_fam = [g for s in chosen for g in s.groups]
                codes_fam = np.concatenate([s.group_codes for s in chosen])
                flags_fam = np.concatenate([flags[s.id] for s in chosen])
                ev = evaluator.evaluate(
                    y_fam,
                    groups_fam,
                    codes_fam,
                    flags_fam,
                    None if any(sc is None for sc in fam_scores) else np.concatenate(fam_scores),  # type: ignore[arg-type]
                )
                strata = [s.id for s in chosen for _ in s.texts]
                pooled.append(
                    {
                        "moderator": label,
                        "family": family,
                        "sets": [s.id for s in chosen],
                        **ev,
                        "standardized": evaluator.standardized(
                            y_fam, groups_fam, codes_fam, flags_fam, strata
                        ),
                    }
                )
                advance(1)
            set_ids, n, flag_fit, score_fit = evaluator.regressions(sets, flags, scores)
            regressions.append(
                {"moderator": label, "sets": set_ids, "n": n, "flag": flag_fit, "score": score_fit}
            )
            advance(1)
    return results, pooled, regressions


# --------------------------------------------------------------------------- report parts


def _moderator_entry(m: Moderator, label: str, sets: Sequence[AuditSet]) -> ModeratorEntry:
    entry: ModeratorEntry = {
        "label": label,
        "name": str(m.name),
        "version": str(m.version),
        "config": jsonable(m.config()),
        "key": moderator_key(m),
    }
    seen = trained_texts(m)
    if seen is not None:  # only a moderator that records its training texts is checked
        entry["in_sample"] = {s.id: seen.count(s.texts) for s in sets}
    return entry


def _dataset_entry(s: AuditSet) -> DatasetEntry:
    return {
        "set": s.id,
        "dataset": s.dataset,
        "family": s.family,
        "labeling": s.labeling,
        "primary": s.primary,
        "group_source": s.group_source,
        "n": len(s.texts),
        "n_positive": int(s.y_true.sum()),
        "n_negative": int((s.y_true == 0).sum()),
        "n_has_slur": int(s.has_slur.sum()),
        "group_counts": {
            g: int(((s.group_codes >> i) & 1).sum()) for i, g in enumerate(group_names())
        },
        "mean_words": round(float(np.mean([len(t.split()) for t in s.texts])), 2),
    }


def _summary_row(f: FamilyResult) -> SummaryRow:
    return {
        "moderator": f["moderator"],
        "family": f["family"],
        "fpr": f["fpr"],
        "flag": f["flag"]["worst"],
        "score": None if f["score"] is None else f["score"]["worst"],
        "standardized": f["standardized"]["worst"],
    }
