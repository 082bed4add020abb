"""Templates, functionalities and the filler of one template.

A template is a sentence with ``{slot}`` holes and ``⟦…⟧`` marks around the
part a moderator should point at (its *target span*). Each slot belongs to a
filler *family* (``{identity}``, ``{identities}`` and ``{person}`` all come from
one identity entry, so a template that uses two of them speaks of one group);
:func:`fill` turns a template and one entry per family into the text, with the
character offsets of every slot and target span in that text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar

from .._heads import CATEGORY_HEADS
from .._types import Span
from ..errors import ConfigError
from ..params import Bool, Constraints, Nullable, OneOf, Str, StrList, validate_params
from ..taxonomy import HARM_CATEGORIES

__all__ = [
    "SPAN_CHECKS",
    "TEMPLATE_SPLITS",
    "Filled",
    "Functionality",
    "Template",
    "fill",
    "normalized_text",
    "template_slots",
]

#: How a functionality checks a moderator's spans: ``"none"`` (not checked),
#: ``"empty"`` (a pass is *no* span at all: harmless identity texts) and
#: ``"hit"`` (a pass is a predicted span overlapping every target span).
SPAN_CHECKS = ("none", "empty", "hit")

#: ``"suite"``: the functional test suite; ``"train"``/``"dev"``: training data
#: and the held-out templates for choosing runs (never in the suite).
TEMPLATE_SPLITS = ("suite", "train", "dev")

_TOKEN = re.compile(r"\{(\w+)\}|⟦|⟧")
_NON_WORD = re.compile(r"[^\w]+")


def normalized_text(text: str) -> str:
    """The form two texts are compared in: lower case, words only, single spaces.

    Used for the suite/training disjointness rule: two texts that differ only
    by case, punctuation or spacing count as the same text.

    >>> normalized_text("I will  KILL you!") == normalized_text("i will kill you")
    True
    """
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())


@dataclass(frozen=True, slots=True)
class Functionality:
    """One capability the suite tests, with the decision every case of it expects.

    Attributes
    ----------
    name : str
        Identifier, e.g. ``"threat_direct"``.
    description : str
        One sentence: what the cases are and why the expected label is what it is.
    toxic : bool
        The expected toxicity decision (``Analysis.flagged``).
    span_check : str
        One of :data:`SPAN_CHECKS`.
    jailbreak : bool or None
        The expected jailbreak decision, ``None`` where it is not tested.
    delicate : bool or None
        The expected delicate decision, ``None`` where it is not tested.
    category : str or None
        The harm category (:data:`tactful.taxonomy.HARM_CATEGORIES`) every case must be
        flagged with, ``None`` where none is tested.
    not_categories : tuple of str
        Heads no case may be flagged with: harm categories or sequence heads
        (a self-harm disclosure is never a ``threat``).
    """

    name: str
    description: str
    toxic: bool
    span_check: str = "none"
    jailbreak: bool | None = None
    delicate: bool | None = None
    category: str | None = None
    not_categories: tuple[str, ...] = ()

    _parameter_constraints: ClassVar[Constraints] = {
        "name": Str(nonempty=True),
        "description": Str(nonempty=True),
        "toxic": Bool(),
        "span_check": OneOf(SPAN_CHECKS),
        "jailbreak": Nullable(Bool()),
        "delicate": Nullable(Bool()),
        "category": Nullable(OneOf(HARM_CATEGORIES)),
        "not_categories": StrList(options=CATEGORY_HEADS),
    }

    def __post_init__(self) -> None:
        validate_params(
            "Functionality",
            self._parameter_constraints,
            name=self.name,
            description=self.description,
            toxic=self.toxic,
            span_check=self.span_check,
            jailbreak=self.jailbreak,
            delicate=self.delicate,
            category=self.category,
            not_categories=self.not_categories,
        )


def template_slots(text: str) -> tuple[str, ...]:
    """The slot names of a template text, in order of first appearance.

    >>> template_slots("⟦{identities}⟧ are {trait}, said {person}.")
    ('identities', 'trait', 'person')
    """
    return tuple(dict.fromkeys(name for kind, name in _pieces(text) if kind == "slot"))


@dataclass(frozen=True, slots=True)
class Template:
    """One template of the suite or of the training set.

    Attributes
    ----------
    id : str
        Unique among all templates (suite and training).
    functionality : str
        The :class:`Functionality` name its cases belong to.
    text : str
        The sentence with ``{slot}`` holes and ``⟦…⟧`` around target spans.
    split : str
        One of :data:`TEMPLATE_SPLITS`.
    span_label : str or None
        The label of the target spans (``"threat"``, ``"insult"``, ...);
        required when the text has ``⟦…⟧`` marks.
    """

    id: str
    functionality: str
    text: str
    split: str = "suite"
    span_label: str | None = None

    _parameter_constraints: ClassVar[Constraints] = {
        "id": Str(nonempty=True),
        "functionality": Str(nonempty=True),
        "text": Str(nonempty=True),
        "split": OneOf(TEMPLATE_SPLITS),
        "span_label": Nullable(Str(nonempty=True)),
    }

    def __post_init__(self) -> None:
        validate_params(
            "Template",
            self._parameter_constraints,
            id=self.id,
            functionality=self.functionality,
            text=self.text,
            split=self.split,
            span_label=self.span_label,
        )
        marks = [m.group(0) for m in _TOKEN.finditer(self.text) if not m.group(1)]
        if marks != ["⟦", "⟧"] * (len(marks) // 2):
            raise ConfigError(f"Template {self.id!r}: unbalanced or nested ⟦…⟧ marks.")
        if marks and self.span_label is None:
            raise ConfigError(f"Template {self.id!r} marks a target span but has no span_label.")

    @property
    def slots(self) -> tuple[str, ...]:
        """The slot names, in order of first appearance."""
        return template_slots(self.text)

    @property
    def plain(self) -> str:
        """The text without the ``⟦…⟧`` marks (slots kept)."""
        return self.text.replace("⟦", "").replace("⟧", "")


@dataclass(frozen=True, slots=True)
class Filled:
    """A template filled in.

    Attributes
    ----------
    text : str
        The sentence.
    targets : tuple of Span
        The target spans (the ``⟦…⟧`` parts), offsets into ``text``.
    slots : mapping of str to (int, int)
        Where each slot's value is in ``text``: ``(start, end)`` of its first
        occurrence.
    """

    text: str
    targets: tuple[Span, ...] = ()
    slots: Mapping[str, tuple[int, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "slots", MappingProxyType(dict(self.slots)))


_SENTENCE_END = (".", "!", "?", "\n")


@functools.lru_cache(maxsize=1024)
def _pieces(text: str) -> tuple[tuple[str, str], ...]:
    """``text`` as ``("text", s)``, ``("slot", name)``, ``("open", "")``, ``("close", "")``."""
    out: list[tuple[str, str]] = []
    pos = 0
    for m in _TOKEN.finditer(text):
        if m.start() > pos:
            out.append(("text", text[pos : m.start()]))
        pos = m.end()
        if m.group(1):
            out.append(("slot", m.group(1)))
        else:
            out.append(("open" if m.group(0) == "⟦" else "close", ""))
    if pos < len(text):
        out.append(("text", text[pos:]))
    return tuple(out)


def fill(template: Template, values: Mapping[str, str]) -> Filled:
    """Fill ``template`` with ``values`` (slot name → text).

    A value that starts a sentence (at the start of the text, or after ``.``,
    ``!``, ``?`` or a newline and spaces) gets a capital first letter; the
    offsets do not change. Target spans and slot offsets index the returned text.

    Raises
    ------
    KeyError
        If a slot of the template has no value.

    Examples
    --------
    >>> t = Template("x", "threat_direct", "I will ⟦{threat} you⟧.", span_label="threat")
    >>> f = fill(t, {"threat": "hurt"})
    >>> f.text, [(s.start, s.end, s.label) for s in f.targets]
    ('I will hurt you.', [(7, 15, 'threat')])
    """
    parts: list[str] = []
    here = 0
    open_at = 0
    targets: list[Span] = []
    slots: dict[str, tuple[int, int]] = {}
    for kind, item in _pieces(template.text):
        if kind == "text":
            parts.append(item)
            here += len(item)
        elif kind == "slot":
            value = values[item]
            if value:
                before = "".join(parts).rstrip(" ")
                if not before or before.endswith(_SENTENCE_END):
                    value = value[0].upper() + value[1:]
                slots.setdefault(item, (here, here + len(value)))
            parts.append(value)
            here += len(value)
        elif kind == "open":
            open_at = here
        elif here > open_at:
            targets.append(Span(open_at, here, template.span_label or "toxic"))
    return Filled("".join(parts), tuple(targets), slots)
