"""What a card records of the runs it came from: their stages, span gold, fold runs and files, checked."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import Any

from .._hashing import sha256_file
from ..errors import ConfigError
from ._config import TrainConfig

__all__ = [
    "RUN_MISMATCH_MESSAGE",
    "RUN_MISSING_MESSAGE",
    "SourceRun",
    "card_crossfit_runs",
    "card_stages",
    "crossfit_runs",
    "run_span_gold",
    "run_stages",
    "source_run",
    "stage_keys",
    "verify_run",
]


#: A run folder named by a card is not there ({run}, {version}, {card_run}).
RUN_MISSING_MESSAGE = (
    "No run folder at {run}: model {version} was built from the run {card_run}, and runs are "
    "not kept in git; pass the folder of a copy of that run."
)


#: A run's file is not the one the card was built from ({path}, {version}, {got}, {want}).
RUN_MISMATCH_MESSAGE = (
    "{path} is not the file model {version} was built from: sha256 {got}, its card pins {want}."
)


def run_stages(run_dir: str | Path) -> list[dict[str, Any]]:
    """The ``train.json`` of a run and of every run it started from (``init``), oldest first.

    Each gets ``"stage"`` (1 for a run from the pretrained encoder) and ``"seed"``
    (the mixture seed), from its config; a later-stage run written before stages
    were recorded counts as stage 2.
    A soup (``tactful train soup``) lists the stages of all its runs, each once.
    """
    info = json.loads((Path(run_dir) / "train.json").read_text())
    if "soup_of" in info:
        merged: list[dict[str, Any]] = []
        for run in info["soup_of"]:
            merged.extend(s for s in run_stages(Path(run)) if s not in merged)
        return merged
    out: list[dict[str, Any]] = []
    path: Path | None = Path(run_dir) / "train.json"
    seen: set[Path] = set()
    while path is not None:
        if path.resolve() in seen:
            raise ConfigError(f"{path}: a run's init leads back to itself.")
        seen.add(path.resolve())
        info = json.loads(path.read_text())
        init = info["config"].get("init")
        info["stage"] = info["config"].get("stage", 2 if init else 1)
        info["seed"] = info["config"]["seed"]
        out.append(info)
        if info.get("init_model"):
            # started from a shipped model (its OUT/init.pt): that model's card holds the
            # chain before this run
            out.extend(reversed(info["init_model"].get("stages") or []))
            break
        path = Path(init).parent / "train.json" if init else None
    return out[::-1]


def stage_keys(stages: list[dict[str, Any]]) -> list[str]:
    """The card's key of each stage of a chain, oldest first: ``stage7``, ``stage10``,
    and ``stage10_2`` for a second run of the same stage (``distill --init`` from a
    stage-10 student), so that no stage of the chain drops out of the card."""
    seen: Counter[int] = Counter()
    keys = []
    for s in stages:
        seen[s["stage"]] += 1
        n = seen[s["stage"]]
        keys.append(f"stage{s['stage']}" + (f"_{n}" if n > 1 else ""))
    return keys


def card_stages(card: dict[str, Any]) -> list[dict[str, Any]]:
    """The stage records of a card's ``training`` (a soup, a chain of stages or one run);
    a chain's stages in training order."""
    training = card["training"]
    if "stages" in training:
        return list(training["stages"])
    if "examples" in training or isinstance(training.get("stage"), int):
        return [training]  # one run (a run of legs records its stage beside its config)
    chain = [v for k, v in training.items() if k.startswith("stage")]
    return sorted(chain, key=lambda st: int(st.get("stage", 1)))


def run_span_gold(stages: list[dict[str, Any]] | None) -> str:
    """The ``span_gold`` of a run's last stage (see :data:`~tactful.train.STAGES`)."""
    from ._stages import STAGES

    return STAGES.get((stages or [{"stage": 1}])[-1].get("stage", 1), {}).get(
        "span_gold", "semeval"
    )


#: TrainConfig's defaults: the settings of a run whose train.json predates them.
_CONFIG_DEFAULTS: dict[str, Any] = {
    f.name: f.default for f in fields(TrainConfig) if f.default is not MISSING
}


def crossfit_runs(
    run_dir: str | Path, fold_runs: Sequence[str | Path]
) -> list[tuple[Path, int, int]]:
    """Check ``fold_runs`` as the cross-fitting runs of ``run_dir``; return ``(run, K, N)``.

    Each must be a run trained with ``holdout="K/N"`` (see
    :func:`~tactful.train.distill_examples`), with an export, every fold K of one N
    exactly once, and otherwise the settings of ``run_dir`` (the fold scores
    stand in for the scores the shipped run would give to rows it did not see).
    A later stage's ``init`` may differ: it must then be a run that left out the
    same fold and was trained like ``run_dir``'s ``init``, stage by stage.
    When ``run_dir`` is a soup (``tactful train soup``), each fold run must be a
    soup of as many runs, all of which left out its fold, the i-th trained like
    ``run_dir``'s i-th.
    """
    from ._distill import parse_holdout

    def info(run: Path) -> dict[str, Any]:
        path = run / "train.json"
        if not path.is_file():
            raise ConfigError(f"{run} is not a training run: it holds no train.json.")
        return dict(json.loads(path.read_text()))

    def config(run: Path) -> dict[str, Any]:
        return dict(info(run).get("config") or {})

    def soup_of(run: Path) -> list[Path]:
        return [Path(r) for r in info(run).get("soup_of") or []]

    def differ(want: dict[str, Any], got: dict[str, Any], holdout: str) -> list[str]:
        """The settings in which ``got`` (a run that left out ``holdout``) is not ``want``."""
        if got.pop("holdout", None) != holdout:
            return ["holdout"]
        want.pop("holdout", None)
        mine, theirs = want.pop("init", None), got.pop("init", None)
        # A setting one train.json lacks was added to TrainConfig after that run:
        # the run trained with its default (e.g. delicate=False before --delicate).
        diff = sorted(
            k
            for k in set(want) | set(got)
            if want.get(k, _CONFIG_DEFAULTS.get(k)) != got.get(k, _CONFIG_DEFAULTS.get(k))
        )
        if (mine is None) != (theirs is None):
            diff.append("init")
        elif mine is not None and mine != theirs:
            init_run, fold_init = Path(mine).parent, Path(theirs).parent
            if not (fold_init / "train.json").is_file() or not (init_run / "train.json").is_file():
                diff.append("init")
            else:
                diff += [f"init {k}" for k in differ(config(init_run), config(fold_init), holdout)]
        return diff

    def check(run: Path, fold_run: Path) -> tuple[int, int]:
        """``fold_run``'s fold (K, N), after checking it was trained like ``run``."""
        got = config(fold_run)
        holdout = got.get("holdout")
        fold = parse_holdout(holdout)
        if fold is None:
            raise ConfigError(
                f"{fold_run} left no ToxicChat fold out: train it with --holdout K/N."
            )
        diff = differ(config(run), got, str(holdout))
        if diff:
            raise ConfigError(f"{fold_run} was not trained like {run}: {', '.join(diff)} differ.")
        return fold

    members = soup_of(Path(run_dir))
    out: list[tuple[Path, int, int]] = []
    for fold_run in map(Path, fold_runs):
        if not members:
            held = {check(Path(run_dir), fold_run)}
        else:
            parts = soup_of(fold_run)
            if len(parts) != len(members):
                raise ConfigError(
                    f"{fold_run} is not a soup of {len(members)} runs like {run_dir}: soup the "
                    "fold runs of its runs, in the same order."
                )
            held = {check(m, p) for m, p in zip(members, parts, strict=True)}
            if len(held) > 1:
                raise ConfigError(
                    f"The runs of {fold_run} left out different ToxicChat folds: "
                    + ", ".join(f"{k}/{n}" for k, n in sorted(held))
                    + "."
                )
        holdout = held.pop()
        if not (fold_run / "export" / "model.onnx").is_file():
            raise ConfigError(f"{fold_run} holds no export/model.onnx: tactful train export it.")
        out.append((fold_run, *holdout))
    folds = sorted((k, n) for _, k, n in out)
    n = folds[0][1] if folds else 0
    if folds != [(k, n) for k in range(1, n + 1)]:
        raise ConfigError(
            "cross-fitting needs one run per fold, K = 1..N of one N; got "
            + (", ".join(f"{k}/{m}" for k, m in folds) or "none")
            + "."
        )
    return out


@dataclass(frozen=True, slots=True)
class SourceRun:
    """The training run a model card was built from.

    ``sha256`` maps files of the run folder (``"model.pt"``,
    ``"export/model.onnx"``) to the hashes the card pins for them. Cards shipped
    before ``source_run`` was recorded name the run in their ``dev.command`` and
    pin it through its export, whose ``model.onnx`` is the shipped file.
    """

    dir: Path
    sha256: dict[str, str]
    version: str


_LEGACY_SHIP = re.compile(r"--ship --out (\S+)")


def source_run(card: dict[str, Any]) -> SourceRun:
    """The run ``card`` was built from (see :class:`SourceRun`).

    Raises
    ------
    ConfigError
        The card names no run.
    """
    version = str(card.get("version", "?"))
    recorded = card.get("source_run")
    if isinstance(recorded, dict):
        return SourceRun(Path(recorded["dir"]), dict(recorded["sha256"]), version)
    found = _LEGACY_SHIP.search(str(card.get("dev", {}).get("command", "")))
    shipped = card.get("sha256", {}).get("model.onnx")
    if found is None or shipped is None:
        raise ConfigError(
            f"Model {version}'s card does not name the run it was built from: "
            "ship it again with `tactful train ship`."
        )
    return SourceRun(Path(found.group(1)), {"export/model.onnx": shipped}, version)


_LEGACY_CROSSFIT = re.compile(r"--crossfit (\S+)")


def card_crossfit_runs(card: dict[str, Any]) -> list[Path]:
    """The cross-fitting runs a card's toxicity and jailbreak points were chosen with.

    ``dev.crossfit_runs`` (fold order) where ``train ship`` recorded it; cards
    shipped before it (builtin-large 2.2.0) name them only in ``dev.command``,
    whose ``--crossfit`` arguments are read instead. Empty for a card chosen on
    ToxicChat dev alone. Check the folders with :func:`crossfit_runs` before use.
    """
    dev = card.get("dev", {})
    recorded = dev.get("crossfit_runs")
    if isinstance(recorded, list):
        return [Path(r) for r in recorded]
    command = str(dev.get("command", "")).split(" (")[0]
    return [Path(r) for r in _LEGACY_CROSSFIT.findall(command)]


def verify_run(card: dict[str, Any], run_dir: str | Path | None = None) -> Path:
    """Check that ``run_dir`` (default: the card's own run) holds the weights the card
    was built from; return the folder.

    Every file the card pins for its run (:func:`source_run`) must be there with
    that sha256: a copy of the run elsewhere passes, other weights do not.

    Raises
    ------
    ConfigError
        :data:`RUN_MISSING_MESSAGE` when the folder is not there,
        :data:`RUN_MISMATCH_MESSAGE` when a file differs or is missing.
    """
    src = source_run(card)
    run = Path(run_dir) if run_dir is not None else src.dir
    if not run.is_dir():
        raise ConfigError(
            RUN_MISSING_MESSAGE.format(run=run, version=src.version, card_run=src.dir)
        )
    for rel, want in sorted(src.sha256.items()):
        path = run / rel
        got = sha256_file(path) if path.is_file() else "(no such file)"
        if got != want:
            raise ConfigError(
                RUN_MISMATCH_MESSAGE.format(path=path, version=src.version, got=got, want=want)
            )
    return run
