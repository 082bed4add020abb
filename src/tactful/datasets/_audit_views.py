"""Audit views: how the speech-suppression audit reads each of its data sets.

The audit of Anigboro et al. (2024) scores labelled *views* of data sets: which
rows count as violating, where each row's identity groups come from, and which
family (traditional or generative-AI) the data set belongs to. That knowledge
belongs beside the data sets, not in the audit runner: each audit data set is
declared here once, with :func:`register_audit_views`, and the audit builds its
views from the declaration (no chain of ``if name == ...``).

>>> from tactful.datasets import audit_views
>>> [v.set_id("tv_synopses") for v in audit_views("tv_synopses").views]
['tv_synopses/pg_ok', 'tv_synopses/pg13_ok']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import ConfigError, UnknownNameError
from ..params import Bool, Constraints, Nullable, OneOf, Str, validate_params
from ._openai import OPENAI_CATEGORIES

__all__ = [
    "AUDIT_GROUP_SOURCES",
    "AuditView",
    "AuditViews",
    "audit_dataset_names",
    "audit_families",
    "audit_views",
    "register_audit_views",
]

#: Where a data set's identity groups come from. ``"tagger"``: the tactful
#: identity tagger reads them off the text; any other source: the data's own tags
#: (``Record.groups``), named for the report.
AUDIT_GROUP_SOURCES = ("paper tags", "show tags", "data tags", "tagger")


def _validate(obj: AuditView | AuditViews) -> None:
    """Check a declaration's fields against its class's ``_parameter_constraints``."""
    rules = obj._parameter_constraints
    validate_params(type(obj).__name__, rules, **{k: getattr(obj, k) for k in rules})


@dataclass(frozen=True, slots=True)
class AuditView:
    """One labelled view of a data set: which rows are violating.

    Attributes
    ----------
    labeling : str
        What ``violating = 1`` means, in words (shown in the report).
    label : str or None, default None
        The ``Record.labels`` key the view reads; ``None`` reads ``Record.label``.
        Rows where it is unknown (``None``) are left out of the view.
    suffix : str or None, default None
        The view's id is ``"{dataset}/{suffix}"``, or the data set's name when None.
    negate : bool, default False
        Violating = ``1 - label`` (a label that says "fine", such as ``pg13_ok``).
    primary : bool, default True
        Whether the view stands for its data set in the pooled family tables and
        the regressions (exactly one view per data set is primary).
    """

    _parameter_constraints: ClassVar[Constraints] = {
        "labeling": Str(nonempty=True),
        "label": Nullable(Str(nonempty=True)),
        "suffix": Nullable(Str(nonempty=True)),
        "negate": Bool(),
        "primary": Bool(),
    }

    labeling: str
    label: str | None = None
    suffix: str | None = None
    negate: bool = False
    primary: bool = True

    def __post_init__(self) -> None:
        _validate(self)

    def set_id(self, dataset: str) -> str:
        """``"ss_openai/S"``: the id of this view of ``dataset``."""
        return dataset if self.suffix is None else f"{dataset}/{self.suffix}"

    def violating(
        self, label: Sequence[int | None], labels: Mapping[str, Sequence[int | None]]
    ) -> list[int | None]:
        """Per row: violating (1) or not (0), ``None`` where the view's label is unknown.

        ``label`` is the column of ``Record.label``; ``labels`` the columns of the
        ``Record.labels`` keys the view reads (:attr:`AuditViews.label_keys`).
        """
        column = label if self.label is None else labels[self.label]
        if self.negate:
            return [None if v is None else 1 - int(v) for v in column]
        return [None if v is None else int(v) for v in column]


@dataclass(frozen=True, slots=True)
class AuditViews:
    """How the audit reads one data set.

    Attributes
    ----------
    dataset : str
        The registered data set (see :func:`~tactful.datasets.dataset_names`).
    family : str
        ``"traditional"`` or ``"genai"`` (the paper's two families).
    group_source : str
        One of :data:`AUDIT_GROUP_SOURCES`.
    views : tuple of AuditView
        In report order; exactly one is primary.
    check_tagger : bool, default False
        Compare the identity tagger with the data's own tags in the report.
    """

    _parameter_constraints: ClassVar[Constraints] = {
        "dataset": Str(nonempty=True),
        "family": OneOf(["traditional", "genai"]),
        "group_source": OneOf(AUDIT_GROUP_SOURCES),
        "check_tagger": Bool(),
    }

    dataset: str
    family: str
    group_source: str
    views: tuple[AuditView, ...]
    check_tagger: bool = False

    def __post_init__(self) -> None:
        _validate(self)
        object.__setattr__(self, "views", tuple(self.views))
        if sum(v.primary for v in self.views) != 1:
            raise ConfigError(
                f"The audit views of {self.dataset!r} must have exactly one primary view."
            )
        ids = [v.set_id(self.dataset) for v in self.views]
        if len(set(ids)) != len(ids):
            raise ConfigError(f"The audit views of {self.dataset!r} repeat an id: {ids}.")

    @property
    def tagger_groups(self) -> bool:
        """Whether the groups come from the identity tagger (else from the data's tags)."""
        return self.group_source == "tagger"

    @property
    def label_keys(self) -> tuple[str, ...]:
        """The ``Record.labels`` keys the views read, in view order."""
        return tuple(v.label for v in self.views if v.label is not None)


_VIEWS: dict[str, AuditViews] = {}


def register_audit_views(views: AuditViews) -> AuditViews:
    """Declare how the audit reads a data set; a data set is declared once.

    Raises
    ------
    ConfigError
        When the data set already has audit views.
    """
    if not isinstance(views, AuditViews):
        raise ConfigError(
            f"register_audit_views takes an AuditViews. Got {type(views).__name__} instead."
        )
    if views.dataset in _VIEWS:
        raise ConfigError(f"The data set {views.dataset!r} already has audit views.")
    _VIEWS[views.dataset] = views
    return views


def audit_views(dataset: str) -> AuditViews:
    """The :class:`AuditViews` of an audit data set.

    Raises
    ------
    UnknownNameError
        When the data set has no audit views; the message lists those that do.
    """
    try:
        return _VIEWS[dataset]
    except (KeyError, TypeError):
        raise UnknownNameError("audit data set", str(dataset), _VIEWS) from None


def audit_dataset_names() -> tuple[str, ...]:
    """The audit data sets, in the order they were declared (the report's order)."""
    return tuple(_VIEWS)


def audit_families() -> dict[str, tuple[str, ...]]:
    """``{family: (data set, ...)}`` in declaration order."""
    out: dict[str, list[str]] = {}
    for v in _VIEWS.values():
        out.setdefault(v.family, []).append(v.dataset)
    return {f: tuple(names) for f, names in out.items()}


def _declare(dataset: str, family: str, group_source: str, *views: AuditView, **kw: Any) -> None:
    register_audit_views(AuditViews(dataset, family, group_source, views, **kw))


# The paper's traditional family. Jigsaw Kaggle is not reachable offline (see the
# report's notes); its Jigsaw Bias subset stands in.
_declare("ss_jigsaw_bias", "traditional", "paper tags", AuditView("toxic template"))
_declare("ss_stormfront", "traditional", "paper tags", AuditView("hate"), check_tagger=True)
_declare("ss_tweeteval_hate", "traditional", "tagger", AuditView("hate"))
_declare("ss_tweeteval_offensive", "traditional", "tagger", AuditView("offensive"))
# The generative-AI family. OpenAI moderation: overall = the Toxic column, and
# each category on its own; TV synopses: violating = not fine for the audience.
_declare(
    "ss_openai",
    "genai",
    "paper tags",
    AuditView("Toxic (any category)"),
    *(AuditView(f"category {c}", label=c, suffix=c, primary=False) for c in OPENAI_CATEGORIES),
    check_tagger=True,
)
_declare(
    "tv_synopses",
    "genai",
    "show tags",
    AuditView("not PG ok", label="pg_ok", suffix="pg_ok", negate=True, primary=False),
    AuditView("not PG-13 ok", label="pg13_ok", suffix="pg13_ok", negate=True),
)
