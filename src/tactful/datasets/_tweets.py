"""Hate and offensive tweets: Davidson et al. (2017), OLID, TweetEval hate and offensive."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from ._io import BINARY, Source, Table, rows
from ._record import Record
from ._spec import DatasetSpec, dataset

DAVIDSON = "davidson/labeled_data.csv"


@dataset(
    DatasetSpec.single(
        "davidson",
        "offensive",
        DAVIDSON,
        24783,
        "Davidson et al. (2017) tweets. label = 1 when the majority class is hate (0) or "
        "offensive (1), 0 for neither (2); labels: hate, offensive; meta: the vote counts. "
        "id = the file's row id.",
    )
)
def _davidson(src: Source) -> Table:
    df = src.read_csv(
        DAVIDSON, ["count", "hate_speech", "offensive_language", "neither", "class", "tweet"]
    )
    ids = next(iter(df.values()))  # the file's unnamed first column: a row id
    classes = df["class"]
    tweets = df["tweet"]
    vote_cols = ("count", "hate_speech", "offensive_language", "neither")
    vote_lists = [df[k] for k in vote_cols]
    out = []
    for i in range(len(tweets)):
        cls = src.binary(DAVIDSON, i, classes[i], {"0": 0, "1": 1, "2": 2})
        try:
            votes = {k: int(col[i]) for k, col in zip(vote_cols, vote_lists, strict=True)}
        except ValueError:
            raise src.error(DAVIDSON, "vote counts are not integers", i) from None
        out.append(
            Record(
                ids[i],
                tweets[i],
                int(cls in (0, 1)),
                "all",
                {"hate": int(cls == 0), "offensive": int(cls == 1)},
                meta={"class": cls, **votes},
            )
        )
    return Table.all_rows(out)


OLID = "olid/olid_train.csv"


@dataset(
    DatasetSpec(
        name="olid",
        task="offensive",
        splits=("train",),
        default_split="train",
        files=(OLID,),
        description=(
            "OLID training set (Zampieri et al., 2019). label = subtask_a OFF (1) / NOT (0); labels: "
            "offensive, targeted (subtask_b TIN 1 / UNT 0, None when not offensive); "
            "meta['target'] = subtask_c (IND/GRP/OTH or None). Its test set is TweetEval offensive "
            "'test': a model trained here is audited there only. id = OLID id."
        ),
        expected_rows={"train": 13240},
    )
)
def _olid(src: Source) -> Table:
    df = src.read_csv(OLID, ["id", "tweet", "subtask_a", "subtask_b", "subtask_c"])
    out = []
    for i, (rid, text, a, b, c) in enumerate(
        zip(df["id"], df["tweet"], df["subtask_a"], df["subtask_b"], df["subtask_c"], strict=True)
    ):
        off = src.binary(OLID, i, a, {"OFF": 1, "NOT": 0})
        tin = src.binary(OLID, i, b, {"TIN": 1, "UNT": 0, "": None})
        if c not in ("IND", "GRP", "OTH", ""):
            raise src.error(OLID, f"unexpected subtask_c {c!r}", i)
        out.append(
            Record(
                rid,
                text,
                off,
                "train",
                {"offensive": off, "targeted": tin},
                meta={"target": c or None},
            )
        )
    return Table(out, {"train": rows(len(out))})


def _tweeteval(src: Source, task: str) -> Table:
    records: list[Record] = []
    splits: dict[str, Sequence[int]] = {}
    for split, stem in (("train", "train"), ("dev", "val"), ("test", "test")):
        rel_t, rel_l = f"tweeteval/{task}/{stem}_text.txt", f"tweeteval/{task}/{stem}_labels.txt"
        texts, labels = src.read_lines(rel_t), src.read_lines(rel_l)
        if len(texts) != len(labels):
            raise src.error(rel_l, f"{len(labels)} labels for {len(texts)} texts in {rel_t}")
        start = len(records)
        for i, (t, lab) in enumerate(zip(texts, labels, strict=True)):
            y = src.binary(rel_l, i, lab, BINARY)
            records.append(Record(f"{split}-{i}", t, y, split, {task: y}))
        splits[split] = rows(len(records) - start, start)
    return Table(records, splits)


for _task, _rows, _about in (
    (
        "hate",
        (9000, 1000, 2970),
        ("TweetEval hate (SemEval-2019 HatEval), official train/val (dev)/test. label 1 = hate."),
    ),
    (
        "offensive",
        (11916, 1324, 860),
        (
            "TweetEval offensive (= OLID subtask A), official train/val "
            "(dev)/test. label 1 = offensive. Its test split is OLID's test set."
        ),
    ),
):
    dataset(
        DatasetSpec(
            name=f"tweeteval_{_task}",
            task=_task,
            splits=("train", "dev", "test"),
            default_split="test",
            files=tuple(
                f"tweeteval/{_task}/{s}_{k}.txt"
                for s in ("train", "val", "test")
                for k in ("text", "labels")
            ),
            description=_about,
            expected_rows=dict(zip(("train", "dev", "test"), _rows, strict=True)),
        )
    )(functools.partial(_tweeteval, task=_task))
