"""``tactful triage``, ``tactful detox-eval`` and ``tactful probe gender|country|identity``.

Registered on the main app in :mod:`tactful.cli`, one line each; errors become
one line and an exit code through the app's group (nested ``probe`` commands
included). Each command writes JSON, HTML and PNG figures into ``--out`` and
prints its table (or, with ``--json``, the report on stdout).
"""

from __future__ import annotations

import importlib
import inspect
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


#: The options every tool command shares: name -> (annotation, default).
_SHARED: dict[str, tuple[Any, Any]] = {
    "moderator": (ModeratorOpt, "builtin"),
    "option": (OptionOpt, None),
    "head": (HeadOpt, "toxicity"),
    "store": (StoreOpt, None),
    "data_dir": (DataDirOpt, None),
    "n_resamples": (ResamplesOpt, 1000),
    "seed": (SeedOpt, 0),
}


def _tool_command(
    tool: str,
    out: str,
    *,
    shared: tuple[str, ...] = tuple(_SHARED),
    out_help: str = "Folder for the JSON, HTML and PNG files.",
    tool_gets_out: bool = False,
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Make a Typer command of ``tool`` (``"module:function"`` in this package).

    The decorated function declares the tool's own options (its body is not
    run); the command adds the ``shared`` options of :data:`_SHARED`, ``--out``
    and ``--json`` after them, and runs the tool through :func:`_run` with every
    option but moderator, -O, --out and --json as a keyword (``--out`` too when
    ``tool_gets_out``).
    """
    module, name = tool.split(":")
    out_opt = Annotated[Path, typer.Option("--out", "-o", help=out_help)]

    def wrap(own: Callable[..., None]) -> Callable[..., None]:
        params = [
            p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
            for p in inspect.signature(own, eval_str=True).parameters.values()
        ]
        params += [
            inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, annotation=a, default=d)
            for n, (a, d) in _SHARED.items()
            if n in shared
        ]
        params += [
            inspect.Parameter(
                "out", inspect.Parameter.KEYWORD_ONLY, annotation=out_opt, default=Path(out)
            ),
            inspect.Parameter(
                "as_json", inspect.Parameter.KEYWORD_ONLY, annotation=JsonOpt, default=False
            ),
        ]

        def command(**kwargs: Any) -> None:
            moderator, option = kwargs.pop("moderator"), kwargs.pop("option")
            report_dir, as_json = kwargs["out"], kwargs.pop("as_json")
            if not tool_gets_out:
                del kwargs["out"]
            run = getattr(importlib.import_module(module, __package__), name)
            _run(run, moderator, option, report_dir, as_json, **kwargs)

        command.__name__ = own.__name__
        command.__qualname__ = own.__qualname__
        command.__doc__ = own.__doc__
        command.__module__ = own.__module__
        command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        return command

    return wrap


@_tool_command(
    "._triage:triage",
    "out/triage",
    out_help="Folder for the report and the two split files.",
    tool_gets_out=True,
)
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
) -> None:
    """Human-AI triage (ToxicChat): which rows people must read, at an absolute safe rate.

    Picks, on the labelled trial set, the threshold that leaves the most rows to
    the machine while the toxic rate among them stays within --safe-rate; reports
    the work saved and the toxic rows missed with bootstrap CIs; splits --new into
    OUT/auto_nontoxic and OUT/needs_human (id, text, score, other columns).
    """


@_tool_command("._detox:detox_eval", "out/detox-eval")
def detox_eval_command(
    pairs: Annotated[
        str,
        typer.Option(
            "--pairs",
            metavar="paradetox|FILE",
            help="'paradetox' (human rewrites) or a CSV/JSONL with source,rewrite[,reference][,spans].",
        ),
    ] = "paradetox",
    sim: Annotated[
        bool, typer.Option("--sim/--no-sim", help="Compute self-SIM and ref-SIM (train extra).")
    ] = True,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit", min=1, help="A seeded sample of at most N sources.", show_default=False
        ),
    ] = None,
) -> None:
    """Toxic-to-civil evaluation (ToxicSpans §7): ACC, ACC2–ACC4, self-SIM and ref-SIM."""


probe_app = typer.Typer(
    name="probe",
    help="Bias probes (DeTexD §7, Borkan et al. 2019): gender, country, identity.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)


@probe_app.command("gender")
@_tool_command("._probes:probe_gender", "out/probe-gender")
def probe_gender_command() -> None:
    """Share of decisions that flip when gendered words and names are swapped (DeTexD)."""


@probe_app.command("country")
@_tool_command(
    "._probes:probe_country", "out/probe-country", shared=("moderator", "option", "head", "store")
)
def probe_country_command(
    template: Annotated[
        str, typer.Option("--template", help="Sentence with {country}.")
    ] = "Unfortunately, the incident happened in {country}.",
) -> None:
    """Template score per country (193 UN member states), ranked and plotted."""


@probe_app.command("identity")
@_tool_command(
    "._probes:probe_identity",
    "out/probe-identity",
    shared=("moderator", "option", "head", "store", "data_dir", "seed"),
)
def probe_identity_command(
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            min=1,
            help="A seeded sample of at most N template texts.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Per-identity subgroup, BPSN and BNSP AUC and FPR ratio on the Jigsaw templates."""
