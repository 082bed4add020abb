"""One record type for every data set."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .._types import Span

__all__ = ["Record"]


@dataclass(frozen=True, slots=True)
class Record:
    """One labelled text of a data set.

    Attributes
    ----------
    id : str
        Stable identifier within the data set (the source's id, else the row number).
    text : str
        The text, exactly as in the source file (never normalized).
    label : int or None
        The data set's primary binary label (1 = positive class of its task:
        toxic, jailbreak, delicate, hate, offensive), ``None`` when unknown.
    split : str
        ``"train"``, ``"dev"``, ``"test"``, ``"all"`` or a fold name such as ``"cv0-test"``.
    labels : mapping of str to int or None
        Every label the source has (``{"toxicity": 1, "jailbreak": 0}``, OpenAI
        categories ``{"S": 1, "H": 0, ...}``); ``None`` = unknown/missing.
    spans : tuple of Span or None
        Gold toxic character spans; ``None`` when the data set has no span labels,
        ``()`` for a text with labelled-but-empty spans.
    groups : tuple of str
        Identity groups (the audit's general groups) the source tags the text with.
    sub_identities : tuple of str
        Finer identity tags from the source.
    meta : mapping
        Anything else worth keeping (show name, age rating, raw grade, ...).
    """

    id: str
    text: str
    label: int | None
    split: str
    labels: Mapping[str, int | None] = field(default_factory=dict)
    spans: tuple[Span, ...] | None = None
    groups: tuple[str, ...] = ()
    sub_identities: tuple[str, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "labels", MappingProxyType(dict(self.labels)))
        object.__setattr__(self, "meta", MappingProxyType(dict(self.meta)))
