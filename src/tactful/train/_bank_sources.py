"""The training-eligible texts the teacher-label bank covers, by source.

A text is eligible when it is in neither a test split nor an audit set:

- registered data sets: their training and dev splits only (ToxicChat ``train_full``,
  SemEval-2021 ``train`` and ``dev``, the rater-level ToxicSpans comments that are
  not SemEval test posts, Jigsaw sentences ``dev``, and the sets with one ``all``
  split that no audit reads: Davidson, ToxiGen, ParaDetox, DeTexD, the jailbreak sets);
  the audit sets (``ss_*``, ``tv_synopses``) and their sources (Jigsaw Bias,
  Stormfront, TweetEval hate and offensive, OLID) are left out;
- the sets added for the harm taxonomy (``harmful_requests/``, ``benign_prompts/``,
  ``conan/``, ``toxigen/toxigen_seed_statements.csv``): split by item with
  :func:`item_split`, and only the items whose split is ``"train"`` are banked.

Each source's texts come once each (first occurrence), in the files' order.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Iterator
from itertools import chain
from pathlib import Path

from ..config import resolve_data_dir
from ..datasets._splits import TEST_SHARE, item_split
from ..errors import UnknownNameError

__all__ = ["BANK_SOURCES", "TEST_SHARE", "item_split", "source_texts"]


def _registered(name: str, *splits: str, exclude: Callable[[], set[str]] | None = None):
    def texts(data_dir: Path) -> Iterator[str]:
        from ..datasets import load_dataset

        drop = exclude() if exclude else set()
        for split in splits:
            for r in load_dataset(name, split, data_dir=data_dir):
                if r.text not in drop:
                    yield r.text

    return texts


def _csv_rows(path: Path) -> Iterator[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        yield from csv.DictReader(f)


# These three read the files themselves, not the registered harm sets: their texts, in
# this order, seed chat_variations' recombinations, which the bank holds by text. Each
# yields a subset of its sets' ``train`` parts (tactful.datasets._harm only moves test
# records whose text a train record holds into train), so no test text is banked.
def _harmful_requests(data_dir: Path) -> Iterator[str]:
    folder = data_dir / "harmful_requests"
    for r in _csv_rows(folder / "harmbench_behaviors.csv"):
        if item_split("harmbench", r["BehaviorID"]) == "train":
            yield r["Behavior"]
    for name in ("jbb_harmful_behaviors.csv", "jbb_benign_behaviors.csv"):
        for r in _csv_rows(folder / name):
            if item_split("jailbreakbench", r["Index"]) == "train":
                yield r["Goal"]
    for i, r in enumerate(_csv_rows(folder / "advbench_harmful_behaviors.csv")):
        if item_split("advbench", str(i)) == "train":
            yield r["goal"]
    lines = (folder / "malicious_instruct.txt").read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(x for x in lines if x.strip()):
        if item_split("malicious_instruct", str(i)) == "train":
            yield line.strip()


def _do_not_answer(data_dir: Path) -> Iterator[str]:
    for r in _csv_rows(data_dir / "harmful_requests" / "do_not_answer.csv"):
        if item_split("do_not_answer", r["id"]) != "train":
            continue
        yield r["question"]
        for k, v in r.items():
            if k.endswith("_response") and v and v.strip():
                yield v


def _truthfulqa(data_dir: Path) -> Iterator[str]:
    for i, r in enumerate(_csv_rows(data_dir / "benign_prompts" / "truthfulqa.csv")):
        if item_split("truthfulqa", str(i)) == "train":
            yield r["Question"]


def _semeval_posts() -> set[str]:
    # Test posts are not eligible; train and dev posts are the toxicspans source's.
    from ..datasets import load_dataset

    return {r.text for split in ("train", "dev", "test") for r in load_dataset("toxicspans", split)}


def _suite_training_templates(data_dir: Path) -> Iterator[str]:
    # The functional suite's *training* templates (disjoint from its test templates):
    # the targeted rows and every named template source.
    import importlib

    mod = importlib.import_module(_SUITE_DATA_MODULE)
    yield from (r.text for r in mod.training_records(data_dir))
    for flag in _TEMPLATE_FLAGS:
        yield from (r.text for r in getattr(mod, f"{flag}_template_records")())


def _chat_variations(data_dir: Path) -> Iterator[str]:
    # Crops of ToxicChat's train prompts (not dev: it chooses the operating points) and of
    # the in-the-wild jailbreaks; then jailbreak templates recombined with train requests.
    from ..datasets import load_dataset
    from ._variations import all_crops, recombine

    chat = [r.text for r in load_dataset("toxicchat", "train", data_dir=data_dir)]
    wild = [r.text for r in load_dataset("jailbreak_inthewild", "all", data_dir=data_dir)]
    fuzzer = [r.text for r in load_dataset("gptfuzzer", "all", data_dir=data_dir)]
    requests = [*_harmful_requests(data_dir), *_truthfulqa(data_dir)]
    # A crop can equal a held-out prompt verbatim (a short one): those are left out.
    held = {
        r.text for s in ("dev", "test") for r in load_dataset("toxicchat", s, data_dir=data_dir)
    }
    for text in chain(
        all_crops(chat),
        all_crops(wild),
        recombine(fuzzer, requests, VARIATION_REQUESTS_PER_FUZZER_TEMPLATE),
        recombine(wild, requests, VARIATION_REQUESTS_PER_WILD_TEMPLATE),
    ):
        if text not in held:
            yield text


#: Requests put into each GPTFuzzer template, and after each in-the-wild jailbreak.
VARIATION_REQUESTS_PER_FUZZER_TEMPLATE = 30
VARIATION_REQUESTS_PER_WILD_TEMPLATE = 6


#: Where the suite's training-data builders live, and the named template sources.
_SUITE_DATA_MODULE = "tactful.train"
_TEMPLATE_FLAGS = (
    "derogation",
    "delicate",
    "menace",
    "exclusion",
    "injection",
    "technical",
    "contrast",
)


#: Source name -> function of the data folder yielding the source's texts, in the
#: order a labelling leg takes them (chat prompts and harm sets first).
BANK_SOURCES: dict[str, Callable[[Path], Iterator[str]]] = {
    "toxicchat": _registered("toxicchat", "train_full"),
    "jailbreak_inthewild": _registered("jailbreak_inthewild", "all"),
    "deepset_injections": _registered("deepset_injections", "all"),
    "gptfuzzer": _registered("gptfuzzer", "all"),
    "harmful_requests": _harmful_requests,
    "do_not_answer": _do_not_answer,
    "truthfulqa": _truthfulqa,
    "conan": _registered("conan", "train"),
    "toxigen_seeds": _registered("toxigen_seeds", "train"),
    "detexd": _registered("detexd", "all"),
    "suite_training_templates": _suite_training_templates,
    "chat_variations": _chat_variations,
    "toxicspans": _registered("toxicspans", "train", "dev"),
    "toxicspans_raters": _registered("toxicspans_raters", "all", exclude=_semeval_posts),
    "toxigen": _registered("toxigen", "all"),
    "davidson": _registered("davidson", "all"),
    "jigsaw_sentences": _registered("jigsaw_sentences", "dev"),
    "dialoconan": _registered("dialoconan", "train"),
    "paradetox": _registered("paradetox", "all"),
}


def source_texts(source: str, data_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """The distinct non-empty texts of one bank source, first occurrence first, less every
    text of the harm sets' test parts (:func:`~tactful.datasets._harm.harm_test_texts`)."""
    from ..datasets._harm import harm_test_texts

    try:
        gen = BANK_SOURCES[source]
    except KeyError:
        raise UnknownNameError("bank source", source, BANK_SOURCES) from None
    root = Path(resolve_data_dir(data_dir))
    seen: set[str] = set(harm_test_texts(root))
    out: list[str] = []
    for t in gen(root):
        if t and t.strip() and t not in seen:
            seen.add(t)
            out.append(t)
    return out
