"""Training in legs: a run that outlives any one machine.

A run's whole state lives in one folder (``training/runs/NAME/``), small enough to
commit after every leg:

``config.json``
    What rebuilds the run on any machine: the model factory and its keyword
    arguments (the encoder, the low-rank adapters), the data builder and its
    arguments, the fingerprint of the examples it built, the optimizer settings,
    the seed, the steps in all.
``state.pt``
    The trainable weights only (adapters and heads: the frozen base comes from the
    pretrained encoder's package), the optimizer and scheduler state, the step
    (the data cursor: the batch order is a function of the seed), and the RNG
    state. Loaded with ``weights_only=True``: nothing in it runs code.
``log.jsonl``
    The metric log: one line per step (step, loss, learning rate).
``legs.json``
    One entry per leg: when it ran, its wall time, and the steps it took.

A leg runs until its time budget (``leg_minutes``) is spent or the run is done,
writing the state every ``checkpoint_minutes`` (or ``checkpoint_steps``) and at
its end, each time atomically (temporary files, then :func:`os.replace`). A leg
that is killed loses only the steps since its last checkpoint: the next leg
replays them exactly, so a run in legs ends with the weights and the loss log of
one uninterrupted run.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import os
import platform
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch
from torch import nn

from .._heads import SEQ_HEADS
from ..errors import ConfigError
from ._config import TrainConfig
from ._loop import Encoded, batch_plan, collate, encode, loss_fn

__all__ = [
    "LEG_STATE_FILES",
    "RUN_DATA_CHANGED_MESSAGE",
    "RUN_DONE_MESSAGE",
    "RUN_EXISTS_MESSAGE",
    "LegConfig",
    "LegResult",
    "LoRALinear",
    "apply_lora",
    "merge_lora",
    "merge_run",
    "resume_run",
    "start_run",
    "trainable_state",
]

#: The files of a run folder.
LEG_STATE_FILES = ("config.json", "state.pt", "log.jsonl", "legs.json")

RUN_EXISTS_MESSAGE = (
    "A run already exists in {path}: continue it with tactful train resume {name}, "
    "or choose another name."
)
RUN_DONE_MESSAGE = "The run in {path} is done ({step}/{total} steps): nothing to resume."
RUN_DATA_CHANGED_MESSAGE = (
    "The run in {path} was started on other data (examples fingerprint {was}, now {now}): "
    "the data folder or the code that builds the examples changed."
)
RUN_MISSING_MESSAGE = "No run in {path} (it has no config.json)."

#: Fault injection for the resume test: the process kills itself (SIGKILL) right
#: after this optimizer step, as a machine that is taken away would.
KILL_ENV = "TACTFUL_LEG_KILL_AT_STEP"


class LoRALinear(nn.Module):
    """A frozen :class:`torch.nn.Linear` plus a trainable low-rank update (Hu et al., 2021).

    ``y = W x + b + (alpha / r) * B(A(dropout(x)))`` with ``A`` of shape ``(r, in)``
    (Kaiming-uniform, as in ``peft``) and ``B`` of shape ``(out, r)`` (zeros), so a
    fresh adapter leaves the layer's output unchanged.
    """

    def __init__(self, base: nn.Linear, r: int, alpha: float, dropout: float) -> None:
        super().__init__()
        self.base = base
        for p in self.base.parameters():
            p.requires_grad_(False)
        self.lora_a = nn.Parameter(torch.empty(r, base.in_features))
        self.lora_b = nn.Parameter(torch.zeros(base.out_features, r))
        nn.init.kaiming_uniform_(self.lora_a, a=math.sqrt(5))
        self.scale = alpha / r
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        update = (self.drop(x) @ self.lora_a.t()) @ self.lora_b.t()
        return self.base(x) + self.scale * update


def apply_lora(
    module: nn.Module,
    *,
    r: int,
    alpha: float,
    dropout: float = 0.1,
    targets: Sequence[str] | None = None,
) -> int:
    """Freeze ``module`` and wrap its linear layers in :class:`LoRALinear`.

    ``targets`` keeps only the linear layers whose attribute name is one of them
    (``("q", "k", "v", "o", "dense")`` for MPNet; ``None``: every linear layer).
    Returns the number of layers wrapped.
    """
    for p in module.parameters():
        p.requires_grad_(False)
    wrapped = 0
    for parent in list(module.modules()):
        for attr, child in list(parent.named_children()):
            if isinstance(child, nn.Linear) and (targets is None or attr in targets):
                setattr(parent, attr, LoRALinear(child, r, alpha, dropout))
                wrapped += 1
    return wrapped


def merge_lora(module: nn.Module) -> int:
    """Fold every :class:`LoRALinear` in ``module`` back into a plain :class:`torch.nn.Linear`
    (``W + (alpha / r) * B @ A``), in place; the module then has the pretrained model's
    parameter names and no adapter. Returns the number of layers merged."""
    merged = 0
    for parent in list(module.modules()):
        for attr, child in list(parent.named_children()):
            if isinstance(child, LoRALinear):
                base = child.base
                with torch.no_grad():
                    base.weight += child.scale * (child.lora_b @ child.lora_a)
                setattr(parent, attr, base)
                merged += 1
    return merged


def trainable_state(model: nn.Module) -> dict[str, torch.Tensor]:
    """The trainable parameters by name (what a run commits)."""
    return {n: p.detach().clone() for n, p in model.named_parameters() if p.requires_grad}


def multitask_lora(
    encoder: str = "mpnet",
    *,
    encoder_path: str | None = None,
    layers: int | None = None,
    r: int = 8,
    alpha: float = 16.0,
    lora_dropout: float = 0.1,
    targets: Sequence[str] | None = None,
    heads: Sequence[str] | None = None,
) -> nn.Module:
    """The multi-task model on a frozen pretrained encoder with low-rank adapters;
    the two heads train in full. ``heads``: the sequence heads (default the eight of
    :data:`~tactful._heads.SEQ_HEADS`; :data:`~tactful._heads.CATEGORY_HEADS` adds a
    head per harm category)."""
    from ._model import MultiTaskModel

    model = MultiTaskModel(
        encoder, encoder_path=encoder_path, layers=layers, heads=heads or SEQ_HEADS
    )
    apply_lora(model.encoder, r=r, alpha=alpha, dropout=lora_dropout, targets=targets)
    return model


def stage_examples(
    data_dir: str | None = None,
    *,
    stage: int = 1,
    seed: int = 0,
    categories: bool = False,
    category_caps: dict[str, int] | None = None,
    template_revision: int | None = None,
    **flags: Any,
) -> list[Any]:
    """The examples of a training stage (:func:`~tactful.train.stage_mixture`); with
    ``categories``, widened to the harm-category heads and joined by the category sources
    (:func:`~tactful.train._categories.category_mixture`, at most ``category_caps[source]``
    examples of a source)."""
    from ._stages import stage_mixture

    examples = stage_mixture(data_dir, stage, seed, **flags)[0]
    if categories:
        from ._categories import category_mixture
        from ._category_templates import TEMPLATE_REVISION

        examples = category_mixture(
            examples,
            data_dir,
            category_caps,
            template_revision=template_revision or TEMPLATE_REVISION,
        )
    return examples


def load_init(model: nn.Module, state: dict[str, torch.Tensor], source: str) -> None:
    """Load another run's trainable weights into ``model``. A sequence head with fewer
    outputs (a run with the eight heads, into a model with harm-category heads) fills
    the first rows; the category rows keep their fresh initialization."""
    own = model.state_dict()
    state = dict(state)
    for key in ("seq_head.weight", "seq_head.bias"):
        if key in state and key in own and state[key].shape[0] < own[key].shape[0]:
            grown = own[key].clone()
            grown[: state[key].shape[0]] = state[key]
            state[key] = grown
    missing = model.load_state_dict(state, strict=False)
    if missing.unexpected_keys:
        raise ConfigError(
            f"The state in {source} does not fit the model: {missing.unexpected_keys[:3]}."
        )


@dataclass
class LegConfig:
    """A run's settings. ``model`` and ``data`` name a factory and a builder as
    ``"module:function"`` with their keyword arguments, so that any machine rebuilds
    the same model and examples; ``tokenizer`` is a ``tokenizer.json`` path (default:
    the encoder's, from ``model_kwargs["encoder"]``)."""

    model: str = "tactful.train._legs:multitask_lora"
    model_kwargs: dict[str, Any] = field(default_factory=dict)
    data: str = "tactful.train._legs:stage_examples"
    data_kwargs: dict[str, Any] = field(default_factory=dict)
    tokenizer: str | None = None
    train: dict[str, Any] = field(default_factory=dict)  # TrainConfig fields
    checkpoint_minutes: float = 5.0
    checkpoint_steps: int | None = None
    examples_sha256: str | None = None
    total_steps: int | None = None
    #: Another run's folder whose trainable weights (adapters and heads, at its last
    #: checkpoint) this run starts from: a later stage of a chain. Its optimizer is not taken.
    init: str | None = None


@dataclass(frozen=True)
class LegResult:
    """What one leg did."""

    name: str
    leg: int
    step_from: int
    step_to: int
    total: int
    seconds: float

    @property
    def done(self) -> bool:
        return self.step_to >= self.total


def _call(ref: str, kwargs: dict[str, Any]) -> Any:
    module, _, func = ref.partition(":")
    fn: Callable[..., Any] = getattr(importlib.import_module(module), func)
    return fn(**kwargs)


def _examples_sha256(examples: Sequence[Any]) -> str:
    h = hashlib.sha256()
    for ex in examples:
        h.update(json.dumps([ex.text, ex.seq], default=str).encode())
    return h.hexdigest()


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _save_state(run: Path, state: dict[str, Any], log: list[dict[str, Any]]) -> None:
    tmp = run / "state.pt.tmp"
    torch.save(state, tmp)
    os.replace(tmp, run / "state.pt")
    lines = "".join(json.dumps(e, sort_keys=True) + "\n" for e in log)
    _atomic_write(run / "log.jsonl", lines.encode())


def _read_json(path: Path, default: Any) -> Any:
    return json.loads(path.read_text()) if path.exists() else default


def start_run(
    name: str,
    config: LegConfig,
    *,
    runs_dir: str | os.PathLike[str] = "training/runs",
    leg_minutes: float = 120.0,
) -> LegResult:
    """Create the run folder ``runs_dir/NAME`` and run its first leg.

    Raises
    ------
    ConfigError
        If the folder already holds a run (:data:`RUN_EXISTS_MESSAGE`).
    """
    run = Path(runs_dir) / name
    if (run / "config.json").exists():
        raise ConfigError(RUN_EXISTS_MESSAGE.format(path=run, name=name))
    TrainConfig(**config.train)  # checked before anything is written
    run.mkdir(parents=True, exist_ok=True)
    _atomic_write(run / "config.json", json.dumps(asdict(config), indent=2).encode())
    return resume_run(name, runs_dir=runs_dir, leg_minutes=leg_minutes)


def resume_run(
    name: str,
    *,
    runs_dir: str | os.PathLike[str] = "training/runs",
    leg_minutes: float = 120.0,
) -> LegResult:
    """Run one leg of the run in ``runs_dir/NAME``, from its committed state.

    Raises
    ------
    ConfigError
        No run there (:data:`RUN_MISSING_MESSAGE`), the run is done
        (:data:`RUN_DONE_MESSAGE`), or its data changed (:data:`RUN_DATA_CHANGED_MESSAGE`).
    """
    t_start = time.monotonic()
    run = Path(runs_dir) / name
    if not (run / "config.json").exists():
        raise ConfigError(RUN_MISSING_MESSAGE.format(path=run))
    lc = LegConfig(**json.loads((run / "config.json").read_text()))
    cfg = TrainConfig(**lc.train)
    torch.set_num_threads(cfg.threads)

    examples = _call(lc.data, lc.data_kwargs)
    fp = _examples_sha256(examples)
    if lc.examples_sha256 is not None and lc.examples_sha256 != fp:
        raise ConfigError(
            RUN_DATA_CHANGED_MESSAGE.format(path=run, was=lc.examples_sha256[:12], now=fp[:12])
        )
    if lc.tokenizer:
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(lc.tokenizer)
        tok.enable_truncation(max_length=cfg.max_len)
    else:
        from ._config import load_tokenizer

        tok = load_tokenizer(max_len=cfg.max_len, encoder=lc.model_kwargs.get("encoder", "mpnet"))
    data: list[Encoded] = [encode(ex, tok) for ex in examples]

    # The batch order is a function of the seed alone: the step is the data cursor.
    plan = batch_plan(data, cfg)
    total = len(plan)
    if lc.examples_sha256 is None:
        lc.examples_sha256, lc.total_steps = fp, total
        _atomic_write(run / "config.json", json.dumps(asdict(lc), indent=2).encode())

    torch.manual_seed(cfg.seed)
    model: nn.Module = _call(lc.model, lc.model_kwargs)
    params = [p for p in model.named_parameters() if p[1].requires_grad]
    heads = [p for n, p in params if "lora_" not in n]
    adapters = [p for n, p in params if "lora_" in n]
    groups = [{"params": adapters, "lr": cfg.lr}, {"params": heads, "lr": cfg.head_lr}]
    opt = torch.optim.AdamW([g for g in groups if g["params"]], weight_decay=cfg.weight_decay)
    warm = max(1, int(cfg.warmup * total))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (total - s) / max(1, total - warm))
    )
    step = 0
    log: list[dict[str, Any]] = []
    if lc.init and not (run / "state.pt").exists():
        init = Path(lc.init) / "state.pt"
        if not init.exists():
            raise ConfigError(f"The run's init {lc.init} holds no state.pt: run its legs first.")
        start = torch.load(init, map_location="cpu", weights_only=True)["trainable"]
        load_init(model, start, lc.init)
    if (run / "state.pt").exists():
        state = torch.load(run / "state.pt", map_location="cpu", weights_only=True)
        missing = model.load_state_dict(state["trainable"], strict=False)
        if missing.unexpected_keys:
            raise ConfigError(
                f"The state in {run} does not fit the model: {missing.unexpected_keys[:3]}."
            )
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        step = int(state["step"])
        torch.set_rng_state(state["torch_rng"])
        log = [e for e in _read_json_lines(run / "log.jsonl") if e["step"] <= step]
    if step >= total:
        raise ConfigError(RUN_DONE_MESSAGE.format(path=run, step=step, total=total))

    legs: list[dict[str, Any]] = _read_json(run / "legs.json", [])
    leg: dict[str, Any] = {
        "leg": len(legs) + 1,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": platform.node(),
        "threads": cfg.threads,
        "step_from": step,
    }

    def checkpoint() -> None:
        state = {
            "trainable": trainable_state(model),
            "opt": opt.state_dict(),
            "sched": sched.state_dict(),
            "step": step,
            "torch_rng": torch.get_rng_state(),
        }
        _save_state(run, state, log)
        leg["step_to"] = step
        leg["wall_seconds"] = round(time.monotonic() - t_start, 1)
        _atomic_write(run / "legs.json", json.dumps([*legs, leg], indent=2).encode())

    kill_at = int(os.environ.get(KILL_ENV, "0") or 0)
    every_s = lc.checkpoint_minutes * 60
    last = time.monotonic()
    deadline = t_start + leg_minutes * 60
    model.train()
    while step < total and time.monotonic() < deadline:
        batch = collate([data[j] for j in plan[step]])
        seq_logits, tok_logits = model(batch["input_ids"], batch["attention_mask"])
        loss = loss_fn(seq_logits, tok_logits, batch, cfg)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_([p for _, p in params], 1.0)
        opt.step()
        sched.step()
        step += 1
        log.append({"step": step, "loss": float(loss.detach()), "lr": sched.get_last_lr()[0]})
        if kill_at and step == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        due = (
            step % lc.checkpoint_steps == 0
            if lc.checkpoint_steps
            else time.monotonic() - last >= every_s
        )
        if due:
            checkpoint()
            last = time.monotonic()
    checkpoint()
    return LegResult(
        name, int(leg["leg"]), int(leg["step_from"]), step, total, float(leg["wall_seconds"])
    )


def load_run_model(
    name: str, *, runs_dir: str | os.PathLike[str] = "training/runs"
) -> tuple[nn.Module, LegConfig]:
    """The model of a committed run at its last checkpoint (adapters not merged), in eval mode."""
    run = Path(runs_dir) / name
    if not (run / "state.pt").exists():
        raise ConfigError(RUN_MISSING_MESSAGE.format(path=run).replace("config.json", "state.pt"))
    lc = LegConfig(**json.loads((run / "config.json").read_text()))
    torch.manual_seed(TrainConfig(**lc.train).seed)
    model: nn.Module = _call(lc.model, lc.model_kwargs)
    state = torch.load(run / "state.pt", map_location="cpu", weights_only=True)
    model.load_state_dict(state["trainable"], strict=False)
    return model.eval(), lc


def merge_run(
    name: str, out: str | os.PathLike[str], *, runs_dir: str | os.PathLike[str] = "training/runs"
) -> Path:
    """Write a committed run, adapters merged, as a run folder the other ``tactful train``
    commands read: ``OUT/model.pt`` (the full weights: large, never committed) and
    ``OUT/train.json`` (the encoder, the run's config, its legs and steps, and those of
    every run it started from).

    ``tactful train export OUT``, ``compare-runs OUT`` and ``ship OUT`` then work on it as on
    any run.
    """
    run = Path(runs_dir) / name
    model, lc = load_run_model(name, runs_dir=runs_dir)
    n = merge_lora(model)
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), out_dir / "model.pt")
    legs = _read_json(run / "legs.json", [])  # its last entry's step_to is the state's step
    info = {
        "encoder": lc.model_kwargs.get("encoder", "mpnet"),
        "layers": lc.model_kwargs.get("layers"),
        "heads": list(getattr(model, "heads", SEQ_HEADS)),
        "config": {**lc.train, **lc.data_kwargs},
        "legs_run": {
            "name": name,
            "model": lc.model,
            "model_kwargs": lc.model_kwargs,
            "merged_layers": n,
            "step": int(legs[-1]["step_to"]) if legs else 0,
            "total_steps": lc.total_steps,
            "examples_sha256": lc.examples_sha256,
            "legs": legs,
            "init_runs": _init_chain(lc),
        },
    }
    _atomic_write(out_dir / "train.json", json.dumps(info, indent=2).encode())
    return out_dir


def _init_chain(lc: LegConfig) -> list[dict[str, Any]]:
    """The runs a run started from (``--init``), oldest first: each one's name, stage, steps
    and legs, so that a merged run's ``train.json`` (and the card shipped from it) lists
    every leg of the chain and its wall time."""
    chain: list[dict[str, Any]] = []
    init = lc.init
    while init:
        run = Path(init)
        if not (run / "config.json").is_file():
            raise ConfigError(RUN_MISSING_MESSAGE.format(path=run))
        parent = LegConfig(**json.loads((run / "config.json").read_text()))
        legs = _read_json(run / "legs.json", [])
        chain.append(
            {
                "name": run.name,
                "stage": parent.data_kwargs.get("stage"),
                "step": int(legs[-1]["step_to"]) if legs else 0,
                "total_steps": parent.total_steps,
                "examples_sha256": parent.examples_sha256,
                "legs": legs,
            }
        )
        init = parent.init
    return chain[::-1]


def _read_json_lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
