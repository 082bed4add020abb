"""Entry points: train the multi-task model (a stage, a run) and average runs (a soup)."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from ..errors import ConfigError
from ..params import (
    Bool,
    Check,
    Constraint,
    Constraints,
    Float,
    Int,
    Nullable,
    OneOf,
    PathLike,
    Str,
    StrList,
    validate_params,
)
from ._config import TrainConfig, require_train_extra
from ._encoders import ENCODERS
from ._mixture import drop_fold
from ._templates import TEMPLATE_CONSTRAINTS, TemplateFlags, template_flags

if TYPE_CHECKING:
    from ._model import MultiTaskModel
from ._stages import PRETRAINED_STAGES, SOURCES, STAGES, stage_mixture

__all__ = [
    "check_init",
    "load_run",
    "run_encoder",
    "run_holdout",
    "run_layers",
    "run_training",
    "soup",
]


log = logging.getLogger("tactful.train")


def _setup_logging(out: Path) -> None:
    """Log to ``out/train.log`` and stderr, once per folder (a second call adds nothing)."""
    out.mkdir(parents=True, exist_ok=True)
    path = str((out / "train.log").resolve())
    if any(getattr(h, "baseFilename", None) == path for h in log.handlers):
        return
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(message)s")
    for h in (logging.FileHandler(path), logging.StreamHandler(sys.stderr)):
        h.setFormatter(fmt)
        log.addHandler(h)
    log.setLevel(logging.INFO)


def run_encoder(run_dir: str | Path) -> str:
    """The encoder a run (or a soup of runs) was trained on, from its ``train.json``.

    Runs written before the encoder was a parameter were all MiniLM.
    """
    path = Path(run_dir) / "train.json"
    if not path.is_file():
        raise ConfigError(f"{run_dir} is not a training run: it holds no train.json.")
    info = json.loads(path.read_text())
    return str(info.get("encoder") or info.get("config", {}).get("encoder") or "minilm")


def run_layers(run_dir: str | Path) -> int | None:
    """How many encoder layers a run (or a soup of runs) kept; ``None``: all of them."""
    info = json.loads((Path(run_dir) / "train.json").read_text())
    layers = info.get("layers", info.get("config", {}).get("layers"))
    return None if layers is None else int(layers)


def run_heads(run_dir: str | Path) -> tuple[str, ...]:
    """A run's sequence heads, from its ``train.json``; runs written before a model could
    have harm-category heads have the eight of :data:`~tactful._heads.SEQ_HEADS`."""
    from .._heads import SEQ_HEADS, check_heads

    info = json.loads((Path(run_dir) / "train.json").read_text())
    return check_heads(info.get("heads") or SEQ_HEADS)


def run_holdout(run_dir: str | Path) -> str | None:
    """The ToxicChat fold (``"K/N"``) a run left out, from its ``train.json`` (None: none)."""
    path = Path(run_dir) / "train.json"
    if not path.is_file():
        return None
    holdout = json.loads(path.read_text()).get("config", {}).get("holdout")
    return None if holdout is None else str(holdout)


def check_init(
    init: Path, encoder: str, holdout: str | None, layers: int | None = None
) -> int | None:
    """Check that the weights ``init`` can start a later stage of a run on ``encoder``
    that leaves out ToxicChat fold ``holdout``, and return the encoder layers they
    kept (``layers`` if the run has no ``train.json``).

    Raises :class:`~tactful.errors.ConfigError` (one line) when the file is missing,
    or when its run was trained on another encoder, kept another number of layers
    than ``layers`` (when given) or left out another fold: every stage of a
    cross-fitting chain leaves out the same fold.
    """
    if not init.is_file():
        raise ConfigError(f"The init weights {init} do not exist.")
    if not (init.parent / "train.json").is_file():
        return layers
    trained_on = run_encoder(init.parent)
    if trained_on != encoder:
        raise ConfigError(
            f"{init} was trained on the {trained_on} encoder, not {encoder}: "
            f"pass --encoder {trained_on}."
        )
    kept = run_layers(init.parent)
    if layers is not None and kept != layers:
        raise ConfigError(
            f"{init} kept {kept or 'all'} encoder layers, not {layers}: "
            "a later stage keeps its init's layers (leave out --layers)."
        )
    init_holdout = run_holdout(init.parent)
    if init_holdout != holdout:
        was, now = (
            "no ToxicChat fold" if h is None else f"ToxicChat fold {h}"
            for h in (init_holdout, holdout)
        )
        raise ConfigError(
            f"{init} left out {was} but this run leaves out {now}: "
            "every stage of a cross-fitting chain leaves out the same fold (--holdout)."
        )
    return kept


def load_run(run_dir: str | Path) -> MultiTaskModel:
    """A run's ``model.pt`` in a :class:`~tactful.train.MultiTaskModel` of its encoder, in
    eval mode. Unpickling is ``weights_only``: a weights file cannot run code."""
    require_train_extra()
    import torch

    from ._model import MultiTaskModel

    weights = Path(run_dir) / "model.pt"
    if not weights.is_file():
        raise ConfigError(f"{run_dir} holds no model.pt: train or soup the run first.")
    model = MultiTaskModel(
        run_encoder(run_dir), layers=run_layers(run_dir), heads=run_heads(run_dir)
    )
    model.load_state_dict(torch.load(weights, map_location="cpu", weights_only=True))
    return model.eval()


def _stage_rule(init: Path | None) -> Constraint:
    if init is None:
        return Check(
            f"one of {list(PRETRAINED_STAGES)} or None without init "
            "(a later stage starts from init's weights)",
            lambda v: v is None or (type(v) is int and v in PRETRAINED_STAGES),
        )
    return Nullable(OneOf(sorted(k for k in STAGES if k not in PRETRAINED_STAGES)))


_RUN_CONSTRAINTS: Constraints = {
    "data_dir": Nullable(PathLike()),
    "out": PathLike(),
    "epochs": Float(0, None, closed="neither"),
    "seed": Int(0),
    "init": Nullable(PathLike()),
    "encoder": OneOf(ENCODERS),
    "sources": Nullable(StrList(options=SOURCES, nonempty=True)),
    "targeted": Bool(),
    "broad_toxicity": Nullable(Bool()),
    **TEMPLATE_CONSTRAINTS,
    "holdout": Nullable(Str(nonempty=True)),
}


def run_training(
    data_dir: str | Path | None,
    out: str | Path,
    *,
    epochs: float = 1.0,
    seed: int = 0,
    export: bool = True,
    init: str | Path | None = None,
    stage: int | None = None,
    jailbreak_toxic: bool | None = None,
    encoder: str = "minilm",
    sources: Iterable[str] | None = None,
    targeted: bool = False,
    broad_toxicity: bool | None = None,
    holdout: str | None = None,
    **templates: Unpack[TemplateFlags],
) -> Path:
    """Build a stage's mixture, train on it, and export ONNX into ``out/export``.

    Parameters
    ----------
    data_dir : path, optional
        The data folder (default: ``$TACTFUL_DATA``, see :mod:`tactful.config`).
    out : path
        The run folder: ``train.log``, ``ckpt.pt`` (resumable), ``model.pt``,
        ``train.json`` and ``export/``.
    epochs : float, default=1.0
        Passes over the mixture (a fraction stops part-way).
    seed : int, default=0
        The seed of the draw and of training (a later stage adds its offset).
    export : bool, default=True
        Export ONNX (int8) after training.
    init : path, optional
        The ``model.pt`` of the previous stage. Without it the run is stage 1,
        from the pretrained encoder.
    stage : int, optional
        Which of :data:`STAGES` an ``init`` run is (default 2); without ``init``
        1 (the default) or a stage that starts from the pretrained encoder (7).
    jailbreak_toxic : bool, optional
        Overrides the stage's choice of jailbreak templates as toxicity positives.
    encoder : {"minilm", "mpnet"}, default="minilm"
        The pretrained encoder (:func:`~tactful.train.encoder_dir`); with
        ``init``, the one ``init`` was trained on.
    sources : list of str, optional
        Only these sources of the mixture (:data:`SOURCES`).
    targeted : bool, default=False
        Model 2.0's mixture: the ``targeted`` source and the toxicity labels of
        the hate and offence sets (:func:`~tactful.train.build_mixture`).
    broad_toxicity : bool, optional
        Whether the hate and offence sets label the toxicity head (default:
        ``targeted``).
    holdout : str, optional
        ``"K/N"``: leave out ToxicChat train fold K of N
        (:func:`~tactful.train.toxicchat_folds`), a cross-fitting run whose scores
        on that fold choose the shipped run's operating points
        (:func:`~tactful.train.crossfit_runs`). A later stage's ``init`` must have
        left out the same fold.
    **templates : bool
        ``derogation=True``, ``menace=True``, ...: add those training templates
        as sources of their own (:data:`~tactful.train.TEMPLATE_SOURCES`).

    Returns
    -------
    Path
        ``out``.
    """
    p = validate_params(
        "run_training",
        _RUN_CONSTRAINTS,
        data_dir=data_dir,
        out=out,
        epochs=epochs,
        seed=seed,
        init=init,
        encoder=encoder,
        sources=sources,
        targeted=targeted,
        broad_toxicity=broad_toxicity,
        holdout=holdout,
        **templates,
    )
    from ._distill import parse_holdout

    fold = parse_holdout(p["holdout"])
    init_path: Path | None = p["init"]
    stage = _stage_rule(init_path).accept("stage", "run_training", stage)
    init_layers = None if init_path is None else check_init(init_path, p["encoder"], p["holdout"])
    require_train_extra()
    from ._export import export_onnx
    from ._loop import train

    out_dir: Path = p["out"]
    _setup_logging(out_dir)
    data = p["data_dir"]
    flags = template_flags(p)
    mix: dict[str, Any] = {
        "sources": p["sources"],
        "targeted": p["targeted"],
        "broad_toxicity": p["broad_toxicity"],
        **flags,
    }
    common: dict[str, Any] = {
        "epochs": p["epochs"],
        "jailbreak_toxic": jailbreak_toxic,
        "encoder": p["encoder"],
        "targeted": p["targeted"],
        "broad_toxicity": p["broad_toxicity"],
        **flags,
        "holdout": p["holdout"],
    }
    if init_path is None and not stage or stage == 1:
        examples, _ = stage_mixture(data, 1, p["seed"], jailbreak_toxic, **mix)
        cfg = TrainConfig(seed=p["seed"], **common)
    else:
        stage = stage or 2
        st = STAGES[stage]
        examples, run_seed = stage_mixture(data, stage, p["seed"], jailbreak_toxic, **mix)
        cfg = TrainConfig(
            seed=run_seed,
            lr=st["lr"],
            head_lr=st["head_lr"],
            max_len=st["max_len"],
            init=None if init_path is None else str(init_path),
            layers=init_layers,
            stage=stage,
            **common,
        )
    if fold is not None:
        examples = drop_fold(examples, data, fold)
    if not examples:
        raise ConfigError(f"The mixture of stage {cfg.stage} is empty: nothing to train on.")
    log.info("mixture: %d examples (stage %d, %s)", len(examples), cfg.stage, cfg.encoder)
    model = train(examples, out_dir, cfg)
    if export:
        export_onnx(model, out_dir / "export")
    return out_dir


def soup(runs: Iterable[str | Path], out: str | Path, *, export: bool = True) -> Path:
    """Uniform weight average ("model soup", Wortsman et al., ICML 2022) of runs.

    The runs must share an encoder (and, to be useful, a starting point). The
    average is written as ``out/model.pt`` with a ``train.json`` that lists the
    runs, and exported like a run.
    """
    run_dirs = [Path(r) for r in runs]
    if not run_dirs:
        raise ConfigError("A soup needs at least one run.")
    if any(r.resolve() == Path(out).resolve() for r in run_dirs):
        # it would write over the run's model.pt and train.json, its only record
        raise ConfigError(f"--out {out} is one of the soup's runs: choose another folder.")
    encoders = {r: run_encoder(r) for r in run_dirs}
    if len(set(encoders.values())) > 1:
        raise ConfigError(
            "The runs of a soup must share an encoder: "
            + ", ".join(f"{r} ({e})" for r, e in encoders.items())
            + "."
        )
    for r in run_dirs:
        if not (r / "model.pt").is_file():
            raise ConfigError(f"{r} holds no model.pt: train or soup the run first.")
    require_train_extra()
    import torch

    from ._export import export_onnx
    from ._model import MultiTaskModel

    out_dir = Path(out)
    _setup_logging(out_dir)
    states = [torch.load(r / "model.pt", map_location="cpu", weights_only=True) for r in run_dirs]
    avg = {
        k: sum(st[k].float() for st in states) / len(states)
        if states[0][k].is_floating_point()
        else states[0][k]
        for k in states[0]
    }
    encoder = encoders[run_dirs[0]]
    layers = run_layers(run_dirs[0])
    model = MultiTaskModel(encoder, layers=layers, heads=run_heads(run_dirs[0]))
    model.load_state_dict(avg)
    torch.save(avg, out_dir / "model.pt")
    (out_dir / "train.json").write_text(
        json.dumps(
            {
                "soup_of": [str(r) for r in run_dirs],
                "encoder": encoder,
                "layers": layers,
                "heads": list(model.heads),
            },
            indent=2,
        )
    )
    log.info("soup of %s", ", ".join(map(str, run_dirs)))
    if export:
        export_onnx(model, out_dir / "export")
    return out_dir
