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

import hashlib
import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ._registry import Moderator, load
from ._types import Analysis
from .errors import BackendError, ConfigError, DataError, FailedItemsError, ModelError
from .metrics import average_precision, jailbreak_recall, precision_recall_f1, roc_auc, span_f1
from .params import Bool, Constraints, Int, Nullable, OneOf, validate_params
from .store import ENGINES, ResultStore, analyze_all

__all__ = [
    "IN_SAMPLE_ADVICE",
    "IN_SAMPLE_MESSAGE",
    "TRAINED_TEXTS_FILE",
    "Breakdown",
    "TrainedTexts",
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

# -------------------------------------------------------------- in-sample rows

#: The one-line warning of a score over rows the model was trained on. ``extent`` is
#: ``"an"`` when every scored row was, ``"a partly"`` otherwise; ``honest`` is the
#: command that gives the honest figure (in backticks) or :data:`IN_SAMPLE_ADVICE`.
IN_SAMPLE_MESSAGE = (
    "{n_in_sample:,} of {n:,} scored rows were in {moderator}'s training data: "
    "this is {extent} in-sample score, not a test score. The honest figure: {honest}."
)
#: The honest figure of a data set for which the model's card names no command.
IN_SAMPLE_ADVICE = "score a split the model never saw, or only the rows it did not see (--unseen)"
#: The file of a model folder that holds its training texts' fingerprints.
TRAINED_TEXTS_FILE = "trained_texts.bin"
_FINGERPRINT = np.dtype("<u8")


#: What :func:`match_key` drops: links and @-mentions, which each corpus pseudonymises
#: its own way (OLID ``@USER`` … ``URL``, TweetEval ``@user`` with links removed).
_LINK = re.compile(r"https?://\S+|www\.\S+|@\w+")
_WORD = re.compile(r"\w+")
#: OLID's placeholder for a link, dropped as a word.
_LINK_WORD = "url"


def match_key(text: str) -> str:
    """The form of ``text`` that training texts and scored rows are matched on.

    NFKC, case-folded, links and @-mentions (and the word ``url``) dropped, then its
    words (``\\w+``) joined by one space; ``text`` itself when no word is left (an
    emoji-only or empty text matches only itself). So copies of one text that
    corpora re-encoded differently match — TweetEval offensive is OLID with
    ``@USER`` lower-cased and ``URL`` removed — while another text does not.
    The builtin model is uncased, so these copies are one input to it.

    Examples
    --------
    >>> match_key("@USER Go home you’re drunk!!! URL")
    'go home you re drunk'
    >>> match_key("@user Go home you’re drunk!!! ")
    'go home you re drunk'
    >>> match_key("🙂")
    '🙂'
    """
    folded = _LINK.sub(" ", unicodedata.normalize("NFKC", text).casefold())
    words = [w for w in _WORD.findall(folded) if w != _LINK_WORD]
    return " ".join(words) if words else text


def text_fingerprint(text: str) -> int:
    """A text's 64-bit fingerprint: the first 8 bytes of the SHA-256 of its
    :func:`match_key` (UTF-8, lone surrogates passed through), little-endian.

    Two different keys share a fingerprint with probability 2**-64 per pair: about
    1e-10 for 50,000 training texts against 100,000 scored rows.
    """
    digest = hashlib.sha256(match_key(text).encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "little")


def _fingerprints(texts: Iterable[str]) -> np.ndarray:
    return np.fromiter((text_fingerprint(t) for t in texts), dtype=_FINGERPRINT)


@dataclass(frozen=True, slots=True, eq=False)
class TrainedTexts:
    """The texts a model was trained on, as a sorted set of 64-bit fingerprints.

    Parameters
    ----------
    fingerprints : ndarray of uint64
        Sorted, unique :func:`text_fingerprint` values.
    honest_figures : mapping of str to str, default={}
        Data set name → the command that gives that data set's honest figure for
        this model (e.g. ``"detexd"`` → ``"tactful train cv detexd"``), from the
        card's ``trained_on`` entries.

    Examples
    --------
    >>> seen = TrainedTexts.from_texts(["you idiot", "hello"])
    >>> seen.count(["hello", "hi", "hello"])
    2
    >>> TrainedTexts.from_bytes(seen.to_bytes()).count(["you idiot"])
    1
    """

    fingerprints: np.ndarray
    honest_figures: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_texts(
        cls, texts: Iterable[str], honest_figures: Mapping[str, str] | None = None
    ) -> TrainedTexts:
        """The fingerprint set of ``texts`` (duplicates kept once)."""
        return cls(np.unique(_fingerprints(texts)), dict(honest_figures or {}))

    @classmethod
    def from_bytes(
        cls, data: bytes, honest_figures: Mapping[str, str] | None = None
    ) -> TrainedTexts:
        """Read :meth:`to_bytes`'s format: sorted unique little-endian uint64.

        Raises
        ------
        ModelError
            If ``data`` is not a whole number of sorted, unique 8-byte values.
        """
        if len(data) % _FINGERPRINT.itemsize:
            raise ModelError(
                f"A trained-texts file holds whole 8-byte fingerprints; got {len(data):,} bytes."
            )
        fps = np.frombuffer(data, dtype=_FINGERPRINT)
        if fps.size > 1 and not bool(np.all(fps[1:] > fps[:-1])):
            raise ModelError(
                "A trained-texts file holds sorted, unique fingerprints; this does not."
            )
        return cls(fps, dict(honest_figures or {}))

    def to_bytes(self) -> bytes:
        """The sorted fingerprints as little-endian uint64 (8 bytes per text)."""
        return self.fingerprints.astype(_FINGERPRINT).tobytes()

    def __len__(self) -> int:
        return int(self.fingerprints.size)

    def __contains__(self, text: object) -> bool:
        return isinstance(text, str) and bool(self.mask([text])[0])

    def mask(self, texts: Sequence[str]) -> np.ndarray:
        """One bool per text (in order): was it a training text?"""
        fps = _fingerprints(texts)
        if not self.fingerprints.size:
            return np.zeros(fps.size, dtype=bool)
        at = np.searchsorted(self.fingerprints, fps).clip(max=self.fingerprints.size - 1)
        return np.asarray(self.fingerprints[at] == fps)

    def count(self, texts: Sequence[str]) -> int:
        """How many of ``texts`` (each row counted, duplicates too) were training texts."""
        return int(self.mask(texts).sum())

    def honest_figure(self, dataset: str) -> str | None:
        """The command that gives ``dataset``'s honest figure, when the card names one."""
        return self.honest_figures.get(dataset)


def read_trained_texts(
    folder: str | os.PathLike[str], card: Mapping[str, Any]
) -> TrainedTexts | None:
    """The :class:`TrainedTexts` of a model folder, checked against its card's pin.

    ``None`` when the card pins no :data:`TRAINED_TEXTS_FILE` (a model that does not
    record its training texts: nothing can be checked). The honest-figure commands
    come from the ``honest_figure`` of the card's ``trained_on`` entries.

    Raises
    ------
    ModelError
        If the pinned file is missing, does not match its sha256, or is malformed.
    """
    want = card.get("sha256", {}).get(TRAINED_TEXTS_FILE)
    if want is None:
        return None
    path = Path(folder) / TRAINED_TEXTS_FILE
    try:
        data = path.read_bytes()
    except OSError:
        raise ModelError(f"No {TRAINED_TEXTS_FILE} at {path}, though the card pins one.") from None
    if hashlib.sha256(data).hexdigest() != want:
        raise ModelError(f"The file {path} does not match the sha256 pinned in its card.")
    honest = {
        str(e["dataset"]): str(e["honest_figure"])
        for e in card.get("trained_on", [])
        if e.get("honest_figure")
    }
    return TrainedTexts.from_bytes(data, honest)


def trained_texts(moderator: Moderator) -> TrainedTexts | None:
    """What ``moderator`` was trained on, from its optional ``trained_texts()`` method.

    ``None`` for a moderator without the method, or whose method returns ``None``
    (remote APIs, lexicons, models that do not record their training texts).
    """
    method = getattr(moderator, "trained_texts", None)
    return None if method is None else method()


def in_sample_count(moderator: Moderator, texts: Sequence[str]) -> int:
    """How many of ``texts`` (each row counted) ``moderator`` was trained on.

    0 when the moderator does not record its training texts (see :func:`trained_texts`).

    Examples
    --------
    >>> import tactful
    >>> in_sample_count(tactful.load("lexicon"), ["you idiot"])
    0
    """
    seen = trained_texts(moderator)
    return 0 if seen is None else seen.count(texts)


def in_sample_warning(result: Mapping[str, Any]) -> str | None:
    """The one-line warning (:data:`IN_SAMPLE_MESSAGE`) of a score with in-sample rows.

    ``result`` holds ``moderator``, ``n``, ``n_in_sample`` and, optionally,
    ``honest_figure`` (a command) — an :func:`evaluate` result, or an audit's row
    for one data set and moderator. ``None`` when no scored row was in-sample.
    """
    n_in, n = int(result.get("n_in_sample", 0)), int(result["n"])
    if n_in <= 0:
        return None
    command = result.get("honest_figure")
    return IN_SAMPLE_MESSAGE.format(
        n_in_sample=n_in,
        n=n,
        moderator=result["moderator"],
        extent="an" if n_in >= n else "a partly",
        honest=f"`{command}`" if command else IN_SAMPLE_ADVICE,
    )


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
