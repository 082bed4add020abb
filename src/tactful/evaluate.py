"""Run a moderator over a labelled data set and score it.

:func:`evaluate` only moves data: it loads the records, runs the moderator in
batches, and hands plain arrays to :mod:`tactful.metrics` through :func:`score`.
Which metrics apply follows from what the records carry:

* a primary binary label (``Record.label`` not ``None``) → ``precision``,
  ``recall``, ``f1``, ``roc_auc``, ``average_precision``;
* a ``"jailbreak"`` entry in ``Record.labels`` (ToxicChat) → ``jailbreak_recall``;
* gold spans (``Record.spans`` not ``None``) → ``span_f1``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from ._params import Constraints, Int, Nullable, OneOf, validate_params
from ._registry import Moderator, load
from ._types import Analysis
from .errors import BackendError, ConfigError, DataError, FailedItemsError
from .metrics import average_precision, jailbreak_recall, precision_recall_f1, roc_auc, span_f1
from .store import ENGINES, ResultStore, analyze_all

__all__ = ["Breakdown", "evaluate", "register_breakdown", "score"]

#: A per-row breakdown of a data set's score: (records, analyses) -> JSON-ready rows.
Breakdown = Callable[[Sequence[Any], Sequence[Analysis]], list[dict[str, Any]]]
_BREAKDOWNS: dict[str, tuple[str, Breakdown]] = {}


def register_breakdown(dataset: str, key: str, breakdown: Breakdown) -> None:
    """Add ``breakdown(records, analyses)`` to every :func:`evaluate` report of ``dataset``
    under ``key`` (e.g. the functional suite's pass rate per functionality), declared beside
    the data set instead of a branch on its name here.
    """
    old = _BREAKDOWNS.get(dataset)
    if old is not None and old != (key, breakdown):
        raise ConfigError(f"Data set {dataset!r} already has a breakdown ({old[0]!r}).")
    _BREAKDOWNS[dataset] = (key, breakdown)


#: Tasks whose prediction comes from a head of its own rather than the toxicity
#: decision; a moderator without that head has no opinion on them.
_HEAD_TASKS = ("delicate", "jailbreak")


class _Evaluate:
    # Only a holder of the constraints: evaluate is a function.
    _parameter_constraints: ClassVar[Constraints] = {
        "batch_size": Nullable(Int(1)),
        "limit": Nullable(Int(1)),
        "engine": OneOf(ENGINES),
    }


def _prediction(analysis: Analysis, task: str, moderator: str) -> tuple[bool, float | None]:
    """The decision and the score of ``analysis`` for ``task``."""
    if task in _HEAD_TASKS:
        value = getattr(analysis, task)
        if value is None and task not in analysis.flags:
            raise ConfigError(
                f"Moderator {moderator!r} has no opinion on {task!r} (Analysis.{task} is None); "
                f"use a moderator with a {task} head."
            )
    else:
        value = analysis.scores.get("toxicity")
    return bool(analysis.flags.get(task, analysis.flagged)), value


def score(
    records: Sequence[Any], analyses: Sequence[Analysis], *, task: str, moderator: str = "?"
) -> dict[str, Any]:
    """The metrics that apply to ``records`` given the moderator's ``analyses``.

    Parameters
    ----------
    records : sequence of Record
        Labelled rows (:class:`tactful.datasets.Record`).
    analyses : sequence of Analysis
        One per record, in order.
    task : str
        The data set's task (``DatasetSpec.task``). The decision scored is
        ``analysis.flags.get(task, analysis.flagged)``; the score is
        ``analysis.delicate`` for ``"delicate"``, ``analysis.jailbreak`` for
        ``"jailbreak"`` and ``analysis.scores["toxicity"]`` otherwise.
    moderator : str, default="?"
        Moderator name, for error messages.

    Returns
    -------
    dict
        ``n`` (rows that entered at least one metric) and, as they apply:
        ``n_positive``, ``precision``, ``recall``, ``f1``, ``roc_auc``,
        ``average_precision`` (rows whose ``label`` is ``None`` are left out;
        ``roc_auc``/``average_precision`` are ``None`` when undefined or when the
        moderator gives no score for some row), ``jailbreak_recall`` (rows with a
        ``"jailbreak"`` label) and ``span_f1`` (rows with gold spans).

    Raises
    ------
    ConfigError
        If the moderator has no opinion on ``task``.
    DataError
        If no row carries a label or gold spans.
    """
    from .datasets import span_offsets

    if len(records) != len(analyses):
        raise BackendError(f"Got {len(analyses)} analyses for {len(records)} records.")
    preds = [_prediction(a, task, moderator) for a in analyses]
    out: dict[str, Any] = {}
    scored = [r.label is not None or r.spans is not None for r in records]
    n = sum(scored)
    if n == 0:
        raise DataError("No row carries a label or gold spans: nothing to score.")
    out["n"] = n

    binary = [i for i, r in enumerate(records) if r.label is not None]
    if binary:
        y_true = [int(records[i].label) for i in binary]
        y_pred = [preds[i][0] for i in binary]
        given = [preds[i][1] for i in binary]
        out["n_positive"] = sum(y_true)
        out.update(precision_recall_f1(y_true, y_pred))
        scores = [s for s in given if s is not None]
        has_scores = len(scores) == len(given)
        out["roc_auc"] = roc_auc(y_true, scores) if has_scores else None
        out["average_precision"] = average_precision(y_true, scores) if has_scores else None

    jail = [i for i, r in enumerate(records) if r.labels.get("jailbreak") is not None]
    if jail:
        # ToxicChat's JR scores the *toxicity* decision on the jailbreaking rows,
        # whatever the data set's own task is.
        out["jailbreak_recall"] = jailbreak_recall(
            [analyses[i].flagged for i in jail], [int(records[i].labels["jailbreak"]) for i in jail]
        )

    spans = [i for i, r in enumerate(records) if r.spans is not None]
    if spans:
        out["span_f1"] = span_f1(
            [span_offsets(records[i].spans) for i in spans],
            [span_offsets(analyses[i].spans) for i in spans],
        )
    return out


def evaluate(
    dataset: str,
    *,
    moderator: str | Moderator = "builtin",
    split: str | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    batch_size: int | None = None,
    progress: bool = False,
    limit: int | None = None,
    store: ResultStore | str | os.PathLike[str] | None = None,
    engine: str = "local",
    options: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Score a moderator on a labelled data set.

    Parameters
    ----------
    dataset : str
        Registered data set name (``tactful.datasets.dataset_names()``).
    moderator : str or Moderator, default="builtin"
        A registered moderator name, built with :func:`tactful.load`, or an
        instance.
    split : str, optional
        Split to score; default: the data set's ``default_split`` (``"test"``
        where there is one).
    data_dir : path-like, optional
        Data folder; default: ``$TACTFUL_DATA``, else ``../shared/data``.
    batch_size : int, optional
        Texts per ``analyze`` call; default: the moderator's own, else 64.
    progress : bool, default=False
        Show a rich progress bar on stderr.
    limit : int, optional
        Score only the first ``limit`` rows of the split, in file order (for
        smoke runs; the figures are then not comparable with the papers').
    store : ResultStore or path-like, optional
        Keep the moderator's answers in this result store and reuse those it
        already holds (see :func:`tactful.store.analyze_all`).
    engine : {"local", "ray"}, default="local"
        Where the moderator runs; ``"ray"`` needs ``store``.
    options : mapping, optional
        Keyword options of the moderator, when it is given by name
        (``tactful.load(moderator, **options)``).

    Returns
    -------
    dict
        JSON-ready: ``dataset``, ``split``, ``task``, ``moderator``, ``n``, each
        metric that applies (see :func:`score`), ``failed`` (0) and
        ``moderator_config``.

    Raises
    ------
    UnknownNameError
        Unknown data set, split or moderator name.
    MissingDataError
        A file the data set needs is not in the data folder.
    ConfigError
        Bad parameters, or a moderator without an opinion on the data set's task.
    FailedItemsError
        Some texts failed even when asked alone. Its ``report`` holds this
        function's result over the answered rows, with ``failed`` set to the
        number of failed rows (``None`` when no row was answered).

    Examples
    --------
    >>> evaluate("toxicchat", moderator="lexicon")  # doctest: +SKIP
    {'dataset': 'toxicchat', 'split': 'test', 'task': 'toxicity', 'moderator': 'lexicon', 'n': 2853, ...}
    """
    from .datasets import get_spec, load_dataset

    validate_params(
        "evaluate",
        _Evaluate._parameter_constraints,
        batch_size=batch_size,
        limit=limit,
        engine=engine,
    )
    if options and not isinstance(moderator, str):
        raise ConfigError(
            "Moderator options apply to a moderator given by name; "
            f"build {moderator.name!r} with them instead."
        )
    spec = get_spec(dataset)
    split = spec.default_split if split is None else split
    # Resolve the moderator before reading data: a typo in its name should not
    # cost a data load.
    mod = load(moderator, **(options or {})) if isinstance(moderator, str) else moderator
    if progress:
        # Parsing the larger data sets takes seconds before the first batch runs.
        from rich.console import Console

        with Console(stderr=True).status(f"loading {dataset}/{split}…"):
            records = load_dataset(dataset, split=split, data_dir=data_dir)
    else:
        records = load_dataset(dataset, split=split, data_dir=data_dir)
    if limit is not None:
        records = records[:limit]

    def check_first(got: Sequence[Analysis]) -> None:
        # A moderator without the task's head fails on its first answers.
        for a in got:
            _prediction(a, spec.task, mod.name)

    def report(rows: Sequence[Any], analyses: Sequence[Analysis], failed: int) -> dict[str, Any]:
        out: dict[str, Any] = {
            "dataset": dataset,
            "split": split,
            "task": spec.task,
            "moderator": mod.name,
            **score(rows, analyses, task=spec.task, moderator=mod.name),
            "failed": failed,
            "moderator_config": mod.config(),
        }
        if dataset in _BREAKDOWNS:
            key, breakdown = _BREAKDOWNS[dataset]
            out[key] = breakdown(rows, analyses)
        return out

    try:
        analyses = analyze_all(
            mod,
            [r.text for r in records],
            store=store,
            batch_size=batch_size,
            engine=engine,
            progress=progress,
            description=f"{mod.name} on {dataset}/{split}",
            check_first=check_first,
        )
    except FailedItemsError as err:
        answered = [i for i, a in enumerate(err.analyses) if a is not None]
        try:
            err.report = report(
                [records[i] for i in answered], [err.analyses[i] for i in answered], len(err.failed)
            )
        except DataError:  # no answered row carries a label
            err.report = None
        raise
    return report(records, analyses, 0)
