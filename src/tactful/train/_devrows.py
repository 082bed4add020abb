"""The held-out dev rows the card's points and dev figures are read on (never a test split)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._heads import SEQ_HEADS

if TYPE_CHECKING:
    from ..datasets import Record

__all__ = [
    "delicate_dev_rows",
    "delicate_dev_shares",
    "harmless_dev_texts",
    "offensive_dev_rows",
]


def delicate_dev_rows(
    data_dir: str | Path | None, stages: list[dict[str, Any]] | None = None
) -> list[Record]:
    """The DeTexD rows (of all 1,023) that none of ``stages`` drew (as a labelled row, or
    as a banked text with the teacher's scores: ``bank:detexd``): the delicate head's only
    labelled source, so its only held-out dev rows. Stage 1 with seed 0 when None."""
    from ..datasets import load_dataset
    from ._distill import recorded_stage_examples

    drawn: set[str] = set()
    for stage in stages or [{"stage": 1, "seed": 0}]:
        examples, _ = recorded_stage_examples(data_dir, stage)
        drawn |= {e.text for e in examples if e.source in ("detexd", "bank:detexd")}
    return [r for r in load_dataset("detexd", "all", data_dir) if r.text not in drawn]


def delicate_dev_shares(
    before: Any, after: Any, old_point: float, new_point: float, data_dir: str | Path | None
) -> dict[str, Any]:
    """What a new delicate head or point does on dev sets, before and after: the
    held-out grief and illness templates called delicate (all are), ToxicChat dev
    prompts labelled non-toxic called delicate (chat is rarely delicate), and each
    harmless dev set of :func:`harmless_dev_texts` called delicate (``harmless``)."""
    from ..datasets import load_dataset
    from ._suite_data import delicate_template_records

    templates = [r.text for r in delicate_template_records(split="dev")]
    chat = [r.text for r in load_dataset("toxicchat", "dev", data_dir) if r.labels["toxicity"] == 0]
    d = SEQ_HEADS.index("delicate")

    def shares(texts: list[str]) -> tuple[float, float]:
        """The share called delicate before and after (one pass when the model is the same)."""
        old = before.predict_arrays(texts)[0][:, d]
        new = old if after is before else after.predict_arrays(texts)[0][:, d]
        return round(float((old >= old_point).mean()), 4), round(
            float((new >= new_point).mean()), 4
        )

    tb, ta = shares(templates)
    cb, ca = shares(chat)
    harmless = {}
    for name, texts in harmless_dev_texts(data_dir).items():
        hb, ha = shares(texts)
        harmless[name] = {"n": len(texts), "before": hb, "after": ha}
    return {
        "dev_templates": len(templates),
        "dev_templates_delicate_before": tb,
        "dev_templates_delicate": ta,
        "toxicchat_dev_nontoxic": len(chat),
        "toxicchat_dev_nontoxic_delicate_before": cb,
        "toxicchat_dev_nontoxic_delicate": ca,
        "harmless": harmless,
    }


def harmless_dev_texts(data_dir: str | Path | None) -> dict[str, list[str]]:
    """The harmless dev sets behind :func:`harmless_floor`, by name: texts no
    training mixture holds, all of them harmless.

    ``identity``: the held-out HolisticBias and audit-group identity templates
    (:func:`tactful.train.identity_negatives`, ``split="dev"``);
    ``inclusion``: the held-out inclusion templates' rows (a group affirmed or
    defended); ``technical``: the held-out technical-verb rows ("kill a zombie
    process"); ``lookalike``: the held-out injection lookalikes ("ignore my earlier
    message"); ``contrast``: the held-out contrast rows (the menace and
    violent-request words in harmless messages). The sets ``tactful train compare-runs``
    reports pass rates for.
    """
    from ..datasets import load_holistic_descriptors
    from ._suite_data import (
        contrast_template_records,
        exclusion_template_records,
        holistic_person_nouns,
        identity_negatives,
        injection_template_records,
        technical_template_records,
    )

    identity = identity_negatives(
        load_holistic_descriptors(data_dir), nouns=holistic_person_nouns(data_dir), split="dev"
    )
    return {
        "identity": [r.text for r in identity],
        "inclusion": [r.text for r in exclusion_template_records(split="dev") if r.label == 0],
        "technical": [r.text for r in technical_template_records(split="dev")],
        "lookalike": [r.text for r in injection_template_records(split="dev") if r.label == 0],
        "contrast": [r.text for r in contrast_template_records(split="dev")],
    }


def offensive_dev_rows(
    data_dir: str | Path | None, stages: list[dict[str, Any]] | None = None
) -> list[Record]:
    """2,000 Jigsaw sentences dev rows (seeded) that none of ``stages`` trained on."""
    from ..datasets import load_dataset
    from ._mixture import build_mixture
    from ._stages import STAGES

    trained: set[str] = set()
    for stage in stages or [{"seed": 0}]:
        st = STAGES.get(stage.get("stage", 1), {})
        # The whole mixture, then its Jigsaw rows: the sources share one random
        # draw, so asking for Jigsaw alone would sample other rows.
        trained |= {
            e.text
            for e in build_mixture(
                data_dir, seed=stage["seed"], caps=st.get("caps"), repeats=st.get("repeats")
            )
            if e.source == "jigsaw_sentences"
        }
    held = [r for r in load_dataset("jigsaw_sentences", "dev", data_dir) if r.text not in trained]
    return random.Random(0).sample(held, min(2000, len(held)))
