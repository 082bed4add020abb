"""``python -m tactful.functional -m NAME``: a moderator's pass rate per functionality.

Prints the :func:`~tactful.functional.score_functional` table (or, with
``--json``, one object with the toxicity metrics of ``tactful eval`` and a
``functionalities`` list). Tactful errors are one line on stderr and their exit
code, as in the ``tactful`` command.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from .. import load
from ..errors import TactfulError
from ._render import functional_table

app = typer.Typer(add_completion=False, pretty_exceptions_show_locals=False)


def report(
    moderator: str,
    *,
    data_dir: Path | None = None,
    store: Path | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """The functional suite's figures for one moderator, JSON-ready.

    Returns
    -------
    dict
        ``dataset``, ``split``, ``moderator``, the metrics of
        :func:`tactful.evaluate.score` on the ``toxicity`` task, and
        ``functionalities`` (:func:`~tactful.functional.functional_rows`).
    """
    from ..datasets import load_dataset
    from ..evaluate import score
    from ..store import analyze_all
    from ._score import functional_rows, score_functional

    mod = load(moderator)
    records = load_dataset("functional", data_dir=data_dir)
    analyses = analyze_all(
        mod,
        [r.text for r in records],
        store=store,
        progress=progress,
        description=f"{mod.name} on functional",
    )
    return {
        "dataset": "functional",
        "split": "test",
        "moderator": mod.name,
        **score(records, analyses, task="toxicity", moderator=mod.name),
        "functionalities": functional_rows(score_functional(records, analyses)),
    }


@app.command()
def main(
    moderator: Annotated[str, typer.Option("--moderator", "-m", help="Registered moderator.")] = (
        "builtin"
    ),
    data_dir: Annotated[Path | None, typer.Option("--data-dir", file_okay=False)] = None,
    store: Annotated[Path | None, typer.Option("--store", help="SQLite result store.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
) -> None:
    """Score a moderator on tactful's functional test suite, per functionality."""
    try:
        result = report(moderator, data_dir=data_dir, store=store, progress=sys.stderr.isatty())
    except TactfulError as err:
        typer.echo(f"error: {' '.join(str(err).split())}", err=True)
        raise typer.Exit(err.exit_code) from None
    if as_json:
        typer.echo(json.dumps(result, indent=2))
        return
    title = f"{result['moderator']} on the functional suite: pass rate per functionality (%)"
    Console(highlight=False).print(functional_table(result["functionalities"], title))


if __name__ == "__main__":
    app()
