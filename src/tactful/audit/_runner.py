"""The speech-suppression audit runner: data sets × moderators → report dict.

:func:`run_audit` reproduces, for any registered moderator, the audit of
Anigboro et al. (2024), "Identity-related Speech Suppression in Generative AI
Content Moderation": who gets wrongly flagged more often than everyone else.

The runner only moves data. Every number comes from :mod:`tactful.audit.metrics`
and :mod:`tactful.audit.regression`; every moderator answer goes through the
:class:`~tactful.audit.ResultStore`, so a re-run asks no moderator anything it
already answered. Expensive derived values (identity tags, bootstrap tables,
regressions, figures) are memoized in the same store, keyed by a hash of their
exact inputs and of the code that computes them, so a second identical run is a
fraction of the first and writes a byte-identical ``report.json``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import numpy as np

from .._registry import Moderator, load
from ..errors import ConfigError, DataError, MissingDataError, UnknownNameError
from ..store import ResultStore, canonical_json, jsonable, moderator_key, text_sha256

__all__ = ["AUDIT_FAMILIES", "OPENAI_CATEGORIES", "AuditSet", "build_audit_sets", "run_audit"]

#: The paper's two families of audit data and the data sets of each.
AUDIT_FAMILIES: dict[str, tuple[str, ...]] = {
    "traditional": (
        "ss_jigsaw_bias",
        "ss_stormfront",
        "ss_tweeteval_hate",
        "ss_tweeteval_offensive",
    ),
    "genai": ("ss_openai", "tv_synopses"),
}

#: OpenAI moderation categories (Markov et al. 2023), each audited on its own.
OPENAI_CATEGORIES = ("S", "H", "V", "HR", "SH", "S3", "H2", "V2")

#: Where each data set's identity groups come from.
GROUP_SOURCES = {
    "ss_jigsaw_bias": "paper tags",
    "ss_stormfront": "paper tags",
    "ss_openai": "paper tags",
    "tv_synopses": "show tags",
    "ss_tweeteval_hate": "tagger",
    "ss_tweeteval_offensive": "tagger",
}

#: What ``label == 1`` means in each single-label data set.
LABELINGS = {
    "ss_jigsaw_bias": "toxic template",
    "ss_stormfront": "hate",
    "ss_tweeteval_hate": "hate",
    "ss_tweeteval_offensive": "offensive",
}

#: Data sets on which the tagger is compared with the paper's own tags.
AGREEMENT_SETS = ("ss_openai", "ss_stormfront")

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

# Significant digits kept in report.json: far more than any figure needs, and few
# enough that last-bit noise from threaded linear algebra cannot change the bytes.
_DIGITS = 10


@dataclass(frozen=True, slots=True)
class AuditSet:
    """One labelled view of a data set that the audit scores.

    Attributes
    ----------
    id : str
        ``"ss_stormfront"``, ``"ss_openai/S"``, ``"tv_synopses/pg_ok"``, ...
    dataset : str
        The registered data set it comes from.
    family : str
        ``"traditional"`` or ``"genai"``.
    labeling : str
        What ``y_true == 1`` means, in words.
    texts : tuple of str
    y_true : numpy.ndarray
        1 = violating (the moderator *should* flag it), 0 = not violating.
    groups : tuple of frozenset of str
        Identity groups per row.
    has_slur : numpy.ndarray of bool
        The tagger's slur indicator per row.
    group_source : str
        ``"paper tags"``, ``"show tags"`` or ``"tagger"``.
    primary : bool
        Whether the set stands for its data set in pooled tables and regressions.
    hashes : tuple of str
        SHA-256 of each text (the store's key).
    group_codes : numpy.ndarray of uint16
        ``groups`` as bit masks over :data:`tactful.identity.GROUPS`: a compact,
        hashable stand-in used to key memoized results.
    """

    id: str
    dataset: str
    family: str
    labeling: str
    texts: tuple[str, ...]
    y_true: np.ndarray
    groups: tuple[frozenset[str], ...]
    has_slur: np.ndarray
    group_source: str
    primary: bool
    hashes: tuple[str, ...]
    group_codes: np.ndarray


# --------------------------------------------------------------------------- helpers


def _sha(*parts: Any) -> str:
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, np.ndarray):
            h.update(str(p.dtype).encode())
            h.update(np.ascontiguousarray(p).tobytes())
        elif isinstance(p, bytes):
            h.update(p)
        else:
            h.update(canonical_json(p).encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()


def _code_fingerprint(*modules: str) -> str:
    """Hash of the source files (or package folders) of the named modules.

    Memoized results are keyed by it, so editing the code that computes them
    invalidates them instead of serving stale numbers. The modules are located,
    not imported, so that a run served from the memo never pays for importing
    statsmodels.
    """
    h = hashlib.sha256()
    for name in modules:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise ConfigError(f"Cannot locate the module {name!r}.")
        path = Path(spec.origin)
        files = sorted(path.parent.rglob("*")) if path.name == "__init__.py" else [path]
        for f in files:
            if f.is_file() and "__pycache__" not in f.parts:
                h.update(f.name.encode())
                h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _clean(value: Any) -> Any:
    """JSON-ready copy of ``value``: NaN → None, floats to ``_DIGITS`` significant digits."""
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return float(f"{v:.{_DIGITS}g}") if math.isfinite(v) else None
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    return _clean(jsonable(value))


def _frame_rows(frame: Any, index_name: str | None = None) -> list[dict[str, Any]]:
    """A DataFrame as a list of row dicts (the index kept under ``index_name``)."""
    if index_name is not None:
        frame = frame.reset_index(names=index_name) if index_name not in frame.columns else frame
    # Nullable columns hold pd.NA; JSON gets None for it, as for NaN.
    frame = frame.astype(object).where(frame.notna(), None)
    return _clean(frame.to_dict(orient="records"))


class _Progress:
    """Rich progress bars on stderr, or nothing."""

    def __init__(self, enabled: bool) -> None:
        self._p = None
        if enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self._p = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
            )

    def __enter__(self) -> Self:
        if self._p is not None:
            self._p.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._p is not None:
            self._p.stop()

    def task(self, description: str, total: int) -> Callable[[int], None]:
        if self._p is None:
            return lambda n: None
        tid = self._p.add_task(description, total=total)
        return lambda n: self._p.advance(tid, n)  # type: ignore[union-attr]


# --------------------------------------------------------------------------- data


def _resolve_datasets(datasets: str | Iterable[str]) -> list[tuple[str, str]]:
    """``[(family, dataset), ...]`` for family names and/or data set names, in a fixed order."""
    tokens = [t.strip() for t in (datasets.split(",") if isinstance(datasets, str) else datasets)]
    tokens = [t for t in tokens if t]
    if not tokens:
        raise ConfigError(
            "The 'datasets' parameter of run_audit must name at least one family or data set."
        )
    family_of = {d: f for f, ds in AUDIT_FAMILIES.items() for d in ds}
    wanted: set[str] = set()
    for t in tokens:
        if t in AUDIT_FAMILIES:
            wanted.update(AUDIT_FAMILIES[t])
        elif t in family_of:
            wanted.add(t)
        else:
            raise UnknownNameError("audit data set", t, [*AUDIT_FAMILIES, *family_of])
    return [(f, d) for f, ds in AUDIT_FAMILIES.items() for d in ds if d in wanted]


def _sample(records: list[Any], limit: int | None, seed: int) -> list[Any]:
    """At most ``limit`` records, a seeded sample kept in file order."""
    if limit is None or len(records) <= limit:
        return records
    rng = np.random.default_rng(seed)
    keep = np.sort(rng.choice(len(records), size=limit, replace=False))
    return [records[i] for i in keep]


#: Bit of ``has_slur`` in a memoized tag code; bits 0–8 are the groups in GROUPS order.
_SLUR_BIT = 1 << 15


def _tag_texts(by_hash: dict[str, str], store: ResultStore, progress: _Progress) -> dict[str, int]:
    """Identity tags per text hash (``by_hash``: hash → text), memoized in the store.

    A text's tags are kept as one small int (group bits | ``_SLUR_BIT``): the
    audit needs only the groups and ``has_slur``. They are kept per text (a run
    on other or more texts reuses them) and, for a re-run on the very same
    texts, as one list under the hash of all the text hashes (one read).
    """
    from .. import identity

    tagger = identity.IdentityTagger()
    bit = {g: 1 << i for i, g in enumerate(identity.GROUPS)}
    # Tags change when the tagger's code or its lexicon file changes: key the memo on both.
    namespace = (
        f"identity-codes/{_code_fingerprint('tactful.identity')}-{tagger.lexicon_sha256[:16]}"
    )
    advance = progress.task("identity tagger", len(by_hash))
    list_key = _sha("".join(by_hash).encode("ascii"))
    whole = store.get_derived(f"{namespace}/lists", [list_key])
    if list_key in whole:
        advance(len(by_hash))
        return dict(zip(by_hash, whole[list_key]))
    tags = store.get_derived(namespace, list(by_hash))
    todo = [(h, t) for h, t in by_hash.items() if h not in tags]
    advance(len(by_hash) - len(todo))
    if todo:
        step = 2000
        for i in range(0, len(todo), step):
            chunk = todo[i : i + step]
            result = tagger.tag_many([t for _, t in chunk])
            fresh = {
                h: sum(bit[g] for g in r.groups) | (_SLUR_BIT if r.has_slur else 0)
                for (h, _), r in zip(chunk, result)
            }
            store.put_derived(namespace, fresh)
            tags.update(fresh)
            advance(len(chunk))
    store.put_derived(f"{namespace}/lists", {list_key: [tags[h] for h in by_hash]})
    return tags


def _answer_columns(
    db: ResultStore,
    mod: Moderator,
    texts: Sequence[str],
    texts_key: str,
    batch_size: int,
    advance: Callable[[int], None],
) -> tuple[np.ndarray, np.ndarray]:
    """``flagged`` and max category score of ``mod``'s answer to each text.

    Missing answers are computed and stored first (:meth:`ResultStore.ensure`).
    The two columns are then kept as one derived value under the hash of the
    text list, so that a re-run on the same texts reads one row instead of
    100,000 answers. Floats are kept at full precision (JSON round-trips them).
    """
    namespace = f"answer-columns/{_code_fingerprint('tactful.store._sqlite')}/{moderator_key(mod)}"
    hit = db.get_derived(namespace, [texts_key])
    if texts_key in hit:
        advance(len(texts))
        value = hit[texts_key]
        flagged = np.frombuffer(value["flagged"].encode("ascii"), dtype=np.uint8) == ord("1")
        return flagged, np.array(value["max_score"], dtype=float).reshape(len(texts))
    db.ensure(mod, texts, batch_size=batch_size, progress=advance)
    # Two columns straight from the stored JSON: decoding 100k Analysis objects
    # would dominate a run whose answers are all stored.
    flagged, scores = db.flags_and_max_scores(mod, texts)
    db.put_derived(
        namespace,
        {
            texts_key: {
                "flagged": "".join("1" if f else "0" for f in flagged.tolist()),
                "max_score": [None if math.isnan(x) else x for x in scores.tolist()],
            }
        },
    )
    return flagged, scores


#: Labels kept per data set beside ``label`` (the views of :func:`build_audit_sets` need them).
_EXTRA_LABELS = {"ss_openai": OPENAI_CATEGORIES, "tv_synopses": ("pg_ok", "pg13_ok")}


@dataclass(frozen=True, slots=True)
class _Rows:
    """What the audit needs of a data set's records, column by column."""

    texts: list[str]
    label: list[int | None]
    labels: dict[str, list[int | None]]
    groups: list[tuple[str, ...]]


def _int_or_none(v: Any) -> int | None:
    return None if v is None else int(v)


def _load_rows(
    name: str, data_dir: str | Path | None, limit: int | None, seed: int, store: ResultStore
) -> _Rows:
    """The (sampled) rows of data set ``name``, memoized in the store.

    Parsing the audit's data files takes seconds that a re-run should not pay.
    The memo is keyed by the data set's files (path, size, modification time),
    the loader code, ``limit`` and ``seed``, so a changed file or loader is read
    afresh. A data set whose files are missing goes straight to the loader,
    which raises the :class:`~tactful.errors.MissingDataError` naming them.
    """
    from ..config import resolve_data_dir
    from ..datasets import get_spec, load_dataset

    key = None
    try:
        root = resolve_data_dir(data_dir).resolve()
        stamps = []
        for rel in get_spec(name).files:
            st = os.stat(root / rel)
            stamps.append((rel, st.st_mtime_ns, st.st_size))
        key = _sha(name, str(root), stamps, limit, seed)
    except (OSError, ConfigError):
        pass
    namespace = f"dataset-rows/{_code_fingerprint('tactful.datasets')}"
    if key is not None:
        hit = store.get_derived(namespace, [key])
        if key in hit:
            v = hit[key]
            return _Rows(
                texts=v["texts"],
                label=v["label"],
                labels=v["labels"],
                groups=[tuple(g.split("|")) if g else () for g in v["groups"]],
            )
    records = _sample(list(load_dataset(name, data_dir=data_dir)), limit, seed)
    rows = _Rows(
        texts=[r.text for r in records],
        label=[_int_or_none(r.label) for r in records],
        labels={
            k: [_int_or_none(r.labels.get(k)) for r in records] for k in _EXTRA_LABELS.get(name, ())
        },
        groups=[tuple(r.groups) for r in records],
    )
    if key is not None:
        value = {
            "texts": rows.texts,
            "label": rows.label,
            "labels": rows.labels,
            "groups": ["|".join(g) for g in rows.groups],
        }
        store.put_derived(namespace, {key: value})
    return rows


def _codes(name: str, groups: Sequence[Sequence[str]], bit: dict[str, int]) -> np.ndarray:
    """Group bit masks of a data set's own tags; unknown group names are a DataError."""
    try:
        return np.array([sum(bit[g] for g in gs) for gs in groups], dtype=np.uint16)
    except KeyError as exc:
        raise DataError(
            f"Data set {name!r} tags a text with the group {exc.args[0]!r}, which is not one "
            f"of the audit's groups ({', '.join(bit)})."
        ) from None


def _agreement(
    store: ResultStore, tagged: np.ndarray, gold: np.ndarray, names: dict[int, frozenset[str]]
) -> list[dict[str, Any]]:
    """:func:`tactful.identity.agreement` of the tagger with a data set's tags, memoized."""
    from ..identity import agreement

    namespace = f"identity-agreement/{_code_fingerprint('tactful.identity')}"
    key = _sha(tagged, gold)
    hit = store.get_derived(namespace, [key])
    if key in hit:
        return hit[key]
    rows = _frame_rows(
        agreement([names[int(c)] for c in tagged.tolist()], [names[int(c)] for c in gold.tolist()])
    )
    store.put_derived(namespace, {key: rows})
    return rows


def _view(
    set_id: str,
    labeling: str,
    y: Sequence[int | None],
    primary: bool,
    *,
    dataset: str,
    family: str,
    texts: Sequence[str],
    groups: Sequence[frozenset[str]],
    has_slur: np.ndarray,
    group_source: str,
    hashes: Sequence[str],
    codes: np.ndarray,
) -> AuditSet:
    """The rows of one data set whose label ``y`` is known, as an :class:`AuditSet`."""
    keep = [i for i, v in enumerate(y) if v is not None]
    return AuditSet(
        id=set_id,
        dataset=dataset,
        family=family,
        labeling=labeling,
        texts=tuple(texts[i] for i in keep),
        y_true=np.array([int(y[i]) for i in keep], dtype=np.int8),  # type: ignore[arg-type]
        groups=tuple(groups[i] for i in keep),
        has_slur=has_slur[keep],
        group_source=group_source,
        primary=primary,
        hashes=tuple(hashes[i] for i in keep),
        group_codes=codes[keep],
    )


def build_audit_sets(
    datasets: str | Iterable[str] = ("traditional", "genai"),
    *,
    data_dir: str | Path | None = None,
    store: ResultStore,
    limit: int | None = None,
    seed: int = 0,
    progress: bool = False,
) -> tuple[list[AuditSet], list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """Load the audit data sets and derive the labelled views the audit scores.

    Returns
    -------
    sets : list of AuditSet
    skipped : list of dict
        ``{"dataset", "reason"}`` for each data set whose files are missing.
    agreement : dict
        Tagger-vs-paper agreement rows per data set of :data:`AGREEMENT_SETS`.
    """
    chosen = _resolve_datasets(datasets)
    loaded: list[tuple[str, str, _Rows]] = []
    skipped: list[dict[str, Any]] = []
    for family, name in chosen:
        try:
            rows = _load_rows(name, data_dir, limit, seed, store)
        except MissingDataError as exc:
            skipped.append({"dataset": name, "reason": str(exc)})
            continue
        loaded.append((family, name, rows))
    if not loaded:
        raise DataError(
            "None of the audit data sets could be read: " + " ".join(s["reason"] for s in skipped)
        )

    hash_of: dict[str, str] = {}
    for _, _, rows in loaded:
        for t in rows.texts:
            if t not in hash_of:
                hash_of[t] = text_sha256(t)
    with _Progress(progress) as bars:
        tags = _tag_texts({h: t for t, h in hash_of.items()}, store, bars)
    bit = {g: 1 << i for i, g in enumerate(_group_names())}
    names = _MaskNames(_group_names())

    sets: list[AuditSet] = []
    agreement: dict[str, list[dict[str, Any]]] = {}
    for family, name, rows in loaded:
        source = GROUP_SOURCES.get(name) or ("data tags" if any(rows.groups) else "tagger")
        row_hashes = [hash_of[t] for t in rows.texts]
        row_tags = np.array([tags[h] for h in row_hashes], dtype=np.int64).reshape(len(row_hashes))
        tagged_codes = (row_tags & ~_SLUR_BIT).astype(np.uint16)
        data_codes = _codes(name, rows.groups, bit)
        codes = tagged_codes if source == "tagger" else data_codes
        groups = tuple(names[int(c)] for c in codes.tolist())
        has_slur = (row_tags & _SLUR_BIT) > 0
        if name in AGREEMENT_SETS:
            agreement[name] = _agreement(store, tagged_codes, data_codes, names)

        view = functools.partial(
            _view,
            dataset=name,
            family=family,
            texts=rows.texts,
            groups=groups,
            has_slur=has_slur,
            group_source=source,
            hashes=row_hashes,
            codes=codes,
        )
        views: list[AuditSet] = []
        if name == "ss_openai":
            views.append(view(name, "Toxic (any category)", rows.label, True))
            for cat in OPENAI_CATEGORIES:
                views.append(view(f"{name}/{cat}", f"category {cat}", rows.labels[cat], False))
        elif name == "tv_synopses":
            for key, primary in (("pg_ok", False), ("pg13_ok", True)):
                y = [None if v is None else 1 - v for v in rows.labels[key]]
                label = "not PG ok" if key == "pg_ok" else "not PG-13 ok"
                views.append(view(f"{name}/{key}", label, y, primary))
        else:
            views.append(view(name, LABELINGS.get(name, "label"), rows.label, True))
        for v in views:
            if v.texts:
                sets.append(v)
            else:
                skipped.append(
                    {"dataset": v.id, "reason": f"no row has a known label ({v.labeling})"}
                )
    return sets, skipped, agreement


# --------------------------------------------------------------------------- metrics


class _MaskNames(dict):
    """Group bit mask → frozenset of group names, built on first use of each mask."""

    def __init__(self, groups: Sequence[str]) -> None:
        super().__init__()
        self.groups = tuple(groups)

    def __missing__(self, mask: int) -> frozenset[str]:
        value = frozenset(g for i, g in enumerate(self.groups) if mask >> i & 1)
        self[mask] = value
        return value


class _Memo:
    """Memoize JSON-able results in the store, keyed by their inputs and code."""

    def __init__(self, store: ResultStore, code: str) -> None:
        self.store, self.code = store, code

    def __call__(self, kind: str, key_parts: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
        namespace = f"audit-{kind}/{self.code}"
        key = _sha(*key_parts)
        hit = self.store.get_derived(namespace, [key])
        if key in hit:
            return hit[key]
        value = _clean(compute())
        self.store.put_derived(namespace, {key: value})
        return value


def _worst(rows: list[dict[str, Any]], kind: str) -> dict[str, Any] | None:
    """The group with the largest ratio, with its counts and CI (None when no group has one)."""
    best = None
    for r in rows:
        if r.get("ratio") is None:
            continue
        if best is None or r["ratio"] > best["ratio"]:
            best = r
    if best is None:
        return None
    out = {
        "group": best["group"],
        "ratio": best["ratio"],
        "ratio_low": best.get("ratio_low"),
        "ratio_high": best.get("ratio_high"),
        "n_tn": best.get("n_tn"),
    }
    if kind == "flag":
        out["n_fp"] = best.get("n_fp")
        out["i_fpr"] = best.get("i_fpr")
    else:
        out["i_median"] = best.get("i_median")
    return out


def _evaluate(
    memo: _Memo,
    y_true: np.ndarray,
    groups: Sequence[frozenset[str]],
    codes: np.ndarray,
    flags: np.ndarray,
    scores: np.ndarray | None,
    n_resamples: int,
    seed: int,
) -> dict[str, Any]:
    from . import metrics

    gkey = _sha(codes)
    out: dict[str, Any] = {
        "n": len(y_true),
        "n_negative": int((y_true == 0).sum()),
        "n_positive": int((y_true == 1).sum()),
        "fpr": _clean(metrics.fpr(y_true, flags)),
    }
    table = memo(
        "flag-table",
        (y_true, flags, gkey, n_resamples, seed),
        lambda: _frame_rows(
            metrics.suppression_table(y_true, flags, groups, n_resamples=n_resamples, seed=seed)
        ),
    )
    out["flag"] = {"groups": table, "worst": _worst(table, "flag")}
    if scores is None:
        out["score"] = None
    else:
        stable = memo(
            "score-table",
            (y_true, scores, gkey, n_resamples, seed),
            lambda: _frame_rows(
                metrics.score_suppression_table(
                    y_true, scores, groups, n_resamples=n_resamples, seed=seed
                )
            ),
        )
        out["score"] = {"groups": stable, "worst": _worst(stable, "score")}
    return out


def _regressions(
    memo: _Memo,
    sets: Sequence[AuditSet],
    flags: dict[str, np.ndarray],
    scores: dict[str, np.ndarray | None],
) -> dict[str, Any]:
    """Tables 15–16: flag logistic and score OLS over the pooled primary sets."""
    pooled = [s for s in sets if s.primary]
    texts = [t for s in pooled for t in s.texts]
    y_true = np.concatenate([s.y_true for s in pooled])
    groups = [g for s in pooled for g in s.groups]
    has_slur = np.concatenate([s.has_slur for s in pooled])
    genai = np.concatenate([np.full(len(s.texts), s.family == "genai") for s in pooled])
    y_pred = np.concatenate([flags[s.id] for s in pooled])
    have_scores = all(scores[s.id] is not None for s in pooled)
    text_key = _sha("".join(h for s in pooled for h in s.hashes).encode("ascii"))
    codes = np.concatenate([s.group_codes for s in pooled])
    base = (text_key, y_true, codes, has_slur, genai)
    out: dict[str, Any] = {
        "sets": [s.id for s in pooled],
        "n": len(texts),
    }

    def frame():
        from . import regression

        return regression.regression_frame(texts, y_true, groups, has_slur=has_slur, genai=genai)

    def fitted(table: Any) -> dict[str, Any]:
        attrs = table.attrs
        return {
            "terms": _frame_rows(table, "term"),
            "method": attrs.get("method"),
            "dropped": dict(sorted((attrs.get("dropped") or {}).items())),
            "n": attrs.get("n"),
        }

    def flag_fit():
        from . import regression

        return fitted(regression.flag_regression(frame(), y_true, y_pred))

    out["flag"] = _guard(lambda: memo("regression-flag", (*base, y_pred), flag_fit))
    if have_scores:
        s_all = np.concatenate([scores[s.id] for s in pooled])  # type: ignore[misc]

        def score_fit():
            from . import regression

            return fitted(regression.score_regression(frame(), y_true, s_all))

        out["score"] = _guard(lambda: memo("regression-score", (*base, s_all), score_fit))
    else:
        out["score"] = None
    return out


def _guard(fit: Callable[[], Any]) -> dict[str, Any]:
    """A regression that cannot be fitted (too few rows, one class) becomes an error note."""
    try:
        return fit()
    except (ConfigError, ValueError, np.linalg.LinAlgError) as exc:
        return {
            "terms": None,
            "error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
        }


def _pooled(
    sets: Sequence[AuditSet], family: str, arrays: dict[str, np.ndarray]
) -> tuple[Any, ...]:
    chosen = [s for s in sets if s.family == family and s.primary]
    return (
        np.concatenate([s.y_true for s in chosen]),
        [g for s in chosen for g in s.groups],
        np.concatenate([s.group_codes for s in chosen]),
        np.concatenate([arrays[s.id] for s in chosen]),
    )


# --------------------------------------------------------------------------- runner


def _as_moderator(m: str | Moderator) -> Moderator:
    if isinstance(m, str):
        return load(m)
    if not hasattr(m, "analyze"):
        raise ConfigError(
            f"The 'moderators' of run_audit must be names or Moderators. Got {m!r} instead."
        )
    return m


def _labels(mods: Sequence[Moderator]) -> list[str]:
    """Display names: the moderator's name, made unique by its key when names repeat."""
    names = [str(m.name) for m in mods]
    return [
        n if names.count(n) == 1 else f"{n}[{moderator_key(m)[:8]}]" for n, m in zip(names, mods)
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
    batch_size: int = 64,
) -> dict[str, Any]:
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
    batch_size : int, default 64
        Texts per moderator call (and per store commit).

    Returns
    -------
    dict
        The report, exactly as written to ``report.json``.
    """
    if not moderators:
        raise ConfigError(
            "The 'moderators' parameter of run_audit must name at least one moderator."
        )
    for pname, value, low in (
        ("n_resamples", n_resamples, 1),
        ("limit", limit, 1),
        ("seed", seed, 0),
    ):
        if value is None and pname == "limit":
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ConfigError(
                f"The {pname!r} parameter of run_audit must be an int >= {low}. Got {value!r} instead."
            )
    # Check every name before creating anything on disk.
    mods = [_as_moderator(m) for m in moderators]
    labels = _labels(mods)
    _resolve_datasets(datasets)
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"Cannot create the output folder {out}: {exc}.") from None
    db = ResultStore(store if store is not None else out / "store.sqlite")
    try:
        return _run(
            db,
            mods,
            labels,
            datasets,
            data_dir,
            out,
            n_resamples,
            seed,
            limit,
            progress,
            batch_size,
        )
    finally:
        db.close()


def _run(
    db: ResultStore,
    mods: Sequence[Moderator],
    labels: Sequence[str],
    datasets: str | Sequence[str],
    data_dir: str | Path | None,
    out: Path,
    n_resamples: int,
    seed: int,
    limit: int | None,
    progress: bool,
    batch_size: int,
) -> dict[str, Any]:
    sets, skipped, agreement = build_audit_sets(
        datasets, data_dir=data_dir, store=db, limit=limit, seed=seed, progress=progress
    )
    memo = _Memo(db, _code_fingerprint("tactful.audit.metrics", "tactful.audit.regression"))
    families = [f for f in AUDIT_FAMILIES if any(s.family == f for s in sets)]

    # Every unique text once per moderator: ss_openai's texts serve nine views.
    unique_texts = list(dict.fromkeys(t for s in sets for t in s.texts))
    results: list[dict[str, Any]] = []
    pooled: list[dict[str, Any]] = []
    regressions: list[dict[str, Any]] = []
    with _Progress(progress) as bars:
        position = {t: i for i, t in enumerate(unique_texts)}
        texts_key = _sha("".join(text_sha256(t) for t in unique_texts).encode("ascii"))
        columns = [
            _answer_columns(
                db,
                mod,
                unique_texts,
                texts_key,
                batch_size,
                bars.task(f"moderator {label}", len(unique_texts)),
            )
            for mod, label in zip(mods, labels)
        ]
        advance = bars.task("metrics", len(mods) * (len(sets) + len(families) + 1))
        for mod, label, (flag_all, score_all) in zip(mods, labels, columns):
            flags: dict[str, np.ndarray] = {}
            scores: dict[str, np.ndarray | None] = {}
            for s in sets:
                idx = np.fromiter(
                    (position[t] for t in s.texts), dtype=np.int64, count=len(s.texts)
                )
                flags[s.id] = flag_all[idx].astype(np.int8)
                sc = score_all[idx]
                # A moderator "gives scores" on a set when any answer there has one.
                scores[s.id] = None if np.isnan(sc).all() else sc
            for s in sets:
                row = {"moderator": label, "set": s.id, "dataset": s.dataset, "family": s.family}
                row.update(
                    _evaluate(
                        memo,
                        s.y_true,
                        s.groups,
                        s.group_codes,
                        flags[s.id],
                        scores[s.id],
                        n_resamples,
                        seed,
                    )
                )
                results.append(row)
                advance(1)
            for family in families:
                y, g, c, f = _pooled(sets, family, flags)
                fam_sets = [s for s in sets if s.family == family and s.primary]
                sc = None
                if all(scores[s.id] is not None for s in fam_sets):
                    sc = np.concatenate([scores[s.id] for s in fam_sets])  # type: ignore[misc]
                row = {"moderator": label, "family": family, "sets": [s.id for s in fam_sets]}
                row.update(_evaluate(memo, y, g, c, f, sc, n_resamples, seed))
                pooled.append(row)
                advance(1)
            reg = {"moderator": label}
            reg.update(_regressions(memo, sets, flags, scores))
            regressions.append(reg)
            advance(1)

    report = {
        "schema": "tactful.audit/1",
        "title": "Identity-related speech suppression audit",
        "parameters": {
            "datasets": list(datasets.split(",")) if isinstance(datasets, str) else list(datasets),
            "n_resamples": n_resamples,
            "confidence": 0.95,
            "seed": seed,
            "limit": limit,
        },
        "groups": list(_group_names()),
        "notes": list(NOTES),
        "moderators": [
            {
                "label": label,
                "name": str(m.name),
                "version": str(m.version),
                "config": jsonable(m.config()),
                "key": moderator_key(m),
            }
            for m, label in zip(mods, labels)
        ],
        "datasets": [
            {
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
                    g: int(((s.group_codes >> i) & 1).sum()) for i, g in enumerate(_group_names())
                },
                "mean_words": round(float(np.mean([len(t.split()) for t in s.texts])), 2),
            }
            for s in sets
        ],
        "skipped": skipped,
        "results": results,
        "families": pooled,
        "summary": [
            {
                "moderator": p["moderator"],
                "family": p["family"],
                "fpr": p["fpr"],
                "flag": p["flag"]["worst"],
                "score": None if p["score"] is None else p["score"]["worst"],
            }
            for p in pooled
        ],
        "regressions": regressions,
        "tagger_agreement": agreement,
    }
    report = _clean(report)

    from ._report import write_reports

    write_reports(report, out, store=db)
    return report


def _group_names() -> tuple[str, ...]:
    from ..identity import GROUPS

    return tuple(GROUPS)
