"""The harm sets: harmful requests, their harmless twins, AI responses, counter-speech.

Each is split by item with :func:`~tactful.datasets._splits.item_split` (about 20 % test
and 10 % dev, by a stable hash of the set's name and the item), so that no item straddles
the split: a Do-Not-Answer question with its six responses, a JailbreakBench behaviour with
its harmless twin, a DIALOCONAN dialogue. A test or dev record whose exact text a train
record of the same data set also holds is train, and a test record whose text a dev record
holds is dev (HarmBench and JailbreakBench share behaviours, DIALOCONAN repeats turns, the
chat models repeat stock refusals); a harmless twin follows its harmful twin. The ``dev``
part chooses the harm categories' operating points; only ``train`` is trained on. The
``train`` items are the ones the teacher-label bank's students read
(:mod:`tactful.train._bank_sources` splits them with the same keys, and drops every test
text, :func:`harm_test_texts`).

Where a set names the harm, ``Record.labels`` holds OpenAI's 13 categories
(:mod:`tactful.taxonomy`): 1 for the categories its label implies, ``None`` for the
subcategories of an implied category that the label does not decide (a "Self-Harm"
question may or may not state intent), 0 for the others; and tactful's own categories
(:data:`~tactful.taxonomy.EXTRA_CATEGORIES`) of a harmful request, 1 where its label
implies them and 0 otherwise (``None`` for a Do-Not-Answer question that is not one).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from dataclasses import replace

from ..taxonomy import CATEGORIES, EXTRA_CATEGORIES, categories_of, extra_categories_of
from ._io import Source, Table
from ._record import Record
from ._spec import DatasetSpec, dataset
from ._splits import item_split

#: Share of each harm set's items in its ``dev`` part (after the 20 % test part).
HARM_DEV_SHARE = 0.1

HARMBENCH = "harmful_requests/harmbench_behaviors.csv"
JBB_HARMFUL = "harmful_requests/jbb_harmful_behaviors.csv"
JBB_BENIGN = "harmful_requests/jbb_benign_behaviors.csv"
ADVBENCH = "harmful_requests/advbench_harmful_behaviors.csv"
MALICIOUS_INSTRUCT = "harmful_requests/malicious_instruct.txt"
DO_NOT_ANSWER = "harmful_requests/do_not_answer.csv"
TRUTHFULQA = "benign_prompts/truthfulqa.csv"
CONAN = "conan/Multitarget-CONAN.csv"
DIALOCONAN = "conan/DIALOCONAN.csv"
TOXIGEN_SEEDS = "toxigen/toxigen_seed_statements.csv"

#: The harm sets registered here; the teacher-label bank holds none of their test texts.
HARM_SETS = (
    "harm_requests",
    "harm_benign",
    "dna_responses",
    "conan",
    "dialoconan",
    "toxigen_seeds",
)

#: What the harmful requests are read from; the harmless twins and the responses read them
#: too, since each follows its harmful twin's or its question's split.
_REQUEST_FILES = (HARMBENCH, JBB_HARMFUL, ADVBENCH, MALICIOUS_INSTRUCT, DO_NOT_ANSWER)

#: The six chat models whose Do-Not-Answer responses the file holds.
DNA_MODELS = ("GPT4", "ChatGPT", "Claude", "ChatGLM2", "llama2-7b-chat", "vicuna-7b")


def category_labels(
    cats: Iterable[str], extras: Iterable[str] | None = ()
) -> dict[str, int | None]:
    """OpenAI's 13 categories as labels: 1 for ``cats``, ``None`` for an unlisted
    subcategory of a listed category, 0 for the rest; then tactful's own
    (:data:`~tactful.taxonomy.EXTRA_CATEGORIES`): 1 for ``extras``, 0 for the rest, every
    one ``None`` when ``extras`` is None (not decided)."""
    on = set(cats)
    out = {c: 1 if c in on else (None if c.split("/")[0] in on else 0) for c in CATEGORIES}
    own = None if extras is None else set(extras)
    out.update({c: None if own is None else int(c in own) for c in EXTRA_CATEGORIES})
    return out


def _split(source: str, item: str) -> str:
    return item_split(source, item, HARM_DEV_SHARE)


def _hate(rid: str, text: str, label: int, split: str, **meta: str) -> Record:
    return Record(rid, text, label, split, {"hate": label}, meta=meta)


def _binary(src: Source, rel: str, col: str, value: str, kinds: tuple[str, str], row: int) -> int:
    """1 for ``kinds[0]``, 0 for ``kinds[1]``; any other value is a one-line DataError."""
    if value not in kinds:
        raise src.error(rel, f"{col} is {value!r}, not {kinds[0]} or {kinds[1]}", row)
    return int(value == kinds[0])


def _table(records: list[Record]) -> Table:
    """The records split train/dev/test, where a test or dev record whose exact text a train
    record holds (a behaviour two sets share, a stock refusal, a repeated dialogue turn) is
    train, and a test record whose text a dev record holds is dev: no test text is ever
    trained on or chosen on."""
    train = {r.text for r in records if r.split == "train"}
    records = [
        replace(r, split="train") if r.split != "train" and r.text in train else r for r in records
    ]
    dev = {r.text for r in records if r.split == "dev"}
    records = [
        replace(r, split="dev") if r.split == "test" and r.text in dev else r for r in records
    ]
    return Table(
        records,
        {s: [i for i, r in enumerate(records) if r.split == s] for s in ("train", "dev", "test")},
    )


def _split_spec(
    name: str, task: str, files: tuple[str, ...], rows: dict[str, int], description: str
) -> DatasetSpec:
    return DatasetSpec(name, task, ("train", "dev", "test"), "test", files, description, rows)


@dataset(
    _split_spec(
        "harm_requests",
        "toxicity",
        _REQUEST_FILES,
        {"train": 1460, "dev": 191, "test": 408},
        "Harmful requests, label 1 = should be flagged: HarmBench's 400 behaviours "
        "(id 'harmbench-<BehaviorID>', its SemanticCategory in meta['category']), "
        "JailbreakBench's 100 harmful behaviours ('jbb-<Index>'), AdvBench's 520 "
        "('advbench-<row>'), MaliciousInstruct's 100 ('malicious_instruct-<line>') and "
        "Do-Not-Answer's 939 questions ('dna-<id>'; label 1 where its specific harm is one "
        "of OpenAI's categories, None for the risky-to-answer rest: privacy, advice, "
        "misinformation, a chatbot treated as a human). labels: OpenAI's 13 categories and tactful's two "
        "where the set names the harm (tactful.taxonomy), meta['set'] the source set. "
        "Split by item, about 20 % test and 10 % dev (item_split).",
    )
)
def _harm_requests(src: Source) -> Table:
    return _table(_request_records(src))


def _request_records(src: Source) -> list[Record]:
    out: list[Record] = []
    hb = src.read_csv(HARMBENCH, ["BehaviorID", "Behavior", "SemanticCategory"])
    for bid, text, cat in zip(
        hb["BehaviorID"], hb["Behavior"], hb["SemanticCategory"], strict=True
    ):
        out.append(
            Record(
                f"harmbench-{bid}",
                text,
                1,
                _split("harmbench", bid),
                category_labels(
                    categories_of("harmbench", cat), extra_categories_of("harmbench", cat)
                ),
                meta={"set": "harmbench", "category": cat},
            )
        )
    jb = src.read_csv(JBB_HARMFUL, ["Index", "Goal", "Category"])
    for idx, text, cat in zip(jb["Index"], jb["Goal"], jb["Category"], strict=True):
        out.append(
            Record(
                f"jbb-{idx}",
                text,
                1,
                _split("jailbreakbench", idx),
                category_labels(
                    categories_of("jailbreakbench", cat), extra_categories_of("jailbreakbench", cat)
                ),
                meta={"set": "jailbreakbench", "category": cat},
            )
        )
    for i, text in enumerate(src.read_csv(ADVBENCH, ["goal"])["goal"]):
        out.append(
            Record(f"advbench-{i}", text, 1, _split("advbench", str(i)), meta={"set": "advbench"})
        )
    lines = [ln.strip() for ln in src.read_lines(MALICIOUS_INSTRUCT) if ln.strip()]
    for i, text in enumerate(lines):
        out.append(
            Record(
                f"malicious_instruct-{i}",
                text,
                1,
                _split("malicious_instruct", str(i)),
                meta={"set": "malicious_instruct"},
            )
        )
    dna = src.read_csv(DO_NOT_ANSWER, ["id", "question", "specific_harms", "types_of_harm"])
    for qid, text, harm, kind in zip(
        dna["id"], dna["question"], dna["specific_harms"], dna["types_of_harm"], strict=True
    ):
        cats = categories_of("do_not_answer", harm)
        out.append(
            Record(
                f"dna-{qid}",
                text,
                1 if cats else None,
                _split("do_not_answer", qid),
                category_labels(cats, extra_categories_of("do_not_answer", harm) if cats else None),
                meta={
                    "set": "do_not_answer",
                    "category": harm.split(":", 1)[0].strip(),
                    "types_of_harm": kind,
                },
            )
        )
    return out


@dataset(
    _split_spec(
        "harm_benign",
        "toxicity",
        (JBB_BENIGN, TRUTHFULQA, *_REQUEST_FILES),
        {"train": 623, "dev": 83, "test": 184},
        "Harmless prompts, label 0: JailbreakBench's 100 benign behaviours, each the "
        "harmless twin of a harmful one on the same topic ('jbb-benign-<Index>', split with "
        "its twin), and TruthfulQA's 790 questions ('truthfulqa-<row>'). labels: every one "
        "of the 15 harm categories 0. Split by item, about 20 % test and 10 % dev (item_split).",
    )
)
def _harm_benign(src: Source) -> Table:
    out: list[Record] = []
    none = category_labels(())
    # A harmless twin follows its harmful twin's split, moved or not (see _table).
    harmful = _table(_request_records(src)).records
    twin = {r.id.removeprefix("jbb-"): r.split for r in harmful if r.id.startswith("jbb-")}
    jb = src.read_csv(JBB_BENIGN, ["Index", "Goal", "Category"])
    for idx, text, cat in zip(jb["Index"], jb["Goal"], jb["Category"], strict=True):
        out.append(
            Record(
                f"jbb-benign-{idx}",
                text,
                0,
                twin[idx],
                none,
                meta={"set": "jailbreakbench", "category": cat},
            )
        )
    tq = src.read_csv(TRUTHFULQA, ["Question", "Category"])
    for i, (text, cat) in enumerate(zip(tq["Question"], tq["Category"], strict=True)):
        out.append(
            Record(
                f"truthfulqa-{i}",
                text,
                0,
                _split("truthfulqa", str(i)),
                none,
                meta={"set": "truthfulqa", "category": cat},
            )
        )
    return _table(out)


@dataset(
    _split_spec(
        "dna_responses",
        "toxicity",
        _REQUEST_FILES,
        {"train": 4189, "dev": 510, "test": 935},
        "Do-Not-Answer's responses: six chat models' answers to its 939 risky questions, "
        "label 1 where the set's annotators judged the answer harmful (<model>_harmful). "
        "Moderation of AI outputs. id 'dna-<id>-<model>'; meta['question'] the question; "
        "empty answers are left out. Split by question, with the question (item_split).",
    )
)
def _dna_responses(src: Source) -> Table:
    cols = ["id", "question"] + [f"{m}_{k}" for m in DNA_MODELS for k in ("response", "harmful")]
    dna = src.read_csv(DO_NOT_ANSWER, cols)
    # The responses follow their question's split, moved or not (see _table).
    asked = {r.id: r.split for r in _table(_request_records(src)).records}
    out: list[Record] = []
    for row, qid in enumerate(dna["id"]):
        split = asked[f"dna-{qid}"]
        for m in DNA_MODELS:
            text = dna[f"{m}_response"][row]
            if not text.strip():
                continue
            flag = dna[f"{m}_harmful"][row].strip()
            if flag not in ("0", "1"):
                raise src.error(DO_NOT_ANSWER, f"{m}_harmful is {flag!r}, not 0 or 1", row)
            out.append(
                Record(
                    f"dna-{qid}-{m}",
                    text,
                    int(flag),
                    split,
                    {"toxicity": int(flag)},
                    meta={"set": "do_not_answer", "model": m, "question": dna["question"][row]},
                )
            )
    return _table(out)


@dataset(
    _split_spec(
        "conan",
        "hate",
        (CONAN,),
        {"train": 7479, "dev": 851, "test": 1676},
        "Multitarget-CONAN: 5,003 expert-written hate speech (label 1, id 'conan-<INDEX>-hs') "
        "and counter-narrative (label 0, 'conan-<INDEX>-cn') pairs; counter-narratives are "
        "harmless speech about the targeted group, often quoting or negating the hate. "
        "meta['target'] the targeted group. Split by pair (item_split). Research use only.",
    )
)
def _conan(src: Source) -> Table:
    df = src.read_csv(CONAN, ["INDEX", "HATE_SPEECH", "COUNTER_NARRATIVE", "TARGET"])
    out: list[Record] = []
    for idx, hs, cn, target in zip(
        df["INDEX"], df["HATE_SPEECH"], df["COUNTER_NARRATIVE"], df["TARGET"], strict=True
    ):
        split = _split("multitarget_conan", idx)
        out.append(_hate(f"conan-{idx}-hs", hs, 1, split, target=target, pair=idx))
        out.append(_hate(f"conan-{idx}-cn", cn, 0, split, target=target, pair=idx))
    return _table(out)


@dataset(
    _split_spec(
        "dialoconan",
        "hate",
        (DIALOCONAN,),
        {"train": 13447, "dev": 1228, "test": 1950},
        "DIALOCONAN: 16,625 turns (the data README says 16,681) of dialogues alternating "
        "hate speech (type HS, label 1) and counter-narratives (CN, label 0). "
        "id 'dialoconan-<dialogue_id>-<turn_id>'; meta['target'], meta['dialogue']. Split by dialogue (item_split). Research use only.",
    )
)
def _dialoconan(src: Source) -> Table:
    df = src.read_csv(DIALOCONAN, ["text", "TARGET", "dialogue_id", "turn_id", "type"])
    out: list[Record] = []
    for row, (text, target, dlg, turn, kind) in enumerate(
        zip(df["text"], df["TARGET"], df["dialogue_id"], df["turn_id"], df["type"], strict=True)
    ):
        label = _binary(src, DIALOCONAN, "type", kind, ("HS", "CN"), row)
        split = _split("dialoconan", dlg)
        out.append(
            _hate(f"dialoconan-{dlg}-{turn}", text, label, split, target=target, dialogue=dlg)
        )
    return _table(out)


@dataset(
    _split_spec(
        "toxigen_seeds",
        "hate",
        (TOXIGEN_SEEDS,),
        {"train": 536, "dev": 64, "test": 122},
        "ToxiGen's 722 human-written seed statements about 13 groups: implicit, mostly "
        "profanity-free hate (label 1) and harmless statements about the group (label 0). "
        "id 'toxigen_seeds-<row>', meta['target'] the group. Split by row (item_split).",
    )
)
def _toxigen_seeds(src: Source) -> Table:
    df = src.read_csv(TOXIGEN_SEEDS, ["target_group", "label", "text"])
    out: list[Record] = []
    for i, (group, lab, text) in enumerate(
        zip(df["target_group"], df["label"], df["text"], strict=True)
    ):
        label = _binary(src, TOXIGEN_SEEDS, "label", lab, ("hate", "neutral"), i)
        split = _split("toxigen_seeds", str(i))
        out.append(_hate(f"toxigen_seeds-{i}", text, label, split, target=group))
    return _table(out)


def harm_test_texts(data_dir: str | os.PathLike[str] | None = None) -> frozenset[str]:
    """Every text of the harm sets' ``test`` parts, which training never reads.

    The sets overlap one another and older sets (DIALOCONAN quotes Multitarget-CONAN,
    ToxiGen's annotated sentences include seed statements), so a text that is test in one
    may be train, or ``all``, in another: the teacher-label bank drops these texts
    wherever they come from. A set whose files the folder lacks adds nothing.
    """
    from ..config import resolve_data_dir

    return _harm_test_texts(str(resolve_data_dir(data_dir)))


@functools.lru_cache(maxsize=4)
def _harm_test_texts(root: str) -> frozenset[str]:
    from ..errors import MissingDataError
    from . import load_dataset

    out: set[str] = set()
    for name in HARM_SETS:
        try:  # a data folder without the set has none of its texts to hold out
            out.update(r.text for r in load_dataset(name, "test", data_dir=root))
        except MissingDataError:
            continue
    return frozenset(out)
