"""``tactful train start|resume|merge|student|label|bank``: training in legs and the teacher-label bank.

Each command is one library call (:mod:`tactful.train._legs`,
:mod:`tactful.train._label`, :mod:`tactful.train._bank`) and prints what it wrote
and what to commit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from ..options import DataDirOpt
from ._templates import TEMPLATE_SOURCES

__all__ = ["add_leg_commands"]

RunsOpt = Annotated[
    Path, typer.Option("--runs", help="Folder of the committed runs (one subfolder per run).")
]
BankOpt = Annotated[Path, typer.Option("--bank", help="Folder of the teacher-label bank.")]
LegMinutesOpt = Annotated[
    float,
    typer.Option(
        "--leg-minutes", min=0, help="This leg's time budget; the state is saved at its end."
    ),
]
CheckpointOpt = Annotated[
    float,
    typer.Option("--checkpoint-minutes", min=0.1, help="Save the state this often during a leg."),
]
TemplateOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--template",
        help="Add a set of training templates (repeat): " + ", ".join(TEMPLATE_SOURCES) + ".",
        show_default=False,
    ),
]


def _template_flags(template: list[str] | None) -> dict[str, bool]:
    """``--template``'s sets as flags (``{"derogation": True}``); a one-line error for a
    name that is no template set."""
    unknown = sorted(set(template or []) - set(TEMPLATE_SOURCES))
    if unknown:
        raise typer.BadParameter(
            f"{unknown[0]!r} is not a template set: one of {', '.join(TEMPLATE_SOURCES)}.",
            param_hint="--template",
        )
    return dict.fromkeys(sorted(set(template or [])), True)


def _commit_hint(path: Path) -> None:
    typer.echo(f"commit it: git add {path} && git commit -m 'training: {path.name}'")


def add_leg_commands(app: typer.Typer) -> None:
    """Add the leg and bank commands to the ``tactful train`` app."""

    @app.command("start")
    def start(
        name: Annotated[str, typer.Argument(help="The run's name (its folder under --runs).")],
        runs: RunsOpt = Path("training/runs"),
        leg_minutes: LegMinutesOpt = 120.0,
        checkpoint_minutes: CheckpointOpt = 5.0,
        encoder: Annotated[str, typer.Option("--encoder", help="minilm or mpnet.")] = "mpnet",
        r: Annotated[int, typer.Option("--lora-r", min=1, help="Adapter rank.")] = 8,
        alpha: Annotated[
            float, typer.Option("--lora-alpha", help="Adapter scale numerator.")
        ] = 16.0,
        stage: Annotated[int, typer.Option("--stage", min=1, help="The data's stage.")] = 1,
        epochs: Annotated[float, typer.Option("--epochs")] = 1.0,
        lr: Annotated[float, typer.Option("--lr", help="Adapters' learning rate.")] = 3e-4,
        head_lr: Annotated[float, typer.Option("--head-lr")] = 1e-3,
        batch_size: Annotated[int, typer.Option("--batch-size")] = 16,
        seed: Annotated[int, typer.Option("--seed")] = 0,
        threads: Annotated[int, typer.Option("--threads")] = 2,
        targeted: Annotated[
            bool,
            typer.Option("--targeted/--no-targeted", help="Add model 2.0's targeted rows."),
        ] = False,
        broad_toxicity: Annotated[
            bool | None,
            typer.Option(
                "--broad-toxicity/--no-broad-toxicity",
                help="Whether the hate and offence sets label toxicity (default: --targeted).",
                show_default=False,
            ),
        ] = None,
        template: TemplateOpt = None,
        categories: Annotated[
            bool,
            typer.Option(
                "--categories/--no-categories",
                help="Add a head per harm category (OpenAI's 13) and their training data "
                "(at most 2,000 examples each of conan and dialoconan).",
            ),
        ] = False,
        init: Annotated[
            str | None,
            typer.Option(
                "--init",
                help="Start from another run's adapters and heads (its name under --runs): "
                "a later stage of a chain.",
                show_default=False,
            ),
        ] = None,
        data_dir: DataDirOpt = None,
    ) -> None:
        """Start a run of low-rank adapters and heads on a frozen encoder, and run its first leg."""
        from ._config import require_train_extra

        flags = _template_flags(template)
        require_train_extra()
        from .._heads import CATEGORY_HEADS
        from ._categories import CATEGORY_CAPS
        from ._category_templates import TEMPLATE_REVISION
        from ._legs import LegConfig, start_run

        cfg = LegConfig(
            model_kwargs={"encoder": encoder, "r": r, "alpha": alpha}
            | ({"heads": list(CATEGORY_HEADS)} if categories else {}),
            data_kwargs={
                "data_dir": str(data_dir) if data_dir else None,
                "stage": stage,
                "seed": seed,
                "targeted": targeted,
                "broad_toxicity": broad_toxicity,
                **flags,
            }
            | (
                {
                    "categories": True,
                    "category_caps": dict(CATEGORY_CAPS),
                    "template_revision": TEMPLATE_REVISION,
                }
                if categories
                else {}
            ),
            init=str(runs / init) if init else None,
            train={
                "epochs": epochs,
                "lr": lr,
                "head_lr": head_lr,
                "batch_size": batch_size,
                "seed": seed,
                "threads": threads,
                "encoder": encoder,
            },
            checkpoint_minutes=checkpoint_minutes,
        )
        res = start_run(name, cfg, runs_dir=runs, leg_minutes=leg_minutes)
        typer.echo(
            f"{name}: leg {res.leg} took steps {res.step_from}..{res.step_to} of {res.total} "
            f"in {res.seconds:.0f} s" + (" (done)" if res.done else "")
        )
        _commit_hint(runs / name)

    @app.command("resume")
    def resume(
        name: Annotated[str, typer.Argument(help="The run's name (its folder under --runs).")],
        runs: RunsOpt = Path("training/runs"),
        leg_minutes: LegMinutesOpt = 120.0,
    ) -> None:
        """Run the next leg of a committed run, from its saved state."""
        from ._config import require_train_extra

        require_train_extra()
        from ._legs import resume_run

        res = resume_run(name, runs_dir=runs, leg_minutes=leg_minutes)
        typer.echo(
            f"{name}: leg {res.leg} took steps {res.step_from}..{res.step_to} of {res.total} "
            f"in {res.seconds:.0f} s" + (" (done)" if res.done else "")
        )
        _commit_hint(runs / name)

    @app.command("merge")
    def merge(
        name: Annotated[str, typer.Argument(help="The run's name (its folder under --runs).")],
        out: Annotated[
            Path,
            typer.Option(
                "--out",
                help="Run folder to write (model.pt with the adapters merged, train.json); "
                "large: keep it out of git.",
                file_okay=False,
                show_default=False,
            ),
        ],
        runs: RunsOpt = Path("training/runs"),
    ) -> None:
        """Merge a run's adapters into its encoder at its last checkpoint, as a run folder that
        export, compare-runs and ship read."""
        from ._config import require_train_extra

        require_train_extra()
        from ._legs import merge_run

        typer.echo(str(merge_run(name, out, runs_dir=runs) / "model.pt"))

    @app.command("student")
    def student_cmd(
        out: Annotated[
            Path,
            typer.Argument(
                metavar="OUT", help="Run folder to write (model.pt, train.json, export/)."
            ),
        ],
        teacher: Annotated[
            str, typer.Option("--teacher", help="Whose labels: an installed packaged model.")
        ] = "builtin-large",
        bank: BankOpt = Path("training/bank"),
        stage: Annotated[int, typer.Option("--stage", min=1, help="The mixture's stage.")] = 1,
        layers: Annotated[
            int | None, typer.Option("--layers", min=1, help="Keep MiniLM's first N layers.")
        ] = None,
        epochs: Annotated[float, typer.Option("--epochs")] = 1.0,
        alpha: Annotated[
            float, typer.Option("--alpha", min=0, max=1, help="Weight of the soft targets.")
        ] = 0.7,
        max_bank_only: Annotated[
            int | None,
            typer.Option(
                "--max-bank-only", min=0, help="At most this many texts the mixture lacks."
            ),
        ] = None,
        seed: Annotated[int, typer.Option("--seed")] = 0,
        threads: Annotated[int, typer.Option("--threads", min=1)] = 2,
        categories: Annotated[
            bool,
            typer.Option(
                "--categories/--no-categories",
                help="Add a head per harm category, learned from the category sources' labels "
                "and the bank's category scores where its teacher has them.",
            ),
        ] = False,
        temperature: Annotated[
            float, typer.Option("--temperature", min=0.01, help="Of the soft targets.")
        ] = 1.0,
        targeted: Annotated[
            bool,
            typer.Option("--targeted/--no-targeted", help="Add model 2.0's targeted rows."),
        ] = False,
        spans: Annotated[
            int,
            typer.Option(
                "--spans", min=0, help="Add this many SemEval-2021 posts with gold spans."
            ),
        ] = 0,
        template: TemplateOpt = None,
        init: Annotated[
            Path | None,
            typer.Option(
                "--init",
                help=(
                    "Start from a student's model.pt (a later stage of a chain), or from a "
                    "shipped model folder (its int8 graph read back into weights), such as "
                    "src/tactful/models/builtin."
                ),
                show_default=False,
            ),
        ] = None,
        lr: Annotated[float, typer.Option("--lr", help="The encoder's learning rate.")] = 5e-5,
        head_lr: Annotated[float, typer.Option("--head-lr")] = 1e-3,
        category_repeat: Annotated[
            int,
            typer.Option(
                "--category-repeat",
                min=1,
                help="With --categories: each category template row this many times.",
            ),
        ] = 1,
        draw_seed: Annotated[
            int | None,
            typer.Option(
                "--draw-seed",
                min=0,
                help="Draw the rows as --seed N would, and keep --seed for the order and the "
                "training: legs for one soup that share it have seen, together, no more rows "
                "than one leg (such as DeTexD's held-out rows).",
                show_default=False,
            ),
        ] = None,
        hard_source: Annotated[
            list[str] | None,
            typer.Option(
                "--hard-source",
                help="With --categories: a category source (repeat) whose labelled heads "
                "learn from its gold labels alone, not the teacher's scores as well, such "
                "as harm_requests.",
                show_default=False,
            ),
        ] = None,
        data_dir: DataDirOpt = None,
    ) -> None:
        """Train a MiniLM student from the teacher-label bank (no teacher runs), in one leg."""
        from ._student import student

        flags = _template_flags(template)
        path = student(
            out,
            teacher=teacher,
            bank=bank,
            data_dir=data_dir,
            stage=stage,
            seed=seed,
            layers=layers,
            epochs=epochs,
            alpha=alpha,
            max_bank_only=max_bank_only,
            threads=threads,
            categories=categories,
            temperature=temperature,
            targeted=targeted,
            spans=spans,
            init=init,
            lr=lr,
            head_lr=head_lr,
            category_repeat=category_repeat,
            draw_seed=draw_seed,
            hard_sources=hard_source or (),
            **flags,
        )
        typer.echo(str(path / "export" / "model.onnx"))

    @app.command("label")
    def label(
        teacher: Annotated[
            str, typer.Option("--teacher", help="The teacher: builtin or builtin-large.")
        ] = "builtin-large",
        source: Annotated[
            list[str],
            typer.Option("--source", help="A bank source, or 'all' (in the bank's order)."),
        ] = ["all"],  # noqa: B006  (Typer reads the default; it is never mutated)
        minutes: Annotated[
            float, typer.Option("--minutes", min=0, help="This leg's time budget.")
        ] = 60.0,
        resume: Annotated[
            bool,
            typer.Option("--resume/--no-resume", help="Keep the rows the bank holds (default)."),
        ] = True,
        threads: Annotated[int, typer.Option("--threads", min=1)] = 2,
        bank: BankOpt = Path("training/bank"),
        data_dir: DataDirOpt = None,
    ) -> None:
        """Label bank sources with a teacher for as long as the leg allows (resumable)."""
        import time

        import tactful

        from ._bank import bank_files
        from ._bank_sources import BANK_SOURCES
        from ._label import label_source, teacher_id

        names = list(BANK_SOURCES) if source == ["all"] else source
        mod = tactful.load(teacher, threads=threads)
        tid = teacher_id(mod)
        if not resume:
            for s in names:
                for f in bank_files(bank, tid, s):
                    f.unlink()
        end = time.monotonic() + minutes * 60
        for s in names:
            left = (end - time.monotonic()) / 60
            if left <= 0:
                break
            leg = label_source(mod, s, bank, minutes=left, data_dir=data_dir, teacher=tid)
            state = "done" if leg.done else "paused"
            typer.echo(
                f"{s}: {leg.before + leg.labelled}/{leg.total} labelled "
                f"(+{leg.labelled} in {leg.seconds:.0f} s, {state})"
            )
        _commit_hint(bank)

    @app.command("bank")
    def bank_cmd(
        bank: BankOpt = Path("training/bank"),
        as_json: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
    ) -> None:
        """What the teacher-label bank holds: rows per teacher and source, distinct texts."""
        from ._bank import bank_summary, distinct_texts

        rows = bank_summary(bank)
        chars = sorted(bank.glob("*/chars/*.npz"))
        files = sorted(bank.glob("*/*.npz")) + chars
        char_files = {str(p.relative_to(bank)): p.stat().st_size for p in chars}
        out: dict[str, Any] = {
            "sources": rows,
            "distinct_texts": distinct_texts(bank),
            "files": len(files),
            "bytes": sum(p.stat().st_size for p in files),
            "character_files": char_files,
            "largest_file_bytes": max((p.stat().st_size for p in files), default=0),
        }
        if as_json:
            typer.echo(json.dumps(out))
            return
        for r in rows:
            typer.echo(
                f"{r['teacher']:<24} {r['source']:<26} {r['rows']:>7} rows "
                f"({r['seen']} seen by the teacher) {r['bytes'] / 1e6:6.2f} MB"
            )
        for name, size in char_files.items():
            typer.echo(f"{name:<51} per-character toxic probabilities {size / 1e6:6.2f} MB")
        typer.echo(
            f"{out['distinct_texts']} distinct texts from {len(rows)} sources in "
            f"{out['files']} files, {out['bytes'] / 1e6:.2f} MB "
            f"(largest file {out['largest_file_bytes'] / 1e6:.2f} MB)"
        )
