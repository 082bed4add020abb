"""The stage table: each training stage's mixture caps, repeats and settings, and its mixture."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Unpack

from ._mixture import DEFAULT_CAPS, Example, build_mixture
from ._templates import TemplateFlags

__all__ = [
    "SOURCES",
    "STAGES",
    "stage_mixture",
]


#: Stage 2: a short chat-domain pass from the stage-1 weights. ToxicChat train twice,
#: and a replay of 500 rows of every other source so the other heads are kept.
STAGE2_CAPS = {
    "toxicchat": None,
    "jailbreak_inthewild": 300,
    "gptfuzzer": 77,
    "deepset_injections": 300,
    "detexd": 500,
    "toxicspans": 500,
    "toxicspans_raters": 500,
    "davidson": 500,
    "olid": 500,
    "toxigen": 500,
    "jigsaw_sentences": 500,
    "targeted": 3000,
}


STAGE2_REPEATS = {"toxicchat": 2, "detexd": 1, "jailbreak_inthewild": 1}


#: Stage 3: the chat stage again at 256 tokens. At 128 tokens 29 % of the toxic
#: ToxicChat train prompts were cut before their end (12 % are longer than 256), so
#: stage 3 reads ToxicChat three times at the runtime's window length, with
#: the jailbreak sources and a smaller replay of every other source.
STAGE3_CAPS = {
    "toxicchat": None,
    "jailbreak_inthewild": 300,
    "gptfuzzer": 77,
    "deepset_injections": 300,
    "detexd": 500,
    "toxicspans": 1000,
    "toxicspans_raters": 500,
    "davidson": 300,
    "olid": 300,
    "toxigen": 300,
    "jigsaw_sentences": 300,
    "targeted": 3000,
}


STAGE3_REPEATS = {"toxicchat": 3, "detexd": 1, "jailbreak_inthewild": 1}


#: Stage 4: stage 3's mixture (the same draw for the same seed) with one change:
#: the in-the-wild jailbreaks and GPTFuzzer templates feed the jailbreak head only,
#: not the toxicity head. ToxicChat labels a role-play template toxic only when it
#: asks for harm, and the templates' blanket "toxic" pushed benign role-play prompts
#: over the toxicity threshold.
#: Stage 5: stage 4 (the same draw, the same jailbreak choice) with the toxic-span
#: targets of the ToxicSpans paper (characters > 50 % of a post's raters marked)
#: instead of the SemEval-2021 train file's, which are the union of the raters'
#: spans in 5,767 of its 7,939 posts (``build_mixture(span_gold="raters")``).
#: Stage 6: stage 5 with three times the ToxicSpans posts (SemEval train 3,000,
#: rater-level comments 3,000, both with the > 50 %-of-raters targets), so the
#: span head, trained on the union targets in stages 1-4, is re-targeted on more
#: data (a different draw from stage 5's).
STAGE6_CAPS = {**STAGE3_CAPS, "toxicspans": 3000, "toxicspans_raters": 3000}


#: The chat stages' learning rates and window (stages 3-6; stage 2 read 128 tokens).
_CHAT_STAGE: dict[str, Any] = {"lr": 3e-5, "head_lr": 1e-4, "max_len": 256}


_STAGE4: dict[str, Any] = {
    "caps": STAGE3_CAPS,
    "repeats": STAGE3_REPEATS,
    **_CHAT_STAGE,
    "seed_offset": 2,
    "jailbreak_toxic": False,
}


#: Stage 7: one stage from the pretrained encoder (no ``--init``), for the large
#: encoder whose stage 1 would take hours here: stage 4's mixture (ToxicChat three
#: times at 256 tokens, a replay of every other source, jailbreak templates not
#: toxicity positives) with the heads' learning rate of the mpnet fine-tune the
#: issue measured (encoder 3e-5, heads 1e-3), since the heads start untrained.
_STAGE7: dict[str, Any] = {
    **_STAGE4,
    "head_lr": 1e-3,
    "seed_offset": 6,
    "pretrained": True,
}


#: Stage 8: a chat pass from stage 7's weights (``--init``) for the large encoder.
#: Stage 7 reads ToxicChat three times among 6,877 rows of other sources and reached
#: test AP 0.861, where the issue's single-task mpnet fine-tune reached 0.887; stage 8
#: reads ToxicChat train twice more at a lower learning rate, with the jailbreak
#: sources whole and a small replay of every other source so the other heads and the
#: targeted identity and threat rows are kept.
STAGE8_CAPS = {
    "toxicchat": None,
    "jailbreak_inthewild": 300,
    "gptfuzzer": 77,
    "deepset_injections": 300,
    "detexd": 300,
    "toxicspans": 500,
    "toxicspans_raters": 300,
    "davidson": 150,
    "olid": 150,
    "toxigen": 150,
    "jigsaw_sentences": 150,
    "targeted": 1000,
}


_STAGE8: dict[str, Any] = {
    "caps": STAGE8_CAPS,
    "repeats": STAGE2_REPEATS,
    **_CHAT_STAGE,
    "lr": 2e-5,
    "seed_offset": 8,
    "jailbreak_toxic": False,
}


#: Stage 9: stage 8 with stage 7's 3,000 targeted rows in the replay instead of 1,000.
#: Stage 8 lowered the large model's toxicity on insults without profanity (the suite's
#: median 0.71 -> 0.57) while it learned ToxicChat; this keeps more of what stage 7 taught.
_STAGE9: dict[str, Any] = {
    **_STAGE8,
    "caps": {**STAGE8_CAPS, "targeted": _STAGE7["caps"]["targeted"]},
    "seed_offset": 9,
}


#: Stage 10: stage 9 with stage 6's change of span targets for the large encoder:
#: the ToxicSpans paper's (characters > 50 % of a post's raters marked) instead of the
#: SemEval-2021 file's union, and three times stage 9's span posts (SemEval train
#: 1,500, rater-level comments 1,500). Stages 5 and 6 lifted MiniLM's SemEval test span
#: F1 from 0.642-0.645 to 0.656-0.678; builtin-large 2.1.0 (stage 9) reaches 0.612, and
#: 2.2.0 (stage 10 with --derogation) 0.671.
_STAGE10: dict[str, Any] = {
    **_STAGE9,
    "caps": {**_STAGE9["caps"], "toxicspans": 1500, "toxicspans_raters": 1500},
    "span_gold": "raters",
    "seed_offset": 10,
}


#: Later stages: 2-6 and 8-10 start from the weights given by ``--init``; 7 from the
#: pretrained encoder.
STAGES: dict[int, dict[str, Any]] = {
    2: {"caps": STAGE2_CAPS, "repeats": STAGE2_REPEATS, **_CHAT_STAGE, "max_len": 128},
    3: {"caps": STAGE3_CAPS, "repeats": STAGE3_REPEATS, **_CHAT_STAGE},
    4: _STAGE4,
    5: {**_STAGE4, "span_gold": "raters"},
    6: {**_STAGE4, "span_gold": "raters", "caps": STAGE6_CAPS},
    7: _STAGE7,
    8: _STAGE8,
    9: _STAGE9,
    10: _STAGE10,
}


#: The source names :func:`run_training` accepts in ``sources``.
SOURCES: tuple[str, ...] = tuple(DEFAULT_CAPS)


def stage_seed_offset(stage: int) -> int:
    """What ``stage`` adds to a run's seed: :func:`stage_mixture`'s seed for it is
    ``seed + stage_seed_offset(stage)`` (0 for stage 1)."""
    if stage == 1:
        return 0
    return int(STAGES.get(stage, {}).get("seed_offset", stage - 1))


def stage_mixture(
    data_dir: str | Path | None,
    stage: int,
    seed: int = 0,
    jailbreak_toxic: bool | None = None,
    *,
    sources: Iterable[str] | None = None,
    targeted: bool = False,
    broad_toxicity: bool | None = None,
    **templates: Unpack[TemplateFlags],
) -> tuple[list[Example], int]:
    """The training examples of ``stage`` (1 = the full mixture) and the seed the run uses.

    ``jailbreak_toxic`` overrides the stage's own choice (stage 1: True; see
    :data:`STAGES`) of whether the jailbreak templates are toxicity positives.
    ``sources`` keeps only those sources (a different draw: see
    :func:`~tactful.train.build_mixture`). ``targeted`` adds model 2.0's targeted
    rows and toxicity labels (all of them in stage 1, a replay of 3,000 later);
    ``broad_toxicity`` (default: ``targeted``) whether the hate and offence sets
    label the toxicity head (see :func:`~tactful.train.build_mixture`);
    ``templates`` (:data:`~tactful.train.TEMPLATE_SOURCES`) add those training
    templates as sources of their own.
    """
    st: dict[str, Any] = STAGES.get(stage, {})
    if jailbreak_toxic is None:
        jailbreak_toxic = st.get("jailbreak_toxic", True)
    if stage == 1:
        examples = build_mixture(
            data_dir,
            seed=seed,
            jailbreak_toxic=jailbreak_toxic,
            sources=sources,
            targeted=targeted,
            broad_toxicity=broad_toxicity,
            **templates,
        )
        return examples, seed
    run_seed = seed + stage_seed_offset(stage)
    examples = build_mixture(
        data_dir,
        seed=run_seed,
        caps=st["caps"],
        repeats=st["repeats"],
        jailbreak_toxic=jailbreak_toxic,
        span_gold=st.get("span_gold", "semeval"),
        sources=sources,
        targeted=targeted,
        broad_toxicity=broad_toxicity,
        **templates,
    )
    return examples, run_seed


#: The stages that start from the pretrained encoder (no ``init``).
PRETRAINED_STAGES: tuple[int, ...] = (1, *(k for k, st in STAGES.items() if st.get("pretrained")))
