"""One loader per data set, registered with its :class:`DatasetSpec`.

Conventions shared by all loaders:

* ``Record.text`` is the text exactly as stored (CSV cells unquoted, JSON
  strings decoded, text files split on ``"\\n"`` only). The one exception is
  ToxiGen, whose cells are Python bytes literals (``b'...'``) and are decoded.
* ``Record.id`` is the source's id where it has one, else the 0-based row
  number in its file, prefixed with the split when a data set has several files.
* Labels are 1/0, ``None`` where the source does not say.
* Row counts are checked by the tests against ``DatasetSpec.expected_rows``.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import Any

from ..config import resolve_data_dir
from ._groups import TOXIGEN_GROUPS
from ._io import BINARY, Source, Table, parse_offsets
from ._record import Record
from ._spans import RATER_SPAN_TYPES, RATER_TYPE_ALIASES, offsets_to_spans, rater_gold_spans
from ._spec import DatasetSpec, dataset, split_names
from ._splits import random_split, stratified_holdout, stratified_kfold

__all__ = ["load_holistic_descriptors"]

#: Seed of every derived split (dev carve-outs, folds, the first random split).
SEED = 0


def _rows(n: int, start: int = 0) -> list[int]:
    return list(range(start, start + n))


def _relabel(records: list[Record], split_of: Mapping[int, str]) -> list[Record]:
    """Records with their natural split set from ``split_of`` (index → split)."""
    return [
        Record(
            r.id,
            r.text,
            r.label,
            split_of.get(i, r.split),
            r.labels,
            r.spans,
            r.groups,
            r.sub_identities,
            r.meta,
        )
        for i, r in enumerate(records)
    ]


def _text(src: Source, rel: str, row: int, value: Any) -> str:
    if not isinstance(value, str):
        raise src.error(rel, f"text is {type(value).__name__}, not a string", row)
    return value


# --------------------------------------------------------------------------- ToxicChat
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
            Record(
                str(rid), _text(src, rel, i, text), tox, split, {"toxicity": tox, "jailbreak": jb}
            )
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
    kept, held = stratified_holdout([r.label for r in train], 0.1, SEED)
    train = _relabel(train, {int(i): "dev" for i in held})
    n = len(train)
    return Table(
        train + test,
        {
            "train": kept.tolist(),
            "dev": held.tolist(),
            "train_full": _rows(n),
            "test": _rows(len(test), n),
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
    for i, (cid, text, ha, jb) in enumerate(
        zip(
            df["conv_id"], df["user_input"], df["human_annotation"], df["jailbreaking"], strict=True
        )
    ):
        is_human = src.binary(TC_ALL, i, ha, {"True": 1, "False": 0}) == 1
        jb = src.binary(TC_ALL, i, jb, BINARY)
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
    return Table(out, {"test": _rows(len(out))})


# --------------------------------------------------------------------------- DeTexD
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
            Record(
                str(i), _text(src, DETEXD, i, item["question"]), label, "all", {"delicate": label}
            )
        )
    splits: dict[str, Sequence[int]] = {"all": _rows(len(out))}
    for k, (tr, te) in enumerate(stratified_kfold([r.label for r in out], 5, SEED)):
        splits[f"cv{k}-train"], splits[f"cv{k}-test"] = tr.tolist(), te.tolist()
    return Table(out, splits)


@dataset(
    DatasetSpec(
        name="detexd_counterfactuals",
        task="delicate",
        splits=("all",),
        default_split="all",
        files=(DETEXD_CF,),
        description=(
            "DeTexD gender-swap probe: texts with a counterfactual where gendered words are swapped "
            "(meta['counterfactual']). No label (None): compare a moderator's scores on the pair."
        ),
        expected_rows={"all": 6},
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
                _text(src, DETEXD_CF, i, item["text"]),
                None,
                "all",
                meta={"counterfactual": _text(src, DETEXD_CF, i, item["text_counterfactual"])},
            )
        )
    return Table(out, {"all": _rows(len(out))})


# --------------------------------------------------------------------------- ToxicSpans
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
        splits[split] = _rows(len(part), len(records))
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
        label = RATER_TYPE_ALIASES.get(typ.strip().lower())
        if label is None:
            raise src.error(
                TS_SPANS, f"unknown span type {typ!r} (known: {', '.join(RATER_SPAN_TYPES)})", i
            )
        try:
            start, end = int(s), int(e)
        except ValueError:
            raise src.error(TS_SPANS, f"start/end {s!r}/{e!r} are not integers", i) from None
        by_ann.setdefault(a, []).append((start, end, label))

    raters: dict[str, list[str]] = {}
    votes: dict[str, list[int]] = {}
    for i, (a, cid, all_t, not_t) in enumerate(
        zip(ann["annotation"], ann["comment_id"], ann["all toxic"], ann["not toxic"], strict=True)
    ):
        raters.setdefault(cid, []).append(a)
        v = votes.setdefault(cid, [0, 0])
        v[0] += src.binary(TS_ANNOTATIONS, i, all_t, tick)
        v[1] += src.binary(TS_ANNOTATIONS, i, not_t, tick)

    out = []
    for cid, text in zip(comments["comment_id"], comments["comment_text"], strict=True):
        anns = raters.get(cid, [])
        marks = [by_ann.get(a, []) for a in anns]
        gold = rater_gold_spans(len(text), len(anns), marks)
        label = int(bool(gold))
        union = frozenset(i for m in marks for s, e, _ in m for i in range(max(0, s), min(len(text), e)))
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
                    "n_raters": len(anns), "all_toxic_votes": all_v, "not_toxic_votes": not_v,
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
    splits: dict[str, Sequence[int]] = {"all": _rows(len(out))}
    for k in range(5):
        tr, dv, te = random_split(len(out), seed=k)
        splits[f"s{k}-train"], splits[f"s{k}-dev"], splits[f"s{k}-test"] = (
            tr.tolist(),
            dv.tolist(),
            te.tolist(),
        )
    return Table(out, splits)


# --------------------------------------------------------------------------- hate / offensive
DAVIDSON = "davidson/labeled_data.csv"


@dataset(
    DatasetSpec(
        name="davidson",
        task="offensive",
        splits=("all",),
        default_split="all",
        files=(DAVIDSON,),
        description=(
            "Davidson et al. (2017) tweets. label = 1 when the majority class is hate (0) or "
            "offensive (1), 0 for neither (2); labels: hate, offensive; meta: the vote counts. "
            "id = the file's row id."
        ),
        expected_rows={"all": 24783},
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
    return Table(out, {"all": _rows(len(out))})


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
    return Table(out, {"train": _rows(len(out))})


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
        splits[split] = _rows(len(records) - start, start)
    return Table(records, splits)


def _tweeteval_files(task: str) -> tuple[str, ...]:
    return tuple(
        f"tweeteval/{task}/{s}_{k}.txt"
        for s in ("train", "val", "test")
        for k in ("text", "labels")
    )


@dataset(
    DatasetSpec(
        name="tweeteval_hate",
        task="hate",
        splits=("train", "dev", "test"),
        default_split="test",
        files=_tweeteval_files("hate"),
        description="TweetEval hate (SemEval-2019 HatEval), official train/val (dev)/test. label 1 = hate.",
        expected_rows={"train": 9000, "dev": 1000, "test": 2970},
    )
)
def _tweeteval_hate(src: Source) -> Table:
    return _tweeteval(src, "hate")


@dataset(
    DatasetSpec(
        name="tweeteval_offensive",
        task="offensive",
        splits=("train", "dev", "test"),
        default_split="test",
        files=_tweeteval_files("offensive"),
        description=(
            "TweetEval offensive (= OLID subtask A), official train/val (dev)/test. label 1 = offensive. "
            "Its test split is OLID's test set."
        ),
        expected_rows={"train": 11916, "dev": 1324, "test": 860},
    )
)
def _tweeteval_offensive(src: Source) -> Table:
    return _tweeteval(src, "offensive")


# --------------------------------------------------------------------------- ToxiGen
TOXIGEN = "toxigen/toxigen_annotated.csv"
#: ToxiGen rows are toxic when the mean human score (1–5) is at least this.
TOXIGEN_THRESHOLD = 4.0


def decode_bytes_literal(cell: str) -> str:
    """Text of a cell written as a Python bytes literal (``b'caf\\xc3\\xa9'`` → ``'café'``).

    Parsed with :func:`ast.literal_eval` (no code runs), decoded as UTF-8 with
    invalid bytes replaced. A cell that is not a bytes literal is returned as is.
    """
    s = cell.strip()
    if len(s) >= 3 and s[0] == "b" and s[1] in "'\"" and s[-1] == s[1]:
        try:
            value = ast.literal_eval(s)
        except (ValueError, SyntaxError):
            return cell
        if isinstance(value, bytes):
            return value.decode("utf-8", errors="replace")
    return cell


@dataset(
    DatasetSpec(
        name="toxigen",
        task="toxicity",
        splits=("all",),
        default_split="all",
        files=(TOXIGEN,),
        description=(
            "ToxiGen human-annotated statements about 13 minority groups (Hartvigsen et al., 2022). "
            "label = 1 when toxicity_human (mean of annotators' 1-5 harm scores) >= 4; "
            "labels: toxicity, prompt_hate (the generation prompt was hateful); meta: the raw "
            "toxicity_human and toxicity_ai scores, target_group. Texts are stored as Python bytes "
            "literals and decoded as UTF-8. groups: target_group mapped to the audit's groups; "
            "sub_identities: target_group. id = row number."
        ),
        expected_rows={"all": 8960},
    )
)
def _toxigen(src: Source) -> Table:
    df = src.read_csv(TOXIGEN, ["text", "target_group", "toxicity_human", "toxicity_ai", "label"])
    out = []
    for i, (cell, tg, th, ta, plabel) in enumerate(
        zip(
            df["text"],
            df["target_group"],
            df["toxicity_human"],
            df["toxicity_ai"],
            df["label"],
            strict=True,
        )
    ):
        try:
            th_f, ta_f = float(th), float(ta)
        except ValueError:
            raise src.error(TOXIGEN, f"toxicity scores {th!r}/{ta!r} are not numbers", i) from None
        if tg not in TOXIGEN_GROUPS:
            raise src.error(TOXIGEN, f"unknown target_group {tg!r}", i)
        y = int(th_f >= TOXIGEN_THRESHOLD)
        hate = src.binary(TOXIGEN, i, plabel, {"hate": 1, "neutral": 0})
        out.append(
            Record(
                str(i),
                decode_bytes_literal(cell),
                y,
                "all",
                {"toxicity": y, "prompt_hate": hate},
                groups=(TOXIGEN_GROUPS[tg],),
                sub_identities=(tg,),
                meta={"target_group": tg, "toxicity_human": th_f, "toxicity_ai": ta_f},
            )
        )
    return Table(out, {"all": _rows(len(out))})


# --------------------------------------------------------------------------- Jigsaw-derived
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
        splits[split] = _rows(len(records) - start, start)
    return Table(records, splits)


JIGSAW_BIAS = "jigsaw_bias/en_sentence_templates.csv"


@dataset(
    DatasetSpec(
        name="jigsaw_bias",
        task="toxicity",
        splits=("all",),
        default_split="all",
        files=(JIGSAW_BIAS,),
        description=(
            "Jigsaw unintended-bias identity templates (en_sentence_templates.csv, 76,564 phrases, "
            "the file the speech-suppression set is tagged from; bias_madlibs_77k.csv is another "
            "fill of the same templates). label = toxicity 'toxic'. meta['template']."
        ),
        expected_rows={"all": 76564},
    )
)
def _jigsaw_bias(src: Source) -> Table:
    df = src.read_csv(JIGSAW_BIAS, ["template", "toxicity", "phrase"])
    m = {"toxic": 1, "nontoxic": 0}
    out = []
    for i, (tpl, tox, text) in enumerate(
        zip(df["template"], df["toxicity"], df["phrase"], strict=True)
    ):
        y = src.binary(JIGSAW_BIAS, i, tox, m)
        out.append(Record(str(i), text, y, "all", {"toxicity": y}, meta={"template": tpl}))
    return Table(out, {"all": _rows(len(out))})


# --------------------------------------------------------------------------- jailbreaks
JB_WILD = "jailbreak/inthewild_jailbreak_prompts.json"
JB_DEEPSET = "jailbreak/deepset_prompt_injections_train.csv"
JB_FUZZER = "jailbreak/gptfuzzer_templates.csv"


@dataset(
    DatasetSpec(
        name="jailbreak_inthewild",
        task="jailbreak",
        splits=("all",),
        default_split="all",
        files=(JB_WILD,),
        description="In-the-wild jailbreak prompts (Shen et al., 2023): all are jailbreaks (label 1). id = row number.",
        expected_rows={"all": 666},
    )
)
def _jb_wild(src: Source) -> Table:
    data = src.read_json(JB_WILD)
    if not isinstance(data, list):
        raise src.error(JB_WILD, "expected a JSON list of prompts")
    out = [
        Record(str(i), _text(src, JB_WILD, i, t), 1, "all", {"jailbreak": 1})
        for i, t in enumerate(data)
    ]
    return Table(out, {"all": _rows(len(out))})


@dataset(
    DatasetSpec(
        name="deepset_injections",
        task="jailbreak",
        splits=("all",),
        default_split="all",
        files=(JB_DEEPSET,),
        description=(
            "deepset prompt-injections, train split: label 1 = prompt injection, 0 = benign request. "
            "id = row number."
        ),
        expected_rows={"all": 546},
    )
)
def _jb_deepset(src: Source) -> Table:
    df = src.read_csv(JB_DEEPSET, ["text", "label"])
    out = []
    for i, (t, lab) in enumerate(zip(df["text"], df["label"], strict=True)):
        y = src.binary(JB_DEEPSET, i, lab, BINARY)
        out.append(Record(str(i), t, y, "all", {"jailbreak": y}))
    return Table(out, {"all": _rows(len(out))})


@dataset(
    DatasetSpec(
        name="gptfuzzer",
        task="jailbreak",
        splits=("all",),
        default_split="all",
        files=(JB_FUZZER,),
        description=(
            "GPTFuzzer jailbreak templates (Yu et al., 2023), all label 1; they contain the "
            "placeholder '[INSERT PROMPT HERE]'. id = the file's id."
        ),
        expected_rows={"all": 77},
    )
)
def _jb_fuzzer(src: Source) -> Table:
    df = src.read_csv(JB_FUZZER, ["id", "text"])
    out = [
        Record(rid, t, 1, "all", {"jailbreak": 1})
        for rid, t in zip(df["id"], df["text"], strict=True)
    ]
    return Table(out, {"all": _rows(len(out))})


# --------------------------------------------------------------------------- HolisticBias
HOLISTIC_DESCRIPTORS = "holistic_bias/descriptors.json"


def _flatten_descriptors(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        if isinstance(node.get("descriptor"), str):
            return [node["descriptor"]]
        return [d for v in node.values() for d in _flatten_descriptors(v)]
    if isinstance(node, list):
        return [d for v in node for d in _flatten_descriptors(v)]
    return []


def load_holistic_descriptors(data_dir: str | Any | None = None) -> dict[str, list[str]]:
    """HolisticBias descriptors per demographic axis.

    Not a labelled data set: a vocabulary for identity taggers and template probes.

    Parameters
    ----------
    data_dir : str or path-like, optional
        The data folder; default from :func:`tactful.config.resolve_data_dir`.

    Returns
    -------
    dict of str to list of str
        Axis (``"ability"``, ``"gender_and_sex"``, ...) → descriptor strings, in
        file order, without duplicates.

    Raises
    ------
    MissingDataError, DataError
    """
    src = Source("holistic_bias", resolve_data_dir(data_dir))
    data = src.read_json(HOLISTIC_DESCRIPTORS)
    if not isinstance(data, dict):
        raise src.error(HOLISTIC_DESCRIPTORS, "expected a JSON object of axis -> descriptors")
    return {axis: list(dict.fromkeys(_flatten_descriptors(v))) for axis, v in data.items()}
