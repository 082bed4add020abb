"""ToxicChat 0124 (Lin et al., 2023): user prompts to a chatbot, toxicity and jailbreak labels."""

from __future__ import annotations

from ._io import BINARY, SEED, Source, Table, known_labels, relabel, rows
from ._record import Record
from ._spec import DatasetSpec, dataset
from ._splits import stratified_holdout

TC_TRAIN = "toxicchat/toxicchat0124_train_human.json"
TC_TEST = "toxicchat/toxicchat0124_test_human.json"
TC_ALL = "toxicchat/toxicchat0124_test_all_jailbreak.csv"


def _toxicchat_file(src: Source, rel: str, split: str) -> list[Record]:
    data = src.read_json(rel)
    instances = data.get("instances") if isinstance(data, dict) else None
    if not isinstance(instances, list):
        raise src.error(rel, "expected a JSON object with an 'instances' list")
    out = []
    for i, ins in enumerate(instances):
        try:
            rid, text = ins["id"], ins["instance"]
            tox = ins["annotations"]["toxicity"]["majority_human"]
            jb = ins["annotations"]["jailbreaking"]["majority_human"]
        except (KeyError, TypeError) as exc:
            raise src.error(rel, f"instance lacks {exc}", i) from None
        tox = src.binary(rel, i, tox, BINARY)
        jb = src.binary(rel, i, jb, BINARY)
        out.append(
            Record(str(rid), src.text(rel, i, text), tox, split, {"toxicity": tox, "jailbreak": jb})
        )
    return out


@dataset(
    DatasetSpec(
        name="toxicchat",
        task="toxicity",
        splits=("train", "dev", "test", "train_full"),
        default_split="test",
        files=(TC_TRAIN, TC_TEST),
        description=(
            "ToxicChat 0124, human-annotated part (Lin et al., 2023): user prompts to a chatbot. "
            "label = toxicity (majority of human annotators); labels: toxicity, jailbreak. "
            "test = the 2,853 rows of the paper's evaluation set; train_full = the 2,801 train rows; "
            "dev = 10% of train_full, stratified by toxicity (seed 0, per-class round-half-up), "
            "train = the rest."
        ),
        expected_rows={"train": 2521, "dev": 280, "test": 2853, "train_full": 2801},
    )
)
def _toxicchat(src: Source) -> Table:
    train = _toxicchat_file(src, TC_TRAIN, "train")
    test = _toxicchat_file(src, TC_TEST, "test")
    kept, held = stratified_holdout(known_labels(train), 0.1, SEED)
    train = relabel(train, {int(i): "dev" for i in held})
    n = len(train)
    return Table(
        train + test,
        {
            "train": kept.tolist(),
            "dev": held.tolist(),
            "train_full": rows(n),
            "test": rows(len(test), n),
        },
    )


@dataset(
    DatasetSpec(
        name="toxicchat_full",
        task="toxicity",
        splits=("test",),
        default_split="test",
        files=(TC_ALL, TC_TEST),
        description=(
            "The whole ToxicChat 0124 test split (5,083 prompts) with its jailbreak label. The csv has "
            "no toxicity column: toxicity comes from the human-annotated file for the 2,853 rows with "
            "human_annotation=True, and is 0 for the other 2,230, which the data set's authors "
            "auto-labelled non-toxic (meta['human_annotation'] tells them apart). "
            "labels: toxicity, jailbreak."
        ),
        expected_rows={"test": 5083},
    )
)
def _toxicchat_full(src: Source) -> Table:
    human = {r.id: r for r in _toxicchat_file(src, TC_TEST, "test")}
    df = src.read_csv(TC_ALL, ["conv_id", "user_input", "human_annotation", "jailbreaking"])
    out = []
    for i, (cid, text, ha, jb_cell) in enumerate(
        zip(
            df["conv_id"], df["user_input"], df["human_annotation"], df["jailbreaking"], strict=True
        )
    ):
        is_human = src.binary(TC_ALL, i, ha, {"True": 1, "False": 0}) == 1
        jb = src.binary(TC_ALL, i, jb_cell, BINARY)
        if is_human:
            if cid not in human:
                raise src.error(
                    TC_ALL, f"conv_id {cid} is marked human-annotated but is not in {TC_TEST}", i
                )
            tox = human[cid].label
        else:
            tox = 0
        out.append(
            Record(
                cid,
                text,
                tox,
                "test",
                {"toxicity": tox, "jailbreak": jb},
                meta={"human_annotation": is_human},
            )
        )
    return Table(out, {"test": rows(len(out))})
