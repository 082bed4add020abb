"""Names of the builtin model's heads, shared by training and runtime."""

from __future__ import annotations

from collections.abc import Sequence

from .taxonomy import CATEGORIES, HARM_CATEGORIES

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

#: A model with a head per harm category: the eight heads, then OpenAI's 13 categories.
CATEGORY_HEADS: tuple[str, ...] = (*SEQ_HEADS, *CATEGORIES)


def check_heads(heads: Sequence[str]) -> tuple[str, ...]:
    """``heads`` as a tuple if it is a model's sequence heads: :data:`SEQ_HEADS`, then
    harm categories (:data:`tactful.taxonomy.HARM_CATEGORIES`), each once.

    Raises
    ------
    ValueError
        Naming the heads and the rule, in one line.
    """
    heads = tuple(heads)
    extra = heads[len(SEQ_HEADS) :]
    if (
        heads[: len(SEQ_HEADS)] != SEQ_HEADS
        or not set(extra) <= set(HARM_CATEGORIES)
        or len(set(extra)) != len(extra)
    ):
        raise ValueError(
            f"heads {', '.join(heads)}: a model's heads are {', '.join(SEQ_HEADS)}, "
            f"then harm categories ({', '.join(HARM_CATEGORIES)}), each once."
        )
    return heads
