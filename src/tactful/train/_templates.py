"""The training template sources a run can add to its mixture, by flag.

One table (:data:`TEMPLATE_SOURCES`) that the mixture, the run and distillation
functions, their parameter rules, the run's ``train.json`` and the ``--derogation``,
``--menace``, ... options of ``tactful train run`` and ``distill`` all read. No heavy
imports: the command line reads it for its help.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict, cast

from ..params import Bool, Constraints

__all__ = [
    "TEMPLATE_CONSTRAINTS",
    "TEMPLATE_SOURCES",
    "TemplateFlags",
    "template_flags",
]

#: The source name of each template set's rows (``Example.source``); the table below
#: pairs each with its flag.
DEROGATION_SOURCE = "derogation"
DELICATE_SOURCE = "delicate_templates"
MENACE_SOURCE = "menace"
EXCLUSION_SOURCE = "exclusion"
INJECTION_SOURCE = "injection"
TECHNICAL_SOURCE = "technical"
CONTRAST_SOURCE = "contrast"


class TemplateFlags(TypedDict, total=False):
    """The template sources a mixture adds, by flag (:data:`TEMPLATE_SOURCES`); absent = False."""

    derogation: bool
    delicate: bool
    menace: bool
    exclusion: bool
    injection: bool
    technical: bool
    contrast: bool


#: The sets of training templates a run can add to its mixture, by flag
#: (``build_mixture(menace=True)``, ``tactful train run --menace``): the source name
#: of their rows and what they hold. The rows are
#: ``tactful.functional.<flag>_template_records()``; every row joins, uncapped and
#: drawn from no random stream, so every other source samples the rows it samples
#: without them (only the final shuffle differs). Their labels are gold, so a student
#: learns them from their labels alone (:data:`~tactful.train.HARD_ONLY_SOURCES`).
TEMPLATE_SOURCES: dict[str, tuple[str, str]] = {
    "derogation": (
        DEROGATION_SOURCE,
        (
            "a group called inferior or unworthy of rights, in plain words (toxicity and "
            "identity attack 1, the demeaning words as identity_attack spans)"
        ),
    ),
    "delicate": (
        DELICATE_SOURCE,
        ("grief and serious illness (delicate 1, toxicity 0, no toxic character)"),
    ),
    "menace": (
        MENACE_SOURCE,
        (
            "indirect threats with no violent verb: the reader's home, family or safety "
            "(toxicity and threat 1, the menacing words as threat spans)"
        ),
    ),
    "exclusion": (
        EXCLUSION_SOURCE,
        (
            "a group denied the vote, a home, a country or existence, in plain words (toxicity "
            "and identity attack 1, the excluding words as identity_attack spans), and the same "
            "words in support of a group (all 0, no toxic character)"
        ),
    ),
    "injection": (
        INJECTION_SOURCE,
        (
            "prompt injections with a harmful request (toxicity and jailbreak 1, spans unknown) "
            "and harmless 'ignore my last message' lookalikes (both 0, no toxic character)"
        ),
    ),
    "technical": (
        TECHNICAL_SOURCE,
        (
            "violent verbs in harmless technical, sport, cooking and gaming senses: 'kill a "
            "zombie process', 'beat the egg whites' (not toxic, no toxic character)"
        ),
    ),
    "contrast": (
        CONTRAST_SOURCE,
        (
            "the menace and violent-request templates' words in harmless messages: 'the surest "
            "way to kill a stuck process', 'we'll be waiting in your driveway with the cake' "
            "(not toxic, no toxic character)"
        ),
    ),
}

#: One ``Bool`` rule per template flag, for the parameter tables that take them.
TEMPLATE_CONSTRAINTS: Constraints = {flag: Bool() for flag in TEMPLATE_SOURCES}


def template_flags(values: Mapping[str, Any]) -> TemplateFlags:
    """The template flags among ``values`` (checked parameters, a run's ``train.json``),
    False where one is absent (a run written before its flag existed)."""
    return cast(TemplateFlags, {flag: bool(values.get(flag, False)) for flag in TEMPLATE_SOURCES})
