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
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ._registry import Moderator, load
from ._trained import (
    IN_SAMPLE_ADVICE,
    IN_SAMPLE_MESSAGE,
    TRAINED_TEXTS_FILE,
    TrainedTexts,
    in_sample_count,
    in_sample_warning,
    match_key,
    read_trained_texts,
    text_fingerprint,
    trained_texts,
)
from ._types import Analysis
from .datasets import Breakdown, breakdown_of, register_breakdown
from .errors import BackendError, ConfigError, DataError, FailedItemsError
from .metrics import average_precision, jailbreak_recall, precision_recall_f1, roc_auc, span_f1
from .params import Bool, Constraints, Int, Nullable, OneOf, validate_params
from .store import ENGINES, ResultStore, analyze_all
from .taxonomy import HARM_CATEGORIES

__all__ = [
    "IN_SAMPLE_ADVICE",
    "IN_SAMPLE_MESSAGE",
    "TRAINED_TEXTS_FILE",
    "Breakdown",
    "TrainedTexts",
    "category_metrics",
    "evaluate",
    "in_sample_count",
    "in_sample_warning",
    "match_key",
    "read_trained_texts",
    "register_breakdown",
    "score",
    "text_fingerprint",
    "trained_texts",
]

#: Tasks whose prediction comes from a head of its own rather than the toxicity
#: decision; a moderator without that head has no opinion on them.
_HEAD_TASKS = ("delicate", "jailbreak")


class _Evaluate:
    # Only a holder of the constraints: evaluate is a function.
    _parameter_constraints: ClassVar[Constraints] = {
        "batch_size": Nullable(Int(1)),
        "limit": Nullable(Int(1)),
        "engine": OneOf(ENGINES),
        "unseen": Bool(),
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


def category_metrics(
    records: Sequence[Any], analyses: Sequence[Analysis]
) -> dict[str, dict[str, Any]]:
    """Per harm category (:data:`tactful.taxonomy.HARM_CATEGORIES`), how the moderator's score
    and flag for it meet the rows that label it.

    A category enters when some row labels it (``Record.labels[category]`` 0 or 1) and
    the moderator scores it on every such row (``Analysis.scores[category]``); a moderator
    with no opinion on a category (no score) leaves it out, as does a data set that does
    not label it.

    Returns
    -------
    dict
        Category -> ``n``, ``n_positive``, ``roc_auc`` (``None`` with one class) and,
        where the moderator flags the category on every row (``Analysis.flags``),
        ``precision``, ``recall`` and ``f1`` of those flags; in :data:`~tactful.taxonomy.HARM_CATEGORIES` order.
    """
    out: dict[str, dict[str, Any]] = {}
    for cat in HARM_CATEGORIES:
        rows = [i for i, r in enumerate(records) if r.labels.get(cat) is not None]
        given = [analyses[i].scores.get(cat) for i in rows]
        scores = [s for s in given if s is not None]
        if not rows or len(scores) < len(rows):
            continue
        y_true = [int(records[i].labels[cat]) for i in rows]
        entry: dict[str, Any] = {
            "n": len(rows),
            "n_positive": sum(y_true),
            "roc_auc": roc_auc(y_true, scores),
        }
        flags = [analyses[i].flags.get(cat) for i in rows]
        if all(f is not None for f in flags):
            entry.update(precision_recall_f1(y_true, [bool(f) for f in flags]))
        out[cat] = entry
    return out


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
        ``n_positive``, ``precision``, ``recall``, ``f1``, ``flag_rate`` (the share of
        labelled rows flagged: on a harmless set, its false-positive rate), ``roc_auc``,
        ``average_precision`` (rows whose ``label`` is ``None`` are left out;
        ``roc_auc``/``average_precision`` are ``None`` when undefined or when the
        moderator gives no score for some row), ``jailbreak_recall`` (rows with a
        ``"jailbreak"`` label), ``categories`` (:func:`category_metrics`, where the data set
        labels harm categories and the moderator scores them) and ``span_f1`` (rows with
        gold spans).

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
        out["flag_rate"] = sum(bool(p) for p in y_pred) / len(y_pred)
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

    by_category = category_metrics(records, analyses)
    if by_category:
        out["categories"] = by_category

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
    unseen: bool = False,
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
    unseen : bool, default=False
        Score only the rows whose text the moderator was not trained on (its
        recorded training texts, see :func:`trained_texts`): an honest held-out
        figure on a data set it partly trained on. The result counts the rows left
        out (``n_dropped_in_sample``). Needs a moderator that records its texts.

    Returns
    -------
    dict
        JSON-ready: ``dataset``, ``split``, ``task``, ``moderator``, ``n``, each
        metric that applies (see :func:`score`), ``in_sample`` (whether any
        scored row was one of the moderator's training texts, see
        :func:`in_sample_count`), ``n_in_sample`` (how many), ``honest_figure``
        (when some were and the model's card names the command that gives the
        honest figure), ``failed`` (0) and ``moderator_config``.
        :func:`in_sample_warning` turns it into the one-line warning.

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
        unseen=unseen,
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
    seen = trained_texts(mod)  # before the run: a tampered fingerprint file fails first
    dropped = None
    if unseen:
        if seen is None:
            raise ConfigError(
                f"{mod.name} records no training texts, so --unseen cannot tell which rows it saw."
            )
        kept = [r for r in records if r.text not in seen]
        dropped, records = len(records) - len(kept), kept
        if not records:
            raise ConfigError(
                f"every row of {dataset}/{split} was in {mod.name}'s training data: "
                "no unseen row is left to score."
            )
    if limit is not None:
        records = records[:limit]

    def check_first(got: Sequence[Analysis]) -> None:
        # A moderator without the task's head fails on its first answers.
        for a in got:
            _prediction(a, spec.task, mod.name)

    def report(rows: Sequence[Any], analyses: Sequence[Analysis], failed: int) -> dict[str, Any]:
        scored = [r.text for r in rows if r.label is not None or r.spans is not None]
        n_in = 0 if seen is None else seen.count(scored)
        honest = None if seen is None else seen.honest_figure(dataset)
        out: dict[str, Any] = {
            "dataset": dataset,
            "split": split,
            "task": spec.task,
            "moderator": mod.name,
            **score(rows, analyses, task=spec.task, moderator=mod.name),
            "in_sample": n_in > 0,
            "n_in_sample": n_in,
            **({"n_dropped_in_sample": dropped} if dropped is not None else {}),
            **({"honest_figure": honest} if n_in and honest else {}),
            "failed": failed,
            "moderator_config": mod.config(),
        }
        extra = breakdown_of(dataset)
        if extra is not None:
            key, breakdown = extra
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
