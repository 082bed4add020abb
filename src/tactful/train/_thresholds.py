"""Operating points chosen on dev data: the toxicity, jailbreak, delicate, span and harm-category thresholds of a card."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .._heads import SEQ_HEADS
from ..errors import ConfigError

if TYPE_CHECKING:
    from ..datasets import Record
from ._devrows import delicate_dev_rows, harmless_dev_texts, offensive_dev_rows
from ._provenance import run_span_gold

__all__ = [
    "CATEGORY_MIN_ROWS",
    "DELICATE_MIN_ROWS",
    "DEV_RESAMPLES",
    "THRESHOLD_GRID",
    "best_f1_threshold",
    "category_harmless_sets",
    "choose_category_thresholds",
    "choose_delicate_threshold",
    "choose_span_threshold",
    "choose_thresholds",
    "choose_toxicity_threshold",
    "crossfit_threshold_f1",
    "grid_f1",
    "harmless_floor",
    "harmless_pass_rates",
    "or_in_threshold",
    "resampled_grid_f1",
    "span_harmless_floor",
    "span_sets",
    "trial_span_key",
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


#: The fewest dev rows of each class (in the category, and not) on which a harm
#: category's point is chosen (:func:`choose_category_thresholds`); with fewer it keeps 0.5.
CATEGORY_MIN_ROWS = 10


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


def resampled_grid_f1(y: np.ndarray, p: np.ndarray, resamples: int, seed: int = 0) -> np.ndarray:
    """The F1 of ``p >= t`` at each point of :data:`THRESHOLD_GRID` (columns) in each of
    ``resamples`` bootstrap resamples of the rows (rows of the result; seeded)."""
    n = len(y)
    rows = np.random.default_rng(seed).integers(0, n, (resamples, n))
    counts = np.zeros((resamples, n))
    np.add.at(counts, (np.arange(resamples)[:, None], rows), 1.0)
    return _weighted_grid_f1(counts, _grid_outcomes(y, p))


def best_f1_threshold(
    y: np.ndarray,
    p: np.ndarray,
    *,
    resamples: int = 0,
    seed: int = 0,
    lowest: float | None = None,
    one_se: bool = False,
) -> tuple[float, float]:
    """The threshold of :data:`THRESHOLD_GRID` with the best F1 of ``p >= t``, and that F1.

    ``lowest`` leaves out the grid's thresholds below it (:func:`harmless_floor`).

    With ``resamples`` > 0 the threshold maximises the *mean* F1 over that many
    bootstrap resamples of the rows (seeded), not the F1 of the one sample: on a
    small dev set (ToxicChat's carve-out has 280 rows, 38 toxic) the plain argmax
    follows a handful of rows, the mean over resamples is the expected F1 of a
    threshold. The F1 returned is always the plain F1 of the chosen threshold.
    Ties go to the lowest threshold.

    ``one_se`` (with ``resamples``) takes the *highest* threshold whose mean F1 is within
    one standard error of the best (the standard deviation of the best point's F1 over the
    resamples): Breiman's one-standard-error rule, for a point chosen on few positives
    (a harm category's dozen dev rows), where F1 is flat over a wide range and the lowest
    point of that range flags whatever scores a little above nothing.
    """
    plain = grid_f1(y, p)
    if resamples > 0:
        per_resample = resampled_grid_f1(y, p, resamples, seed)
        criterion = per_resample.mean(axis=0)
    else:
        criterion = plain
    if lowest is not None:
        criterion = np.where(THRESHOLD_GRID >= lowest - 1e-9, criterion, -np.inf)
    best = int(np.argmax(criterion > criterion.max() - 1e-12))
    if one_se and resamples > 0:
        within = criterion >= criterion[best] - per_resample[:, best].std() - 1e-12
        best = int(np.flatnonzero(within).max())
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


def _harmless_chat_rows(data_dir: str | Path | None) -> list[Any]:
    """ToxicChat dev's prompts labelled non-toxic, in no harm category: a category flag
    flags the text, so a category's point must not cost the chat prompts' precision."""
    import math

    from .._heads import CATEGORY_HEADS
    from ..datasets import load_dataset
    from ..taxonomy import CATEGORIES, EXTRA_CATEGORIES
    from ._mixture import Example

    seq = [0.0 if h in CATEGORIES else math.nan for h in CATEGORY_HEADS]
    extra = dict.fromkeys(EXTRA_CATEGORIES, 0.0)
    return [
        Example(r.text, "toxicchat", list(seq), meta={"extra": dict(extra)})
        for r in load_dataset("toxicchat", "dev", data_dir=data_dir)
        if r.labels["toxicity"] == 0
    ]


def category_harmless_sets(
    data_dir: str | Path | None, dev_rows: Sequence[Any]
) -> dict[str, list[str]]:
    """The harmless dev sets a category's floor is chosen on (``harmless_pass``): the
    toxicity point's (:func:`~tactful.train._devrows.harmless_dev_texts`: identity
    mentions, inclusion, technical verbs, injection lookalikes, contrasts), the
    counter-narratives of the category dev rows (CONAN and DIALOCONAN dev, in no
    category), ToxicChat dev's harmless prompts (the dev rows of source
    ``"toxicchat"``, :func:`_harmless_chat_rows`), and the held-out harmless category
    templates (``plain_language``: figures of speech, fiction and history, safety and
    reporting questions, definitions, violent words in technical use, support of a group)."""
    from .._heads import CATEGORY_HEADS
    from ..taxonomy import CATEGORIES
    from ._devrows import harmless_dev_texts

    idx = [CATEGORY_HEADS.index(c) for c in CATEGORIES]
    sets = harmless_dev_texts(data_dir)
    sets["counter_speech"] = [
        e.text
        for e in dev_rows
        if e.source in ("conan", "dialoconan") and all(e.seq[i] == 0.0 for i in idx)
    ]
    sets["chat"] = [e.text for e in dev_rows if e.source == "toxicchat"]
    tox = CATEGORY_HEADS.index("toxicity")
    sets["plain_language"] = [
        e.text
        for e in dev_rows
        if e.source == "category_templates"
        and e.seq[tox] == 0.0
        and all(e.seq[i] == 0.0 for i in idx)
    ]
    return sets


def choose_category_thresholds(
    mod: Any,
    data_dir: str | Path | None,
    categories: Sequence[str],
    *,
    harmless_pass: float | None = None,
    one_se: bool = True,
) -> tuple[dict[str, float], dict[str, Any]]:
    """Each harm category's operating point on the category sources' ``dev`` parts
    (:func:`~tactful.train._categories.category_examples` with ``split="dev"``: the harm
    sets' dev items and the held-out category templates; and the held-out training
    templates of ordinary toxic language and its harmless contrasts with their categories,
    :func:`~tactful.train._categories.template_category_examples`; and ToxicChat dev's
    harmless prompts, in no category), the best mean F1 over
    :data:`DEV_RESAMPLES` bootstrap resamples of the rows that label the category (with
    ``one_se``, the highest point within one standard error of it:
    :func:`best_f1_threshold`), and
    the dev figures: per category its rows, positives, AUC and F1 at the point. A
    category with fewer than :data:`CATEGORY_MIN_ROWS` rows in or out of it keeps 0.5.

    ``harmless_pass`` adds each category's flagging point, ``CATEGORY_or``: the best-F1
    point at or above a floor (:func:`harmless_floor`), the lowest grid point at which the
    category flags at most ``1 - harmless_pass`` of each harmless dev set
    (:func:`category_harmless_sets`), or the grid's top where no point lets every set
    pass. A category flags a text by itself at ``CATEGORY_or``, so that it does not flag
    a mention of a group, counter-speech or a technical question, and names the harm of
    a flagged text at its own point. The figures then give each category's
    ``harmless_floor``, ``threshold_or``, ``f1_or`` and its sets' pass rates at it.
    """
    from ..metrics import roc_auc
    from ._categories import category_examples, category_target, template_category_examples

    rows = category_examples(data_dir, split="dev") + template_category_examples("dev")
    rows += _harmless_chat_rows(data_dir)
    seq = mod.predict_arrays([e.text for e in rows])[0]
    heads = list(mod.heads)
    th: dict[str, float] = {}
    fig: dict[str, Any] = {}
    harmless: dict[str, np.ndarray] = {}
    if harmless_pass is not None:
        sets = category_harmless_sets(data_dir, rows)
        flat = [t for texts in sets.values() for t in texts]
        scores = mod.predict_arrays(flat)[0]
        at = np.cumsum([0, *(len(t) for t in sets.values())])
        harmless = {
            name: scores[at[i] : at[i + 1]] for i, name in enumerate(sets) if at[i + 1] > at[i]
        }
    for c in categories:
        y_all = np.array([category_target(e, c) for e in rows], dtype=float)
        known = ~np.isnan(y_all)
        y = y_all[known].astype(int)
        p = seq[known, heads.index(c)]
        pos = int(y.sum())
        entry: dict[str, Any] = {"rows": int(known.sum()), "positives": pos}
        floor = None
        if harmless:
            col = {name: v[:, heads.index(c)] for name, v in harmless.items()}
            try:
                floor = harmless_floor(col, harmless_pass or 0.0)
            except ConfigError:
                floor = float(THRESHOLD_GRID[-1])
        if pos >= CATEGORY_MIN_ROWS and len(y) - pos >= CATEGORY_MIN_ROWS:
            th[c], f1 = best_f1_threshold(y, p, resamples=DEV_RESAMPLES, one_se=one_se)
            entry |= {"auc": round(float(roc_auc(y, p) or 0.0), 4), "f1": round(f1, 4)}
            if floor is not None:
                th[f"{c}_or"], f1_or = best_f1_threshold(
                    y, p, resamples=DEV_RESAMPLES, lowest=floor, one_se=one_se
                )
                entry["f1_or"] = round(f1_or, 4)
        else:
            th[c] = 0.5
            if floor is not None:
                th[f"{c}_or"] = max(0.5, floor)
        entry["threshold"] = th[c]
        if floor is not None:
            entry |= {"harmless_floor": floor, "threshold_or": th[f"{c}_or"]}
            entry["harmless_pass"] = {
                name: round(float((v < th[f"{c}_or"]).mean()), 4) for name, v in col.items()
            }
        fig[c] = entry
    return th, {"category_dev_rows": len(rows), "categories": fig}


def choose_jailbreak_threshold(
    mod: Any,
    data_dir: str | Path | None,
    *,
    before: tuple[Any, float] | None = None,
) -> tuple[float, dict[str, Any]]:
    """The jailbreak point on ToxicChat dev and the held-out training templates
    (:func:`~tactful.train._categories.template_category_examples` with ``split="dev"``:
    the injections 1, every other row 0, so that an insult or an attack on a group is
    not called a jailbreak): the grid point with the best mean of the two parts' F1
    (each part weighs the same: ToxicChat dev has 14 jailbreaks, the templates 32
    injections and 1,409 other rows); and the dev figures: F1 on both parts, and each
    template family's share flagged. ``before``: another moderator and its point,
    whose figures are given beside (``"before"``)."""
    from ..datasets import load_dataset
    from ..metrics import precision_recall_f1
    from ._categories import template_category_examples

    jb = SEQ_HEADS.index("jailbreak")
    chat = load_dataset("toxicchat", "dev", data_dir=data_dir)
    tmpl = template_category_examples("dev")
    texts = [r.text for r in chat] + [e.text for e in tmpl]
    n = len(chat)
    y_chat = np.array([r.labels["jailbreak"] for r in chat], dtype=int)
    y_tmpl = np.array([0 if np.isnan(e.seq[jb]) else int(e.seq[jb]) for e in tmpl])
    family = np.array([str(e.meta["id"])[:6] for e in tmpl])

    def scores(m: Any) -> np.ndarray:
        heads = list(getattr(m, "heads", SEQ_HEADS))
        return np.asarray(m.predict_arrays(texts)[0][:, heads.index("jailbreak")])

    def figures(p: np.ndarray, t: float) -> dict[str, Any]:
        flagged = p >= t
        rest = flagged[n:]
        return {
            "threshold": t,
            "toxicchat_dev_f1": round(precision_recall_f1(y_chat, flagged[:n])["f1"], 4),
            "templates_dev_f1": round(precision_recall_f1(y_tmpl, rest)["f1"], 4),
            "templates_dev_flagged": {
                f: round(float(rest[family == f].mean()), 4) for f in sorted(set(family))
            },
        }

    p = scores(mod)
    mean = (grid_f1(y_chat, p[:n]) + grid_f1(y_tmpl, p[n:])) / 2
    at = int(np.argmax(mean))
    point = float(THRESHOLD_GRID[at])
    fig = {
        "rows": len(texts),
        "positives": int(y_chat.sum() + y_tmpl.sum()),
        "mean_f1": round(float(mean[at]), 4),
        **figures(p, point),
    }
    if before is not None:
        fig["before"] = figures(scores(before[0]), before[1])
    return point, fig


def best_mean_f1_threshold(
    parts: Sequence[tuple[np.ndarray, np.ndarray]],
    *,
    resamples: int = DEV_RESAMPLES,
    lowest: float | None = None,
) -> tuple[float, np.ndarray]:
    """The grid point with the best mean, over ``parts`` (each ``(y, p)``, weighing the
    same whatever its size), of the part's mean F1 over ``resamples`` bootstrap resamples
    of its rows (seed 0); ties go to the lowest point, and ``lowest`` leaves out the
    points below it. Returns the point and that criterion at every grid point."""
    criterion = np.mean([resampled_grid_f1(y, p, resamples).mean(axis=0) for y, p in parts], 0)
    if lowest is not None:
        criterion = np.where(THRESHOLD_GRID >= lowest - 1e-9, criterion, -np.inf)
    best = int(np.argmax(criterion > criterion.max() - 1e-12))
    return float(THRESHOLD_GRID[best]), criterion


def choose_toxicity_threshold(
    mod: Any,
    data_dir: str | Path | None,
    *,
    harmless_pass: float | None = None,
) -> tuple[float, dict[str, Any]]:
    """A shipped model's toxicity point on two dev parts that weigh the same: ToxicChat dev
    (280 chat prompts, 38 toxic) and the harm sets' dev requests (``harm_requests`` dev,
    its harmful requests 1 and those it labels harmless 0, and ``harm_benign`` dev, JailbreakBench's harmless twins and
    TruthfulQA, 0): the grid point with the best mean of the two parts' bootstrap-mean F1
    (:func:`best_mean_f1_threshold`). Each text counts as flagged as
    :class:`~tactful.moderators.builtin.BuiltinModerator` flags it: its toxicity score at
    the point, or another head at its own point
    (:func:`~tactful.moderators.builtin.flagged_beside_toxicity`, which the toxicity
    point does not move). ``harmless_pass``: only points at or above
    :func:`harmless_floor` of :func:`harmless_dev_texts`.

    Returns the point and its dev figures: each part's F1, the harmful requests' and the
    harmless requests' share flagged, at the point and at the card's point (``before``),
    and the criterion at every grid point (``curve``)."""
    from ..datasets import load_dataset
    from ..metrics import precision_recall_f1
    from ..moderators.builtin import flagged_beside_toxicity

    chat = load_dataset("toxicchat", "dev", data_dir=data_dir)
    # a request whose harm is outside the 13 and not toxic language has no label
    harmful = [
        r for r in load_dataset("harm_requests", "dev", data_dir=data_dir) if r.label is not None
    ]
    harmless = load_dataset("harm_benign", "dev", data_dir=data_dir)
    heads = list(mod.heads)
    th = {h: float(v) for h, v in mod.card.get("thresholds", {}).items()}
    categories = heads[len(SEQ_HEADS) :]
    tox = heads.index("toxicity")

    def scores(records: Sequence[Any]) -> np.ndarray:
        """Toxicity scores, 1.0 where another head flags the text."""
        seq = np.clip(mod.predict_arrays([r.text for r in records])[0], 0.0, 1.0)
        beside = [
            flagged_beside_toxicity(dict(zip(heads, map(float, row), strict=True)), th, categories)
            for row in seq
        ]
        return np.where(beside, 1.0, seq[:, tox])

    y_chat = np.array([r.label for r in chat], dtype=int)
    y_harm = np.array([r.label for r in harmful] + [0] * len(harmless), dtype=int)
    p_chat, p_harm = scores(chat), scores([*harmful, *harmless])
    floor = None
    if harmless_pass is not None:
        harmless_scores = {
            name: mod.predict_arrays(texts)[0][:, tox]
            for name, texts in harmless_dev_texts(data_dir).items()
        }
        floor = harmless_floor(harmless_scores, harmless_pass)
    point, criterion = best_mean_f1_threshold([(y_chat, p_chat), (y_harm, p_harm)], lowest=floor)
    n = len(harmful)

    def figures(t: float) -> dict[str, Any]:
        flag = p_harm >= t
        return {
            "threshold": t,
            "toxicchat_dev_f1": round(precision_recall_f1(y_chat, p_chat >= t)["f1"], 4),
            "harm_dev_f1": round(precision_recall_f1(y_harm, flag)["f1"], 4),
            "harm_requests_dev_flagged": round(float(flag[:n][y_harm[:n] == 1].mean()), 4),
            "harm_benign_dev_flagged": round(float(flag[n:].mean()), 4),
        }

    fig: dict[str, Any] = {
        "toxicchat_dev_rows": len(chat),
        "harm_dev_rows": len(y_harm),
        "harm_dev_harmful": int(y_harm.sum()),
        **figures(point),
        "before": figures(float(th.get("toxicity", 0.5))),
        "curve": {
            "threshold": THRESHOLD_GRID.tolist(),
            "mean_f1": [round(float(v), 4) if np.isfinite(v) else None for v in criterion],
        },
    }
    if floor is not None:
        fig["harmless_floor"] = floor
    return point, fig


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
    return lowest_passing_point(harmless_pass_rates(scores), pass_rate, "toxicity")


def lowest_passing_point(rates: Mapping[str, np.ndarray], pass_rate: float, what: str) -> float:
    """The lowest point of :data:`THRESHOLD_GRID` at which every set's pass rate (``rates``:
    one per grid point, growing with the point) is at least ``pass_rate``.

    Raises
    ------
    ConfigError
        No grid point lets every set pass; the message names the ``what`` point, and the
        sets that fall short at the grid's top with their pass rates there.
    """
    top = float(THRESHOLD_GRID[-1])
    ok = np.all([r >= pass_rate - 1e-12 for r in rates.values()], axis=0)
    if not ok.any():
        short = ", ".join(
            f"{name} {r[-1]:.3f}" for name, r in rates.items() if r[-1] < pass_rate - 1e-12
        )
        raise ConfigError(
            f"No {what} point up to {top} lets every harmless dev set pass >= {pass_rate}: "
            f"at {top}, {short}."
        )
    return float(THRESHOLD_GRID[int(np.argmax(ok))])


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


def span_harmless_floor(
    mod: Any, sets: Mapping[str, Sequence[str]], pass_rate: float
) -> tuple[float, dict[str, np.ndarray]]:
    """The lowest span point of :data:`THRESHOLD_GRID` at which at least ``pass_rate`` of
    each harmless set's texts get no span at all, and each set's pass rate at every
    grid point. A span on a harmless text (``lesbian`` in a parent's question) points
    at an identity word as toxic: the span point must not fall where that happens.

    Raises
    ------
    ConfigError
        No grid point lets every set pass; the message names the sets that fall short
        at the grid's top and their pass rates there.
    """
    rates: dict[str, np.ndarray] = {}
    for name, texts in sets.items():
        if not texts:
            continue
        arrays = mod.predict_arrays(list(texts))
        rates[name] = np.array(
            [
                np.mean([not c for c in span_sets(mod, list(texts), arrays, float(t))])
                for t in THRESHOLD_GRID
            ]
        )
    return lowest_passing_point(rates, pass_rate, "span"), rates


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


def choose_thresholds(
    model_dir: str | Path,
    data_dir: str | Path | None,
    stages: list[dict[str, Any]] | None = None,
    crossfit: list[tuple[str | Path, int, int]] | None = None,
    harmless_pass: float | None = None,
    category_harmless_pass: float | None = None,
    span_harmless_pass: float | None = None,
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
    :data:`DELICATE_MIN_ROWS`); the harm categories of a model that has them: their
    sources' dev parts (:func:`choose_category_thresholds`). Heads without a held-out dev
    set keep 0.5.

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
    the point is chosen on and each set's pass rate). ``category_harmless_pass``
    gives each harm category its flagging point ``CATEGORY_or`` above the harmless
    dev sets (:func:`choose_category_thresholds`'s ``harmless_pass``).
    ``span_harmless_pass`` chooses the span point only from :func:`span_harmless_floor`
    of the harmless dev sets up (``dev``: ``span_harmless_floor`` and each set's share
    with no span at the point, ``span_harmless_dev_pass``).
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
    span_grid = None
    if span_harmless_pass is not None:
        span_floor, span_rates = span_harmless_floor(
            mod, harmless_dev_texts(data_dir), span_harmless_pass
        )
        span_grid = [float(t) for t in THRESHOLD_GRID if t >= span_floor - 1e-12]
    th["span"], f = choose_span_threshold(mod, data_dir, span_gold, grid=span_grid)
    if span_harmless_pass is not None:
        at = int(np.flatnonzero(np.isclose(THRESHOLD_GRID, th["span"]))[0])
        dev_fig["span_harmless_floor"] = span_floor
        dev_fig["span_harmless_dev_pass"] = {
            name: round(float(r[at]), 4) for name, r in span_rates.items()
        }
    dev_fig[trial_span_key(span_gold)] = round(f, 4)
    point, fig = choose_delicate_threshold(mod, delicate_dev_rows(data_dir, stages))
    if point is not None:
        th["delicate"] = point
    dev_fig.update(fig)
    categories = mod.heads[len(SEQ_HEADS) :]
    if categories:
        cat_th, cat_fig = choose_category_thresholds(
            mod, data_dir, categories, harmless_pass=category_harmless_pass
        )
        th.update(cat_th)
        dev_fig.update(cat_fig)
    return {"thresholds": th, "dev": dev_fig}
