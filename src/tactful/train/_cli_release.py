"""``tactful train compare-runs|crossfit-noise|trained-texts|card-figures|obfuscate``.

The release tooling: the figures a shipping rule compares, the card's training
record and measured figures, and the obfuscated test sets of the robustness
benchmark. None of them needs torch. Each command is one library call
(:mod:`tactful.train._compare`, :mod:`tactful.train._noise`,
:mod:`tactful.train._trained_texts`, :mod:`tactful.train._figures`,
:mod:`tactful.obfuscate`) and prints what it measured or wrote.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Literal

import typer

from ..options import DataDirOpt

__all__ = ["add_release_commands"]

JsonFileOpt = Annotated[
    Path | None,
    typer.Option("--json", help="Also write the figures to this JSON file.", show_default=False),
]


def _data(data_dir: Path | None) -> str | None:
    return None if data_dir is None else str(data_dir)


def add_release_commands(app: typer.Typer) -> None:
    """Add the release-tooling commands to the ``tactful train`` app."""

    @app.command("compare-runs")
    def compare_runs_command(
        runs: Annotated[
            list[Path],
            typer.Argument(
                help="Run folders (their export/) or model folders.", show_default=False
            ),
        ],
        data_dir: DataDirOpt = None,
        json_out: JsonFileOpt = None,
        points: Annotated[
            Literal["dev", "card"],
            typer.Option(
                "--points",
                help="Read the rates at the dev thresholds or at a model folder's card points.",
            ),
        ] = "dev",
        dev_only: Annotated[
            bool,
            typer.Option(
                "--dev-only",
                help="Read no test split (ToxicChat test, SemEval-2021 test): "
                "test columns print -.",
            ),
        ] = False,
    ) -> None:
        """Compare training runs on ToxicChat dev (and test) the way the shipped model is
        chosen, with the dev fairness and template figures; one line per run."""
        from ._compare import compare_run, compare_table_header, compare_table_row

        rows = []
        with tempfile.TemporaryDirectory() as tmp:
            typer.echo(compare_table_header(points))
            for i, run in enumerate(runs):
                row = compare_run(run, _data(data_dir), Path(tmp) / str(i), points, dev_only)
                rows.append(row)
                typer.echo(compare_table_row(row))
                sys.stdout.flush()
        if json_out:
            json_out.write_text(json.dumps(rows, indent=2))

    @app.command("crossfit-noise")
    def crossfit_noise_command(
        folders: Annotated[
            list[Path],
            typer.Argument(help="Model folders shipped with --crossfit.", show_default=False),
        ],
        resamples: Annotated[
            int, typer.Option("--resamples", min=1, help="Bootstrap resamples of the rows.")
        ] = 2000,
        seed: Annotated[int, typer.Option("--seed", help="Seed of the resamples.")] = 0,
        data_dir: DataDirOpt = None,
    ) -> None:
        """How noisy is the cross-fitted toxicity F1 that shipping rules compare? F1 at each
        card's point, its bootstrap SD, and paired differences against the first folder."""
        import numpy as np

        from ._noise import bootstrap_f1, crossfit_plan, crossfit_scores, f1_at

        flags: list[np.ndarray] = []
        y0: np.ndarray | None = None
        # every folder is checked before any is scored
        plans = [crossfit_plan(folder) for folder in folders]
        for folder, (run, fold_runs, point) in zip(folders, plans, strict=True):
            y, p = crossfit_scores(run, fold_runs, _data(data_dir))
            if y0 is not None and not np.array_equal(y, y0):
                from ..errors import DataError

                raise DataError(f"{folder}: not the same cross-fitted rows as {folders[0]}")
            y0 = y
            flags.append(p >= point)
            typer.echo(f"{folder}: {len(y):,} rows, point {point:g}, F1 {f1_at(y, flags[-1]):.4f}")
        assert y0 is not None
        boot = bootstrap_f1(y0, flags, resamples, seed)
        for folder, col in zip(folders, boot.T, strict=True):
            typer.echo(f"{folder}: bootstrap SD of F1 {col.std():.4f}")
        for j in range(1, len(flags)):
            d = boot[:, j] - boot[:, 0]
            lo, hi = np.percentile(d, [2.5, 97.5])
            typer.echo(
                f"{folders[j]} - {folders[0]}: mean {d.mean():+.4f}, SD {d.std():.4f}, "
                f"95 % interval [{lo:+.4f}, {hi:+.4f}]"
            )

    @app.command("trained-texts")
    def trained_texts_command(
        data_dir: DataDirOpt = None,
        model_dir: Annotated[
            Path | None,
            typer.Option(
                "--model-dir",
                help="The model folder (default: the builtin model).",
                show_default=False,
            ),
        ] = None,
        check: Annotated[
            bool, typer.Option("--check", help="Compare, write nothing (exit 1 when out of date).")
        ] = False,
    ) -> None:
        """Record what a shipped model was trained on: trained_texts.bin and the card's
        trained_on (no torch)."""
        from ._trained_texts import record_trained_texts

        rec = record_trained_texts(model_dir, _data(data_dir), check=check)
        if rec.missing:
            typer.echo(
                f"note: not in the data folder, not checked: {', '.join(rec.missing)}", err=True
            )
        if check:
            same = bool(rec.up_to_date)
            typer.echo(
                "up to date" if same else f"{rec.path} or the card's trained_on is out of date"
            )
            raise typer.Exit(0 if same else 1)
        typer.echo(
            f"{rec.texts:,} training texts, {rec.fingerprints:,} fingerprints, {rec.size:,} bytes "
            f"-> {rec.path}; trained_on: {len(rec.entries)} entries"
        )
        for e in rec.entries:
            typer.echo(f"  {e}")

    @app.command("card-figures")
    def card_figures_command(
        model: Annotated[
            Literal["builtin", "builtin-large"],
            typer.Option("--model", help="The packaged model whose card gets the figures."),
        ] = "builtin",
        evals: Annotated[
            list[Path] | None,
            typer.Option(
                "--eval",
                help="JSON written by `tactful eval ... --moderator MODEL --json` (repeatable).",
                show_default=False,
            ),
        ] = None,
        cvs: Annotated[
            list[Path] | None,
            typer.Option(
                "--cv",
                help="cv_detexd.json of `tactful train cv detexd` (repeatable: one per epochs "
                "setting).",
                show_default=False,
            ),
        ] = None,
        speed: Annotated[
            Path | None, typer.Option("--speed", help="JSON of bench/speed.py.", show_default=False)
        ] = None,
        robustness: Annotated[
            Path | None,
            typer.Option("--robustness", help="JSON of bench/robustness.py.", show_default=False),
        ] = None,
        cv_frozen: Annotated[
            Path | None,
            typer.Option(
                "--cv-frozen",
                help="cv_detexd_frozen.json of `tactful train cv detexd-frozen`.",
                show_default=False,
            ),
        ] = None,
        cv_fold0_f1: Annotated[
            float | None,
            typer.Option(
                "--cv-fold0-f1",
                help="F1 of fold 0 of the fine-tuned CV when the full CV did not finish.",
                show_default=False,
            ),
        ] = None,
        functional: Annotated[
            Path | None,
            typer.Option(
                "--functional",
                help="JSON written by `tactful eval functional --moderator MODEL --json`.",
                show_default=False,
            ),
        ] = None,
        keep: Annotated[
            list[str] | None,
            typer.Option(
                "--keep",
                metavar="PREFIX",
                help="Carry over the current card's figures whose name starts with PREFIX, with "
                "their commands (for protocols that do not use the shipped weights, such as "
                "`tactful train cv detexd`, which fine-tunes the encoder on DeTexD alone).",
                show_default=False,
            ),
        ] = None,
    ) -> None:
        """Write a packaged model's measured figures into its card (card.json), each with
        the command that produced it."""
        from ._figures import write_card_figures

        figures = write_card_figures(
            model,
            evals=evals or (),
            cvs=cvs or (),
            speed=speed,
            robustness=robustness,
            cv_frozen=cv_frozen,
            cv_fold0_f1=cv_fold0_f1,
            functional=functional,
            keep=keep or (),
        )
        for f in figures:
            typer.echo(f"{f['name']:70s} {f['value']}")

    @app.command("obfuscate")
    def obfuscate_command(
        dataset: Annotated[
            Literal["toxicspans", "toxicchat"],
            typer.Option("--dataset", help="The data set to obfuscate.", show_default=False),
        ],
        out: Annotated[
            Path, typer.Option("--out", help="The JSON-lines file to write.", show_default=False)
        ],
        split: Annotated[str, typer.Option("--split", help="The split.")] = "test",
        seed: Annotated[int, typer.Option("--seed", help="Seed of the perturbations.")] = 0,
        data_dir: DataDirOpt = None,
        methods: Annotated[
            str,
            typer.Option(
                "--methods",
                help="Comma-separated subset of asterisk,leet,spaced,zero_width,cyrillic,repeat.",
            ),
        ] = "asterisk,leet,spaced,zero_width,cyrillic,repeat",
        limit: Annotated[
            int | None,
            typer.Option("--limit", min=1, help="Only the first N rows.", show_default=False),
        ] = None,
    ) -> None:
        """Write a seeded obfuscated copy of a test set's toxic words as JSON lines, for the
        robustness benchmark (bench/robustness.py)."""
        from ..obfuscate import write_obfuscated

        done = write_obfuscated(
            dataset,
            out,
            split=split,
            seed=seed,
            methods=[m.strip() for m in methods.split(",") if m.strip()],
            data_dir=_data(data_dir),
            limit=limit,
        )
        typer.echo(done.summary(dataset, split, out), err=True)
