"""The description of a data set and the registry of data sets by name.

Data sets are found by name among the entry points of group ``tactful.datasets``
(tactful's own too, see :mod:`tactful._plugins`): an entry point names the module
(or an object in it) whose import registers the data set with :func:`dataset`.
Listing the names imports nothing; :func:`get_spec` imports the one module it needs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .._plugins import DATASETS, declared, distribution, entry_point, load_entry_point
from .._types import Analysis
from ..errors import ConfigError, UnknownNameError

if TYPE_CHECKING:
    from ._io import Source, Table

__all__ = [
    "TASKS",
    "Breakdown",
    "DatasetSpec",
    "breakdown_of",
    "dataset",
    "dataset_names",
    "get_spec",
    "label_dataset",
    "register_breakdown",
]

#: What a data set's primary ``Record.label`` means.
TASKS = ("toxicity", "jailbreak", "delicate", "hate", "offensive", "spans")


@dataclass(frozen=True, slots=True)
class DatasetSpec:
    """What a data set is and which files it needs.

    Attributes
    ----------
    name : str
        Registered name, e.g. ``"toxicchat"``.
    task : str
        What ``Record.label`` means: one of :data:`TASKS`.
    splits : tuple of str
        The split names :func:`~tactful.datasets.load_dataset` accepts.
    default_split : str
        ``"test"`` where a test split exists, else ``"all"``.
    files : tuple of str
        Paths, relative to the data folder, that the loader reads.
    description : str
        One paragraph: source, label rule, anything derived.
    expected_rows : mapping of str to int
        Rows per split: the data README's numbers, and for derived splits
        (dev carve-outs, folds) the sizes the fixed seeds give.
    """

    name: str
    task: str
    splits: tuple[str, ...]
    default_split: str
    files: tuple[str, ...]
    description: str
    expected_rows: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def single(cls, name: str, task: str, file: str, rows: int, description: str) -> DatasetSpec:
        """The spec of a data set read from one file, with one split ``"all"`` of ``rows`` rows."""
        return cls(name, task, ("all",), "all", (file,), description, {"all": rows})

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ConfigError(
                f"The 'task' of DatasetSpec must be one of {TASKS}. Got {self.task!r} instead."
            )
        if self.default_split not in self.splits:
            raise ConfigError(
                f"The 'default_split' of DatasetSpec {self.name!r} must be one of its splits. "
                f"Got {self.default_split!r} instead."
            )
        object.__setattr__(self, "splits", tuple(self.splits))
        object.__setattr__(self, "files", tuple(self.files))
        object.__setattr__(self, "expected_rows", MappingProxyType(dict(self.expected_rows)))


#: A loader turns the files of a data set into a :class:`~tactful.datasets._io.Table`.
Loader = Callable[["Source"], "Table"]

_SPECS: dict[str, DatasetSpec] = {}
_LOADERS: dict[str, Loader] = {}
_KIND = "data set"


def dataset(spec: DatasetSpec) -> Callable[[Loader], Loader]:
    """Decorator registering ``loader`` for ``spec``; a name is registered once.

    A name that an entry point declares (group ``tactful.datasets``) is registered by
    the module the entry point names, when it is imported.

    Raises
    ------
    ConfigError
        If the name is registered already, or declared by another module's entry point.
    """

    def deco(loader: Loader) -> Loader:
        if spec.name in _SPECS:
            raise ConfigError(f"A data set named {spec.name!r} is already registered.")
        ep = entry_point(_KIND, DATASETS, spec.name)
        if ep is not None and ep.module not in sys.modules:
            raise ConfigError(
                f"A data set named {spec.name!r} is already registered "
                f"(entry point {ep.value!r} of {distribution(ep)})."
            )
        _SPECS[spec.name] = spec
        _LOADERS[spec.name] = loader
        return loader

    return deco


def label_dataset(
    spec: DatasetSpec,
    text_col: str,
    label_col: str,
    key: str,
    mapping: Mapping[str, int | None] | None = None,
    **options: Any,
) -> None:
    """Register a one-file csv data set whose rows are a text and a binary label.

    The loader is :meth:`Source.label_records` on ``spec.files[0]`` with these
    arguments (``options``: ``extra_labels``, ``meta_cols``, ``group_cols``), and its
    only split is ``"all"``.
    """
    from ._io import Table

    (rel,) = spec.files

    def load(src: Source) -> Table:
        return Table.all_rows(src.label_records(rel, text_col, label_col, key, mapping, **options))

    dataset(spec)(load)


def dataset_names() -> list[str]:
    """Names of all registered data sets, sorted; reads entry points, imports no loader.

    Returns
    -------
    list of str

    Raises
    ------
    ConfigError
        If two installed distributions declare one name.
    """
    return sorted(set(_SPECS) | set(declared(_KIND, DATASETS)))


def get_spec(name: str) -> DatasetSpec:
    """The :class:`DatasetSpec` registered as ``name``, importing its module on first use.

    Raises
    ------
    UnknownNameError
        When no data set has that name; the message lists the known names.
    ConfigError
        When its plug-in fails to import (one line naming its distribution and the
        exception), or two distributions declare ``name``.
    """
    spec = _SPECS.get(name)
    if spec is not None:
        return spec
    ep = entry_point(_KIND, DATASETS, name) if isinstance(name, str) else None
    if ep is None:
        raise UnknownNameError(_KIND, str(name), dataset_names())
    load_entry_point(_KIND, ep)
    try:
        return _SPECS[name]
    except KeyError:
        raise ConfigError(
            f"The data set {name!r} of {distribution(ep)} is not registered by importing "
            f"{ep.value!r}."
        ) from None


def get_loader(name: str) -> Loader:
    get_spec(name)
    return _LOADERS[name]


#: A per-row breakdown of a data set's score: (records, analyses) -> JSON-ready rows.
Breakdown = Callable[[Sequence[Any], Sequence[Analysis]], list[dict[str, Any]]]
_BREAKDOWNS: dict[str, tuple[str, Breakdown]] = {}


def register_breakdown(dataset: str, key: str, breakdown: Breakdown) -> None:
    """Add ``breakdown(records, analyses)`` to every :func:`tactful.evaluate.evaluate` report
    of ``dataset`` under ``key`` (e.g. the functional suite's pass rate per functionality),
    declared beside the data set instead of a branch on its name in ``evaluate``.

    Raises
    ------
    ConfigError
        If ``dataset`` already has another breakdown.
    """
    old = _BREAKDOWNS.get(dataset)
    if old is not None and old != (key, breakdown):
        raise ConfigError(f"Data set {dataset!r} already has a breakdown ({old[0]!r}).")
    _BREAKDOWNS[dataset] = (key, breakdown)


def breakdown_of(dataset: str) -> tuple[str, Breakdown] | None:
    """``(key, breakdown)`` registered for ``dataset``, or None."""
    return _BREAKDOWNS.get(dataset)


def split_names(prefixes: Sequence[str], parts: Sequence[str]) -> tuple[str, ...]:
    """``("cv0-train", "cv0-test", ...)`` from ``("cv0", ...)`` and ``("train", "test")``."""
    return tuple(f"{p}-{q}" for p in prefixes for q in parts)
