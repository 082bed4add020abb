"""Ship a trained run: install its export, choose its points, write the model card."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._hashing import sha256_file
from .._heads import SEQ_HEADS, SPAN_TYPES
from ..errors import ConfigError
from ..params import (
    Check,
    Constraints,
    Float,
    Nullable,
    OneOf,
    PathLike,
    Str,
    validate_params,
)
from ._devrows import delicate_dev_rows, delicate_dev_shares
from ._encoders import ENCODER_INFO
from ._provenance import card_stages, crossfit_runs, run_stages, stage_keys
from ._thresholds import (
    DELICATE_MIN_ROWS,
    DEV_RESAMPLES,
    choose_delicate_threshold,
    choose_thresholds,
)

__all__ = [
    "MODEL_FILES",
    "export_quantization",
    "install_export",
    "repoint_delicate",
    "ship",
]


#: The files of a model folder that its card pins.
MODEL_FILES = ("model.onnx", "tokenizer.json")


def install_export(run_dir: str | Path, folder: str | Path) -> dict[str, dict[str, Any]]:
    """Copy ``run_dir``'s export into ``folder``; return the card's ``sha256`` and ``size_bytes``.

    Raises :class:`~tactful.errors.ConfigError`, copying nothing, when a file of
    :data:`MODEL_FILES` is not in ``run_dir/export``.
    """
    run_dir, folder = Path(run_dir), Path(folder)
    for name in MODEL_FILES:
        if not (run_dir / "export" / name).is_file():
            raise ConfigError(f"{run_dir}: no export/{name}; train, soup or export the run first.")
    folder.mkdir(parents=True, exist_ok=True)
    for name in MODEL_FILES:
        shutil.copy(run_dir / "export" / name, folder / name)
    return {
        "sha256": {n: sha256_file(folder / n) for n in MODEL_FILES},
        "size_bytes": {n: (folder / n).stat().st_size for n in MODEL_FILES},
    }


#: The card's ``runtime`` line for each :data:`~tactful.train.QUANTIZATIONS` choice.
_RUNTIMES = {
    "dynamic": "onnxruntime; BERT graph fusion + dynamic int8 quantization of MatMul "
    "weights (per output channel)",
    "weights": "onnxruntime; int8 weights (per output channel, embeddings per row) "
    "folded to float32 at load; float32 activations, so a text's scores do not depend "
    "on its batch-mates",
    "none": "onnxruntime; BERT graph fusion, float32",
}


_SHIP_CONSTRAINTS: Constraints = {
    "run_dir": PathLike(),
    "package_dir": Nullable(PathLike()),
    "data_dir": Nullable(PathLike()),
    "version": Str(nonempty=True),
    "name": OneOf(["builtin", "builtin-large"]),
    "crossfit": Nullable(
        Check(
            "a non-empty list of run folders",
            lambda v: (
                isinstance(v, list)
                and bool(v)
                and all(isinstance(x, (str, os.PathLike)) for x in v)
            ),
        )
    ),
    "harmless_pass": Nullable(Float(0, 1, closed="right")),
    "category_harmless_pass": Nullable(Float(0, 1, closed="right")),
    "span_harmless_pass": Nullable(Float(0, 1, closed="right")),
}


def export_quantization(run_dir: str | Path) -> str:
    """The quantization of a run's export (``export/export.json``; exports written
    before that file were all dynamic int8)."""
    recorded = Path(run_dir) / "export" / "export.json"
    return (
        str(json.loads(recorded.read_text())["quantization"]) if recorded.is_file() else "dynamic"
    )


def ship(
    run_dir: str | Path,
    package_dir: str | Path | None = None,
    data_dir: str | Path | None = None,
    *,
    version: str,
    name: str = "builtin",
    crossfit: Sequence[str | Path] | None = None,
    harmless_pass: float | None = None,
    category_harmless_pass: float | None = None,
    span_harmless_pass: float | None = None,
) -> dict[str, Any]:
    """Copy a run's export into a model folder and write its ``card.json``.

    Parameters
    ----------
    run_dir : path
        A run or soup folder with ``model.pt``, ``train.json`` and ``export/``.
    package_dir : path, optional
        The model folder; default the packaged model ``name``'s folder.
    data_dir : path, optional
        The data folder, for the operating points (:func:`choose_thresholds`).
    version : str
        The model's version.
    name : {"builtin", "builtin-large"}, default="builtin"
        The moderator the card describes.
    crossfit : list of paths, optional
        Cross-fitting runs of ``run_dir`` (:func:`crossfit_runs`): the toxicity
        and jailbreak points are then chosen on ToxicChat dev and train, each
        train row scored by the run that left its fold out.
    harmless_pass : float in (0, 1], optional
        The toxicity point is then the best one at which every harmless dev set
        (:func:`harmless_dev_texts`) passes at least this share
        (:func:`choose_thresholds`).
    category_harmless_pass : float in (0, 1], optional
        A run with harm-category heads: each category also gets its flagging point
        ``CATEGORY_or`` above the harmless dev sets
        (:func:`~tactful.train._thresholds.choose_category_thresholds`).
    span_harmless_pass : float in (0, 1], optional
        The span point is then chosen from the lowest point at which at least this share
        of every harmless dev set gets no span
        (:func:`~tactful.train._thresholds.span_harmless_floor`).

    Returns
    -------
    dict
        The card. Besides the model files' pins it records ``source_run``: the
        run folder and the sha256 of its ``model.pt`` and ``export/model.onnx``,
        which ``bench/speed.py`` checks (:func:`verify_run`).
    """
    from ._run import run_encoder, run_heads, run_layers

    p = validate_params(
        "ship",
        _SHIP_CONSTRAINTS,
        run_dir=run_dir,
        package_dir=package_dir,
        data_dir=data_dir,
        version=version,
        name=name,
        crossfit=list(crossfit) if isinstance(crossfit, (list, tuple)) else crossfit,
        harmless_pass=harmless_pass,
        category_harmless_pass=category_harmless_pass,
        span_harmless_pass=span_harmless_pass,
    )
    run: Path = p["run_dir"]
    fold_runs = crossfit_runs(run, p["crossfit"]) if p["crossfit"] else []
    if p["package_dir"] is None:
        from ..moderators.builtin import default_model_dir

        folder = default_model_dir(p["name"])
    else:
        folder = p["package_dir"]
    encoder = run_encoder(run)
    weights = run / "model.pt"
    if not weights.is_file():
        raise ConfigError(f"{run} holds no model.pt: train or soup the run first.")
    quantization = export_quantization(run)
    # a fold exported otherwise would choose points for other scores: refuse before writing
    for fold_run, _, _ in fold_runs:
        got = export_quantization(fold_run)
        if got != quantization:
            raise ConfigError(
                f"{fold_run}'s export has quantization {got}, {run}'s {quantization}: "
                f"tactful train export {fold_run} --quantize {quantization}."
            )
    pins = install_export(run, folder)
    stages = run_stages(run)
    soup_of = json.loads((run / "train.json").read_text()).get("soup_of")
    if soup_of:
        train_info: dict[str, Any] = {"soup_of": soup_of, "stages": stages}
    else:
        train_info = (
            dict(zip(stage_keys(stages), stages, strict=True)) if len(stages) > 1 else stages[0]
        )
    info = ENCODER_INFO[encoder]
    layers = run_layers(run)
    heads = run_heads(run)
    # a student that kept the encoder's first layers says how many
    architecture = (
        info.architecture
        if layers is None
        else re.sub(r"-L\d+-", f"-L{layers}-", info.architecture)
    )
    card: dict[str, Any] = {
        "name": p["name"],
        "version": p["version"],
        "encoder": encoder,
        "base_model": info.base_model
        + ("" if layers is None else f"; the student keeps its first {layers} layers"),
        "architecture": f"{architecture} encoder, mean pooling, linear sequence head "
        f"({', '.join(heads)}) and linear token head (toxic + type: {', '.join(SPAN_TYPES)})",
        "runtime": _RUNTIMES[quantization],
        "quantization": quantization,
        "heads": list(heads),
        "span_types": list(SPAN_TYPES),
        "training": train_info,
        "source_run": {
            "dir": str(run),
            "sha256": {
                "model.pt": sha256_file(weights),
                "export/model.onnx": pins["sha256"]["model.onnx"],
            },
        },
        **pins,
        "thresholds": {h: 0.5 for h in heads} | {"span": 0.5},
        "figures": [],
    }
    (folder / "card.json").write_text(json.dumps(card, indent=2) + "\n")
    with tempfile.TemporaryDirectory(prefix="tactful-crossfit-") as tmp:
        fold_dirs: list[tuple[str | Path, int, int]] = []
        for fold_run, k, n in fold_runs:
            fold_dir = Path(tmp) / f"fold{k}"
            fold_dir.mkdir()
            fold_card = {**card, **install_export(fold_run, fold_dir)}
            (fold_dir / "card.json").write_text(json.dumps(fold_card) + "\n")
            fold_dirs.append((fold_dir, k, n))
        chosen = choose_thresholds(
            folder,
            p["data_dir"],
            stages,
            crossfit=fold_dirs or None,
            harmless_pass=p["harmless_pass"],
            category_harmless_pass=p["category_harmless_pass"],
            span_harmless_pass=p["span_harmless_pass"],
        )
    card["thresholds"] = chosen["thresholds"]
    crossfit_cmd = "".join(f" --crossfit {r}" for r, _, _ in fold_runs)
    harmless_cmd, harmless_why = "", ""
    if p["harmless_pass"] is not None:
        harmless_cmd = f" --harmless-pass {p['harmless_pass']}"
        harmless_why = (
            f", toxicity only at or above the lowest point where every harmless dev set "
            f"passes >= {p['harmless_pass']}"
        )
    if p["category_harmless_pass"] is not None:
        harmless_cmd += f" --category-harmless-pass {p['category_harmless_pass']}"
        harmless_why += (
            f", each category's flagging point where it flags at most "
            f"{1 - p['category_harmless_pass']:.2g} of every harmless dev set"
        )
    if p["span_harmless_pass"] is not None:
        harmless_cmd += f" --span-harmless-pass {p['span_harmless_pass']}"
        harmless_why += (
            f", the span point where at least {p['span_harmless_pass']} of every harmless "
            f"dev set gets no span"
        )
    where = (
        f"ToxicChat dev and train, each train row scored by the run without its fold "
        f"({len(fold_runs)}-fold cross-fitting)"
        if fold_runs
        else "ToxicChat dev"
    )
    card["dev"] = {
        **chosen["dev"],
        "command": f"tactful train ship {run} --version {p['version']}{crossfit_cmd}"
        f"{harmless_cmd} "
        f"(thresholds on a 0.05..0.95 grid: toxicity and jailbreak the best mean F1 over "
        f"{DEV_RESAMPLES} bootstrap resamples of {where}{harmless_why}, the others max F1 "
        f"on dev)",
    }
    if fold_runs:
        # the fold runs as data, in fold order, for tools that score the same rows again
        card["dev"]["crossfit_runs"] = [str(r) for r, _, _ in sorted(fold_runs, key=lambda f: f[1])]
    if len(heads) > len(SEQ_HEADS):
        card["categories"] = _category_card(run, heads, p["data_dir"], chosen["dev"])
    (folder / "card.json").write_text(json.dumps(card, indent=2) + "\n")
    return card


def _category_card(
    run: Path, heads: Sequence[str], data_dir: Path | None, dev: dict[str, Any]
) -> dict[str, Any]:
    """Each harm category's card entry: its Llama Guard 3 codes, the train examples it
    learned from by source (:func:`~tactful.train._categories.category_data`, with the
    run's caps) and its dev figures (:func:`choose_category_thresholds`)."""
    from ..taxonomy import TO_LLAMA_GUARD_3
    from ._categories import CATEGORY_CAPS, category_data

    info = json.loads((run / "train.json").read_text())
    caps = (info.get("config") or {}).get("category_caps") or (
        (info.get("teacher_bank") or {}).get("categories") or {}
    ).get("caps", CATEGORY_CAPS)
    data = category_data(data_dir, caps)
    on_dev = dev.get("categories", {})
    return {
        c: {
            "llama_guard_3": list(TO_LLAMA_GUARD_3[c]),
            "train_examples": data[c],
            "dev": on_dev.get(c),
        }
        for c in heads[len(SEQ_HEADS) :]
    }


_REPOINT_CONSTRAINTS: Constraints = {
    "model_dir": PathLike(),
    "out": PathLike(),
    "data_dir": Nullable(PathLike()),
    "version": Str(nonempty=True),
}


def _repoint_params(
    what: str, model_dir: str | Path, out: str | Path, data_dir: str | Path | None, version: str
) -> tuple[Path, Path, Path | None, dict[str, Any]]:
    """A card-only change's checked parameters: the model folder, ``out`` (never the model's
    own folder), the data folder, and the model's card."""
    from ..moderators.builtin import load_card

    p = validate_params(
        what,
        _REPOINT_CONSTRAINTS,
        model_dir=model_dir,
        out=out,
        data_dir=data_dir,
        version=version,
    )
    if p["model_dir"].resolve() == p["out"].resolve():
        raise ConfigError("--out must be another folder than the model's.")
    return p["model_dir"], p["out"], p["data_dir"], load_card(p["model_dir"])


def _write_repointed(src: Path, dst: Path, card: dict[str, Any], new: dict[str, Any]) -> None:
    """``card``'s model files copied unchanged from ``src`` to ``dst``, and ``new`` as its card."""
    dst.mkdir(parents=True, exist_ok=True)
    for name in card.get("sha256", {}):
        shutil.copy(src / name, dst / name)
    (dst / "card.json").write_text(json.dumps(new, indent=2) + "\n")


def repoint_delicate(
    model_dir: str | Path,
    out: str | Path,
    data_dir: str | Path | None = None,
    *,
    version: str,
) -> dict[str, Any]:
    """Choose a shipped model's delicate point on the DeTexD rows its training never
    drew; write the model with that point to ``out``.

    Only the card changes (``thresholds.delicate``, the ``dev`` figures of
    :func:`choose_delicate_threshold`, ``version`` and a ``delicate_point`` record of
    what it was before); every model file is copied unchanged. The held-out rows
    are rebuilt from the card's stages (:func:`delicate_dev_rows`), as
    ``tactful train trained-texts`` rebuilds them.

    Raises
    ------
    ConfigError
        ``out`` is the model's own folder, or fewer than :data:`DELICATE_MIN_ROWS`
        DeTexD rows are held out (nothing is written).
    """
    from ..moderators.builtin import BuiltinModerator

    src, dst, data, card = _repoint_params("repoint_delicate", model_dir, out, data_dir, version)
    rows = delicate_dev_rows(data, card_stages(card))
    point, fig = choose_delicate_threshold(BuiltinModerator(model_dir=str(src)), rows)
    if point is None:
        raise ConfigError(
            f"{src}: its training drew all but {len(rows)} of the DeTexD rows; the delicate "
            f"point needs at least {DELICATE_MIN_ROWS} held-out rows."
        )
    new = json.loads(json.dumps(card))
    new["version"] = version
    new["thresholds"]["delicate"] = point
    new.setdefault("dev", {}).update(fig)
    new["delicate_point"] = {
        "from": {"version": card.get("version"), "delicate": card["thresholds"].get("delicate")},
        "command": f"tactful train delicate-point {src} --out {dst} --version {version} "
        f"(the best mean F1 over {DEV_RESAMPLES} bootstrap resamples of the {len(rows)} "
        f"DeTexD rows no training stage drew; cross-fitted F1: the point chosen on 4 of 5 "
        f"folds, 20 stratified splits)",
    }
    mod = BuiltinModerator(model_dir=str(src))
    new["delicate_point"]["dev"] = delicate_dev_shares(
        mod, mod, float(card["thresholds"].get("delicate", 0.5)), point, data
    )
    _write_repointed(src, dst, card, new)
    return new


def repoint_toxicity(
    model_dir: str | Path,
    out: str | Path,
    data_dir: str | Path | None = None,
    *,
    version: str,
    harmless_pass: float | None = None,
) -> dict[str, Any]:
    """Choose a shipped model's toxicity point on ToxicChat dev and the harm sets' dev
    requests together (:func:`~tactful.train._thresholds.choose_toxicity_threshold`);
    write the model with that point to ``out``.

    Only the card changes: ``thresholds.toxicity``, ``dev.toxicchat_dev_toxicity_f1`` (the
    plain ToxicChat dev F1 at the new point, as ``tactful train ship`` records it),
    ``version``, and a ``toxicity_point`` record of the point before, the command and the
    dev figures at both points; every model file is copied unchanged.

    Raises
    ------
    ConfigError
        ``out`` is the model's own folder (nothing is written).
    """
    from ..moderators.builtin import BuiltinModerator
    from ._thresholds import choose_toxicity_threshold

    src, dst, data, card = _repoint_params("repoint_toxicity", model_dir, out, data_dir, version)
    mod = BuiltinModerator(model_dir=str(src))
    point, fig = choose_toxicity_threshold(mod, data, harmless_pass=harmless_pass)
    new = json.loads(json.dumps(card))
    new["version"] = version
    new["thresholds"]["toxicity"] = point
    new.setdefault("dev", {})["toxicchat_dev_toxicity_f1"] = fig["toxicchat_dev_f1"]
    floor = "" if harmless_pass is None else f" --harmless-pass {harmless_pass}"
    new["toxicity_point"] = {
        "from": {"version": card.get("version"), "toxicity": card["thresholds"].get("toxicity")},
        "command": f"tactful train toxicity-point {src} --out {dst} --version {version}"
        f"{floor} (the best mean, over ToxicChat dev and the harm sets' dev requests, of "
        f"each part's mean F1 over {DEV_RESAMPLES} bootstrap resamples; a text is flagged "
        f"as the model flags it)",
        "dev": fig,
    }
    _write_repointed(src, dst, card, new)
    return new
