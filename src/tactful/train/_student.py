"""A student from the teacher-label bank, in one leg.

The bank (:mod:`tactful.train._bank`) holds a teacher's sequence probabilities for every
training-eligible text; it stores no text, only each text's sha256, so the texts are built
again from the data folder (:func:`~tactful.train._bank_sources.source_texts`) and joined by
key. The student's examples are a stage mixture (hard labels and gold spans), each with the
bank's probabilities as soft targets where the bank holds its text, plus every banked text
the mixture does not hold, with soft targets only. ToxicChat's ``dev`` and ``test`` prompts
are never examples: ``dev`` chooses the operating points.

Nothing here runs the teacher: a student needs no mpnet, and labels are paid for once.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import random
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, Unpack

import numpy as np

from .._hashing import sha256_file
from .._heads import CATEGORY_HEADS, SEQ_HEADS
from ..errors import ConfigError, DataError
from ._bank import CHAR_SOURCES, TeacherId, read_bank, read_chars, text_key
from ._bank_sources import BANK_SOURCES, source_texts
from ._dequantize import is_dequantizable
from ._distill import HARD_ONLY_SOURCES
from ._mixture import NAN, Example
from ._templates import TemplateFlags

__all__ = [
    "BANK_EMPTY_MESSAGE",
    "bank_examples",
    "installed_teacher",
    "student",
    "student_examples",
]

log = logging.getLogger("tactful.train")

BANK_EMPTY_MESSAGE = (
    "The bank in {bank} holds no labels of {teacher}: label first "
    "(tactful train label --teacher {name} --source all)."
)

#: Probabilities are clipped to this distance from 0 and 1 before they become logits.
EPS = 1e-4


def installed_teacher(name: str) -> TeacherId:
    """The :class:`TeacherId` of an installed packaged model (no model is loaded).

    A model whose category rows alone were grafted onto another (``tactful train
    category-heads --graft``) gives the eight heads' scores of that model bit for bit,
    so its bank labels are that model's: the identity is the one its card's
    ``category_heads.from`` records, and further back along the ``earlier`` grafts while
    those grafted category rows alone too. A refit of category rows alone without a graft
    keeps them bit for bit as well, unless it made an int8 head float
    (``dequantized_head``). A graft that refit one of the eight heads too (``--head
    threat``) is a teacher of its own."""
    from .._models import model_dir
    from ..taxonomy import HARM_CATEGORIES

    folder = model_dir(name)
    card = json.loads((folder / "card.json").read_text())
    ident = TeacherId(name, str(card["version"]), sha256_file(folder / "model.onnx"))
    graft = card.get("category_heads") or {}
    while set(graft.get("heads", ())) <= set(HARM_CATEGORIES) and (
        graft.get("grafted") or graft.get("dequantized_head") is False
    ):
        origin = graft["from"]
        ident = TeacherId(name, str(origin["version"]), str(origin["model.onnx sha256"]))
        graft = graft.get("earlier") or {}
    return ident


def _logits(p: np.ndarray) -> list[float]:
    q = np.clip(p.astype(np.float64), EPS, 1 - EPS)
    return [NAN if math.isnan(v) else float(v) for v in np.log(q / (1 - q))]


def bank_examples(
    mixture: Sequence[Example],
    bank: str | Path,
    teacher: TeacherId,
    data_dir: str | Path | None = None,
    *,
    sources: Sequence[str] | None = None,
    max_bank_only: int | None = None,
    seed: int = 0,
    held_out: frozenset[str] = frozenset(),
    heads: Sequence[str] = SEQ_HEADS,
    rows: Mapping[str, int] | None = None,
    hard_sources: Collection[str] = (),
) -> tuple[list[Example], dict[str, Any]]:
    """The student's examples and what they hold.

    ``heads`` are the student's sequence heads, the order of every target list: the
    examples of ``mixture`` have that many targets, and a head the bank's teacher lacks
    gets no soft target (a category student learns the harm categories from a category
    teacher's bank, as the eight heads; from another bank, from hard labels alone).
    ``rows`` reads only the first ``rows[source]`` rows of each source (none of a source it
    lacks): what the bank held when a run read it (the summary's ``bank_rows``), since a
    later labelling leg appends to a file.
    ``mixture``'s examples get the bank's logits as ``soft_seq`` where the bank holds
    their text (and, for a text of :data:`~tactful.train._bank.CHAR_SOURCES`, its
    per-character toxic logits as ``soft_tox``) (a labelled head of a :data:`~tactful.train.HARD_ONLY_SOURCES` row keeps
    its label alone); each banked text of ``sources`` (default: all) that the mixture
    lacks is added once with soft targets only (``max_bank_only``: a seeded sample of
    that many). Texts in ``held_out`` are dropped everywhere. A labelled head of a row
    of ``hard_sources`` (mixture sources, such as ``harm_requests``) keeps its label alone
    too: a set whose gold labels the teacher misses.

    Returns the examples (mixture first, then the bank-only texts, in sources' order) and
    a summary: examples, with soft targets, bank-only texts per source.

    Raises
    ------
    ConfigError
        The bank holds no labels of ``teacher`` (:data:`BANK_EMPTY_MESSAGE`).
    DataError
        A bank file was labelled by another teacher or is damaged.
    """
    names = list(BANK_SOURCES) if sources is None else list(sources)
    soft: dict[bytes, np.ndarray] = {}
    char_probs: dict[bytes, np.ndarray] = {}
    bank_only: list[Example] = []
    per_source: dict[str, int] = {}
    have = {e.text for e in mixture}
    bank_rows: dict[str, int] = {}
    for source in names:
        f = read_bank(bank, teacher, source)
        if f is None or (rows is not None and not rows.get(source)):
            continue
        n = len(f) if rows is None else rows[source]
        if n > len(f):
            raise DataError(
                f"The bank in {bank} holds {len(f)} rows of {source} by {teacher.folder}, "
                f"not the {n} the run read: the run cannot be rebuilt from it."
            )
        bank_rows[source] = n
        # The bank's files only grow at their end: the first n rows are the run's.
        index = {bytes(k): i for i, k in enumerate(f.keys[:n])}
        if source in CHAR_SOURCES:
            for key, arr in (read_chars(bank, teacher, source) or {}).items():
                if key in index:
                    char_probs.setdefault(key, arr)
        # The bank's heads, in the student's order (NaN for a head the teacher lacks).
        cols = [f.heads.index(h) if h in f.heads else -1 for h in heads]
        probs = np.concatenate([f.probs.astype(np.float32), np.full((len(f), 1), np.nan)], 1)
        probs = probs[:, cols]
        added = 0
        for text in source_texts(source, data_dir):
            key = text_key(text)
            i = index.get(key)
            if i is None or text in held_out:
                continue
            soft.setdefault(key, probs[i])
            if text not in have:
                have.add(text)
                bank_only.append(Example(text, f"bank:{source}", [NAN] * len(heads)))
                added += 1
        per_source[source] = added
    if not soft:
        raise ConfigError(BANK_EMPTY_MESSAGE.format(bank=bank, teacher=teacher, name=teacher.name))
    if max_bank_only is not None and len(bank_only) > max_bank_only:
        rng = random.Random(f"bank-only:{seed}")
        keep = set(rng.sample(range(len(bank_only)), max_bank_only))
        bank_only = [e for i, e in enumerate(bank_only) if i in keep]

    def with_soft(e: Example) -> Example:
        key = text_key(e.text)
        p = soft.get(key)
        if p is None:
            return e
        logits = _logits(p)
        if e.source in HARD_ONLY_SOURCES or e.source in hard_sources:
            logits = [v if math.isnan(h) else NAN for v, h in zip(logits, e.seq, strict=True)]
        c = char_probs.get(key)
        tox = None if c is None else np.array(_logits(c), dtype=np.float32)
        return dataclasses.replace(e, soft_seq=logits, soft_tox=tox)

    out = [with_soft(e) for e in mixture if e.text not in held_out] + [
        with_soft(e) for e in bank_only
    ]
    summary = {
        "examples": len(out),
        "with_soft_targets": sum(e.soft_seq is not None for e in out),
        "with_soft_characters": sum(e.soft_tox is not None for e in out),
        "mixture": len(out) - len(bank_only),
        "bank_only": len(bank_only),
        "bank_only_by_source": per_source,
        "bank_rows": bank_rows,
    }
    return out, summary


def student_examples(
    data_dir: str | Path | None,
    *,
    bank: str | Path,
    teacher: TeacherId,
    stage: int = 1,
    seed: int = 0,
    targeted: bool = False,
    spans: int = 0,
    categories: bool = False,
    max_bank_only: int | None = None,
    category_caps: Mapping[str, int] | None = None,
    template_rows: int | None = None,
    bank_rows: Mapping[str, int] | None = None,
    category_repeat: int = 1,
    template_revision: int | None = None,
    draw_seed: int | None = None,
    hard_sources: Collection[str] = (),
    **templates: Unpack[TemplateFlags],
) -> tuple[list[Example], int, dict[str, Any]]:
    """A bank student's examples in training order, the run's seed, and what they hold:
    :func:`~tactful.train.distill_examples`'s mixture of ``stage`` (without extra texts),
    with ``categories`` widened and joined by the category sources
    (:func:`~tactful.train._categories.category_mixture`, ``category_caps`` and
    ``template_rows`` defaulting to today's; each category template row
    ``category_repeat`` times: 824 of some 36,000 rows otherwise, too few to outweigh the
    teacher's scores on the banked texts, which call a figure of speech self-harm; the
    category templates of ``template_revision``, default the latest), then
    :func:`bank_examples` (ToxicChat's dev
    and test prompts and the category sources' dev texts held out; ``bank_rows``: see its
    ``rows``), shuffled by the run's seed. :func:`student` trains on them; ``tactful train
    trained-texts`` rebuilds them from a run's ``train.json``.

    ``draw_seed`` draws the rows (which rows of each capped source, of the SemEval posts
    and of the bank's texts) as ``seed=draw_seed`` would, and keeps ``seed`` for the run's
    seed and the order: legs that differ in ``seed`` alone then hold the same texts, so a
    soup of them has seen no more of a data set than one leg (DeTexD's unseen rows, which
    choose the delicate point). The summary records it as ``draw_seed``.

    ``hard_sources``: category sources (:data:`~tactful.train._categories.CATEGORY_SOURCES`)
    whose labelled heads learn from their gold labels alone, not from the teacher's scores
    as well (``builtin-large`` flags 0.775 of ``harm_requests``' harmful train rows); it
    needs ``categories``, and the summary records it as ``hard_sources``."""
    from ..datasets import load_dataset
    from ._categories import CATEGORY_CAPS, CATEGORY_SOURCES, category_examples, category_mixture
    from ._category_templates import TEMPLATE_REVISION
    from ._categoryhead import TEMPLATE_ROWS
    from ._distill import distill_examples
    from ._stages import stage_seed_offset

    if draw_seed is not None and draw_seed < 0:
        raise ConfigError(f"draw_seed must be 0 or more, not {draw_seed}.")
    hard = sorted(set(hard_sources))
    if hard and not categories:
        raise ConfigError("hard_sources needs categories: they are category sources.")
    unknown = [s for s in hard if s not in CATEGORY_SOURCES]
    if unknown:
        raise ConfigError(
            f"hard_sources: {', '.join(unknown)} is not a category source "
            f"({', '.join(CATEGORY_SOURCES)})."
        )

    # Never an example: the texts that choose the operating points or measure the model
    # (the bank holds the harm sets' dev texts: it was labelled before their dev part was
    # carved out of train, and the teacher's scores of them would leak into the points).
    revision = TEMPLATE_REVISION if template_revision is None else template_revision
    held = frozenset(
        r.text for s in ("dev", "test") for r in load_dataset("toxicchat", s, data_dir=data_dir)
    ) | frozenset(
        e.text for e in category_examples(data_dir, split="dev", template_revision=revision)
    )
    drawn = seed if draw_seed is None else draw_seed
    mixture, draw_run_seed = distill_examples(
        data_dir, stage=stage, seed=drawn, extra=0, targeted=targeted, spans=spans, **templates
    )
    run_seed = seed + stage_seed_offset(stage)
    heads: Sequence[str] = SEQ_HEADS
    extra_summary: dict[str, Any] = {}
    if categories:
        caps = dict(CATEGORY_CAPS if category_caps is None else category_caps)
        rows = TEMPLATE_ROWS if template_rows is None else template_rows
        heads = CATEGORY_HEADS
        if category_repeat < 1:
            raise ConfigError(f"category_repeat must be at least 1, not {category_repeat}.")
        mixture = category_mixture(
            mixture, data_dir, caps, template_rows=rows, template_revision=revision
        )
        mixture += [e for e in mixture if e.source == "category_templates"] * (category_repeat - 1)
        extra_summary["categories"] = {
            "caps": caps,
            "template_rows": rows,
            "template_revision": revision,
            "examples": len(mixture),
        }
        if category_repeat > 1:
            extra_summary["categories"]["category_repeat"] = category_repeat
    examples, summary = bank_examples(
        mixture,
        bank,
        teacher,
        data_dir,
        max_bank_only=max_bank_only,
        seed=draw_run_seed,
        held_out=held,
        heads=heads,
        rows=bank_rows,
        hard_sources=hard,
    )
    summary |= extra_summary
    if hard:
        summary["hard_sources"] = hard
    summary["max_bank_only"] = max_bank_only
    if draw_seed is not None:
        summary["draw_seed"] = draw_seed
    if categories:
        first = len(SEQ_HEADS)
        summary["categories"]["with_soft_category_targets"] = sum(
            e.soft_seq is not None and any(not math.isnan(v) for v in e.soft_seq[first:])
            for e in examples
        )
    random.Random(f"student:{run_seed}").shuffle(examples)
    return examples, run_seed, summary


def _init_from_model(
    folder: Path, out_dir: Path, categories: bool, layers: int | None
) -> dict[str, Any]:
    """Write ``out_dir/init.pt`` from the model folder ``folder`` and return what it was
    (``init_model`` in ``train.json``). Checked first, each with a one-line
    :class:`~tactful.errors.ConfigError`: the folder's heads are the run's, and its
    encoder layers ``layers`` (when given)."""
    import torch

    from ._dequantize import dequantized_state

    state, info = dequantized_state(folder)
    want = list(CATEGORY_HEADS if categories else SEQ_HEADS)
    if info["heads"] != want:
        hint = (
            "add --categories"
            if categories is False and len(info["heads"]) > len(want)
            else ("leave out --categories" if len(info["heads"]) < len(want) else "another model")
        )
        raise ConfigError(
            f"--init {folder}: its card lists {len(info['heads'])} heads, this run trains "
            f"{len(want)} ({hint})."
        )
    if layers is not None and info["layers"] != layers:
        raise ConfigError(
            f"--init {folder}: its encoder keeps {info['layers']} layers, not --layers {layers}."
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.save(state, out_dir / "init.pt")
    log.info("init: %s %s read back from %s", info["name"], info["version"], folder)
    if info["dropped_heads"]:
        log.info(
            "init: its grafted rows %s are not trained by a student; graft them again "
            "afterwards (tactful train category-heads --graft --head NAME)",
            ", ".join(info["dropped_heads"]),
        )
    return {**info, "dir": str(folder)}


def student(
    out: str | Path,
    *,
    teacher: str = "builtin-large",
    bank: str | Path = "training/bank",
    data_dir: str | Path | None = None,
    stage: int = 1,
    seed: int = 0,
    layers: int | None = None,
    epochs: float = 1.0,
    alpha: float = 0.7,
    temperature: float = 1.0,
    max_bank_only: int | None = None,
    threads: int = 2,
    export: bool = True,
    categories: bool = False,
    targeted: bool = False,
    spans: int = 0,
    init: str | Path | None = None,
    lr: float = 5e-5,
    head_lr: float = 1e-3,
    category_repeat: int = 1,
    draw_seed: int | None = None,
    hard_sources: Collection[str] = (),
    **templates: Unpack[TemplateFlags],
) -> Path:
    """Train a MiniLM student on :func:`bank_examples` of stage ``stage``'s mixture, and
    write a run folder like ``tactful train run`` (``model.pt``, ``train.json`` with the
    bank's summary, ``export/``).

    The mixture is :func:`~tactful.train.distill_examples`'s (``targeted``, ``spans``
    SemEval-2021 posts with gold spans, ``templates``: ``derogation=True``, ...), so a
    student of the bank can follow a distilled student's recipe without running its
    teacher. ``init``: a run's ``model.pt`` to start from (a later stage of a chain, at
    rates ``lr`` and ``head_lr``), or a shipped model folder, whose int8 graph is read
    back into weights (:func:`~tactful.train._dequantize.dequantized_state`, written to
    ``OUT/init.pt`` and recorded in ``train.json`` as ``init_model``): the committed
    model is the state a chain resumes from in a later session; otherwise the pretrained
    encoder.

    With ``categories`` the student has a head per harm category too: the examples are
    widened to :data:`~tactful._heads.CATEGORY_HEADS` and joined by the category sources
    (:func:`~tactful.train._categories.category_mixture`, with its default caps and the
    toxic-language templates with their categories), and then take the bank's soft
    targets, for the categories as well when the bank's teacher has them (a
    ``builtin-large`` 3.x bank): the student learns each category with its encoder from
    the teacher's score on every banked text, not from the category sources' labels alone;
    ``category_repeat``, ``draw_seed`` and ``hard_sources``: see :func:`student_examples`."""
    from ._config import TrainConfig, require_train_extra

    require_train_extra()
    from ._export import export_onnx
    from ._loop import train
    from ._run import _setup_logging

    out_dir = Path(out)
    if (out_dir / "model.pt").exists():
        raise ConfigError(f"{out_dir} already holds a model.pt: choose another --out.")
    init_model = None
    if init is not None and is_dequantizable(init):
        init_model = _init_from_model(Path(init), out_dir, categories, layers)
        init = out_dir / "init.pt"
    elif init is not None and not Path(init).is_file():
        raise ConfigError(f"--init {init}: no such model.pt or model folder.")
    _setup_logging(out_dir)
    tid = installed_teacher(teacher)
    examples, run_seed, summary = student_examples(
        data_dir,
        bank=bank,
        teacher=tid,
        stage=stage,
        seed=seed,
        targeted=targeted,
        spans=spans,
        categories=categories,
        max_bank_only=max_bank_only,
        category_repeat=category_repeat,
        draw_seed=draw_seed,
        hard_sources=hard_sources,
        **templates,
    )
    heads = CATEGORY_HEADS if categories else SEQ_HEADS
    log.info("student: %s", json.dumps(summary))
    cfg = TrainConfig(
        epochs=epochs,
        seed=run_seed,
        stage=stage,
        encoder="minilm",
        layers=layers,
        teacher=f"bank:{tid.folder}",
        alpha=alpha,
        temperature=temperature,
        threads=threads,
        heads=tuple(heads) if categories else None,
        init=str(init) if init is not None else None,
        lr=lr,
        head_lr=head_lr,
        targeted=targeted,
        spans=spans,
        **templates,
    )
    model = train(examples, out_dir, cfg)
    info = json.loads((out_dir / "train.json").read_text())
    if init_model is not None:
        info["init_model"] = init_model
    info["teacher_bank"] = {
        "bank": str(bank),
        "teacher": dataclasses.asdict(tid),
        **summary,
    }
    (out_dir / "train.json").write_text(json.dumps(info, indent=2))
    if export:
        export_onnx(model, out_dir / "export")
    return out_dir
