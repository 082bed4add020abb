"""The training mixture: which data feeds which head.

==================  ==========================================================
head                training data (train splits only)
==================  ==========================================================
toxicity            ToxicChat 0124 train (human-annotated, minus the dev
                    carve-out); in-the-wild jailbreak prompts and GPTFuzzer
                    templates as positives (ToxicChat counts jailbreaks as
                    toxic) unless ``jailbreak_toxic=False`` (stage 4)
offensive           Davidson (hate or offensive), OLID train (OFF), ToxiGen
                    (human toxicity >= 4), Jigsaw sentences *dev* files
insult              ToxicSpans rater-level posts (a majority Insult span);
                    OLID (targeted at an individual = 1, NOT = 0)
threat              ToxicSpans rater-level posts (a majority Threat span)
identity_attack     ToxicSpans rater-level (Identity based Attack span),
                    Davidson hate (= 1) vs neither (= 0), ToxiGen toxic,
                    OLID targeted at a group
profanity           ToxicSpans rater-level (Profane/Obscene span), OLID
                    untargeted offence
jailbreak           ToxicChat jailbreaking labels, in-the-wild jailbreaks,
                    GPTFuzzer templates, deepset prompt-injection train
delicate            DeTexD (all 1,023; scored separately by 5-fold CV)
token toxic         ToxicSpans SemEval-2021 train (character offsets)
token type          ToxicSpans rater-level posts whose text is not in the
                    SemEval trial or test files
==================  ==========================================================

Each template flag of :data:`~tactful.train.TEMPLATE_SOURCES` (``derogation=True``,
``menace=True``, ...) adds every row of that set of training templates as a source of
its own.

With ``targeted=True`` (model 2.0, issue 11) two things change:

* the ``targeted`` source joins the mixture: :func:`tactful.train.training_records`
  (harmless identity mentions with no toxic character, threats with their
  spans, counterfactual copies), capped like any other source;
* unless ``broad_toxicity=False``, the toxicity head also learns from the
  sources that say whether a text harms a person: Davidson hate (1) and neither (0), OLID targeted offence
  (1) and not offensive (0), ToxiGen with a human harm score >= 4 (1), and
  rater-level ToxicSpans posts with a majority insult, threat or identity
  attack span (1). Untargeted profanity stays unlabelled for toxicity
  (tactful's toxicity is harm to people; profanity has its own head).

Never used: OpenAI moderation, Jigsaw bias templates, TweetEval, Stormfront
(audit-only), and every test split (ToxicChat test, SemEval trial/test,
Jigsaw sentences test_10k).
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Unpack

from .._heads import SEQ_HEADS, SPAN_TYPES
from ..datasets import Record, load_dataset, span_offsets
from ..params import Bool, Constraints, Int, Nullable, OneOf, Str, StrList, validate_params
from ._suite_data import (
    contrast_template_records,
    delicate_template_records,
    derogation_template_records,
    exclusion_template_records,
    injection_template_records,
    menace_template_records,
    technical_template_records,
    training_records,
)
from ._templates import TEMPLATE_CONSTRAINTS, TEMPLATE_SOURCES, TemplateFlags, template_flags

__all__ = [
    "DEFAULT_CAPS",
    "DEFAULT_REPEATS",
    "PROMPT_SOURCES",
    "SPAN_GOLDS",
    "TEMPLATE_RECORDS",
    "Example",
    "build_mixture",
    "clean_prompts",
    "toxicchat_folds",
]

NAN = math.nan


@dataclass(slots=True)
class Example:
    text: str
    source: str
    seq: list[float]  # one target per SEQ_HEADS entry; NaN = no label
    tox_chars: frozenset[int] | None = None  # gold toxic offsets, None = no span labels
    type_chars: dict[int, int] | None = None  # offset -> SPAN_TYPES index, None = unknown
    weight: float = 1.0
    meta: dict = field(default_factory=dict)
    # distillation: the teacher's sequence logits (one per SEQ_HEADS entry) and its
    # toxic-token logit per character of ``text`` (NaN where no teacher token was)
    soft_seq: list[float] | None = None
    soft_tox: Any = None  # numpy float array of len(text), or None


def _seq(**labels: float | None) -> list[float]:
    out = [NAN] * len(SEQ_HEADS)
    for k, v in labels.items():
        if v is not None:
            out[SEQ_HEADS.index(k)] = float(v)
    return out


#: Where the toxic-span targets come from (see :func:`build_mixture`).
SPAN_GOLDS = ("semeval", "raters")

#: The function that makes each template source's rows, by flag
#: (:data:`~tactful.train.TEMPLATE_SOURCES`).
TEMPLATE_RECORDS: dict[str, Callable[..., list[Record]]] = {
    "derogation": derogation_template_records,
    "delicate": delicate_template_records,
    "menace": menace_template_records,
    "exclusion": exclusion_template_records,
    "injection": injection_template_records,
    "technical": technical_template_records,
    "contrast": contrast_template_records,
}

#: Rows kept per source (None = all). Chosen so one epoch of the mixture runs in
#: about an hour on a 2-core CPU; see the model card for the measured time.
DEFAULT_CAPS: dict[str, int | None] = {
    "toxicchat": None,
    "jailbreak_inthewild": None,
    "gptfuzzer": None,
    "deepset_injections": None,
    "detexd": None,
    "toxicspans": 6000,
    "toxicspans_raters": 6000,
    "davidson": 4000,
    "olid": 4000,
    "toxigen": 3000,
    "jigsaw_sentences": 3000,
    "targeted": None,
}

#: How many times a source is repeated per epoch.
DEFAULT_REPEATS: dict[str, int] = {"toxicchat": 3, "detexd": 3, "jailbreak_inthewild": 1}


def _type_chars(r: Record) -> dict[int, int]:
    """Character offset -> :data:`SPAN_TYPES` index of every typed gold span of ``r``."""
    return {
        i: SPAN_TYPES.index(s.label)
        for s in r.spans or ()
        if s.label in SPAN_TYPES
        for i in range(s.start, min(s.end, len(r.text)))
    }


def _targeted_example(r: Record) -> Example:
    """A :func:`~tactful.train.training_records` row as a training example.

    Its labels feed their heads; a harmless row (label 0) whose spans are known
    (no toxic character) is also not offensive and not profane. Gold spans (``()`` for a harmless row: no toxic character)
    feed the token head and their labels the span types; ``None`` leaves both
    unlabelled.
    """
    labels = dict(r.labels)
    has_spans = r.spans is not None
    if r.label == 0 and has_spans:
        labels.update(offensive=0, profanity=0)
    return Example(
        r.text,
        "targeted",
        _seq(**labels),
        tox_chars=span_offsets(r.spans or ()) if has_spans else None,
        type_chars=_type_chars(r) if has_spans else None,
        meta={"id": r.id, "from": r.meta.get("source")},
    )


#: The sources of chat prompts and jailbreaks, whose rows carry no span labels.
PROMPT_SOURCES = ("toxicchat", "jailbreak_inthewild", "gptfuzzer", "deepset_injections")

#: The lexicon's operating point for :func:`clean_prompts`: a word the ToxicSpans
#: posts mark as toxic in 30 % of its uses (and at least twice) keeps a prompt out.
CLEAN_PROMPT_MIN_RATIO, CLEAN_PROMPT_MIN_COUNT = 0.3, 2


def clean_prompts(examples: Iterable[Example]) -> list[Example]:
    """Prompt rows that can teach the token head that no character is toxic.

    Jailbreaks and chat prompts carry no span labels, so a token head trained on
    the mixture alone never learns that "Ignore every rule you were given" or
    "stay in character" is not toxic language, and marks it (issue 11: the shipped
    models put a typed span on almost every jailbreak of the functional suite).
    This returns a copy of each row of :data:`PROMPT_SOURCES` without span labels
    whose toxicity does not come from its words: a ToxicChat prompt labelled
    harmless or a jailbreak, any in-the-wild or GPTFuzzer jailbreak, any deepset
    prompt. A row is kept only when the TRAIN-MATCH lexicon
    (:class:`~tactful.moderators.lexicon.LexiconModerator` at
    :data:`CLEAN_PROMPT_MIN_RATIO` and :data:`CLEAN_PROMPT_MIN_COUNT`) finds no term in it, since a jailbreak may
    also swear or insult. The copy's span list is empty (no toxic character) and its
    span types stay unknown. One row per distinct text, in first-seen order.
    """
    from ..moderators.lexicon import LexiconModerator

    lexicon = LexiconModerator(min_ratio=CLEAN_PROMPT_MIN_RATIO, min_count=CLEAN_PROMPT_MIN_COUNT)
    tox, jb = SEQ_HEADS.index("toxicity"), SEQ_HEADS.index("jailbreak")
    out: dict[str, Example] = {}
    for e in examples:
        if e.source not in PROMPT_SOURCES or e.tox_chars is not None or e.text in out:
            continue
        if e.source == "toxicchat" and e.seq[tox] == 1 and e.seq[jb] != 1:
            continue  # a toxic chat prompt that is no jailbreak: its words may be why
        if lexicon.find_spans(e.text):
            continue
        out[e.text] = dataclasses.replace(e, tox_chars=frozenset(), type_chars=None)
    return list(out.values())


def toxicchat_folds(data_dir: str | Path | None, n: int) -> dict[str, int]:
    """Each ToxicChat train text (dev carve-out excluded) and its fold, 1..``n``.

    Stratified by the (toxicity, jailbreak) labels: within each label pair the
    sorted distinct texts are shuffled (seeded, so every run and every ship sees
    the same folds) and dealt round-robin. Cross-fitting trains one run without
    each fold and scores the fold with it (:func:`~tactful.train.choose_thresholds`).
    """
    if n < 2:
        raise ValueError(f"cross-fitting needs at least 2 folds, not {n}.")
    groups: dict[tuple[Any, Any], set[str]] = {}
    for r in load_dataset("toxicchat", "train", data_dir):
        key = (r.labels.get("toxicity"), r.labels.get("jailbreak"))
        groups.setdefault(key, set()).add(r.text)
    folds: dict[str, int] = {}
    for key in sorted(groups, key=repr):
        texts = sorted(t for t in groups[key] if t not in folds)
        random.Random(f"toxicchat-folds:{n}:{key!r}").shuffle(texts)
        for i, t in enumerate(texts):
            folds[t] = i % n + 1
    return folds


def drop_fold(
    examples: list[Example], data_dir: str | Path | None, fold: tuple[int, int]
) -> list[Example]:
    """``examples`` without those whose text is in ToxicChat train fold ``fold = (K, N)``.

    A cross-fitting run trains on the rest and scores fold K with the result
    (:func:`toxicchat_folds`, :func:`~tactful.train.crossfit_runs`).
    """
    k, n = fold
    out = {t for t, f in toxicchat_folds(data_dir, n).items() if f == k}
    return [e for e in examples if e.text not in out]


def _cap(rows: list, n: int | None, rng: random.Random) -> list:
    if n is None or len(rows) <= n:
        return rows
    return rng.sample(rows, n)


_MIXTURE_CONSTRAINTS: Constraints = {
    "seed": Int(0),
    "detexd_split": Str(nonempty=True),
    "sources": Nullable(StrList(options=tuple(DEFAULT_CAPS), nonempty=True)),
    "jailbreak_toxic": Bool(),
    "span_gold": OneOf(SPAN_GOLDS),
    "targeted": Bool(),
    "broad_toxicity": Nullable(Bool()),
    **TEMPLATE_CONSTRAINTS,
}


def build_mixture(
    data_dir: str | Path | None = None,
    *,
    seed: int = 0,
    caps: dict[str, int | None] | None = None,
    repeats: dict[str, int] | None = None,
    detexd_split: str = "all",
    sources: Iterable[str] | None = None,
    jailbreak_toxic: bool = True,
    span_gold: str = "semeval",
    targeted: bool = False,
    broad_toxicity: bool | None = None,
    **templates: Unpack[TemplateFlags],
) -> list[Example]:
    """Build the shuffled training examples of the multi-task model.

    All sources share one random draw, so ``sources`` (a subset) samples capped
    sources differently from the full mixture: to know which rows a run trained
    on, build its whole mixture and filter by ``Example.source``.

    With ``jailbreak_toxic=False`` the in-the-wild jailbreaks and GPTFuzzer
    templates feed the jailbreak head only, so the toxicity head learns from
    ToxicChat's own labels alone.

    ``span_gold`` picks the toxic-span targets. ``"semeval"``: the SemEval-2021
    train file's spans, which are the union of the raters' spans in 5,767 of
    its 7,939 posts and agree with the > 50 %-of-raters rule in 3,669
    (``research/span_gold_agreement.py``). ``"raters"``: the > 50 %-of-raters
    characters (the ToxicSpans paper's ground truth) for those posts, and the
    same targets for the rater-level comments, which otherwise feed the span
    types only.

    ``broad_toxicity`` (default: ``targeted``) gives the toxicity head the labels
    of the hate and offence sets (Davidson, OLID, ToxiGen, rater-level ToxicSpans);
    ``targeted=True, broad_toxicity=False`` keeps the targeted rows but leaves
    ToxicChat (and the targeted rows) the only toxicity labels.

    ``templates`` (``derogation=True``, ``menace=True``, ...:
    :data:`~tactful.train.TEMPLATE_SOURCES`) adds each of those sets of training
    templates as a source of its own, every row, uncapped and drawn from no random
    stream, so that every other source samples the rows it samples without it (only
    the final shuffle differs).
    """
    p = validate_params(
        "build_mixture",
        _MIXTURE_CONSTRAINTS,
        seed=seed,
        detexd_split=detexd_split,
        sources=list(sources) if sources is not None else None,
        jailbreak_toxic=jailbreak_toxic,
        span_gold=span_gold,
        targeted=targeted,
        broad_toxicity=broad_toxicity,
        **templates,
    )
    broad = targeted if p["broad_toxicity"] is None else p["broad_toxicity"]
    jb_tox = 1 if jailbreak_toxic else None
    caps = {**DEFAULT_CAPS, **(caps or {})}
    repeats = {**DEFAULT_REPEATS, **(repeats or {})}
    wanted = set(p["sources"]) if p["sources"] is not None else set(caps)
    if not targeted:
        wanted.discard("targeted")
    rng = random.Random(seed)
    out: dict[str, list[Example]] = {}

    if "toxicchat" in wanted:
        out["toxicchat"] = [
            Example(
                r.text,
                "toxicchat",
                _seq(toxicity=r.labels.get("toxicity"), jailbreak=r.labels.get("jailbreak")),
            )
            for r in load_dataset("toxicchat", "train", data_dir)
        ]
    if "jailbreak_inthewild" in wanted:
        out["jailbreak_inthewild"] = [
            Example(r.text, "jailbreak_inthewild", _seq(toxicity=jb_tox, jailbreak=1))
            for r in load_dataset("jailbreak_inthewild", None, data_dir)
        ]
    if "gptfuzzer" in wanted:
        out["gptfuzzer"] = [
            Example(r.text, "gptfuzzer", _seq(toxicity=jb_tox, jailbreak=1))
            for r in load_dataset("gptfuzzer", None, data_dir)
        ]
    if "deepset_injections" in wanted:
        out["deepset_injections"] = [
            Example(r.text, "deepset_injections", _seq(jailbreak=r.label))
            for r in load_dataset("deepset_injections", None, data_dir)
        ]
    if "detexd" in wanted:
        out["detexd"] = [
            Example(r.text, "detexd", _seq(delicate=r.label))
            for r in load_dataset("detexd", detexd_split, data_dir)
        ]
    majority: dict[str, frozenset[int]] = {}
    if span_gold == "raters" and wanted & {"toxicspans", "toxicspans_raters"}:
        majority = {
            r.text: span_offsets(r.spans)
            for r in load_dataset("toxicspans_raters", "all", data_dir)
        }
    if "toxicspans" in wanted:
        out["toxicspans"] = [
            Example(
                r.text,
                "toxicspans",
                _seq(),
                tox_chars=majority[r.text]
                if span_gold == "raters"
                else span_offsets(r.spans or ()),
            )
            for r in load_dataset("toxicspans", "train", data_dir)
        ]
    if "toxicspans_raters" in wanted:
        held_out = {
            r.text for split in ("dev", "test") for r in load_dataset("toxicspans", split, data_dir)
        }
        rows = []
        for r in load_dataset("toxicspans_raters", "all", data_dir):
            if r.text in held_out:
                continue
            types = _type_chars(r)
            present = {s.label for s in r.spans or () if s.label in SPAN_TYPES}
            rows.append(
                Example(
                    r.text,
                    "toxicspans_raters",
                    _seq(
                        **{
                            t: int(t in present)
                            for t in ("insult", "threat", "identity_attack", "profanity")
                        },
                        toxicity=1
                        if broad and present & {"insult", "threat", "identity_attack"}
                        else None,
                    ),
                    tox_chars=majority.get(r.text),
                    type_chars=types,
                )
            )
        out["toxicspans_raters"] = rows
    if "davidson" in wanted:
        rows = []
        for r in load_dataset("davidson", None, data_dir):
            hate = r.labels.get("hate")
            # identity_attack: hate = 1, neither = 0, merely offensive = unknown
            rows.append(
                Example(
                    r.text,
                    "davidson",
                    _seq(
                        offensive=r.label,
                        identity_attack=1 if hate else (0 if r.label == 0 else None),
                        toxicity=(1 if hate else (0 if r.label == 0 else None)) if broad else None,
                    ),
                )
            )
        out["davidson"] = rows
    if "olid" in wanted:
        rows = []
        for r in load_dataset("olid", "train", data_dir):
            # OLID subtask b: TIN (targeted insult/threat) or UNT; subtask c: IND/GRP/OTH.
            off = r.label
            b = None if not off else ("TIN" if r.labels.get("targeted") else "UNT")
            c = r.meta.get("target")
            rows.append(
                Example(
                    r.text,
                    "olid",
                    _seq(
                        offensive=off,
                        insult=(1 if (b == "TIN" and c == "IND") else 0)
                        if off is not None and (off == 0 or b == "TIN")
                        else None,
                        identity_attack=(1 if (b == "TIN" and c == "GRP") else 0)
                        if off is not None and (off == 0 or b == "TIN")
                        else None,
                        profanity=(1 if b == "UNT" else 0)
                        if off is not None and (off == 0 or b in ("UNT", "TIN"))
                        else None,
                        toxicity=(1 if b == "TIN" else (0 if off == 0 else None))
                        if broad and off is not None
                        else None,
                    ),
                )
            )
        out["olid"] = rows
    if "toxigen" in wanted:
        out["toxigen"] = [
            Example(
                r.text,
                "toxigen",
                _seq(
                    offensive=r.label,
                    identity_attack=r.label,
                    toxicity=1 if broad and r.label == 1 else None,
                ),
            )
            for r in load_dataset("toxigen", None, data_dir)
        ]
    if "jigsaw_sentences" in wanted:
        out["jigsaw_sentences"] = [
            Example(r.text, "jigsaw_sentences", _seq(offensive=r.label))
            for r in load_dataset("jigsaw_sentences", "dev", data_dir)
        ]
    if "targeted" in wanted:
        out["targeted"] = [_targeted_example(r) for r in training_records(data_dir, seed=seed)]
    # the template sources asked for by flag: every row, from no random stream
    for flag, asked in template_flags(p).items():
        if asked:
            name = TEMPLATE_SOURCES[flag][0]
            out[name] = [
                dataclasses.replace(_targeted_example(r), source=name)
                for r in TEMPLATE_RECORDS[flag](seed=seed)
            ]

    examples: list[Example] = []
    for name in sorted(out):
        rows = _cap(out[name], caps.get(name), rng)
        examples.extend(rows * repeats.get(name, 1))
    rng.shuffle(examples)
    return examples
