"""``tactful triage``, ``tactful detox-eval`` and ``tactful probe gender|country|identity``.

Registered on the main app in :mod:`tactful.cli`, one line each; errors become
one line and an exit code through the app's group (nested ``probe`` commands
included). Each command writes JSON, HTML and PNG figures into ``--out`` and
prints its table (or, with ``--json``, the report on stdout).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from ..options import DataDirOpt, JsonOpt, ModeratorOpt, OptionOpt, StoreOpt, parse_options

__all__ = ["detox_eval_command", "probe_app", "triage_command"]

HeadOpt = Annotated[
    str,
    typer.Option(help="The head whose decision and score count: toxicity, delicate, insult, ..."),
]
ResamplesOpt = Annotated[
    int, typer.Option("--n-resamples", min=1, help="Bootstrap resamples per 95 % interval.")
]
SeedOpt = Annotated[int, typer.Option("--seed", min=0, help="Seed of samples and bootstraps.")]
OutOpt = Annotated[
    Path, typer.Option("--out", "-o", help="Folder for the JSON, HTML and PNG files.")
]


def _options(values: list[str] | None, moderator: str) -> dict[str, Any]:
    return parse_options(values or [], [moderator])[moderator]


def _progress() -> bool:
    # A live bar is for people: keep pipes and CI logs clean.
    return sys.stderr.isatty()


def _run(
    tool: Callable[..., dict[str, Any]],
    moderator: str,
    option: list[str] | None,
    report_dir: Path,
    as_json: bool,
    **kwargs: Any,
) -> None:
    """Run one tool with the moderator's -O options, then write and show its report."""
    report = tool(moderator, options=_options(option, moderator), progress=_progress(), **kwargs)
    _finish(report, report_dir, as_json)


def _finish(report: dict[str, Any], out: Path, as_json: bool) -> None:
    from ..evaluate import in_sample_warning
    from ._report import report_tables, write_report

    paths = write_report(report, out)
    for entry in report["in_sample"]:
        warning = in_sample_warning({**entry, "moderator": report["moderator"]["name"]})
        if warning is not None:  # stderr: --json stays one object on stdout
            typer.echo(f"warning: {entry['rows']}: {warning}", err=True)
    if as_json:
        sys.stdout.write(json.dumps(report, allow_nan=False, ensure_ascii=False) + "\n")
        return
    # Piped output has no terminal width; 120 columns keep the tables whole.
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
    for t in report_tables(report):
        table = Table(title=t.title, title_justify="left")
        for i, h in enumerate(t.header):
            table.add_column(h, justify="left" if i < t.left else "right")
        for row in t.rows:
            table.add_row(*row)
        console.print(table)
    for path in paths.values():
        console.print(f"wrote {path}", markup=False)


def triage_command(
    trial: Annotated[
        str,
        typer.Option(
            "--trial",
            metavar="FILE|DATASET[:SPLIT]",
            help="Labelled trial set: CSV/JSONL with text,label or a data set split.",
        ),
    ] = "toxicchat:train_full",
    new: Annotated[
        str | None,
        typer.Option(
            "--new",
            metavar="FILE|DATASET[:SPLIT]",
            help="Rows to split into auto_nontoxic and needs_human (CSV/JSONL with a text column).",
            show_default=False,
        ),
    ] = None,
    safe_rate: Annotated[
        float,
        typer.Option(
            "--safe-rate", help="Largest toxic rate allowed among the rows left to the machine."
        ),
    ] = 0.01,
    moderator: ModeratorOpt = "builtin",
    option: OptionOpt = None,
    head: HeadOpt = "toxicity",
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Folder for the report and the two split files.")
    ] = Path("out/triage"),
    store: StoreOpt = None,
    data_dir: DataDirOpt = None,
    n_resamples: ResamplesOpt = 1000,
    seed: SeedOpt = 0,
    as_json: JsonOpt = False,
) -> None:
    """Human-AI triage (ToxicChat): which rows people must read, at an absolute safe rate.

    Picks, on the labelled trial set, the threshold that leaves the most rows to
    the machine while the toxic rate among them stays within --safe-rate; reports
    the work saved and the toxic rows missed with bootstrap CIs; splits --new into
    OUT/auto_nontoxic and OUT/needs_human (id, text, score, other columns).
    """
    from ._triage import triage

    _run(
        triage,
        moderator,
        option,
        out,
        as_json,
        trial=trial,
        new=new,
        out=out,
        safe_rate=safe_rate,
        head=head,
        data_dir=data_dir,
        store=store,
        n_resamples=n_resamples,
        seed=seed,
    )


def detox_eval_command(
    pairs: Annotated[
        str,
        typer.Option(
            "--pairs",
            metavar="paradetox|FILE",
            help="'paradetox' (human rewrites) or a CSV/JSONL with source,rewrite[,reference][,spans].",
        ),
    ] = "paradetox",
    moderator: ModeratorOpt = "builtin",
    option: OptionOpt = None,
    head: HeadOpt = "toxicity",
    sim: Annotated[
        bool, typer.Option("--sim/--no-sim", help="Compute self-SIM and ref-SIM (train extra).")
    ] = True,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit", min=1, help="A seeded sample of at most N sources.", show_default=False
        ),
    ] = None,
    out: OutOpt = Path("out/detox-eval"),
    store: StoreOpt = None,
    data_dir: DataDirOpt = None,
    n_resamples: ResamplesOpt = 1000,
    seed: SeedOpt = 0,
    as_json: JsonOpt = False,
) -> None:
    """Toxic-to-civil evaluation (ToxicSpans §7): ACC, ACC2–ACC4, self-SIM and ref-SIM."""
    from ._detox import detox_eval

    _run(
        detox_eval,
        moderator,
        option,
        out,
        as_json,
        pairs=pairs,
        head=head,
        sim=sim,
        data_dir=data_dir,
        store=store,
        limit=limit,
        n_resamples=n_resamples,
        seed=seed,
    )


probe_app = typer.Typer(
    name="probe",
    help="Bias probes (DeTexD §7, Borkan et al. 2019): gender, country, identity.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)


@probe_app.command("gender")
def probe_gender_command(
    moderator: ModeratorOpt = "builtin",
    option: OptionOpt = None,
    head: HeadOpt = "toxicity",
    out: OutOpt = Path("out/probe-gender"),
    store: StoreOpt = None,
    data_dir: DataDirOpt = None,
    n_resamples: ResamplesOpt = 1000,
    seed: SeedOpt = 0,
    as_json: JsonOpt = False,
) -> None:
    """Share of decisions that flip when gendered words and names are swapped (DeTexD)."""
    from ._probes import probe_gender

    _run(
        probe_gender,
        moderator,
        option,
        out,
        as_json,
        head=head,
        data_dir=data_dir,
        store=store,
        n_resamples=n_resamples,
        seed=seed,
    )


@probe_app.command("country")
def probe_country_command(
    moderator: ModeratorOpt = "builtin",
    option: OptionOpt = None,
    head: HeadOpt = "toxicity",
    template: Annotated[
        str, typer.Option("--template", help="Sentence with {country}.")
    ] = "Unfortunately, the incident happened in {country}.",
    out: OutOpt = Path("out/probe-country"),
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Template score per country (193 UN member states), ranked and plotted."""
    from ._probes import probe_country

    _run(probe_country, moderator, option, out, as_json, head=head, template=template, store=store)


@probe_app.command("identity")
def probe_identity_command(
    moderator: ModeratorOpt = "builtin",
    option: OptionOpt = None,
    head: HeadOpt = "toxicity",
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            min=1,
            help="A seeded sample of at most N template texts.",
            show_default=False,
        ),
    ] = None,
    out: OutOpt = Path("out/probe-identity"),
    store: StoreOpt = None,
    data_dir: DataDirOpt = None,
    seed: SeedOpt = 0,
    as_json: JsonOpt = False,
) -> None:
    """Per-identity subgroup, BPSN and BNSP AUC and FPR ratio on the Jigsaw templates."""
    from ._probes import probe_identity

    _run(
        probe_identity,
        moderator,
        option,
        out,
        as_json,
        head=head,
        data_dir=data_dir,
        store=store,
        limit=limit,
        seed=seed,
    )
