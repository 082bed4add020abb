"""Record what a shipped model was trained on: ``trained_texts.bin`` and the card's ``trained_on``.

    tactful train trained-texts [--data-dir DIR] [--model-dir DIR] [--check]

Reproduces the training mixture of every stage in ``card.json["training"]`` with
:func:`tactful.train.stage_mixture` (the stage and mixture seed the card records;
a soup lists each of its runs' stages), and refuses to write unless each stage's
example count and per-source counts equal the card's; a card whose delicate head was
refit (``tactful train delicate-head``) adds the texts of that refit
(:func:`tactful.train.delicate_head_examples`), and a card whose category rows were
refit or grafted (``tactful train category-heads``) the texts of each such refit
(:func:`tactful.train._categoryhead.category_refit_texts`, checked against the counts
its record gives). All DeTexD texts are
counted as seen only when no reproduced stage drew DeTexD rows (the delicate
head's only labelled source). Then it writes, beside the model:

``trained_texts.bin``
    :meth:`tactful.evaluate.TrainedTexts.to_bytes` of every training text: sorted
    unique little-endian uint64 fingerprints (:func:`tactful.evaluate.text_fingerprint`
    of its :func:`~tactful.evaluate.match_key`, so that a copy another corpus
    re-encoded matches), pinned in the card's ``sha256`` map. ``tactful eval`` and ``tactful audit`` count
    the scored rows among them and warn when a score is in-sample.
``card.json["trained_on"]``
    One entry per training source, ``{dataset, split, rows_seen, rows}`` for the
    split it was drawn from (``rows_seen``: rows of the split whose text the model
    saw, duplicates included); ``honest_figure`` where tactful has a protocol that
    scores the source without training on the scored rows (``tactful train cv
    detexd``). A source that is not a data set (texts made for training) gets
    ``split`` and ``rows`` null and its number of distinct texts as ``rows_seen``.
    Then every other data set split with rows the model saw, with
    ``via`` (the sources those texts came from): TweetEval offensive is OLID, and
    ToxicChat's test split repeats some train prompts. A split whose texts all lie
    in the split a source was drawn from (its cross-validation folds) is not listed.

``--check`` recomputes both and exits 1 when they differ from the shipped ones,
writing nothing. Needs the data folder (``--data-dir`` or ``$TACTFUL_DATA``);
no torch.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..datasets import dataset_names, get_spec, load_dataset
from ..errors import DataError, MissingDataError
from ..evaluate import TRAINED_TEXTS_FILE, TrainedTexts, match_key
from ..moderators.builtin import default_model_dir, load_card
from ._categoryhead import category_refit_texts
from ._cv import CV_PROTOCOLS
from ._delicatehead import delicate_head_examples
from ._distill import recorded_stage_examples
from ._provenance import card_stages

__all__ = ["TrainedTextsRecord", "record_trained_texts", "stage_texts", "trained_on"]


def stage_texts(data_dir: str | None, stage: dict[str, Any]) -> dict[str, set[str]]:
    """The texts of one recorded stage's mixture by source, checked against the record."""
    number = int(stage.get("stage", 1))
    examples, seed = recorded_stage_examples(data_dir, stage)
    counts = dict(Counter(e.source for e in examples))
    got = (seed, len(examples), counts)
    want = (stage["seed"], stage["examples"], stage["sources"])
    if got != want:
        raise DataError(
            f"stage {number} (seed {stage['seed']}) does not reproduce: "
            f"got seed/examples/sources {got}, the card says {want}."
        )
    out: dict[str, set[str]] = {}
    for e in examples:
        out.setdefault(e.source, set()).add(e.text)
    return out


def _split_keys(data_dir: str | None) -> tuple[dict[tuple[str, str], list[str]], list[str]]:
    """Every data set split's rows as match keys (largest split first); missing sets named."""
    keys: dict[tuple[str, str], list[str]] = {}
    missing = []
    for name in dataset_names():
        spec = get_spec(name)
        for split in spec.splits:
            try:
                rows = load_dataset(name, split=split, data_dir=data_dir)
            except MissingDataError:
                missing.append(f"{name}/{split}")
                continue
            keys[(name, split)] = [match_key(r.text) for r in rows]
    order = sorted(keys, key=lambda k: (-len(keys[k]), k))
    return {k: keys[k] for k in order}, missing


def trained_on(
    by_source: dict[str, set[str]],
    split_keys: dict[tuple[str, str], list[str]],
    encoder: str,
    student: str | None = None,
) -> list[dict[str, Any]]:
    """The card's ``trained_on`` list (see the module docstring); a source ``bank:NAME``
    (a bank student's banked texts) counts as data set ``NAME`` where one is so named.

    ``student`` (a distilled model's moderator name): its honest figure on a set it
    saw part of is ``tactful eval SET -m NAME --unseen``, since a cross-validation
    of the encoder alone is not its protocol.
    """
    # a bank student's banked texts of a data set (``bank:detexd``) were drawn from it
    names = {name for name, _ in split_keys}
    grouped: dict[str, set[str]] = {}
    for s, texts in by_source.items():
        bare = s.removeprefix("bank:")
        grouped.setdefault(bare if bare in names else s, set()).update(texts)
    src_keys = {s: {match_key(t) for t in texts} for s, texts in grouped.items()}
    every = set().union(*src_keys.values())
    entries: list[dict[str, Any]] = []
    drawn: dict[str, list[set[str]]] = {}
    for source in sorted(src_keys):
        mine = src_keys[source]
        # The split the source was drawn from holds the most of its texts (ties: the
        # smallest split, e.g. ToxicChat train rather than train + dev).
        candidates = [k for k in split_keys if k[0] == source]
        if not candidates:
            # Texts made for training (templates, swaps): no split; their distinct texts.
            entries.append({"dataset": source, "split": None, "rows_seen": len(mine), "rows": None})
            continue
        split = max(
            candidates,
            key=lambda k: (len(mine & set(split_keys[k])), -len(split_keys[k])),
        )[1]
        rows = split_keys[(source, split)]
        entry: dict[str, Any] = {
            "dataset": source,
            "split": split,
            "rows_seen": sum(k in mine for k in rows),
            "rows": len(rows),
        }
        if student is not None and entry["rows_seen"] < entry["rows"]:
            entry["honest_figure"] = f"tactful eval {source} -m {student} --unseen"
        elif source in CV_PROTOCOLS:
            flag = "" if encoder == "minilm" else f" --encoder {encoder}"
            entry["honest_figure"] = f"tactful train cv {source}{flag}"
        entries.append(entry)
        drawn.setdefault(source, []).append(set(rows))
    for (name, split), rows in split_keys.items():
        if any(e["dataset"] == name and e["split"] == split for e in entries):
            continue
        seen = [k for k in rows if k in every]
        if not seen:
            continue
        row_set = set(rows)
        if any(row_set <= other for other in drawn.get(name, [])):
            continue  # a fold of a split the model was drawn from
        via = sorted(s for s, mine in src_keys.items() if not mine.isdisjoint(seen))
        entries.append(
            {"dataset": name, "split": split, "rows_seen": len(seen), "rows": len(rows), "via": via}
        )
    return entries


@dataclass(frozen=True)
class TrainedTextsRecord:
    """What :func:`record_trained_texts` computed (and wrote, unless it checked).

    Attributes
    ----------
    path : Path
        The model folder's ``trained_texts.bin``.
    texts : int
        Distinct training texts.
    fingerprints : int
        Their distinct fingerprints.
    size : int
        Bytes of ``trained_texts.bin``.
    entries : list of dict
        The card's ``trained_on`` list.
    missing : list of str
        ``NAME/SPLIT`` of the data set splits not in the data folder (not checked).
    up_to_date : bool or None
        With ``check``: whether the shipped file and card equal the recomputed
        ones; ``None`` when they were written.
    """

    path: Path
    texts: int
    fingerprints: int
    size: int
    entries: list[dict[str, Any]]
    missing: list[str]
    up_to_date: bool | None


def record_trained_texts(
    model_dir: str | Path | None = None, data_dir: str | None = None, check: bool = False
) -> TrainedTextsRecord:
    """Write (or, with ``check``, compare) a model folder's ``trained_texts.bin`` and
    its card's ``trained_on`` (see the module docstring).

    Parameters
    ----------
    model_dir : str or Path, optional
        The model folder (default: the builtin model's).
    data_dir : str, optional
        The data folder (default: ``$TACTFUL_DATA``).
    check : bool
        Recompute both and compare them with the shipped ones; write nothing.

    Returns
    -------
    TrainedTextsRecord

    Raises
    ------
    DataError
        When a recorded stage's mixture does not reproduce.
    """
    folder = Path(model_dir) if model_dir is not None else default_model_dir()
    card = load_card(folder)

    by_source: dict[str, set[str]] = {}
    for stage in card_stages(card):
        for source, drawn in stage_texts(data_dir, stage).items():
            by_source.setdefault(source, set()).update(drawn)
    refit = card.get("delicate_head")
    if isinstance(refit, dict):
        # a delicate head refit on the frozen encoder (tactful train delicate-head):
        # the texts it learned from, rebuilt from the card
        cfg = refit["config"]
        for text, _, source in delicate_head_examples(
            data_dir, card, chat_negatives=int(cfg["chat_negatives"]), seed=int(cfg["seed"])
        ):
            by_source.setdefault(source, set()).add(text)
    if isinstance(card.get("category_heads"), dict):
        # category rows fit on the frozen encoder (tactful train category-heads), and the
        # refits before them: the texts each learned from, rebuilt from the card
        for source, drawn in category_refit_texts(data_dir, card).items():
            by_source.setdefault(source, set()).update(drawn)
    if "delicate" in card.get("heads", []) and "detexd" not in by_source:
        # a card whose stages are not all reproduced here: the delicate head's only
        # labelled source is DeTexD, so count all of it as seen
        by_source.setdefault("detexd", set()).update(
            r.text for r in load_dataset("detexd", split="all", data_dir=data_dir)
        )
    texts: set[str] = set().union(*by_source.values())
    seen = TrainedTexts.from_texts(texts)
    split_keys, missing = _split_keys(data_dir)
    stages = card_stages(card)
    encoder = str(stages[-1].get("config", {}).get("encoder", "minilm")) if stages else "minilm"
    distilled = bool(stages) and bool(stages[-1].get("config", {}).get("teacher"))
    entries = trained_on(
        by_source,
        split_keys,
        encoder,
        student=str(card.get("name", "builtin")) if distilled else None,
    )

    data = seen.to_bytes()
    path = folder / TRAINED_TEXTS_FILE
    record = TrainedTextsRecord(path, len(texts), len(seen), len(data), entries, missing, None)
    if check:
        same = (
            path.is_file()
            and path.read_bytes() == data
            and card.get("trained_on") == entries
            and card.get("sha256", {}).get(TRAINED_TEXTS_FILE) == hashlib.sha256(data).hexdigest()
        )
        return dataclasses.replace(record, up_to_date=same)
    path.write_bytes(data)
    out: dict[str, Any] = {}
    for key, value in card.items():
        if key == "trained_on":
            continue
        out[key] = value
        if key == "training":
            out["trained_on"] = entries
    out.setdefault("trained_on", entries)
    digest = hashlib.sha256(data).hexdigest()
    out["sha256"] = {**card.get("sha256", {}), TRAINED_TEXTS_FILE: digest}
    (folder / "card.json").write_text(json.dumps(out, indent=2) + "\n")
    return record
