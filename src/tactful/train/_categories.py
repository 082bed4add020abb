"""Training data for the harm-category heads (model 3).

A model with category heads has :data:`~tactful._heads.CATEGORY_HEADS` outputs: the eight
heads, then OpenAI's 13 categories. :func:`category_mixture` widens a stage mixture's
examples to those targets and adds the category sources, so that the stage mixtures of the
models shipped before stay as they were:

=======================  ====================================================================
source                   targets (train parts only)
=======================  ====================================================================
``harm_requests``        toxicity 1 where the set's request is harmful in one of the 13
                         categories (or is HarmBench's, JailbreakBench's, AdvBench's or
                         MaliciousInstruct's); the categories its label implies, 0 for the
                         others, unknown for an undecided subcategory
``harm_benign``          toxicity, jailbreak and every category 0 (JailbreakBench's harmless
                         twins, TruthfulQA)
``dna_responses``        toxicity = the annotators' harmful; a harmless answer is in no
                         category, a harmful one's categories are unknown
``conan``,               hate speech: toxicity, identity_attack and hate 1; a
``dialoconan``,          counter-narrative: toxicity, identity_attack and every category 0
``toxigen_seeds``
ToxicChat (weak)         the toxic train rows' OpenAI moderation scores as soft targets of
                         the 11 categories they have; a ToxicChat prompt labelled harmless is
                         in no category
``category_templates``   tactful's own templates (:mod:`~tactful.train._category_templates`):
                         self-harm disclosures and requests (never a threat), sexual
                         requests, graphic violence, conditional threats, weapons requests,
                         and harmless contrasts (technical, figurative, fiction and history,
                         safety, definitions) in no category
=======================  ====================================================================

ToxicChat's ``dev`` and ``test`` prompts are never read, and no text of any harm set's test
part is an example, whichever source holds it.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .._heads import CATEGORY_HEADS, SEQ_HEADS
from ..config import resolve_data_dir
from ..datasets import Record, load_dataset
from ..datasets._harm import HARM_SETS, harm_test_texts
from ..taxonomy import CATEGORIES, EXTRA_CATEGORIES, HARM_CATEGORIES
from ._category_templates import TEMPLATE_REVISION, category_template_rows
from ._mixture import Example

__all__ = [
    "CATEGORY_CAPS",
    "CATEGORY_SOURCES",
    "TEMPLATE_CATEGORIES",
    "category_data",
    "category_examples",
    "category_mixture",
    "category_target",
    "template_category_examples",
    "toxicchat_weak_labels",
    "widen",
]

NAN = math.nan

#: The category sources, in the order :func:`category_examples` adds them: the harm sets.
CATEGORY_SOURCES = HARM_SETS

#: At most this many train examples of a source (a seeded sample, in the source's order):
#: the counter-narrative sets would otherwise outnumber every other category source three
#: to one. ``tactful train start --categories`` records the caps in the run's config, so a
#: resumed run reads the same examples whatever this default becomes.
CATEGORY_CAPS: Mapping[str, int] = MappingProxyType({"conan": 2000, "dialoconan": 2000})

_TOXICCHAT_TOXIC_ROWS = "toxicchat/toxicchat0124_train_toxic_rows.csv"


def _row(r: Record, source: str, labels: Mapping[str, float | None]) -> Example:
    """An example with ``labels``' targets; a text labelled not toxic has no toxic
    character (the token head learns that the group words of counter-speech, support and
    identity statements, which it would otherwise meet only in toxic posts, are harmless).
    The targets of tactful's own categories (:data:`~tactful.taxonomy.EXTRA_CATEGORIES`),
    which no trained model's :data:`CATEGORY_HEADS` has, are kept in ``meta["extra"]``
    (:func:`category_target` reads both)."""
    seq = [NAN] * len(CATEGORY_HEADS)
    extra = _set_targets(seq, labels)
    harmless = seq[CATEGORY_HEADS.index("toxicity")] == 0
    meta: dict[str, Any] = {"id": r.id, **({"extra": extra} if extra else {})}
    return Example(r.text, source, seq, tox_chars=frozenset() if harmless else None, meta=meta)


def _set_targets(seq: list[float], labels: Mapping[str, float | None]) -> dict[str, float]:
    """Write ``labels`` (a ``None`` skipped) into ``seq``, in :data:`CATEGORY_HEADS` order;
    return those of tactful's own categories, which ``seq`` has no place for."""
    extra: dict[str, float] = {}
    for k, v in labels.items():
        if v is None:
            continue
        if k in EXTRA_CATEGORIES:
            extra[k] = float(v)
        else:
            seq[CATEGORY_HEADS.index(k)] = float(v)
    return extra


def category_target(e: Example, head: str) -> float:
    """``e``'s target for ``head``, one of :data:`CATEGORY_HEADS` or of tactful's own
    categories (``meta["extra"]``); NaN where it has none."""
    if head in CATEGORY_HEADS:
        return float(e.seq[CATEGORY_HEADS.index(head)])
    return float(e.meta.get("extra", {}).get(head, NAN))


def widen(examples: Iterable[Example]) -> list[Example]:
    """Each example with targets (and soft targets) for :data:`CATEGORY_HEADS`: its own
    for the eight heads, unknown for the categories."""
    pad = [NAN] * (len(CATEGORY_HEADS) - len(SEQ_HEADS))
    out = []
    for e in examples:
        if len(e.seq) != len(SEQ_HEADS):
            raise ValueError(f"an example of {e.source} has {len(e.seq)} targets, not 8.")
        soft = None if e.soft_seq is None else [*e.soft_seq, *pad]
        out.append(dataclasses.replace(e, seq=[*e.seq, *pad], soft_seq=soft))
    return out


def _no_category() -> dict[str, float]:
    return dict.fromkeys(HARM_CATEGORIES, 0.0)


def _capped(examples: list[Example], caps: Mapping[str, int]) -> list[Example]:
    by_source: dict[str, list[int]] = {}
    for i, e in enumerate(examples):
        by_source.setdefault(e.source, []).append(i)
    drop: set[int] = set()
    for source, idx in by_source.items():
        cap = caps.get(source)
        if cap is not None and len(idx) > cap:
            keep = set(random.Random(f"cap:{source}").sample(idx, cap))
            drop.update(i for i in idx if i not in keep)
    return [e for i, e in enumerate(examples) if i not in drop]


def category_examples(
    data_dir: str | Path | None = None,
    caps: Mapping[str, int] | None = None,
    split: str = "train",
    *,
    template_revision: int = TEMPLATE_REVISION,
) -> list[Example]:
    """The examples of :data:`CATEGORY_SOURCES` and the category templates, 21 targets
    each, from their ``split`` part (``"train"``, or ``"dev"``, on which the categories'
    operating points are chosen), at most ``caps[source]`` of a source (none capped by
    default), the templates of ``template_revision``
    (:func:`~tactful.train._category_templates.category_template_rows`). A dev text that
    is a train text of another source (DIALOCONAN quotes Multitarget-CONAN) is left out of
    the dev part."""
    if split not in ("train", "dev"):
        raise ValueError(f"split must be 'train' or 'dev', not {split!r}.")
    out: list[Example] = []
    for r in load_dataset("harm_requests", split, data_dir=data_dir):
        out.append(_row(r, "harm_requests", {"toxicity": r.label, **r.labels}))
    for r in load_dataset("harm_benign", split, data_dir=data_dir):
        out.append(_row(r, "harm_benign", {"toxicity": 0, "jailbreak": 0, **_no_category()}))
    for r in load_dataset("dna_responses", split, data_dir=data_dir):
        cats = _no_category() if r.label == 0 else {}
        out.append(_row(r, "dna_responses", {"toxicity": r.label, **cats}))
    for name in ("conan", "dialoconan", "toxigen_seeds"):
        for r in load_dataset(name, split, data_dir=data_dir):
            labels: dict[str, float | None] = {"hate": 1} if r.label == 1 else dict(_no_category())
            out.append(_row(r, name, {"toxicity": r.label, "identity_attack": r.label, **labels}))
    for text, functionality, targets in category_template_rows(split, revision=template_revision):
        row = Record(functionality, text, None, split)
        out.append(_row(row, "category_templates", targets))
    held = set(harm_test_texts(data_dir))
    if split == "dev":
        held |= {e.text for e in category_examples(data_dir, template_revision=template_revision)}
    return _capped([e for e in out if e.text not in held], caps or {})


def _cats(**cats: float | None) -> Mapping[str, float | None]:
    out: dict[str, float | None] = dict(_no_category())
    out.update({k.replace("__", "/").replace("_", "-"): v for k, v in cats.items()})
    return MappingProxyType(out)


_THREAT_CATS = _cats(
    harassment=1.0, harassment__threatening=1.0, violence=1.0, violence__graphic=None
)
_VEILED_THREAT_CATS = _cats(
    harassment=1.0, harassment__threatening=1.0, violence=None, violence__graphic=None
)
_GROUP_CATS = _cats(
    hate=1.0, harassment=None, harassment__threatening=None, hate__threatening=None, violence=None
)

#: What the categories of a training template's rows are (:mod:`~tactful.train._suite_data`'s
#: families, by functionality; ``None``: not decided by the template). Stated for the
#: words the templates use: a threat at a person is harassment/threatening and violence and
#: never self-harm or sexual; an insult is harassment and nothing else; an attack on a
#: group is hate; a harmless row (negated hate, counter-speech, support of a group,
#: technical verbs, look-alikes, contrasts) is in no category. These are the negatives
#: the harm sets lack: ordinary toxic language in no harm area but its own.
TEMPLATE_CATEGORIES: Mapping[str, Mapping[str, float | None]] = MappingProxyType(
    {
        "threat_direct": _THREAT_CATS,
        "threat_indirect": _VEILED_THREAT_CATS,
        "menace": _VEILED_THREAT_CATS,
        "insult_no_profanity": _cats(harassment=1.0),
        "dehumanisation": _GROUP_CATS,
        "slur": _GROUP_CATS,
        "derogation": _GROUP_CATS,
        "exclusion": _GROUP_CATS,
        "violent_harm_request": _cats(
            illicit=1.0,
            illicit__violent=1.0,
            violence=1.0,
            harassment=None,
            harassment__threatening=None,
            violence__graphic=None,
        ),
        "injection": _cats(
            harassment=None,
            harassment__threatening=None,
            hate=None,
            hate__threatening=None,
            illicit=None,
            illicit__violent=None,
            violence=None,
            violence__graphic=None,
        ),
        **{
            f: _cats()
            for f in (
                "negated_hate",
                "counter_speech",
                "profanity_non_hateful",
                "inclusion",
                "injection_lookalike",
                "technical_verbs",
                "menace_contrast",
                "harm_contrast",
                # a grieving or ill person, and a plain mention of who one is, are in no
                # category: without them the rows of builtin's frozen four-layer encoder
                # put most grief and one identity statement in twelve into a category
                "delicate_grief",
                "delicate_illness",
                "identity_self_description",
                "identity_positive",
                "identity_neutral",
                "identity_question",
            )
        },
    }
)


def template_category_examples(
    split: str = "train", max_per_template: int | None = None, seed: int = 0
) -> list[Example]:
    """The ``split`` rows of the training templates whose functionality
    :data:`TEMPLATE_CATEGORIES` names (source ``"template_categories"``), each with its
    template labels for the eight heads and its categories, at most ``max_per_template``
    rows of a template (a seeded sample). The dev rows come from held-out templates."""
    if split not in ("train", "dev"):
        raise ValueError(f"split must be 'train' or 'dev', not {split!r}.")
    from ._suite_data import _records_of

    rows = _records_of(
        lambda t: t.functionality in TEMPLATE_CATEGORIES,
        split,
        "template_categories",
        seed=seed,
        max_per_template=max_per_template,
    )
    return [
        _row(
            r,
            "template_categories",
            {**r.labels, **TEMPLATE_CATEGORIES[str(r.meta["functionality"])]},
        )
        for r in rows
    ]


def category_data(
    data_dir: str | Path | None = None, caps: Mapping[str, int] | None = None
) -> dict[str, dict[str, int]]:
    """What each harm category learned from, for a model card: per category, the train
    examples in it by source (:func:`category_examples` with ``caps``, target 1) and
    ``toxicchat_weak`` (ToxicChat's toxic train prompts whose OpenAI score for it is at
    least 0.5, soft targets); tactful's own categories too (no weak labels)."""
    out: dict[str, dict[str, int]] = {c: {} for c in HARM_CATEGORIES}
    for e in category_examples(data_dir, caps):
        for c in HARM_CATEGORIES:
            if category_target(e, c) == 1.0:
                out[c][e.source] = out[c].get(e.source, 0) + 1
    for scores in toxicchat_weak_labels(data_dir).values():
        for c, v in scores.items():
            if v >= 0.5:
                out[c]["toxicchat_weak"] = out[c].get("toxicchat_weak", 0) + 1
    return out


def toxicchat_weak_labels(data_dir: str | Path | None = None) -> dict[str, dict[str, float]]:
    """ToxicChat's toxic train prompts -> their OpenAI moderation category scores (the
    ``openai_moderation`` column: text-moderation's 11 categories, no ``illicit``)."""
    import pandas as pd

    path = Path(resolve_data_dir(data_dir)) / _TOXICCHAT_TOXIC_ROWS
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    out: dict[str, dict[str, float]] = {}
    for text, raw in zip(df["user_input"], df["openai_moderation"], strict=True):
        pairs: Any = json.loads(raw) if raw.strip() else []
        scores = {str(c): float(s) for c, s in pairs if c in CATEGORIES}
        if scores:
            out[text] = scores
    return out


def category_mixture(
    examples: Iterable[Example],
    data_dir: str | Path | None = None,
    caps: Mapping[str, int] | None = None,
    *,
    template_rows: int | None = None,
    template_revision: int = TEMPLATE_REVISION,
) -> list[Example]:
    """A stage mixture's ``examples`` widened to :data:`CATEGORY_HEADS`, ToxicChat's rows
    given their weak category targets, then :func:`category_examples`.

    A ToxicChat prompt labelled harmless gets 0 in every category; a toxic one whose
    OpenAI scores the toxic-rows file holds gets them as soft targets (its ``illicit``
    stays unknown). Only ToxicChat's ``train`` split is ever in a stage mixture. An example
    whose text is test in a harm set (ToxiGen's annotated sentences hold seed statements)
    is left out. ``caps``: see :func:`category_examples`.

    With ``template_rows``, the training templates of ordinary toxic language and their
    contrasts (:func:`template_category_examples`, at most that many rows a template)
    join too: a mixture example of the same text gets their categories, the others are
    added. Runs made before this keep their mixtures (``template_rows=None``).
    ``template_revision``: the category templates' (:func:`category_examples`).
    """
    weak = toxicchat_weak_labels(data_dir)
    held = harm_test_texts(data_dir)
    tox = SEQ_HEADS.index("toxicity")
    tmpl = (
        {}
        if template_rows is None
        else {e.text: e for e in template_category_examples("train", template_rows)}
    )
    first = len(SEQ_HEADS)
    out = []
    for e in widen(x for x in examples if x.text not in held):
        if e.source == "toxicchat":
            seq = list(e.seq)
            cats = _no_category() if e.seq[tox] == 0 else weak.get(e.text, {})
            own = _set_targets(seq, cats)
            meta = {**e.meta, "extra": own} if own else e.meta
            e = dataclasses.replace(e, seq=seq, meta=meta)
        elif e.text in tmpl:
            e = dataclasses.replace(e, seq=[*e.seq[:first], *tmpl[e.text].seq[first:]])
        out.append(e)
    seen = {e.text for e in out}
    extra = [e for t, e in tmpl.items() if t not in seen]
    return out + extra + category_examples(data_dir, caps, template_revision=template_revision)
