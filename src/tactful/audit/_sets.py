"""The audit's data: data sets read through their audit views, tagged with identity groups.

How each data set is read (its family, where its groups come from, which
labelled views it gives) is declared beside the data sets
(:func:`tactful.datasets.audit_views`); this module only applies those
declarations. Parsing the files, tagging 100,000 texts and the tagger's
agreement with the papers' tags are memoized in the result store, so a re-run
pays for none of them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..datasets import audit_families, audit_views
from ..errors import ConfigError, DataError, MissingDataError, UnknownNameError
from ..store import ResultStore, code_fingerprint, text_sha256
from ._progress import Progress
from ._schema import Skipped

__all__ = ["AuditSet", "audit_family_names", "build_audit_sets", "group_names", "resolve_datasets"]


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


def group_names() -> tuple[str, ...]:
    """The audit's identity groups, in report order (:data:`tactful.identity.GROUPS`)."""
    from ..identity import GROUPS

    return tuple(GROUPS)


def audit_family_names() -> list[str]:
    """The families in report order."""
    return list(audit_families())


def resolve_datasets(datasets: str | Iterable[str]) -> list[tuple[str, str]]:
    """``[(family, dataset), ...]`` for family names and/or data set names, in report order.

    Raises
    ------
    ConfigError
        When nothing is named.
    UnknownNameError
        For a name that is neither a family nor an audit data set.
    """
    tokens = [t.strip() for t in (datasets.split(",") if isinstance(datasets, str) else datasets)]
    tokens = [t for t in tokens if t]
    if not tokens:
        raise ConfigError(
            "The 'datasets' parameter of run_audit must name at least one family or data set."
        )
    families = audit_families()
    family_of = {d: f for f, ds in families.items() for d in ds}
    wanted: set[str] = set()
    for t in tokens:
        if t in families:
            wanted.update(families[t])
        elif t in family_of:
            wanted.add(t)
        else:
            raise UnknownNameError("audit data set", t, [*families, *family_of])
    return [(f, d) for f, ds in families.items() for d in ds if d in wanted]


def _sample(records: list[Any], limit: int | None, seed: int) -> list[Any]:
    """At most ``limit`` records, a seeded sample kept in file order."""
    if limit is None or len(records) <= limit:
        return records
    rng = np.random.default_rng(seed)
    keep = np.sort(rng.choice(len(records), size=limit, replace=False))
    return [records[i] for i in keep]


@dataclass(frozen=True, slots=True)
class _Rows:
    """What the audit needs of a data set's records, column by column."""

    texts: list[str]
    label: list[int | None]
    labels: dict[str, list[int | None]]
    groups: list[tuple[str, ...]]


def _int_or_none(v: Any) -> int | None:
    return None if v is None else int(v)


def _file_stamps(name: str, data_dir: str | Path | None) -> tuple[str, list[Any]] | None:
    """The data folder and (file, mtime, size) of each file of ``name``; None when one is missing."""
    from ..config import resolve_data_dir
    from ..datasets import get_spec

    try:
        root = resolve_data_dir(data_dir).resolve()
        stamps: list[Any] = []
        for rel in get_spec(name).files:
            st = os.stat(root / rel)
            stamps.append((rel, st.st_mtime_ns, st.st_size))
    except (OSError, ConfigError):
        return None
    return str(root), stamps


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
    from .. import datasets

    label_keys = audit_views(name).label_keys

    def read() -> dict[str, Any]:
        records = _sample(list(datasets.load_dataset(name, data_dir=data_dir)), limit, seed)
        return {
            "texts": [r.text for r in records],
            "label": [_int_or_none(r.label) for r in records],
            "labels": {k: [_int_or_none(r.labels.get(k)) for r in records] for k in label_keys},
            "groups": ["|".join(r.groups) for r in records],
        }

    stamps = _file_stamps(name, data_dir)
    if stamps is None:
        value = read()
    else:
        namespace = f"audit-rows/{code_fingerprint('tactful.datasets')}"
        value = store.memo(namespace, (name, *stamps, limit, seed), read)
    return _Rows(
        texts=value["texts"],
        label=value["label"],
        labels=value["labels"],
        groups=[tuple(g.split("|")) if g else () for g in value["groups"]],
    )


#: Bit of ``has_slur`` in a memoized tag code; bits 0–8 are the groups in GROUPS order.
_SLUR_BIT = 1 << 15


def _tag_texts(by_hash: dict[str, str], store: ResultStore, bars: Progress) -> dict[str, int]:
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
        f"audit-identity-codes/{code_fingerprint('tactful.identity')}-{tagger.lexicon_sha256[:16]}"
    )
    advance = bars.task("identity tagger", len(by_hash))

    def tag_all() -> list[int]:
        tags = store.get_derived(namespace, list(by_hash))
        todo = [(h, t) for h, t in by_hash.items() if h not in tags]
        advance(len(by_hash) - len(todo))
        step = 2000
        for i in range(0, len(todo), step):
            chunk = todo[i : i + step]
            fresh = {
                h: sum(bit[g] for g in r.groups) | (_SLUR_BIT if r.has_slur else 0)
                for (h, _), r in zip(chunk, tagger.tag_many([t for _, t in chunk]), strict=True)
            }
            store.put_derived(namespace, fresh)
            tags.update(fresh)
            advance(len(chunk))
        return [tags[h] for h in by_hash]

    computed = False

    def compute() -> list[int]:
        nonlocal computed
        computed = True
        return tag_all()

    codes = store.memo(f"{namespace}/lists", ["".join(by_hash).encode("ascii")], compute)
    if not computed:
        advance(len(by_hash))
    return dict(zip(by_hash, codes, strict=True))


def _codes(name: str, groups: Sequence[Sequence[str]], bit: Mapping[str, int]) -> np.ndarray:
    """Group bit masks of a data set's own tags; unknown group names are a DataError."""
    try:
        return np.array([sum(bit[g] for g in gs) for gs in groups], dtype=np.uint16)
    except KeyError as exc:
        raise DataError(
            f"Data set {name!r} tags a text with the group {exc.args[0]!r}, which is not one "
            f"of the audit's groups ({', '.join(bit)})."
        ) from None


class _MaskNames(dict[int, frozenset[str]]):
    """Group bit mask → frozenset of group names, built on first use of each mask."""

    def __init__(self, groups: Sequence[str]) -> None:
        super().__init__()
        self.groups = tuple(groups)

    def __missing__(self, mask: int) -> frozenset[str]:
        value = frozenset(g for i, g in enumerate(self.groups) if mask >> i & 1)
        self[mask] = value
        return value


def _agreement(
    store: ResultStore, tagged: np.ndarray, gold: np.ndarray, names: _MaskNames
) -> list[dict[str, Any]]:
    """:func:`tactful.identity.agreement` of the tagger with a data set's tags, memoized."""

    def compute() -> dict[str, Any]:
        from ..identity import agreement
        from ._evaluate import frame_rows

        rows = frame_rows(
            agreement(
                [names[int(c)] for c in tagged.tolist()], [names[int(c)] for c in gold.tolist()]
            )
        )
        # Stored as columns + values: JSON objects come back with sorted keys, and the
        # report shows the columns in the order identity.agreement gives them.
        columns = list(rows[0]) if rows else []
        return {"columns": columns, "rows": [[r[c] for c in columns] for r in rows]}

    namespace = "audit-identity-agreement/" + code_fingerprint(
        "tactful.identity", "tactful.audit._schema", "tactful.audit._evaluate"
    )
    value = store.memo(namespace, (tagged, gold), compute)
    return [dict(zip(value["columns"], row, strict=True)) for row in value["rows"]]


def build_audit_sets(
    datasets: str | Iterable[str] = ("traditional", "genai"),
    *,
    data_dir: str | Path | None = None,
    store: ResultStore,
    limit: int | None = None,
    seed: int = 0,
    progress: bool = False,
) -> tuple[list[AuditSet], list[Skipped], dict[str, list[dict[str, Any]]]]:
    """Load the audit data sets and derive the labelled views the audit scores.

    Returns
    -------
    sets : list of AuditSet
    skipped : list of dict
        ``{"dataset", "reason"}`` for each data set whose files are missing and
        each view without a row of known label.
    agreement : dict
        Tagger-vs-data agreement rows per data set whose audit views ask for it.
    """
    chosen = resolve_datasets(datasets)
    loaded: list[tuple[str, _Rows]] = []
    skipped: list[Skipped] = []
    for _, name in chosen:
        try:
            rows = _load_rows(name, data_dir, limit, seed, store)
        except MissingDataError as exc:
            skipped.append({"dataset": name, "reason": str(exc)})
            continue
        loaded.append((name, rows))
    if not loaded:
        raise DataError(
            "None of the audit data sets could be read: " + " ".join(s["reason"] for s in skipped)
        )

    hash_of: dict[str, str] = {}
    for _, rows in loaded:
        for t in rows.texts:
            if t not in hash_of:
                hash_of[t] = text_sha256(t)
    with Progress(progress) as bars:
        tags = _tag_texts({h: t for t, h in hash_of.items()}, store, bars)
    bit = {g: 1 << i for i, g in enumerate(group_names())}
    names = _MaskNames(group_names())

    sets: list[AuditSet] = []
    agreement: dict[str, list[dict[str, Any]]] = {}
    for name, rows in loaded:
        spec = audit_views(name)
        row_hashes = [hash_of[t] for t in rows.texts]
        row_tags = np.array([tags[h] for h in row_hashes], dtype=np.int64).reshape(len(row_hashes))
        tagged_codes = (row_tags & ~_SLUR_BIT).astype(np.uint16)
        data_codes = _codes(name, rows.groups, bit)
        codes = tagged_codes if spec.tagger_groups else data_codes
        groups = [names[int(c)] for c in codes.tolist()]
        has_slur = (row_tags & _SLUR_BIT) > 0
        if spec.check_tagger:
            agreement[name] = _agreement(store, tagged_codes, data_codes, names)
        for view in spec.views:
            y = view.violating(rows.label, rows.labels)
            keep = [i for i, v in enumerate(y) if v is not None]
            if not keep:
                skipped.append(
                    {
                        "dataset": view.set_id(name),
                        "reason": f"no row has a known label ({view.labeling})",
                    }
                )
                continue
            sets.append(
                AuditSet(
                    id=view.set_id(name),
                    dataset=name,
                    family=spec.family,
                    labeling=view.labeling,
                    texts=tuple(rows.texts[i] for i in keep),
                    y_true=np.array([y[i] for i in keep], dtype=np.int8),
                    groups=tuple(groups[i] for i in keep),
                    has_slur=has_slur[keep],
                    group_source=spec.group_source,
                    primary=view.primary,
                    hashes=tuple(row_hashes[i] for i in keep),
                    group_codes=codes[keep],
                )
            )
    return sets, skipped, agreement
