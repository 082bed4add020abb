"""The speech-suppression paper's sets (Anigboro et al., 2024), with its identity tags,
and the Stormfront sentences they come from."""

from __future__ import annotations

from ._openai import OPENAI_CATEGORIES
from ._spec import DatasetSpec, label_dataset

SS_JIGSAW = "speech_suppression/jigsaw_bias_with_identities.csv"
SS_STORMFRONT = "speech_suppression/stormfront_with_identities.csv"
SS_OPENAI = "speech_suppression/openai_moderation_with_identities.csv"
SS_TWEETEVAL = {t: f"speech_suppression/tweeteval_{t}_all.csv" for t in ("hate", "offensive")}

_TAG_COLS = ("Big_identity", "Sub_Identities")
_SS_NOTE = (
    " groups: the paper's Big_identity tags mapped to its 9 groups (GROUP_ALIASES, e.g. "
    "'lgbt-related' -> 'lgbt'); sub_identities: its Sub_Identities tags. id = row number."
)


label_dataset(
    DatasetSpec.single(
        "ss_jigsaw_bias",
        "toxicity",
        SS_JIGSAW,
        60560,
        "Speech-suppression paper (Anigboro et al., 2024): Jigsaw bias templates with identity "
        "tags. label = toxicity 'toxic'; meta['template']." + _SS_NOTE,
    ),
    "phrase",
    "toxicity",
    "toxicity",
    {"toxic": 1, "nontoxic": 0},
    meta_cols=("template",),
    group_cols=_TAG_COLS,
)
label_dataset(
    DatasetSpec.single(
        "ss_stormfront",
        "hate",
        SS_STORMFRONT,
        10944,
        "Speech-suppression paper: Stormfront sentences, label 1 = hate, 0 = not." + _SS_NOTE,
    ),
    "Sentence",
    "label",
    "hate",
    group_cols=_TAG_COLS,
)
label_dataset(
    DatasetSpec.single(
        "ss_openai",
        "toxicity",
        SS_OPENAI,
        1680,
        "Speech-suppression paper: the OpenAI moderation set with identity tags. label = Toxic; "
        "labels: toxic and the 8 categories (None when missing)." + _SS_NOTE,
    ),
    "prompt",
    "Toxic",
    "toxic",
    extra_labels=OPENAI_CATEGORIES,
    group_cols=_TAG_COLS,
)
for _task, _rows, _about in (
    (
        "hate",
        12970,
        (
            "TweetEval hate, all splits merged, label 1 = hate. The file has no identity "
            "tags (groups empty; tag them with a lexicon)."
        ),
    ),
    (
        "offensive",
        14100,
        (
            "TweetEval offensive (OLID), all splits merged, label 1 = offensive. No "
            "identity tags in the file. It contains OLID train: do not audit a model trained on OLID "
            "with it."
        ),
    ),
):
    label_dataset(
        DatasetSpec.single(
            f"ss_tweeteval_{_task}",
            _task,
            SS_TWEETEVAL[_task],
            _rows,
            f"Speech-suppression paper: {_about} id = row number.",
        ),
        "Text",
        "Toxicity",
        _task,
    )
label_dataset(
    DatasetSpec.single(
        "stormfront",
        "hate",
        SS_STORMFRONT,
        10944,
        "Stormfront white-supremacist forum sentences (de Gibert et al., 2018), text and label "
        "(1 = hate, 0 = noHate/relation/idk) from the speech-suppression copy. "
        "stormfront/annotations_metadata.csv is NOT joined: its row order differs from the text "
        "file's (the hate labels agree at 80.7% of positions, the chance level), so the finer "
        "relation / idk labels cannot be attached. Same rows as ss_stormfront, without identity "
        "tags. id = row number.",
    ),
    "Sentence",
    "label",
    "hate",
)
