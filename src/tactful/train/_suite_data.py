"""Targeted training data for model 2.0 (issue 11 item 2), from the shared data only.

Built with the functional suite's machinery (:mod:`tactful.functional`: fillers,
generation, identity swaps) from the training templates of
:mod:`tactful.train._suite_templates`, which the suite never reads.

Every builder returns :class:`tactful.datasets.Record` rows with ``split``
``"train"`` (or ``"dev"`` for held-out templates), the label kept from its
source, and ``meta["source"]`` naming the builder. What may be read is written
down once, in :data:`TRAINING_SOURCES` and :data:`HELD_OUT_SOURCES`, and every
read goes through one function that refuses anything else:

* never an audit-only set (:data:`AUDIT_ONLY`: the speech-suppression views
  ``ss_*``, Jigsaw bias, Stormfront, TweetEval, OpenAI moderation);
* never a test split as training rows. The SemEval-2021 trial and test texts
  are read only to drop them from the ToxicSpans rater-level posts (the same
  rule the training mixture follows), so that the span gates stay honest.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from .. import datasets
from ..datasets import Record
from ..errors import ConfigError
from ..functional import (
    FAMILIES,
    PERSON_NOUNS,
    Case,
    Template,
    case_records,
    descriptor_entries,
    generate,
    swap_identity_terms,
)
from ..identity import tag
from ..params import Constraints, Float, Int, Nullable, OneOf, validate_params
from ._suite_templates import TRAINING_FUNCTIONALITIES, TRAINING_TEMPLATES

__all__ = [
    "AUDIT_ONLY",
    "HELD_OUT_SOURCES",
    "TEMPLATE_LABELS",
    "THREAT_PATTERN",
    "TRAINING_SOURCES",
    "contrast_template_records",
    "counterfactual_records",
    "delicate_template_records",
    "derogation_template_records",
    "exclusion_template_records",
    "harm_template_records",
    "holistic_person_nouns",
    "identity_negatives",
    "injection_template_records",
    "keyword_threats",
    "menace_template_records",
    "technical_template_records",
    "threat_template_records",
    "toxicspans_threats",
    "toxigen_benign",
    "training_records",
]

DataDir = str | os.PathLike[str] | None

#: Data sets that are for audits only: never read here.
AUDIT_ONLY: tuple[str, ...] = (
    "jigsaw_bias",
    "openai_moderation",
    "stormfront",
    "tweeteval_hate",
    "tweeteval_offensive",
)

#: (data set, split) read for training rows.
TRAINING_SOURCES: tuple[tuple[str, str], ...] = (
    ("davidson", "all"),
    ("olid", "train"),
    ("toxicspans_raters", "all"),
    ("toxigen", "all"),
)

#: (data set, split) read only to drop their texts from the training rows.
HELD_OUT_SOURCES: tuple[tuple[str, str], ...] = (("toxicspans", "dev"), ("toxicspans", "test"))

#: A first-person (or "we") intent to do violence to someone: the rule that
#: picks threats out of Davidson and OLID posts already labelled offensive.
THREAT_PATTERN = re.compile(
    r"\b(?:i'?ll|i will|i'?m (?:going to|gonna|finna|bout to|about to|coming to)"
    r"|im (?:going to|gonna|finna|bout to|coming to)|imma|ima|i'?ma"
    r"|i(?:'?d| would) (?:love to|like to)|i wanna|i want to"
    r"|we(?:'?ll| will| are going to| gonna))"
    r"\s+(?:\w+\s+){0,2}?"
    r"(?:kill|shoot|stab|murder|beat|slap|punch|choke|smack|strangle|hang|lynch|hurt|whoop"
    r"|shank|rape|break|burn|bury|cut|drown|torture|destroy)(?:s|ed|ing)?"
    r"\s+(?:the\s+\w+\s+out\s+of\s+)?"
    r"(?:you|u|ya|yo|your|ur|y'?all|him|her|them|that|this|his|every|all)\b",
    re.IGNORECASE,
)


def _is_audit_only(name: str) -> bool:
    return name.startswith("ss_") or name in AUDIT_ONLY


def _read(name: str, split: str, data_dir: DataDir, *, held_out: bool = False) -> list[Record]:
    """The one place this module reads data: the policy above, then ``load_dataset``."""
    allowed = HELD_OUT_SOURCES if held_out else TRAINING_SOURCES
    if _is_audit_only(name) or (name, split) not in allowed:
        raise ConfigError(
            f"tactful.functional may not read {name!r}/{split!r} "
            f"{'to hold out' if held_out else 'for training'}; allowed: {allowed}."
        )
    return datasets.load_dataset(name, split, data_dir=data_dir)


def _held_out_texts(data_dir: DataDir) -> frozenset[str]:
    return frozenset(
        r.text for n, s in HELD_OUT_SOURCES for r in _read(n, s, data_dir, held_out=True)
    )


_NEGATIVE_LABELS = {"toxicity": 0, "insult": 0, "threat": 0, "identity_attack": 0}
_THREAT_LABELS = {"toxicity": 1, "threat": 1}
_GROUP_ATTACK_LABELS = {"toxicity": 1, "identity_attack": 1}
_SPLIT = OneOf(("train", "dev"))

#: A training template's functionality -> (its rows' labels, whether its spans are
#: known). Known spans: the ``⟦…⟧`` targets are the only toxic characters (none in
#: a harmless identity mention). Unknown (``spans=None``): a violent request has no
#: single toxic word; negated hate and counter-speech quote the words of hate, and
#: a harmless row must not teach the token head that a slur is harmless.
TEMPLATE_LABELS: dict[str, tuple[dict[str, int], bool]] = {
    "threat_direct": (_THREAT_LABELS, True),
    "threat_indirect": (_THREAT_LABELS, True),
    "menace": (_THREAT_LABELS, True),
    "dehumanisation": (_GROUP_ATTACK_LABELS, True),
    "derogation": (_GROUP_ATTACK_LABELS, True),
    "slur": (_GROUP_ATTACK_LABELS, True),
    "insult_no_profanity": ({"toxicity": 1, "insult": 1}, True),
    "violent_harm_request": ({"toxicity": 1}, False),
    "negated_hate": (_NEGATIVE_LABELS, False),
    "counter_speech": (_NEGATIVE_LABELS, False),
    "profanity_non_hateful": ({**_NEGATIVE_LABELS, "profanity": 1}, False),
    "delicate_grief": ({**_NEGATIVE_LABELS, "delicate": 1}, True),
    "delicate_illness": ({**_NEGATIVE_LABELS, "delicate": 1}, True),
    "exclusion": (_GROUP_ATTACK_LABELS, True),
    "inclusion": (_NEGATIVE_LABELS, True),
    "injection": ({"toxicity": 1, "jailbreak": 1}, False),
    "injection_lookalike": ({**_NEGATIVE_LABELS, "jailbreak": 0}, True),
    "technical_verbs": (_NEGATIVE_LABELS, True),
    "menace_contrast": (_NEGATIVE_LABELS, True),
    "harm_contrast": (_NEGATIVE_LABELS, True),
}

#: The training templates that are a mixture source of their own, asked for by name
#: (``tactful train run|distill --derogation`` / ``--delicate`` / ``--menace`` /
#: ``--exclusion`` / ``--injection`` / ``--technical`` / ``--contrast``):
#: source name -> the functionalities of its templates. Neither
#: :func:`harm_template_records`, :func:`threat_template_records` nor
#: :func:`training_records` holds them, so the mixtures of the models shipped before
#: them stay as they were.
_OWN_SOURCES: dict[str, frozenset[str]] = {
    "derogation_templates": frozenset({"derogation"}),
    "delicate_templates": frozenset({"delicate_grief", "delicate_illness"}),
    "menace_templates": frozenset({"menace"}),
    "exclusion_templates": frozenset({"exclusion", "inclusion"}),
    "injection_templates": frozenset({"injection", "injection_lookalike"}),
    "technical_templates": frozenset({"technical_verbs"}),
    "contrast_templates": frozenset({"menace_contrast", "harm_contrast"}),
}
#: Every functionality of :data:`_OWN_SOURCES`.
_OWN_FUNCTIONALITIES = frozenset().union(*_OWN_SOURCES.values())


def _template_records(cases: Sequence[Case], split: str, source: str) -> list[Record]:
    """:func:`case_records` with training labels (:data:`TEMPLATE_LABELS`; harmless
    identity mentions: all 0, no toxic character) and the target spans as gold spans."""
    out = []
    for c, r in zip(cases, case_records(cases, split, source=source), strict=True):
        labels, known = TEMPLATE_LABELS.get(c.functionality, (_NEGATIVE_LABELS, True))
        out.append(dataclasses.replace(r, labels=dict(labels), spans=c.targets if known else None))
    return out


_IDENTITY_CONSTRAINTS: Constraints = {
    "split": _SPLIT,
    "seed": Int(),
    "max_per_template": Nullable(Int(1)),
}


def identity_negatives(
    descriptors: Mapping[str, Sequence[str]],
    *,
    nouns: Sequence[tuple[str, str | None]] = PERSON_NOUNS,
    split: str = "train",
    seed: int = 0,
    max_per_template: int | None = 400,
) -> list[Record]:
    """Harmless identity mentions as negatives, from the training templates.

    HolisticBias descriptors × person nouns × the ``identity_holistic``
    training templates, and the nine audit groups' identity fillers × the
    other harmless-identity training templates (:data:`TRAINING_TEMPLATES`,
    disjoint from the suite's).

    Parameters
    ----------
    descriptors : mapping of str to sequence of str
        Axis → descriptors (:func:`tactful.datasets.load_holistic_descriptors`);
        every axis is used except ``"nonce"``; descriptors in
        :data:`EXCLUDED_DESCRIPTORS` are left out.
    nouns : sequence of (str, str or None), default PERSON_NOUNS
    split : {"train", "dev"}, default="train"
        ``"dev"``: the held-out templates, for choosing runs on a fairness measure.
    seed : int, default=0
    max_per_template : int or None, default=400

    Returns
    -------
    list of Record
        ``label`` 0, ``labels`` toxicity/insult/threat/identity_attack 0,
        ``spans`` ``()`` (no character is toxic), ``groups`` from
        :func:`tactful.identity.tag`.
    """
    p = validate_params(
        "identity_negatives",
        _IDENTITY_CONSTRAINTS,
        split=split,
        seed=seed,
        max_per_template=max_per_template,
    )
    families = {
        **FAMILIES,
        "descriptor": descriptor_entries(
            {a: d for a, d in descriptors.items() if a != "nonce"}, nouns
        ),
    }
    templates = [
        t
        for t in TRAINING_TEMPLATES
        if t.split == p["split"] and t.functionality.startswith("identity")
    ]
    cases = generate(
        templates,
        families,
        seed=p["seed"],
        max_per_template=p["max_per_template"],
        functionalities=TRAINING_FUNCTIONALITIES,
    )
    return _template_records(cases, p["split"], "identity_templates")


_THREAT_CONSTRAINTS: Constraints = {"seed": Int(), "max_per_template": Nullable(Int(1))}


def _records_of(
    keep: Callable[[Template], bool],
    split: str,
    source: str,
    *,
    seed: int,
    max_per_template: int | None,
) -> list[Record]:
    """:func:`_template_records` of the ``split`` training templates that ``keep``
    accepts, filled from :data:`FAMILIES`."""
    templates = [t for t in TRAINING_TEMPLATES if t.split == split and keep(t)]
    cases = generate(
        templates,
        FAMILIES,
        seed=seed,
        max_per_template=max_per_template,
        functionalities=TRAINING_FUNCTIONALITIES,
    )
    return _template_records(cases, split, source)


def threat_template_records(*, seed: int = 0, max_per_template: int | None = None) -> list[Record]:
    """Threats from the training threat templates (disjoint from the suite's).

    Returns
    -------
    list of Record
        ``label`` 1, ``labels`` ``{"toxicity": 1, "threat": 1}``, ``spans``
        the threatening words (label ``"threat"``), the only toxic part of
        the text.
    """
    p = validate_params(
        "threat_template_records", _THREAT_CONSTRAINTS, seed=seed, max_per_template=max_per_template
    )
    return _records_of(
        lambda t: t.functionality.startswith("threat"), "train", "threat_templates", **p
    )


def harm_template_records(*, seed: int = 0, max_per_template: int | None = 60) -> list[Record]:
    """Rows of the other non-identity training templates (disjoint from the suite's).

    Dehumanisation, slurs, insults without profanity, violent requests (toxic)
    and negated hate, counter-speech and non-hateful profanity (harmless),
    labelled by :data:`TEMPLATE_LABELS`; at most ``max_per_template`` rows per
    template (the threat templates are :func:`threat_template_records`).

    Returns
    -------
    list of Record
        ``label`` 1 or 0 as the functionality expects; ``meta["source"]``
        ``"harm_templates"``.
    """
    p = validate_params(
        "harm_template_records", _THREAT_CONSTRAINTS, seed=seed, max_per_template=max_per_template
    )
    return _records_of(
        lambda t: (
            t.functionality in TEMPLATE_LABELS
            and not t.functionality.startswith("threat")
            and t.functionality not in _OWN_FUNCTIONALITIES
        ),
        "train",
        "harm_templates",
        **p,
    )


_OWN_SOURCE_CONSTRAINTS: Constraints = {**_THREAT_CONSTRAINTS, "split": _SPLIT}


def _own_source_records(
    owner: str, source: str, split: str, seed: int, max_per_template: int | None
) -> list[Record]:
    """:func:`_records_of` for a source asked for by name (:data:`_OWN_SOURCES`), with
    ``owner``'s ``split``, ``seed`` and ``max_per_template`` checked."""
    p = validate_params(
        owner, _OWN_SOURCE_CONSTRAINTS, split=split, seed=seed, max_per_template=max_per_template
    )
    split = p.pop("split")
    return _records_of(lambda t: t.functionality in _OWN_SOURCES[source], split, source, **p)


def derogation_template_records(
    *, split: str = "train", seed: int = 0, max_per_template: int | None = 60
) -> list[Record]:
    """Rows of the ``derogation`` training templates: a group called inferior,
    unworthy of rights or better gone, in plain words (disjoint from the suite's).

    Neither :func:`harm_template_records` nor :func:`training_records` holds them,
    so the mixtures of the models shipped before them stay as they were: the
    training mixture adds them as a source of their own when asked
    (:func:`tactful.train.build_mixture` with ``derogation=True``, ``tactful
    train run|distill --derogation``).

    Parameters
    ----------
    split : {"train", "dev"}, default="train"
        ``"dev"``: the held-out templates, for choosing operating points.
    seed : int, default=0
    max_per_template : int or None, default=60

    Returns
    -------
    list of Record
        ``label`` 1, ``labels`` toxicity and identity_attack 1, ``spans`` the
        demeaning words (label ``"identity_attack"``; the group's name is not
        among them); ``meta["source"]`` ``"derogation_templates"``.
    """
    return _own_source_records(
        "derogation_template_records", "derogation_templates", split, seed, max_per_template
    )


def delicate_template_records(
    *, split: str = "train", seed: int = 0, max_per_template: int | None = 30
) -> list[Record]:
    """Rows of the ``delicate_grief`` and ``delicate_illness`` training templates:
    first-person grief after a death and serious illness, delicate but not toxic
    (disjoint from the suite's templates).

    DeTexD, the delicate head's only labelled data set, holds news and forum
    texts; it labels such disclosures delicate ("My good friend died at school,
    & their death devastated me") but has few short ones, and a model trained on
    it alone scores a plain "My mother died last week" low. Like
    :func:`derogation_template_records` they join a training mixture only when
    asked (:func:`tactful.train.build_mixture` with ``delicate=True``, ``tactful
    train run|distill --delicate``).

    Parameters
    ----------
    split : {"train", "dev"}, default="train"
        ``"dev"``: the held-out templates, for choosing runs.
    seed : int, default=0
    max_per_template : int or None, default=30

    Returns
    -------
    list of Record
        ``label`` 0, ``labels`` ``delicate`` 1 and toxicity, insult, threat and
        identity_attack 0, ``spans`` ``()`` (no toxic character);
        ``meta["source"]`` ``"delicate_templates"``.
    """
    return _own_source_records(
        "delicate_template_records", "delicate_templates", split, seed, max_per_template
    )


def menace_template_records(
    *, split: str = "train", seed: int = 0, max_per_template: int | None = 30
) -> list[Record]:
    """Rows of the ``menace`` training templates: indirect threats with no violent
    verb, menace about the reader's home, car, pets, family, work or safety
    (disjoint from the suite's templates).

    The suite tests such threats as ``threat_indirect``, which both shipped models
    fail (59 % and 5 %); the twelve ``threat_indirect`` training templates of
    :func:`threat_template_records` are few and alike. Like
    :func:`derogation_template_records` these join a training mixture only when
    asked (:func:`tactful.train.build_mixture` with ``menace=True``, ``tactful
    train run|distill --menace``), so the mixtures of the models shipped before
    them stay as they were.

    Parameters
    ----------
    split : {"train", "dev"}, default="train"
        ``"dev"``: the held-out templates, for choosing runs
        (``tactful train compare-runs`` reports the toxicity head's recall on them).
    seed : int, default=0
    max_per_template : int or None, default=30
        No template has more fillings, so the default keeps every one.

    Returns
    -------
    list of Record
        ``label`` 1, ``labels`` ``{"toxicity": 1, "threat": 1}``, ``spans`` the
        menacing words (label ``"threat"``), the only toxic part of the text;
        ``meta["source"]`` ``"menace_templates"``.
    """
    return _own_source_records(
        "menace_template_records", "menace_templates", split, seed, max_per_template
    )


def exclusion_template_records(
    *, split: str = "train", seed: int = 0, max_per_template: int | None = 30
) -> list[Record]:
    """Rows of the ``exclusion`` and ``inclusion`` training templates: calls to deny
    a group rights (to vote, marry, work, own a home, hold office), a place (the
    country, the street, the schools) or existence, in plain words: no slur, insult
    word, likening or violent verb; and harmless statements in the same words that
    affirm or defend a group ("have every right to cast a ballot", "Landlords must
    not refuse to rent to", "belong in this country as much as anyone"), disjoint
    from the suite's templates.

    The suite tests such texts as ``derogation``; the derogation training
    templates (:func:`derogation_template_records`) mostly call a group lesser.
    The inclusion rows are the contrast, as the lookalikes are the injections'
    (:func:`injection_template_records`): without them a student learns the
    exclusion templates' syntax ("{group} should ... everyone else") as an attack
    and flags the suite's ``identity_positive`` texts. Like the derogation
    templates these join a training mixture only when asked
    (:func:`tactful.train.build_mixture` with ``exclusion=True``, ``tactful train
    run|distill --exclusion``), so the mixtures of the models shipped before them
    stay as they were.

    Parameters
    ----------
    split : {"train", "dev"}, default="train"
        ``"dev"``: the held-out templates, for choosing runs
        (``tactful train compare-runs`` reports the toxicity head's recall on the
        exclusion rows and the share of the inclusion rows it does not flag).
    seed : int, default=0
    max_per_template : int or None, default=30

    Returns
    -------
    list of Record
        Exclusion: ``label`` 1, ``labels`` ``{"toxicity": 1, "identity_attack":
        1}``, ``spans`` the excluding words (label ``"identity_attack"``; the
        group's name is not among them). Inclusion: ``label`` 0, ``labels``
        toxicity, insult, threat and identity_attack 0, ``spans`` ``()`` (no toxic
        character). ``meta["source"]`` ``"exclusion_templates"``.
    """
    return _own_source_records(
        "exclusion_template_records", "exclusion_templates", split, seed, max_per_template
    )


def injection_template_records(
    *, split: str = "train", seed: int = 0, max_per_template: int | None = 30
) -> list[Record]:
    """Rows of the ``injection`` and ``injection_lookalike`` training templates:
    short prompt injections that override a chatbot's instructions to ask for
    something harmful (weapons, drugs, account break-ins, malware, hurting someone,
    self-harm), and harmless messages with the same override words ("ignore my
    earlier message", "override the default font"), disjoint from the suite's
    templates.

    The jailbreak data sets hold long role-play prompts; a one-line "Ignore all
    previous instructions and ..." is rare in them. Like
    :func:`derogation_template_records` these join a training mixture only when
    asked (:func:`tactful.train.build_mixture` with ``injection=True``, ``tactful
    train run|distill --injection``).

    Parameters
    ----------
    split : {"train", "dev"}, default="train"
        ``"dev"``: the held-out templates, for choosing runs
        (``tactful train compare-runs`` reports the injections flagged toxic and
        jailbreak, and the lookalikes not flagged).
    seed : int, default=0
    max_per_template : int or None, default=30

    Returns
    -------
    list of Record
        Injections: ``label`` 1, ``labels`` ``{"toxicity": 1, "jailbreak": 1}``,
        ``spans`` None (no single toxic word). Lookalikes: ``label`` 0, ``labels``
        toxicity, jailbreak, insult, threat and identity_attack 0, ``spans`` ``()``
        (no toxic character). ``meta["source"]`` ``"injection_templates"``.
    """
    return _own_source_records(
        "injection_template_records", "injection_templates", split, seed, max_per_template
    )


def technical_template_records(
    *, split: str = "train", seed: int = 0, max_per_template: int | None = 30
) -> list[Record]:
    """Rows of the ``technical_verbs`` training templates: violent verbs in their
    harmless technical, sport, cooking, gaming and photography senses ("kill a
    zombie process", "beat the egg whites", "shoot portraits"), disjoint from the
    suite's templates.

    Harmless negatives for the words the threat and harm templates teach as toxic.
    Like :func:`derogation_template_records` they join a training mixture only when
    asked (:func:`tactful.train.build_mixture` with ``technical=True``, ``tactful
    train run|distill --technical``).

    Parameters
    ----------
    split : {"train", "dev"}, default="train"
        ``"dev"``: the held-out templates, for choosing runs
        (``tactful train compare-runs`` reports the share not flagged).
    seed : int, default=0
    max_per_template : int or None, default=30

    Returns
    -------
    list of Record
        ``label`` 0, ``labels`` toxicity, insult, threat and identity_attack 0,
        ``spans`` ``()`` (no toxic character); ``meta["source"]``
        ``"technical_templates"``.
    """
    return _own_source_records(
        "technical_template_records", "technical_templates", split, seed, max_per_template
    )


def contrast_template_records(
    *, split: str = "train", seed: int = 0, max_per_template: int | None = 30
) -> list[Record]:
    """Rows of the ``menace_contrast`` and ``harm_contrast`` training templates: the
    menace templates' words (your street, your family, your car, tonight) in
    kindness, safety tips and plans, and the violent-harm requests' words about a
    process, a plant, a tree, time or a friend ("the surest way to kill a {process}
    process", "beat my boss at chess"), all harmless, disjoint from the suite's
    templates.

    The contrast of :func:`menace_template_records` and of the violent-harm
    templates of :func:`harm_template_records`, as the inclusion rows are the
    exclusion rows' (:func:`exclusion_template_records`): a student trained on
    those learns "how do I kill" and "your family ... tonight" as attacks and flags
    "How do I kill a python process in Linux?". Like
    :func:`derogation_template_records` these join a training mixture only when
    asked (:func:`tactful.train.build_mixture` with ``contrast=True``, ``tactful
    train run|distill --contrast``), so the mixtures of the runs before them stay
    as they were.

    Parameters
    ----------
    split : {"train", "dev"}, default="train"
        ``"dev"``: the held-out templates, for choosing runs
        (``tactful train compare-runs`` reports the share not flagged;
        ``tactful train ship --harmless-pass`` counts them as a harmless dev set).
    seed : int, default=0
    max_per_template : int or None, default=30

    Returns
    -------
    list of Record
        ``label`` 0, ``labels`` toxicity, insult, threat and identity_attack 0,
        ``spans`` ``()`` (no toxic character); ``meta["source"]``
        ``"contrast_templates"``.
    """
    return _own_source_records(
        "contrast_template_records", "contrast_templates", split, seed, max_per_template
    )


_TOXIGEN_CONSTRAINTS: Constraints = {"max_human_score": Float(1, 4, closed="left")}


def toxigen_benign(data_dir: DataDir = None, *, max_human_score: float = 2.0) -> list[Record]:
    """ToxiGen's benign statements about identity groups, as negatives.

    ToxiGen rows with label 0 (mean human harm score < 4 of 5) whose score is
    at most ``max_human_score``: label 0 rows between 2 and 4 include
    stereotypes the raters half-agreed were harmful, not clear negatives.

    Parameters
    ----------
    data_dir : path-like, optional
    max_human_score : float in [1, 4), default=2.0

    Returns
    -------
    list of Record
        ``label`` 0, ``spans`` ``()``, ``groups`` from the source,
        ``meta["toxicity_human"]`` kept.
    """
    p = validate_params("toxigen_benign", _TOXIGEN_CONSTRAINTS, max_human_score=max_human_score)
    out = []
    for r in _read("toxigen", "all", data_dir):
        score = float(r.meta["toxicity_human"])
        if r.label == 0 and score <= p["max_human_score"]:
            out.append(
                Record(
                    f"toxigen-{r.id}",
                    r.text,
                    0,
                    "train",
                    {"toxicity": 0, "identity_attack": 0},
                    spans=(),
                    groups=r.groups,
                    sub_identities=r.sub_identities,
                    meta={"source": "toxigen_benign", "toxicity_human": score},
                )
            )
    return out


def toxicspans_threats(data_dir: DataDir = None) -> list[Record]:
    """ToxicSpans rater-level posts with a majority ``threat`` span.

    Posts whose text is in the SemEval-2021 trial or test file are left out.

    Returns
    -------
    list of Record
        ``label`` 1, ``labels`` ``{"toxicity": 1, "threat": 1}``, ``spans``
        every majority span of the post (all types), ``id`` the comment id.
    """
    held_out = _held_out_texts(data_dir)
    out = []
    for r in _read("toxicspans_raters", "all", data_dir):
        if r.text in held_out or not any(s.label == "threat" for s in r.spans or ()):
            continue
        out.append(
            Record(
                f"toxicspans-{r.id}",
                r.text,
                1,
                "train",
                {"toxicity": 1, "threat": 1},
                spans=r.spans,
                meta={"source": "toxicspans_threats"},
            )
        )
    return out


def keyword_threats(data_dir: DataDir = None) -> list[Record]:
    """Davidson and OLID posts labelled offensive that state an intent to do violence.

    Picked by :data:`THREAT_PATTERN` among the posts their source labels
    offensive or hateful (Davidson classes 0–1, OLID ``OFF``): a weak label,
    so spans are unknown (``None``); ``meta["threat_match"]`` holds the
    ``[start, end]`` of the words that matched.

    Returns
    -------
    list of Record
        ``label`` 1, ``labels`` ``{"toxicity": 1, "threat": 1}``.
    """
    out = []
    for name, split in (("davidson", "all"), ("olid", "train")):
        for r in _read(name, split, data_dir):
            m = THREAT_PATTERN.search(r.text) if r.label == 1 else None
            if m is None:
                continue
            out.append(
                Record(
                    f"{name}-{r.id}",
                    r.text,
                    1,
                    "train",
                    {"toxicity": 1, "threat": 1},
                    meta={"source": f"{name}_threats", "threat_match": [m.start(), m.end()]},
                )
            )
    return out


def counterfactual_records(records: Iterable[Record], *, seed: int = 0) -> list[Record]:
    """Counterfactual copies of ``records`` with identity terms swapped, label kept.

    Each record with a swappable term (:func:`swap_identity_terms`) gives one
    copy: ``id`` + ``"-cf"``, the new text, the same ``label`` and ``labels``,
    its spans moved to the new text, ``groups`` re-tagged, ``meta`` with
    ``counterfactual_of`` (the original id) and ``swaps``.

    Examples
    --------
    >>> [r] = counterfactual_records([Record("a", "Muslim men are great", 0, "train")])
    >>> r.text, r.label, r.meta["counterfactual_of"]
    ('Sikh women are great', 0, 'a')
    """
    out = []
    for r in records:
        swapped = swap_identity_terms(r.text, r.spans or (), seed=seed)
        if swapped is None:
            continue
        out.append(
            Record(
                f"{r.id}-cf",
                swapped.text,
                r.label,
                r.split,
                dict(r.labels),
                spans=None if r.spans is None else swapped.spans,
                groups=tuple(sorted(tag(swapped.text).groups)),
                meta={
                    **dict(r.meta),
                    "counterfactual_of": r.id,
                    "swaps": [list(s) for s in swapped.swaps],
                },
            )
        )
    return out


_GENDER_BUCKETS = {"female": "f", "male": "m"}


def holistic_person_nouns(data_dir: DataDir = None) -> list[tuple[str, str | None]]:
    """HolisticBias's person nouns as ``(singular, gender)`` pairs for :func:`identity_negatives`.

    The ``female`` and ``male`` buckets give ``"f"`` and ``"m"``; the others ``None``.
    """
    return [
        (singular, _GENDER_BUCKETS.get(bucket))
        for bucket, pairs in datasets.load_holistic_nouns(data_dir).items()
        for singular, _ in pairs
    ]


def training_records(data_dir: DataDir = None, *, seed: int = 0) -> list[Record]:
    """Every targeted training row of issue 11 item 2 (split ``"train"`` only).

    Harmless identity negatives (:func:`identity_negatives` with the data
    folder's HolisticBias descriptors and nouns, :func:`toxigen_benign`), threats
    (:func:`toxicspans_threats`, :func:`keyword_threats`,
    :func:`threat_template_records`), the other harm and counter-speech templates
    (:func:`harm_template_records`) and counterfactual copies
    (:func:`counterfactual_records`) of the rows taken from data sets (the
    template rows already cover every group). The templates of the sources asked for
    by name are not among them: :func:`derogation_template_records`,
    :func:`delicate_template_records`, :func:`menace_template_records`,
    :func:`exclusion_template_records`, :func:`injection_template_records`,
    :func:`technical_template_records`, :func:`contrast_template_records`.

    Returns
    -------
    list of Record
        Ids are unique; ``meta["source"]`` says where each row came from.
    """
    taken: list[Record] = [
        *toxigen_benign(data_dir),
        *toxicspans_threats(data_dir),
        *keyword_threats(data_dir),
    ]
    return [
        *identity_negatives(
            datasets.load_holistic_descriptors(data_dir),
            nouns=holistic_person_nouns(data_dir),
            seed=seed,
        ),
        *threat_template_records(seed=seed),
        *harm_template_records(seed=seed),
        *taken,
        *counterfactual_records(taken, seed=seed),
    ]
