"""Names of the builtin model's heads, shared by training and runtime."""

from __future__ import annotations

#: Sequence-level heads, in the order of the model's ``seq`` output columns.
#: ``toxicity`` is prompt/chat toxicity (ToxicChat's definition, jailbreaks count
#: as toxic); ``offensive`` is comment/post toxicity (tweets, news comments).
SEQ_HEADS: tuple[str, ...] = (
    "toxicity",
    "offensive",
    "insult",
    "threat",
    "identity_attack",
    "profanity",
    "jailbreak",
    "delicate",
)

#: Span types, in the order of the model's token type output columns.
SPAN_TYPES: tuple[str, ...] = ("insult", "threat", "identity_attack", "profanity", "other")
