"""Jigsaw-derived sentences and the Jigsaw unintended-bias identity templates."""

from __future__ import annotations

from collections.abc import Sequence

from ._io import Source, Table, rows
from ._record import Record
from ._spec import DatasetSpec, dataset, label_dataset

_JS = {
    "dev": ("jigsaw_sentences/dev_toxic.txt", "jigsaw_sentences/dev_normal.txt"),
    "test": ("jigsaw_sentences/test_10k_toxic.txt", "jigsaw_sentences/test_10k_normal.txt"),
}


@dataset(
    DatasetSpec(
        name="jigsaw_sentences",
        task="toxicity",
        splits=("dev", "test"),
        default_split="test",
        files=tuple(f for pair in _JS.values() for f in pair),
        description=(
            "Jigsaw-derived sentences, one per line, lower-cased and tokenized as in the files. "
            "label from the file name (toxic 1, normal 0); each split lists the toxic file first. "
            "id = '<split>-<toxic|normal>-<line number>'."
        ),
        expected_rows={"dev": 13296, "test": 20000},
    )
)
def _jigsaw_sentences(src: Source) -> Table:
    records: list[Record] = []
    splits: dict[str, Sequence[int]] = {}
    for split, (tox_rel, norm_rel) in _JS.items():
        start = len(records)
        for rel, kind, y in ((tox_rel, "toxic", 1), (norm_rel, "normal", 0)):
            records += [
                Record(f"{split}-{kind}-{i}", t, y, split, {"toxicity": y})
                for i, t in enumerate(src.read_lines(rel))
            ]
        splits[split] = rows(len(records) - start, start)
    return Table(records, splits)


JIGSAW_BIAS = "jigsaw_bias/en_sentence_templates.csv"


label_dataset(
    DatasetSpec.single(
        "jigsaw_bias",
        "toxicity",
        JIGSAW_BIAS,
        76564,
        "Jigsaw unintended-bias identity templates (en_sentence_templates.csv, 76,564 phrases, "
        "the file the speech-suppression set is tagged from; bias_madlibs_77k.csv is another "
        "fill of the same templates). label = toxicity 'toxic'. meta['template'].",
    ),
    "phrase",
    "toxicity",
    "toxicity",
    {"toxic": 1, "nontoxic": 0},
    meta_cols=("template",),
)
