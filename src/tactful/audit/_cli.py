"""``tactful audit``: the speech-suppression audit from the command line.

Registered on the main app in :mod:`tactful.cli` as ``app.command("audit")(audit_command)``;
errors are turned into one line and an exit code by the app's group.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ..options import (
    BatchSizeOpt,
    DataDirOpt,
    EngineOpt,
    ModeratorsOpt,
    OptionOpt,
    StoreOpt,
    parse_options,
)

__all__ = ["audit_command"]


def audit_command(
    moderator: ModeratorsOpt = ["builtin"],  # noqa: B006  (Typer reads the default; it is never mutated)
    datasets: Annotated[
        str,
        typer.Option(
            "--datasets",
            metavar="LIST",
            help="Comma-separated families (traditional, genai) and/or data set names (ss_openai, ...).",
        ),
    ] = "traditional,genai",
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Folder for report.json, report.md and report.html.")
    ] = Path("out/audit"),
    data_dir: DataDirOpt = None,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit", min=1, help="Audit at most this many rows per data set (seeded sample)."
        ),
    ] = None,
    n_resamples: Annotated[
        int,
        typer.Option("--n-resamples", min=1, help="Bootstrap resamples per confidence interval."),
    ] = 1000,
    store: StoreOpt = None,
    option: OptionOpt = None,
    engine: EngineOpt = "local",
    batch_size: BatchSizeOpt = None,
) -> None:
    """Audit moderators for identity-related speech suppression (Anigboro et al., 2024).

    Runs every moderator over every audit data set, keeps each answer in the
    result store, and writes report.json, report.md and a self-contained
    report.html into OUT; the store is OUT/store.sqlite unless --store names
    another. Texts that fail with a moderator even when asked alone are counted
    per moderator in one error line (exit 4): no report is written, and a re-run
    asks only for them.
    """
    from ._runner import run_audit

    report = run_audit(
        moderator,
        datasets=datasets,
        data_dir=data_dir,
        out=out,
        store=store,
        n_resamples=n_resamples,
        limit=limit,
        # A live bar is for people: keep pipes and CI logs clean.
        progress=sys.stderr.isatty(),
        engine=engine,
        batch_size=batch_size,
        options=parse_options(option or [], moderator),
    )
    # Piped output has no terminal width; 120 columns keep group names whole.
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
    table = Table(title="Worst suppression ratio (pooled family rows)", title_justify="left")
    # "within sets": the worst standardized flag ratio (observed / expected false
    # positives at each data set's own FPR), which the pooled ratio mixes with composition.
    columns = ("moderator", "family", "FPR", "flag", "group", "#FP/#TN", "score", "group")
    for col in (*columns, "within sets", "group"):
        table.add_column(
            col, justify="left" if col in ("moderator", "family", "group") else "right"
        )

    for s in report["summary"]:
        fpr = "—" if s["fpr"] is None else f"{s['fpr']:.3f}"
        flag, score, std = s["flag"], s["score"], s["standardized"]
        table.add_row(
            s["moderator"],
            s["family"],
            fpr,
            *(
                (f"{flag['ratio']:.2f}", flag["group"], f"{flag['n_fp']}/{flag['n_tn']}")
                if flag
                else ("—", "—", "—")
            ),
            *((f"{score['ratio']:.2f}", score["group"]) if score else ("—", "—")),
            *(
                (f"{std['standardized_ratio']:.2f}", std["group"])
                if std and std["standardized_ratio"] is not None
                else ("—", "—")
            ),
        )
    console.print(table)
    for skipped in report["skipped"]:
        Console(stderr=True, highlight=False).print(
            f"skipped {skipped['dataset']}: {skipped['reason']}"
        )
    from ..evaluate import in_sample_warning

    rows = {d["set"]: d["n"] for d in report["datasets"]}
    for m in report["moderators"]:
        for set_id, k in m.get("in_sample", {}).items():
            line = in_sample_warning({"moderator": m["label"], "n": rows[set_id], "n_in_sample": k})
            if line is not None:  # one line per set and moderator trained on some of its rows
                typer.echo(f"warning: {set_id}: {line}", err=True)
    for name in ("report.json", "report.md", "report.html"):
        console.print(f"wrote {out / name}")
