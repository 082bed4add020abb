"""Data sets beyond the first batch: OpenAI moderation, ParaDetox, the
speech-suppression sets with their identity tags, Stormfront and TV synopses.

Conventions are those of :mod:`tactful.datasets._loaders`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._groups import normalize_groups
from ._io import BINARY, BINARY_OR_MISSING, Source, Table
from ._record import Record
from ._spec import DatasetSpec, dataset

#: OpenAI moderation categories, in the file's order.
OPENAI_CATEGORIES = ("S", "H", "V", "HR", "SH", "S3", "H2", "V2")


def _rows(n: int, start: int = 0) -> list[int]:
    return list(range(start, start + n))


def _any_positive(values: Sequence[int | None]) -> int | None:
    """1 if any value is 1; 0 if at least one is known and all known are 0; else None."""
    if any(v == 1 for v in values):
        return 1
    if any(v == 0 for v in values):
        return 0
    return None


def _tags(cell: str) -> tuple[str, ...]:
    """``"white;asian"`` → ``("white", "asian")``: stripped, blanks and repeats dropped."""
    return tuple(dict.fromkeys(t.strip() for t in cell.split(";") if t.strip()))


# --------------------------------------------------------------------------- OpenAI
OPENAI = "openai_moderation/samples-1680.jsonl.gz"


@dataset(
    DatasetSpec(
        name="openai_moderation",
        task="toxicity",
        splits=("all",),
        default_split="all",
        files=(OPENAI,),
        description=(
            "OpenAI moderation evaluation set (Markov et al., 2023). labels = the 8 categories "
            "S, H, V, HR, SH, S3, H2, V2 (1 / 0 / None when the file has no value). label = 1 if any "
            "category is 1, 0 if none is and at least one is known, None if none is known (no such "
            "row in the file). id = row number."
        ),
        expected_rows={"all": 1680},
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
        out.append(Record(str(i), item["prompt"], _any_positive(list(cats.values())), "all", cats))
    return Table(out, {"all": _rows(len(out))})


# --------------------------------------------------------------------------- ParaDetox
PARADETOX = "paradetox/paradetox.tsv"


@dataset(
    DatasetSpec(
        name="paradetox",
        task="toxicity",
        splits=("all",),
        default_split="all",
        files=(PARADETOX,),
        description=(
            "ParaDetox (Logacheva et al., 2022): 11,927 toxic sentences (label 1) each followed by "
            "its 1-3 human civil rewrites (label 0): 19,743 rewrites, 31,670 rows. "
            "meta['pair'] = the toxic row number shared by a sentence and its rewrites, "
            "meta['rewrite'] = 0 for the toxic sentence, k for neutral{k}. "
            "id = '<pair>-toxic' / '<pair>-neutral<k>'."
        ),
        expected_rows={"all": 31670},
    )
)
def _paradetox(src: Source) -> Table:
    df = src.read_csv(PARADETOX, ["toxic", "neutral1", "neutral2", "neutral3"], sep="\t")
    out = []
    for i, row in enumerate(
        zip(df["toxic"], df["neutral1"], df["neutral2"], df["neutral3"], strict=True)
    ):
        out.append(
            Record(f"{i}-toxic", row[0], 1, "all", {"toxicity": 1}, meta={"pair": i, "rewrite": 0})
        )
        for k in (1, 2, 3):
            if row[k].strip():
                out.append(
                    Record(
                        f"{i}-neutral{k}",
                        row[k],
                        0,
                        "all",
                        {"toxicity": 0},
                        meta={"pair": i, "rewrite": k},
                    )
                )
    return Table(out, {"all": _rows(len(out))})


# --------------------------------------------------------------------------- speech suppression
SS_JIGSAW = "speech_suppression/jigsaw_bias_with_identities.csv"
SS_STORMFRONT = "speech_suppression/stormfront_with_identities.csv"
SS_OPENAI = "speech_suppression/openai_moderation_with_identities.csv"
SS_TWEETEVAL = {t: f"speech_suppression/tweeteval_{t}_all.csv" for t in ("hate", "offensive")}

_SS_NOTE = (
    " groups: the paper's Big_identity tags mapped to its 9 groups (GROUP_ALIASES, e.g. "
    "'lgbt-related' -> 'lgbt'); sub_identities: its Sub_Identities tags. id = row number."
)


def _ss_records(
    src: Source,
    rel: str,
    text_col: str,
    label_col: str,
    mapping: dict[str, int | None],
    label_key: str,
    extra: Sequence[str] = (),
    meta_cols: Sequence[str] = (),
) -> list[Record]:
    df = src.read_csv(
        rel, [text_col, label_col, "Big_identity", "Sub_Identities", *extra, *meta_cols]
    )
    texts, ys, bigs, subs = (df[c] for c in (text_col, label_col, "Big_identity", "Sub_Identities"))
    extras = {c: df[c] for c in extra}
    metas = {c: df[c] for c in meta_cols}
    groups_of: dict[str, tuple[str, ...]] = {}  # few distinct cells: map each once
    out = []
    for i in range(len(texts)):
        y = src.binary(rel, i, ys[i], mapping)
        labels: dict[str, int | None] = {label_key: y}
        for c, col in extras.items():
            labels[c] = src.binary(rel, i, col[i], BINARY_OR_MISSING)
        if bigs[i] not in groups_of:
            groups_of[bigs[i]] = normalize_groups(
                bigs[i].split(";"), where=f"{rel}, data row {i + 1}"
            )
        out.append(
            Record(
                str(i),
                texts[i],
                y,
                "all",
                labels,
                groups=groups_of[bigs[i]],
                sub_identities=_tags(subs[i]),
                meta={c: col[i] for c, col in metas.items()},
            )
        )
    return out


@dataset(
    DatasetSpec(
        name="ss_jigsaw_bias",
        task="toxicity",
        splits=("all",),
        default_split="all",
        files=(SS_JIGSAW,),
        description=(
            "Speech-suppression paper (Anigboro et al., 2024): Jigsaw bias templates with identity "
            "tags. label = toxicity 'toxic'; meta['template']." + _SS_NOTE
        ),
        expected_rows={"all": 60560},
    )
)
def _ss_jigsaw(src: Source) -> Table:
    out = _ss_records(
        src,
        SS_JIGSAW,
        "phrase",
        "toxicity",
        {"toxic": 1, "nontoxic": 0},
        "toxicity",
        meta_cols=("template",),
    )
    return Table(out, {"all": _rows(len(out))})


@dataset(
    DatasetSpec(
        name="ss_stormfront",
        task="hate",
        splits=("all",),
        default_split="all",
        files=(SS_STORMFRONT,),
        description="Speech-suppression paper: Stormfront sentences, label 1 = hate, 0 = not."
        + _SS_NOTE,
        expected_rows={"all": 10944},
    )
)
def _ss_stormfront(src: Source) -> Table:
    out = _ss_records(src, SS_STORMFRONT, "Sentence", "label", BINARY, "hate")
    return Table(out, {"all": _rows(len(out))})


@dataset(
    DatasetSpec(
        name="ss_openai",
        task="toxicity",
        splits=("all",),
        default_split="all",
        files=(SS_OPENAI,),
        description=(
            "Speech-suppression paper: the OpenAI moderation set with identity tags. label = Toxic; "
            "labels: toxic and the 8 categories (None when missing)." + _SS_NOTE
        ),
        expected_rows={"all": 1680},
    )
)
def _ss_openai(src: Source) -> Table:
    out = _ss_records(src, SS_OPENAI, "prompt", "Toxic", BINARY, "toxic", extra=OPENAI_CATEGORIES)
    return Table(out, {"all": _rows(len(out))})


def _ss_tweeteval(src: Source, task: str) -> Table:
    rel = SS_TWEETEVAL[task]
    df = src.read_csv(rel, ["Text", "Toxicity"])
    out = []
    for i, (t, lab) in enumerate(zip(df["Text"], df["Toxicity"], strict=True)):
        y = src.binary(rel, i, lab, BINARY)
        out.append(Record(str(i), t, y, "all", {task: y}))
    return Table(out, {"all": _rows(len(out))})


@dataset(
    DatasetSpec(
        name="ss_tweeteval_hate",
        task="hate",
        splits=("all",),
        default_split="all",
        files=(SS_TWEETEVAL["hate"],),
        description=(
            "Speech-suppression paper: TweetEval hate, all splits merged, label 1 = hate. The file "
            "has no identity tags (groups empty; tag them with a lexicon). id = row number."
        ),
        expected_rows={"all": 12970},
    )
)
def _ss_tweeteval_hate(src: Source) -> Table:
    return _ss_tweeteval(src, "hate")


@dataset(
    DatasetSpec(
        name="ss_tweeteval_offensive",
        task="offensive",
        splits=("all",),
        default_split="all",
        files=(SS_TWEETEVAL["offensive"],),
        description=(
            "Speech-suppression paper: TweetEval offensive (OLID), all splits merged, label 1 = "
            "offensive. No identity tags in the file. It contains OLID train: do not audit a model "
            "trained on OLID with it. id = row number."
        ),
        expected_rows={"all": 14100},
    )
)
def _ss_tweeteval_offensive(src: Source) -> Table:
    return _ss_tweeteval(src, "offensive")


@dataset(
    DatasetSpec(
        name="stormfront",
        task="hate",
        splits=("all",),
        default_split="all",
        files=(SS_STORMFRONT,),
        description=(
            "Stormfront white-supremacist forum sentences (de Gibert et al., 2018), text and label "
            "(1 = hate, 0 = noHate/relation/idk) from the speech-suppression copy. "
            "stormfront/annotations_metadata.csv is NOT joined: its row order differs from the text "
            "file's (the hate labels agree at 80.7% of positions, the chance level), so the finer "
            "relation / idk labels cannot be attached. Same rows as ss_stormfront, without identity "
            "tags. id = row number."
        ),
        expected_rows={"all": 10944},
    )
)
def _stormfront(src: Source) -> Table:
    df = src.read_csv(SS_STORMFRONT, ["Sentence", "label"])
    out = []
    for i, (t, lab) in enumerate(zip(df["Sentence"], df["label"], strict=True)):
        y = src.binary(SS_STORMFRONT, i, lab, BINARY)
        out.append(Record(str(i), t, y, "all", {"hate": y}))
    return Table(out, {"all": _rows(len(out))})
