"""Loaders for every data set in the shared data folder.

>>> from tactful.datasets import load_dataset
>>> test = load_dataset("toxicchat")                  # doctest: +SKIP
>>> test[0].label, test[0].labels["jailbreak"]        # doctest: +SKIP
(0, 0)

Data are read from a folder (``data_dir``, else ``$TACTFUL_DATA``, else
``../shared/data``; see :func:`tactful.config.resolve_data_dir`), never from a
hub. Each data set is registered with a :class:`DatasetSpec` naming the files it
reads; derived splits (dev carve-outs, cross-validation folds, random 80/10/10
splits) are seeded and documented in the spec's ``description``.

Data sets are declared as entry points of group ``tactful.datasets`` (tactful's
own in its ``pyproject.toml``, a plug-in's in its own): :func:`dataset_names`
reads the names from the installed metadata, and :func:`get_spec` or
:func:`load_dataset` imports the one module that registers the data set asked for.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from pathlib import Path

from ..config import resolve_data_dir
from ..errors import DataError, MissingDataError, UnknownNameError
from ._audit_views import (
    AUDIT_GROUP_SOURCES,
    AuditView,
    AuditViews,
    audit_dataset_names,
    audit_families,
    audit_views,
    register_audit_views,
)
from ._holistic import load_holistic_buckets, load_holistic_descriptors, load_holistic_nouns
from ._io import Source, Table, missing_message
from ._openai import OPENAI_CATEGORIES
from ._record import Record
from ._spans import (
    RATER_SPAN_TYPES,
    RATER_TYPE_ALIASES,
    offsets_to_spans,
    rater_gold_spans,
    span_offsets,
)
from ._spec import (
    TASKS,
    Breakdown,
    DatasetSpec,
    breakdown_of,
    dataset_names,
    get_loader,
    get_spec,
    register_breakdown,
)
from ._spec import dataset as register_dataset

__all__ = [
    "AUDIT_GROUP_SOURCES",
    "OPENAI_CATEGORIES",
    "RATER_SPAN_TYPES",
    "RATER_TYPE_ALIASES",
    "TASKS",
    "AuditView",
    "AuditViews",
    "Breakdown",
    "DatasetSpec",
    "Record",
    "Source",
    "Table",
    "audit_dataset_names",
    "audit_families",
    "audit_views",
    "breakdown_of",
    "dataset_names",
    "dataset_status",
    "get_spec",
    "load_dataset",
    "load_holistic_buckets",
    "load_holistic_descriptors",
    "load_holistic_nouns",
    "offsets_to_spans",
    "rater_gold_spans",
    "register_audit_views",
    "register_breakdown",
    "register_dataset",
    "span_offsets",
]

_Stamp = tuple[tuple[str, int, int], ...]


def _stamp(spec: DatasetSpec, root: Path) -> _Stamp:
    """(file, mtime_ns, size) per file; a missing file is a MissingDataError."""
    out = []
    for rel in spec.files:
        try:
            st = os.stat(root / rel)
        except OSError:
            raise MissingDataError(missing_message(spec.name, rel, root)) from None
        out.append((rel, st.st_mtime_ns, st.st_size))
    return tuple(out)


# Parsed tables are large (jigsaw_bias alone is 76k records): keep a few. The
# per-split counts are tiny and kept for every data set so that
# `dataset_status` is cheap after the first call.
@functools.lru_cache(maxsize=6)
def _build(name: str, root: str, stamp: _Stamp) -> Table:
    spec = get_spec(name)
    table = get_loader(name)(Source(name, Path(root)))
    absent = [s for s in spec.splits if s not in table.splits]
    if absent:  # a bug in a loader, not in the data
        raise AssertionError(f"loader of {name!r} did not build split(s) {absent}")
    return table


@functools.cache
def _counts(name: str, root: str, stamp: _Stamp) -> dict[str, int]:
    table = _build(name, root, stamp)
    return {s: len(table.splits[s]) for s in get_spec(name).splits}


def _cache_key(spec: DatasetSpec, data_dir: str | os.PathLike[str] | None) -> tuple[str, _Stamp]:
    root = resolve_data_dir(data_dir)
    return os.path.abspath(root), _stamp(spec, root)


def load_dataset(
    name: str, split: str | None = None, data_dir: str | os.PathLike[str] | None = None
) -> list[Record]:
    """The records of one split of a data set.

    Parameters
    ----------
    name : str
        A registered data set (see :func:`dataset_names`).
    split : str, optional
        One of ``get_spec(name).splits``; default ``spec.default_split``.
    data_dir : str or path-like, optional
        The data folder; default from :func:`tactful.config.resolve_data_dir`.

    Returns
    -------
    list of Record
        In the source files' order; every record's ``split`` is ``split``.

    Raises
    ------
    UnknownNameError
        Unknown data set or split name.
    MissingDataError
        The folder or a file the data set needs is not there (the message names both).
    DataError
        A file is malformed (the message names the file and the problem).
    """
    spec = get_spec(name)
    split = spec.default_split if split is None else split
    if split not in spec.splits:
        raise UnknownNameError("split", split, spec.splits)
    root, stamp = _cache_key(spec, data_dir)
    table = _build(name, root, stamp)
    recs = table.records
    return [
        r if r.split == split else dataclasses.replace(r, split=split)
        for r in (recs[i] for i in table.splits[split])
    ]


def dataset_status(
    data_dir: str | os.PathLike[str] | None = None,
) -> list[tuple[DatasetSpec, bool, dict[str, int]]]:
    """Which data sets are present in the data folder, with their row counts.

    Parameters
    ----------
    data_dir : str or path-like, optional
        The data folder; default from :func:`tactful.config.resolve_data_dir`.

    Returns
    -------
    list of (DatasetSpec, bool, dict)
        One entry per data set, sorted by name: the spec, whether all its files
        are present and parse, and the rows counted per split (empty when absent).
        A data set whose files are present but malformed is reported absent too;
        :func:`load_dataset` raises the error that says why.
    """
    out: list[tuple[DatasetSpec, bool, dict[str, int]]] = []
    for name in dataset_names():
        spec = get_spec(name)
        try:
            root, stamp = _cache_key(spec, data_dir)
            counts = dict(_counts(name, root, stamp))
        except DataError:
            out.append((spec, False, {}))
            continue
        out.append((spec, True, counts))
    return out
