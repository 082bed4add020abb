"""DeTexD (Yavnyi et al., 2023): delicate texts, with cross-validation folds and a gender-swap probe."""

from __future__ import annotations

from collections.abc import Sequence

from ._io import SEED, Source, Table, known_labels, rows
from ._record import Record
from ._spec import DatasetSpec, dataset, split_names
from ._splits import stratified_kfold

DETEXD = "detexd/detexd_benchmark_binary.json"
DETEXD_CF = "detexd/gender_counterfactuals.json"
_FOLDS = tuple(f"cv{k}" for k in range(5))


@dataset(
    DatasetSpec(
        name="detexd",
        task="delicate",
        splits=("all", *split_names(_FOLDS, ("train", "test"))),
        default_split="all",
        files=(DETEXD,),
        description=(
            "DeTexD benchmark (Yavnyi et al., 2023): 1,023 texts, label 1 = delicate (risk >= 3, "
            "answer 'positive'). 'all' is for models that never saw it; a model trained on it is "
            "scored on cv{k}-test after training on cv{k}-train, folds from "
            "StratifiedKFold(n_splits=5, shuffle=True, random_state=0). id = row number."
        ),
        expected_rows={
            "all": 1023,
            **{f"cv{k}-test": n for k, n in enumerate((205, 205, 205, 204, 204))},
            **{f"cv{k}-train": 1023 - n for k, n in enumerate((205, 205, 205, 204, 204))},
        },
    )
)
def _detexd(src: Source) -> Table:
    data = src.read_json(DETEXD)
    if not isinstance(data, list):
        raise src.error(DETEXD, "expected a JSON list of {question, answer} objects")
    out = []
    for i, item in enumerate(data):
        if not isinstance(item, dict) or "question" not in item or "answer" not in item:
            raise src.error(DETEXD, "expected an object with 'question' and 'answer'", i)
        label = src.binary(DETEXD, i, item["answer"], {"positive": 1, "negative": 0})
        out.append(
            Record(str(i), src.text(DETEXD, i, item["question"]), label, "all", {"delicate": label})
        )
    splits: dict[str, Sequence[int]] = {"all": rows(len(out))}
    for k, (tr, te) in enumerate(stratified_kfold(known_labels(out), 5, SEED)):
        splits[f"cv{k}-train"], splits[f"cv{k}-test"] = tr.tolist(), te.tolist()
    return Table(out, splits)


@dataset(
    DatasetSpec.single(
        "detexd_counterfactuals",
        "delicate",
        DETEXD_CF,
        6,
        "DeTexD gender-swap probe: texts with a counterfactual where gendered words are swapped "
        "(meta['counterfactual']). No label (None): compare a moderator's scores on the pair.",
    )
)
def _detexd_cf(src: Source) -> Table:
    out = []
    for i, item in enumerate(src.read_jsonl(DETEXD_CF)):
        if not isinstance(item, dict) or "text" not in item or "text_counterfactual" not in item:
            raise src.error(
                DETEXD_CF, "expected an object with 'text' and 'text_counterfactual'", i
            )
        out.append(
            Record(
                str(i),
                src.text(DETEXD_CF, i, item["text"]),
                None,
                "all",
                meta={"counterfactual": src.text(DETEXD_CF, i, item["text_counterfactual"])},
            )
        )
    return Table.all_rows(out)
