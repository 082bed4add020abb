"""ToxicSpans: the SemEval-2021 Task 5 files and the rater-level data (Pavlopoulos et al., 2022)."""

from __future__ import annotations

from collections.abc import Sequence

from ._io import Source, Table, parse_offsets, rows
from ._record import Record
from ._spans import RATER_SPAN_TYPES, RATER_TYPE_ALIASES, offsets_to_spans, rater_gold_spans
from ._spec import DatasetSpec, dataset, split_names
from ._splits import random_split

TSD = {
    "train": "toxicspans/semeval2021/tsd_train.csv",
    "dev": "toxicspans/semeval2021/tsd_trial.csv",
    "test": "toxicspans/semeval2021/tsd_test.csv",
}


def semeval_spans_records(src: Source, rel: str, split: str) -> list[Record]:
    """Records of one SemEval-2021 Task 5 csv (``spans,text``)."""
    df = src.read_csv(rel, ["spans", "text"])
    out = []
    for i, (cell, text) in enumerate(zip(df["spans"], df["text"], strict=True)):
        spans, dropped = offsets_to_spans(parse_offsets(src, rel, i, cell), len(text))
        label = int(bool(spans))
        out.append(
            Record(
                f"{split}-{i}",
                text,
                label,
                split,
                {"toxicity": label},
                spans=spans,
                meta={"offsets_out_of_range": dropped},
            )
        )
    return out


@dataset(
    DatasetSpec(
        name="toxicspans",
        task="spans",
        splits=("train", "dev", "test"),
        default_split="test",
        files=tuple(TSD.values()),
        description=(
            "SemEval-2021 Task 5 toxic spans: tsd_train / tsd_trial (dev) / tsd_test. Offsets become "
            "spans labelled 'toxic' (contiguous runs); offsets past the end of the text are dropped "
            "and counted in meta['offsets_out_of_range'] (none in the shipped files). "
            "label = 1 iff the post has a span."
        ),
        expected_rows={"train": 7939, "dev": 690, "test": 2000},
    )
)
def _toxicspans(src: Source) -> Table:
    records: list[Record] = []
    splits: dict[str, Sequence[int]] = {}
    for split, rel in TSD.items():
        part = semeval_spans_records(src, rel, split)
        splits[split] = rows(len(part), len(records))
        records += part
    return Table(records, splits)


TS_COMMENTS = "toxicspans/comments.csv"
TS_ANNOTATIONS = "toxicspans/annotations.csv"
TS_SPANS = "toxicspans/spans.csv"
_MC = tuple(f"s{k}" for k in range(5))


def rater_records(src: Source) -> list[Record]:
    """Comments with their > 50%-of-raters gold spans (see :func:`rater_gold_spans`).

    ``meta["marked_by_any"]``: the offsets at least one rater marked (the union).
    """
    comments = src.read_csv(TS_COMMENTS, ["comment_id", "comment_text"])
    ann = src.read_csv(TS_ANNOTATIONS, ["annotation", "comment_id", "all toxic", "not toxic"])
    spans = src.read_csv(TS_SPANS, ["annotation", "type", "start", "end"])
    tick = {"True": 1, "False": 0}

    by_ann: dict[str, list[tuple[int, int, str]]] = {}
    for i, (a, typ, s, e) in enumerate(
        zip(spans["annotation"], spans["type"], spans["start"], spans["end"], strict=True)
    ):
        kind = RATER_TYPE_ALIASES.get(typ.strip().lower())
        if kind is None:
            raise src.error(
                TS_SPANS, f"unknown span type {typ!r} (known: {', '.join(RATER_SPAN_TYPES)})", i
            )
        try:
            start, end = int(s), int(e)
        except ValueError:
            raise src.error(TS_SPANS, f"start/end {s!r}/{e!r} are not integers", i) from None
        by_ann.setdefault(a, []).append((start, end, kind))

    raters: dict[str, list[str]] = {}
    votes: dict[str, list[int]] = {}
    for i, (a, cid, all_t, not_t) in enumerate(
        zip(ann["annotation"], ann["comment_id"], ann["all toxic"], ann["not toxic"], strict=True)
    ):
        raters.setdefault(cid, []).append(a)
        v = votes.setdefault(cid, [0, 0])
        v[0] += src.binary(TS_ANNOTATIONS, i, all_t, tick) or 0
        v[1] += src.binary(TS_ANNOTATIONS, i, not_t, tick) or 0

    out = []
    for cid, text in zip(comments["comment_id"], comments["comment_text"], strict=True):
        anns = raters.get(cid, [])
        marks = [by_ann.get(a, []) for a in anns]
        gold = rater_gold_spans(len(text), len(anns), marks)
        label = int(bool(gold))
        union = frozenset(
            i for m in marks for s, e, _ in m for i in range(max(0, s), min(len(text), e))
        )
        all_v, not_v = votes.get(cid, (0, 0))
        out.append(
            Record(
                cid,
                text,
                label,
                "all",
                {"toxicity": label},
                spans=gold,
                meta={
                    "n_raters": len(anns),
                    "all_toxic_votes": all_v,
                    "not_toxic_votes": not_v,
                    "marked_by_any": union,
                },
            )
        )
    return out


@dataset(
    DatasetSpec(
        name="toxicspans_raters",
        task="spans",
        splits=("all", *split_names(_MC, ("train", "dev", "test"))),
        default_split="all",
        files=(TS_COMMENTS, TS_ANNOTATIONS, TS_SPANS),
        description=(
            "ToxicSpans rater-level data (Pavlopoulos et al., 2022), ground truth rebuilt as in the "
            "paper: a character is toxic when more than 50% of the post's raters (its rows in "
            "annotations.csv) marked it; it takes the type most of them gave it (Insult -> insult, "
            "Threat -> threat, Identity based Attack -> identity_attack, Profane/Obscene -> "
            "profanity, Other toxicity -> other; misspellings and blank types per "
            "RATER_TYPE_ALIASES); same-type runs become spans. label = 1 iff a gold "
            "span exists. s{k}-train/dev/test: the paper's random 80/10/10 splits, seed k = 0..4. "
            "meta: n_raters, all_toxic_votes, not_toxic_votes (the 'all toxic' / 'not toxic' ticks, "
            "not turned into spans), marked_by_any (offsets at least one rater marked). id = comment_id."
        ),
        expected_rows={
            "all": 16100,
            **{
                f"s{k}-{p}": n
                for k in range(5)
                for p, n in (("train", 12880), ("dev", 1610), ("test", 1610))
            },
        },
    )
)
def _toxicspans_raters(src: Source) -> Table:
    out = rater_records(src)
    splits: dict[str, Sequence[int]] = {"all": rows(len(out))}
    for k in range(5):
        tr, dv, te = random_split(len(out), seed=k)
        splits[f"s{k}-train"], splits[f"s{k}-dev"], splits[f"s{k}-test"] = (
            tr.tolist(),
            dv.tolist(),
            te.tolist(),
        )
    return Table(out, splits)
