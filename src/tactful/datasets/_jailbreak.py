"""Jailbreak and prompt-injection prompts: in-the-wild, deepset, GPTFuzzer."""

from __future__ import annotations

from ._io import Source, Table
from ._record import Record
from ._spec import DatasetSpec, dataset, label_dataset

JB_WILD = "jailbreak/inthewild_jailbreak_prompts.json"
JB_DEEPSET = "jailbreak/deepset_prompt_injections_train.csv"
JB_FUZZER = "jailbreak/gptfuzzer_templates.csv"


@dataset(
    DatasetSpec.single(
        "jailbreak_inthewild",
        "jailbreak",
        JB_WILD,
        666,
        "In-the-wild jailbreak prompts (Shen et al., 2023): all are jailbreaks (label 1). "
        "id = row number.",
    )
)
def _jb_wild(src: Source) -> Table:
    data = src.read_json(JB_WILD)
    if not isinstance(data, list):
        raise src.error(JB_WILD, "expected a JSON list of prompts")
    out = [
        Record(str(i), src.text(JB_WILD, i, t), 1, "all", {"jailbreak": 1})
        for i, t in enumerate(data)
    ]
    return Table.all_rows(out)


label_dataset(
    DatasetSpec.single(
        "deepset_injections",
        "jailbreak",
        JB_DEEPSET,
        546,
        "deepset prompt-injections, train split: label 1 = prompt injection, 0 = benign request. "
        "id = row number.",
    ),
    "text",
    "label",
    "jailbreak",
)


@dataset(
    DatasetSpec.single(
        "gptfuzzer",
        "jailbreak",
        JB_FUZZER,
        77,
        "GPTFuzzer jailbreak templates (Yu et al., 2023), all label 1; they contain the "
        "placeholder '[INSERT PROMPT HERE]'. id = the file's id.",
    )
)
def _jb_fuzzer(src: Source) -> Table:
    df = src.read_csv(JB_FUZZER, ["id", "text"])
    out = [
        Record(rid, t, 1, "all", {"jailbreak": 1})
        for rid, t in zip(df["id"], df["text"], strict=True)
    ]
    return Table.all_rows(out)
