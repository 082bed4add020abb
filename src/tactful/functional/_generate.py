"""Templates × fillers → cases, deterministically."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .._types import Span
from ..datasets import Record
from ..errors import ConfigError, UnknownNameError
from ..identity import tag
from ..params import Constraints, Int, Nullable, validate_params
from ._fillers import (
    BUILTIN_DESCRIPTORS,
    FAMILIES,
    PERSON_NOUNS,
    SLOT_FAMILY,
    SUITE_AXES,
    descriptor_entries,
)
from ._suite import FUNCTIONALITIES, SUITE_TEMPLATES
from ._templates import Functionality, Template, fill, normalized_text

__all__ = [
    "DEFAULT_MAX_PER_TEMPLATE",
    "Case",
    "build_suite",
    "case_records",
    "functionality",
    "generate",
    "suite_families",
]

#: Cases drawn at most from one template of the suite (all of them when fewer).
DEFAULT_MAX_PER_TEMPLATE = 36

_BY_NAME = {f.name: f for f in FUNCTIONALITIES}


def functionality(name: str) -> Functionality:
    """The :class:`Functionality` called ``name``.

    Raises
    ------
    UnknownNameError
        For a name not in :data:`FUNCTIONALITIES`; the message lists them.
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UnknownNameError("functionality", name, _BY_NAME) from None


@dataclass(frozen=True, slots=True)
class Case:
    """One filled template with what a moderator is expected to say about it.

    Attributes
    ----------
    id : str
        ``"<template id>-<k>"``, stable for a given set of fillers and seed.
    functionality : str
        Its :class:`Functionality` name.
    template_id : str
        The template it was filled from.
    text : str
        The text to moderate.
    toxic : bool
        The expected toxicity decision.
    span_check : str
        How spans are checked (:data:`SPAN_CHECKS`).
    targets : tuple of Span
        Target spans (the template's ``⟦…⟧`` parts), offsets into ``text``.
    jailbreak, delicate : bool or None
        Expected head decisions, ``None`` where not tested.
    category : str or None
        The harm category the case must be flagged with, ``None`` where not tested.
    not_categories : tuple of str
        Heads the case must not be flagged with.
    group : str or None
        The audit group of the identity or slur it was filled with.
    fillers : mapping of str to str
        Slot → the text put there.
    """

    id: str
    functionality: str
    template_id: str
    text: str
    toxic: bool
    span_check: str = "none"
    targets: tuple[Span, ...] = ()
    jailbreak: bool | None = None
    delicate: bool | None = None
    category: str | None = None
    not_categories: tuple[str, ...] = ()
    group: str | None = None
    fillers: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fillers", MappingProxyType(dict(self.fillers)))


def _entries_for(
    template: Template, families: Mapping[str, Sequence[Mapping[str, str]]]
) -> list[list[Mapping[str, str]]]:
    """For each family the template uses, the entries that have all its slots."""
    needed: dict[str, list[str]] = {}
    for slot in template.slots:
        try:
            family = SLOT_FAMILY[slot]
        except KeyError:
            raise ConfigError(
                f"Template {template.id!r} uses the unknown slot {{{slot}}}."
            ) from None
        needed.setdefault(family, []).append(slot)
    out = []
    for family, slots in needed.items():
        usable = [e for e in families.get(family, ()) if all(s in e for s in slots)]
        out.append(usable)
    return out


_GENERATE_CONSTRAINTS: Constraints = {"seed": Int(), "max_per_template": Nullable(Int(1))}


def generate(
    templates: Iterable[Template],
    families: Mapping[str, Sequence[Mapping[str, str]]],
    *,
    seed: int = 0,
    max_per_template: int | None = DEFAULT_MAX_PER_TEMPLATE,
    functionalities: Iterable[Functionality] = (),
) -> list[Case]:
    """Fill every template with every combination of its families' entries.

    Parameters
    ----------
    templates : iterable of Template
        Their functionalities must be in :data:`FUNCTIONALITIES` or in
        ``functionalities``.
    families : mapping of str to sequence of mapping
        Family name → entries (:data:`FAMILIES`, plus ``"descriptor"`` from
        :func:`descriptor_entries`). A template whose family has no usable
        entry yields no case.
    seed : int, default=0
        Seeds the draw when a template has more than ``max_per_template``
        combinations (one stream per template, so adding a template never
        changes another's cases).
    max_per_template : int or None, default=DEFAULT_MAX_PER_TEMPLATE
        Cases per template at most; ``None`` keeps every combination.
    functionalities : iterable of Functionality, default=()
        Functionalities the suite does not test, for templates made for something
        else (the training templates of :mod:`tactful.train`).

    Returns
    -------
    list of Case
        Template by template, in combination order. A case whose normalized
        text (:func:`normalized_text`) repeats an earlier one is left out.
    """
    p = validate_params(
        "generate", _GENERATE_CONSTRAINTS, seed=seed, max_per_template=max_per_template
    )
    extra = {f.name: f for f in functionalities}
    seen: set[str] = set()
    out: list[Case] = []
    for template in templates:
        func = extra.get(template.functionality) or functionality(template.functionality)
        slots = template.slots
        combos = list(itertools.product(*_entries_for(template, families)))
        if p["max_per_template"] is not None and len(combos) > p["max_per_template"]:
            rng = random.Random(f"{p['seed']}:{template.id}")
            keep = sorted(rng.sample(range(len(combos)), p["max_per_template"]))
            combos = [combos[i] for i in keep]
        for k, combo in enumerate(combos):
            values: dict[str, str] = {}
            for entry in combo:
                values.update(entry)
            filled = fill(template, values)
            key = normalized_text(filled.text)
            if key in seen:
                continue
            seen.add(key)
            out.append(
                Case(
                    id=f"{template.id}-{k:03d}",
                    functionality=func.name,
                    template_id=template.id,
                    text=filled.text,
                    toxic=func.toxic,
                    span_check=func.span_check,
                    targets=filled.targets,
                    jailbreak=func.jailbreak,
                    delicate=func.delicate,
                    category=func.category,
                    not_categories=func.not_categories,
                    group=values.get("_group"),
                    fillers={s: values[s] for s in slots},
                )
            )
    return out


def suite_families(
    descriptors: Mapping[str, Sequence[str]] | None = None,
    nouns: Sequence[tuple[str, str | None]] = PERSON_NOUNS,
    axes: Sequence[str] | None = SUITE_AXES,
) -> dict[str, Sequence[Mapping[str, str]]]:
    """:data:`FAMILIES` plus the ``descriptor`` family from ``descriptors`` (``axes`` only)."""
    descriptors = BUILTIN_DESCRIPTORS if descriptors is None else descriptors
    if axes is not None:
        descriptors = {a: descriptors[a] for a in axes if a in descriptors}
    return {**FAMILIES, "descriptor": descriptor_entries(descriptors, nouns)}


def build_suite(
    descriptors: Mapping[str, Sequence[str]] | None = None,
    *,
    seed: int = 0,
    max_per_template: int | None = DEFAULT_MAX_PER_TEMPLATE,
) -> list[Case]:
    """The functional test suite.

    Parameters
    ----------
    descriptors : mapping of str to sequence of str, optional
        HolisticBias descriptors per axis, as
        :func:`tactful.datasets.load_holistic_descriptors` returns them; only
        the axes in :data:`SUITE_AXES` are used. Default: the built-in list
        :data:`BUILTIN_DESCRIPTORS` (the suite builds without the data folder;
        only the ``identity_holistic`` cases differ).
    seed : int, default=0
    max_per_template : int or None, default=DEFAULT_MAX_PER_TEMPLATE
        See :func:`generate`.

    Returns
    -------
    list of Case
        Deterministic for given arguments.

    Examples
    --------
    >>> cases = build_suite()
    >>> c = next(c for c in cases if c.text == "I am a gay man.")
    >>> c.functionality, c.toxic, c.span_check
    ('identity_self_description', False, 'empty')
    """
    return generate(
        SUITE_TEMPLATES,
        suite_families(descriptors),
        seed=seed,
        max_per_template=max_per_template,
    )


def case_records(cases: Iterable[Case], split: str = "test", **meta: Any) -> list[Record]:
    """The cases as :class:`tactful.datasets.Record` rows (what ``load_dataset`` returns).

    ``label`` is the expected toxicity; ``labels`` holds ``toxicity`` and, where
    tested, ``jailbreak`` and ``delicate``, 1 for the expected harm category and 0 for
    each head in ``not_categories``; ``spans`` is ``()`` for cases whose
    span check is ``"empty"`` (so ``tactful eval`` scores their span F1: 1 per
    text with no predicted span) and ``None`` otherwise; ``groups`` are the
    audit groups :func:`tactful.identity.tag` finds in the text; ``meta`` holds
    ``functionality``, ``template_id``, ``span_check``, ``targets`` (``[start,
    end, label]`` lists), ``group``, ``fillers`` and the extra ``meta`` given.
    """
    out = []
    for c in cases:
        labels: dict[str, int | None] = {"toxicity": int(c.toxic)}
        if c.jailbreak is not None:
            labels["jailbreak"] = int(c.jailbreak)
        if c.delicate is not None:
            labels["delicate"] = int(c.delicate)
        if c.category is not None:
            labels[c.category] = 1
        labels.update(dict.fromkeys(c.not_categories, 0))
        out.append(
            Record(
                c.id,
                c.text,
                int(c.toxic),
                split,
                labels,
                spans=() if c.span_check == "empty" else None,
                groups=tuple(sorted(tag(c.text).groups)),
                meta={
                    "functionality": c.functionality,
                    "template_id": c.template_id,
                    "span_check": c.span_check,
                    "targets": [[s.start, s.end, s.label] for s in c.targets],
                    "group": c.group,
                    "fillers": dict(c.fillers),
                    **meta,
                },
            )
        )
    return out
