"""Distillation: a large run (the teacher) labels the training texts with its logits,
and a smaller model learns from them and from the hard labels (issue 11 item 3).

The teacher and the student need not share a tokenizer (mpnet and MiniLM do
not): the teacher's toxic-token logits are stored per *character* of each text
and the student's token targets are their mean over its own tokens' characters.
The teacher's outputs are cached in ``OUT/teacher/`` in parts, by text, so a
killed run resumes where it stopped and other mixtures reuse what is there.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import math
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Unpack

import numpy as np

from ..errors import ConfigError
from ..params import Bool, Constraints, Float, Int, Nullable, PathLike, Str, validate_params
from ._config import TrainConfig, load_tokenizer, require_train_extra
from ._mixture import Example, drop_fold
from ._templates import TEMPLATE_CONSTRAINTS, TEMPLATE_SOURCES, TemplateFlags, template_flags

__all__ = [
    "HARD_ONLY_SOURCES",
    "TEACHER_PART",
    "distill",
    "distill_examples",
    "is_model_folder",
    "recorded_stage_examples",
    "teacher_identity",
    "teacher_logits",
    "with_soft_targets",
]

log = logging.getLogger("tactful.train")

#: Texts per cached part of the teacher's outputs (``OUT/teacher/part-0000.npz`` ...).
TEACHER_PART = 256


def teacher_identity(teacher: str | Path) -> dict[str, Any]:
    """What a student's ``train.json`` records of its teacher, so that the card still
    names it after the folder changes: a model folder's card name, version and
    ``model.onnx`` sha256, or a run's path and ``model.pt`` sha256."""
    from .._hashing import sha256_file

    p = Path(teacher)
    if is_model_folder(p):
        card = json.loads((p / "card.json").read_text())
        return {
            "path": str(p),
            "name": card.get("name"),
            "version": card.get("version"),
            "model.onnx sha256": sha256_file(p / "model.onnx"),
        }
    return {"path": str(p), "model.pt sha256": sha256_file(p / "model.pt")}


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def is_model_folder(path: str | Path) -> bool:
    """Whether ``path`` is a shipped model folder (``card.json`` and ``model.onnx``, no
    ``model.pt``): a teacher that runs with onnxruntime, without its training run."""
    p = Path(path)
    return (
        (p / "card.json").is_file()
        and (p / "model.onnx").is_file()
        and not (p / "model.pt").is_file()
    )


#: A teacher: texts in, (sequence logits [n, H], per text a toxic logit per character).
_Teacher = Callable[[list[str]], tuple[np.ndarray, list[np.ndarray]]]


def _logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(p.astype(np.float64), 1e-6, 1 - 1e-6)
    return np.log(q / (1 - q)).astype(np.float32)


def _onnx_teacher(folder: Path) -> _Teacher:
    """A shipped model folder as a teacher, through the builtin runtime.

    The runtime reads whole texts (windows, max over windows) and answers
    probabilities: the logits are their log-odds (clipped at 1e-6). A token's
    logit goes to the characters of the *original* text it covers (through the
    normalizer's offset map), like the runtime's spans.
    """
    from ..align import align_tokens
    from ..moderators.builtin import BuiltinModerator

    mod = BuiltinModerator(model_dir=str(folder)).load()

    def run(chunk: list[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        seq, tox, _typ, norms, offsets = mod.predict_arrays(chunk)
        per_char = []
        for text, t, norm, offs in zip(chunk, tox, norms, offsets, strict=True):
            out = np.full(len(text), np.nan, dtype=np.float32)
            logits = _logit(t)
            for k, (a, z) in enumerate(align_tokens(list(offs), norm)):
                if z > a:
                    out[a:z] = logits[k] if np.isnan(out[a]) else max(out[a], logits[k])
            per_char.append(out)
        return _logit(seq), per_char

    return run


def _torch_teacher(run_dir: Path, batch_size: int, max_len: int) -> _Teacher:
    """A training run's ``model.pt`` as a teacher (its first ``max_len`` tokens)."""
    import torch

    from ._loop import Encoded, collate
    from ._run import load_run, run_encoder

    tok = load_tokenizer(max_len=max_len, encoder=run_encoder(run_dir))
    model = load_run(run_dir)

    def run(chunk: list[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        encs = [tok.encode(t) for t in chunk]
        seq = np.zeros((len(chunk), model.seq_head.out_features), dtype=np.float32)
        per_char = [np.full(len(t), np.nan, dtype=np.float32) for t in chunk]
        order = sorted(range(len(chunk)), key=lambda i: len(encs[i].ids))
        with torch.inference_mode():
            for b in range(0, len(order), batch_size):
                idx = order[b : b + batch_size]
                batch = collate(
                    [
                        Encoded(
                            encs[i].ids,
                            [0.0] * seq.shape[1],
                            [-100] * len(encs[i].ids),
                            [-100] * len(encs[i].ids),
                        )
                        for i in idx
                    ]
                )
                s, t = model(batch["input_ids"], batch["attention_mask"])
                seq[idx] = s.numpy()
                tox = t[..., 0].numpy()
                for r, i in enumerate(idx):
                    e = encs[i]
                    for k, ((a, z), special) in enumerate(
                        zip(e.offsets, e.special_tokens_mask, strict=True)
                    ):
                        if not special and z > a:
                            per_char[i][a:z] = tox[r, k]
        return seq, per_char

    return run


def _read_cache(cache: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every cached text's (sequence logits, per-character logits), by text hash."""
    got: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for path in sorted(cache.glob("part-*.npz")):
        if path.name.endswith(".tmp.npz"):
            continue
        with np.load(path) as z:
            stored = z["chars"].astype(np.float32)  # kept as float16
            per = np.split(stored, np.cumsum(z["lens"])[:-1]) if len(z["lens"]) else []
            for key, seq, chars in zip(z["keys"], z["seq"], per, strict=True):
                got[str(key)] = (seq, chars)
    return got


def teacher_logits(
    teacher_run: str | Path,
    texts: Sequence[str],
    cache: str | Path,
    *,
    batch_size: int = 16,
    max_len: int = 256,
) -> tuple[np.ndarray, list[np.ndarray]]:
    """The teacher's sequence logits ``[len(texts), len(SEQ_HEADS)]`` and, per text,
    its toxic-token logit per character (float32, NaN where no token of the
    teacher covered the character).

    ``teacher_run`` is a training run (its ``model.pt``, run in PyTorch on the
    first ``max_len`` tokens) or a shipped model folder (``card.json`` and
    ``model.onnx``, e.g. the packaged ``builtin-large``: run by the builtin
    runtime over the whole text, logits = the log-odds of its probabilities), so
    that a student can be distilled from a model whose run is gone.

    ``texts`` must be distinct. The outputs are cached in ``cache`` by text
    (sha256), in parts of :data:`TEACHER_PART` texts: a text already in a part is
    read, not recomputed, so a killed run resumes and runs with other mixtures of
    the same teacher share one cache (copy or point ``OUT/teacher`` at it).
    """
    if len(set(texts)) != len(texts):
        raise ConfigError("teacher_logits needs distinct texts.")
    onnx = is_model_folder(teacher_run)
    if not onnx:
        require_train_extra()
    cache = Path(cache)
    cache.mkdir(parents=True, exist_ok=True)
    have = _read_cache(cache)
    keys = [_key(t) for t in texts]
    missing = [i for i, k in enumerate(keys) if k not in have]
    if missing:
        log.info("teacher: %d of %d texts cached", len(texts) - len(missing), len(texts))
        teacher = (
            _onnx_teacher(Path(teacher_run))
            if onnx
            else _torch_teacher(Path(teacher_run), batch_size, max_len)
        )
        part = 1 + max(
            (int(p.stem.split("-")[1]) for p in cache.glob("part-*[0-9].npz")), default=-1
        )
        for start in range(0, len(missing), TEACHER_PART):
            idx = missing[start : start + TEACHER_PART]
            seq, per_char = teacher([texts[i] for i in idx])
            lens = np.array([len(c) for c in per_char], dtype=np.int64)
            flat = np.concatenate(per_char) if per_char else np.zeros(0, np.float32)
            path = cache / f"part-{part:04d}.npz"
            tmp = path.with_suffix(".tmp.npz")
            np.savez(
                tmp,
                keys=np.array([keys[i] for i in idx]),
                seq=seq,
                lens=lens,
                chars=flat.astype(np.float16),
            )
            tmp.replace(path)
            part += 1
            for i, row, c in zip(idx, seq, per_char, strict=True):
                have[keys[i]] = (row, c.astype(np.float16).astype(np.float32))
            log.info("teacher: %d/%d texts", start + len(idx), len(missing))
    if not texts:
        return np.zeros((0, 0), np.float32), []
    return np.stack([have[k][0] for k in keys]).astype(np.float32), [have[k][1] for k in keys]


def with_soft_targets(
    examples: Sequence[Example],
    texts: Sequence[str],
    seq: np.ndarray,
    chars: Sequence[np.ndarray],
    *,
    soft_on_gold: bool = True,
    hard_only: frozenset[str] = frozenset(),
    soft_where_agrees: bool = False,
) -> list[Example]:
    """``examples`` with the teacher's outputs (``seq[i]``, ``chars[i]`` for
    ``texts[i]``) as soft targets; with ``soft_on_gold=False`` an example with gold
    toxic characters (``tox_chars`` not None) gets no soft token target. An example
    whose source is in ``hard_only`` gets no soft target for a head it has a label
    for: rows written to teach what the teacher gets wrong keep their labels. With
    ``soft_where_agrees`` such a row keeps the teacher's target for a labelled head
    where the teacher's logit is on the gold label's side of 0 (it is right there),
    so that the student learns the teacher's graded scores where they are right
    and the gold label alone where they are wrong."""
    at = {t: i for i, t in enumerate(texts)}

    def soft(v: float, h: float, hard: bool) -> float:
        if not hard or math.isnan(h):
            return float(v)
        return float(v) if soft_where_agrees and (v > 0) == (h >= 0.5) else math.nan

    return [
        dataclasses.replace(
            e,
            soft_seq=[
                soft(v, h, e.source in hard_only)
                for v, h in zip(seq[at[e.text]], e.seq, strict=True)
            ],
            soft_tox=None if e.tox_chars is not None and not soft_on_gold else chars[at[e.text]],
        )
        for e in examples
    ]


_EXAMPLES_CONSTRAINTS: Constraints = {
    "stage": Int(1),
    "seed": Int(0),
    "extra": Int(0),
    "targeted": Bool(),
    "broad_toxicity": Nullable(Bool()),
    "spans": Int(0),
    "holdout": Nullable(Str(nonempty=True)),
    **TEMPLATE_CONSTRAINTS,
    "toxigen": Int(0),
}


#: Sources whose rows the teacher gets wrong by design (it never learned them): their
#: labelled heads learn from their gold labels alone (:func:`with_soft_targets`).
HARD_ONLY_SOURCES = frozenset(name for name, _ in TEMPLATE_SOURCES.values())


def parse_holdout(holdout: str | None) -> tuple[int, int] | None:
    """``"K/N"`` (fold K of N, 1 <= K <= N, N >= 2) as ``(K, N)``; None stays None."""
    if holdout is None:
        return None
    k, sep, n = holdout.partition("/")
    if sep and k.strip().isdigit() and n.strip().isdigit():
        fold, folds = int(k), int(n)
        if folds >= 2 and 1 <= fold <= folds:
            return fold, folds
    raise ConfigError(
        f"holdout must be K/N, fold K of N ToxicChat train folds with 1 <= K <= N and N >= 2, "
        f"not {holdout!r}."
    )


def distill_examples(
    data_dir: str | Path | None,
    *,
    stage: int = 7,
    seed: int = 0,
    extra: int = 5000,
    targeted: bool = True,
    broad_toxicity: bool | None = False,
    spans: int = 0,
    holdout: str | None = None,
    toxigen: int = 0,
    **templates: Unpack[TemplateFlags],
) -> tuple[list[Example], int]:
    """The student's examples (without soft targets) and the seed its run uses.

    ``stage``'s mixture (:func:`~tactful.train.stage_mixture`), plus ``spans``
    SemEval-2021 train posts with their gold spans that it leaves out (stage 7
    caps them at 1,000 of 7,939; the stage-1 mixture holds 6,000), plus ``extra``
    distinct texts of the stage-1 mixture that neither holds (a seeded sample;
    their hard labels kept, jailbreak templates not toxicity positives), so that
    the teacher's knowledge of the rows the chat stage caps reaches the student too.
    ``holdout="K/N"`` then drops every example whose text is in ToxicChat train fold
    K of N (:func:`~tactful.train.toxicchat_folds`): a cross-fitting run, whose
    scores on that fold choose the shipped model's operating points.
    ``templates`` (``derogation=True``, ...: :data:`~tactful.train.TEMPLATE_SOURCES`) add
    those training templates to stage ``stage``'s mixture. ``toxigen`` adds that many more ToxiGen
    statements (a seeded sample of those no other example holds; their offensive
    and identity-attack labels kept, toxicity from the teacher alone): natural,
    varied statements about 13 groups, hateful and benign, so that the student
    learns the teacher's reading of a group statement from more than templates.
    """
    from ._stages import stage_mixture

    p = validate_params(
        "distill_examples",
        _EXAMPLES_CONSTRAINTS,
        stage=stage,
        seed=seed,
        extra=extra,
        targeted=targeted,
        broad_toxicity=broad_toxicity,
        spans=spans,
        holdout=holdout,
        toxigen=toxigen,
        **templates,
    )
    fold = parse_holdout(p["holdout"])
    mix = {"targeted": p["targeted"], "broad_toxicity": p["broad_toxicity"]}
    examples, run_seed = stage_mixture(
        data_dir,
        p["stage"],
        p["seed"],
        None,
        **mix,
        **template_flags(p),
    )
    if p["extra"] or p["spans"]:
        pool, _ = stage_mixture(data_dir, 1, p["seed"], False, **mix)
        have = {e.text for e in examples}
    if p["spans"]:
        posts: dict[str, Example] = {}
        for e in pool:
            if e.source == "toxicspans" and e.tox_chars is not None and e.text not in have:
                posts.setdefault(e.text, e)
        rng = random.Random(f"distill-spans:{run_seed}")
        chosen = rng.sample(sorted(posts), min(p["spans"], len(posts)))
        examples = examples + [posts[t] for t in chosen]
        have.update(chosen)
        if not p["extra"]:
            rng.shuffle(examples)
    if p["extra"]:
        rest: dict[str, Example] = {}
        for e in pool:
            if e.text not in have:
                rest.setdefault(e.text, e)
        picked = sorted(rest)
        rng = random.Random(f"distill:{run_seed}")
        chosen = rng.sample(picked, min(p["extra"], len(picked)))
        examples = examples + [rest[t] for t in chosen]
        rng.shuffle(examples)
    if p["toxigen"]:
        from ._mixture import build_mixture

        have = {e.text for e in examples}
        statements: dict[str, Example] = {}
        for e in build_mixture(data_dir, sources=["toxigen"], caps={"toxigen": None}, **mix):
            if e.text not in have:
                statements.setdefault(e.text, e)
        rng = random.Random(f"distill-toxigen:{run_seed}")
        chosen = rng.sample(sorted(statements), min(p["toxigen"], len(statements)))
        examples = examples + [statements[t] for t in chosen]
        rng.shuffle(examples)
    if fold is not None:
        examples = drop_fold(examples, data_dir, fold)
    return examples, run_seed


def recorded_stage_examples(
    data_dir: str | Path | None, stage: dict[str, Any]
) -> tuple[list[Example], int]:
    """The examples of one stage a card or ``train.json`` records, and its seed.

    ``stage`` is a stage record (``{"stage", "seed", "config", "examples",
    "sources"}``): a distilled student's stage is rebuilt with
    :func:`distill_examples`, a student of the teacher-label bank with
    :func:`~tactful.train._student.student_examples` (the bank must hold what it held),
    any other with :func:`~tactful.train.stage_mixture`,
    from the mixture seed the record holds. Soft targets are not rebuilt. The
    caller compares the result with the record (``tactful train trained-texts``
    refuses to write when they differ).
    """
    from ._stages import stage_mixture, stage_seed_offset

    number = int(stage.get("stage", 1))
    offset = stage_seed_offset(number)
    config = stage.get("config", {})
    if str(config.get("teacher") or "").startswith("bank:"):  # a student of the bank
        from ._bank import TeacherId
        from ._student import student_examples

        tb = stage["teacher_bank"]
        cats = tb.get("categories") or {}
        repeat = int(cats.get("category_repeat", 1))
        revision = cats.get("template_revision")
        if revision is None and cats:  # recorded before revisions: the one of its rows
            from ._category_templates import template_revision_of

            rows = int((stage.get("sources") or {}).get("category_templates", 0))
            revision = template_revision_of(rows // repeat)
        examples, seed, _ = student_examples(
            data_dir,
            bank=tb["bank"],
            teacher=TeacherId(**tb["teacher"]),
            stage=number,
            seed=int(stage["seed"]) - offset,
            targeted=bool(config.get("targeted", False)),
            spans=int(config.get("spans", 0)),
            categories=config.get("heads") is not None,
            max_bank_only=tb.get("max_bank_only"),
            category_caps=cats.get("caps"),
            template_rows=cats.get("template_rows"),
            bank_rows=tb.get("bank_rows"),
            category_repeat=repeat,
            template_revision=revision,
            draw_seed=tb.get("draw_seed"),
            hard_sources=tb.get("hard_sources", ()),
            **template_flags(config),
        )
        return examples, seed
    if config.get("teacher"):  # a distilled student: the stage's mixture plus extra texts
        return distill_examples(
            data_dir,
            stage=number,
            seed=int(stage["seed"]) - offset,
            extra=int(config["extra"]),
            spans=int(config.get("spans", 0)),
            holdout=config.get("holdout"),
            toxigen=int(config.get("toxigen", 0)),
            **template_flags(config),
        )
    return stage_mixture(
        data_dir,
        number,
        int(stage["seed"]) - offset,
        config.get("jailbreak_toxic"),
        sources=config.get("sources"),
        targeted=bool(config.get("targeted", False)),
        broad_toxicity=config.get("broad_toxicity"),
        **template_flags(config),
    )


_DISTILL_CONSTRAINTS: Constraints = {
    "teacher_run": PathLike(),
    "out": PathLike(),
    "data_dir": Nullable(PathLike()),
    "epochs": Float(0, None, closed="neither"),
    "layers": Nullable(Int(1)),
    "alpha": Float(0, 1),
    "temperature": Float(0, None, closed="neither"),
    "token_alpha": Nullable(Float(0, 1)),
    "soft_on_gold": Bool(),
    "init": Nullable(PathLike()),
}


def distill(
    teacher_run: str | Path,
    out: str | Path,
    data_dir: str | Path | None = None,
    *,
    stage: int | None = None,
    seed: int = 0,
    extra: int = 5000,
    spans: int = 0,
    holdout: str | None = None,
    epochs: float = 1.0,
    layers: int | None = None,
    alpha: float = 0.5,
    temperature: float = 2.0,
    token_alpha: float | None = None,
    soft_on_gold: bool = True,
    soft_templates: bool = False,
    toxigen: int = 0,
    init: str | Path | None = None,
    export: bool = True,
    **templates: Unpack[TemplateFlags],
) -> Path:
    """Train a MiniLM student on :func:`distill_examples` with ``teacher_run``'s logits.

    Loss per head: ``(1 - alpha)`` times the hard-label BCE (where a label is)
    plus ``alpha`` times the BCE against the teacher's probability at
    ``temperature`` (times its square); the toxic-token head likewise, the span
    types from hard labels only. ``layers`` keeps MiniLM's first layers only (a
    faster student). Stage 7's window and rates (256 tokens, heads 1e-3) with
    MiniLM's encoder rate (5e-5). ``templates`` (``derogation=True``, ...:
    :data:`~tactful.train.TEMPLATE_SOURCES`) add those training templates to the
    mixture, with their labels alone as the target of every head they label (the
    teacher never learned them: :data:`HARD_ONLY_SOURCES`); with ``soft_templates``
    those rows also take the teacher's target for a labelled head where it agrees
    with the label (:func:`with_soft_targets`);
    ``toxigen`` adds that many more ToxiGen statements (:func:`distill_examples`).
    Writes a run folder like ``tactful train run``.
    """
    p = validate_params(
        "distill",
        _DISTILL_CONSTRAINTS,
        teacher_run=teacher_run,
        out=out,
        data_dir=data_dir,
        epochs=epochs,
        layers=layers,
        alpha=alpha,
        temperature=temperature,
        token_alpha=token_alpha,
        soft_on_gold=soft_on_gold,
        init=init,
    )
    parse_holdout(holdout)
    from ._run import _setup_logging, _stage_rule, check_init
    from ._stages import STAGES

    init_path: Path | None = p["init"]
    if init_path is not None:
        stage = _stage_rule(init_path).accept("stage", "distill", stage) or 10
        layers = check_init(init_path, "minilm", holdout, p["layers"])
    else:
        stage = 7 if stage is None else stage
        layers = p["layers"]
    teacher: Path = p["teacher_run"]
    if not (teacher / "model.pt").is_file() and not is_model_folder(teacher):
        raise ConfigError(
            f"{teacher} holds neither a model.pt nor a model folder (card.json, model.onnx): "
            "train or ship the teacher first."
        )
    require_train_extra()
    from ._export import export_onnx
    from ._loop import train

    out_dir: Path = p["out"]
    _setup_logging(out_dir)
    examples, run_seed = distill_examples(
        p["data_dir"],
        stage=stage,
        seed=seed,
        extra=extra,
        spans=spans,
        holdout=holdout,
        toxigen=toxigen,
        **templates,
    )
    texts = list(dict.fromkeys(e.text for e in examples))
    log.info(
        "distill: %d examples, %d distinct texts, teacher %s", len(examples), len(texts), teacher
    )
    seq, chars = teacher_logits(teacher, texts, out_dir / "teacher")
    examples = with_soft_targets(
        examples,
        texts,
        seq,
        chars,
        soft_on_gold=p["soft_on_gold"],
        hard_only=HARD_ONLY_SOURCES,
        soft_where_agrees=soft_templates,
    )
    st: dict[str, Any] = STAGES.get(stage, {})
    rates = {"head_lr": 1e-3} if init_path is None else {"lr": st["lr"], "head_lr": st["head_lr"]}
    cfg = TrainConfig(
        epochs=p["epochs"],
        seed=run_seed,
        **rates,
        max_len=int(st.get("max_len", 256)),
        stage=stage,
        init=None if init_path is None else str(init_path),
        encoder="minilm",
        targeted=True,
        broad_toxicity=False,
        layers=layers,
        teacher=str(teacher),
        alpha=p["alpha"],
        temperature=p["temperature"],
        token_alpha=p["token_alpha"],
        soft_on_gold=p["soft_on_gold"],
        soft_templates=soft_templates,
        extra=extra,
        spans=spans,
        holdout=holdout,
        toxigen=toxigen,
        **templates,
    )
    model = train(examples, out_dir, cfg)
    info = json.loads((out_dir / "train.json").read_text())
    info["teacher_model"] = teacher_identity(teacher)
    (out_dir / "train.json").write_text(json.dumps(info, indent=2))
    if export:
        export_onnx(model, out_dir / "export")
    return out_dir
