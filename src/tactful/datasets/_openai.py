"""The OpenAI moderation evaluation set (Markov et al., 2023)."""

from __future__ import annotations

from ._io import BINARY, Source, Table, any_positive
from ._record import Record
from ._spec import DatasetSpec, dataset

__all__ = ["OPENAI_CATEGORIES"]

#: OpenAI moderation categories, in the file's order.
OPENAI_CATEGORIES = ("S", "H", "V", "HR", "SH", "S3", "H2", "V2")


OPENAI = "openai_moderation/samples-1680.jsonl.gz"


@dataset(
    DatasetSpec.single(
        "openai_moderation",
        "toxicity",
        OPENAI,
        1680,
        "OpenAI moderation evaluation set (Markov et al., 2023). labels = the 8 categories "
        "S, H, V, HR, SH, S3, H2, V2 (1 / 0 / None when the file has no value). label = 1 if any "
        "category is 1, 0 if none is and at least one is known, None if none is known (no such "
        "row in the file). id = row number.",
    )
)
def _openai(src: Source) -> Table:
    out = []
    for i, item in enumerate(src.read_jsonl(OPENAI)):
        if not isinstance(item, dict) or not isinstance(item.get("prompt"), str):
            raise src.error(OPENAI, "expected an object with a 'prompt' string", i)
        cats = {}
        for c in OPENAI_CATEGORIES:
            v = item.get(c)
            cats[c] = None if v is None else src.binary(OPENAI, i, v, BINARY)
        out.append(Record(str(i), item["prompt"], any_positive(list(cats.values())), "all", cats))
    return Table.all_rows(out)
