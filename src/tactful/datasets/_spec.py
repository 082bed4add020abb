"""The description of a data set and the registry of data sets by name."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, UnknownNameError

if TYPE_CHECKING:
    from ._io import Source, Table

__all__ = ["TASKS", "DatasetSpec", "dataset", "dataset_names", "get_spec", "label_dataset"]

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


def dataset(spec: DatasetSpec) -> Callable[[Loader], Loader]:
    """Decorator registering ``loader`` for ``spec``; a name is registered once."""

    def deco(loader: Loader) -> Loader:
        if spec.name in _SPECS:
            raise ConfigError(f"A data set named {spec.name!r} is already registered.")
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
    """Names of all registered data sets, sorted.

    Returns
    -------
    list of str
    """
    return sorted(_SPECS)


def get_spec(name: str) -> DatasetSpec:
    """The :class:`DatasetSpec` registered as ``name``.

    Raises
    ------
    UnknownNameError
        When no data set has that name; the message lists the known names.
    """
    try:
        return _SPECS[name]
    except KeyError:
        raise UnknownNameError("data set", name, _SPECS) from None


def get_loader(name: str) -> Loader:
    get_spec(name)
    return _LOADERS[name]


def split_names(prefixes: Sequence[str], parts: Sequence[str]) -> tuple[str, ...]:
    """``("cv0-train", "cv0-test", ...)`` from ``("cv0", ...)`` and ``("train", "test")``."""
    return tuple(f"{p}-{q}" for p in prefixes for q in parts)
