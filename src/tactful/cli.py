"""The ``tactful`` command line: thin faces over the library.

Each command parses its arguments, makes one library call and prints the
result: a rich rendering on a terminal, or JSON on stdout with ``--json``.
Any :class:`~tactful.errors.TactfulError` becomes one line on stderr,
``error: <message>``, and the error's ``exit_code`` (2 for configuration and
data errors); usage errors exit 2 as Typer/Click make them. New commands are
added to :data:`app` with ``@app.command()`` and get the same error handling.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import click
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text
from typer.core import TyperGroup

from . import __version__
from .assist import detox_eval_command, probe_app, triage_command
from .audit import audit_command
from .errors import ConfigError, MissingDataError, TactfulError
from .options import (
    BatchSizeOpt,
    DataDirOpt,
    EngineOpt,
    JsonOpt,
    ModeratorOpt,
    OptionOpt,
    StoreOpt,
    opened_store,
)
from .service import serve_command
from .taxonomy import HARM_CATEGORIES
from .train import train_app

__all__ = ["app", "main"]


class _TactfulGroup(TyperGroup):
    """Runs subcommands with tactful errors turned into one line and an exit code.

    Done at the group level, not per command, so that every command added to
    :data:`app` later, in any module, gets it without a decorator to forget, and
    so that ``CliRunner`` tests see exactly what a user sees.
    """

    # ``Any``: typer ships its own copy of click, whose Context is not ``click.Context``.
    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except TactfulError as err:
            message = " ".join(str(err).split())  # one line, whatever the message holds
            click.echo(f"error: {message}", err=True)
            raise typer.Exit(err.exit_code) from None


app = typer.Typer(
    name="tactful",
    cls=_TactfulGroup,
    help="Offline, CPU-first text moderation: detect, point, audit, assist.",
    no_args_is_help=True,
    add_completion=False,
    # Locals of a crashed frame may hold user texts: never print them.
    pretty_exceptions_show_locals=False,
)

_out = Console(highlight=False)
_err = Console(stderr=True, highlight=False)


def _print_json(obj: Any) -> None:
    # Plain write, not rich: rich would wrap long lines and colour the output.
    sys.stdout.write(json.dumps(obj, indent=None, allow_nan=False) + "\n")


def _graft_text(graft: dict, card: dict) -> str:
    """One ``tactful train category-heads`` record of a card, in words."""
    heads = list(graft.get("heads", []))
    cats = [h for h in heads if h in card.get("categories", {})]
    rows = [h for h in heads if h not in cats]
    how = "grafted onto" if graft.get("grafted") else "refit from"
    text = (
        f"{len(cats)} category rows {how} {graft.get('from', {}).get('version', '?')} "
        "with tactful train category-heads"
    )
    if rows:
        text += f", and the {', '.join(rows)} row{'s' if len(rows) > 1 else ''} refit"
    threat = graft.get("threat_dev")
    if isinstance(threat, dict):
        before = threat.get("before", {})
        text += (
            f"; threat point {before.get('threshold', '?')} -> {threat.get('threshold')}"
            f" (dev F1 {_fmt(threat.get('f1'))} on {threat.get('rows')} rows), threat_or "
            f"{before.get('threat_or', '?')} -> {threat.get('threat_or')}"
        )
    return text


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def _version(value: bool) -> None:
    if value:
        click.echo(f"tactful {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Offline, CPU-first text moderation: detect, point, audit, assist."""


# ----------------------------------------------------------------------- check


@app.command()
def check(
    texts: Annotated[
        list[str] | None,
        typer.Argument(metavar="TEXT...", help="Texts to analyze.", show_default=False),
    ] = None,
    file: Annotated[
        Path | None,
        typer.Option(
            "--file",
            "-f",
            metavar="FILE",
            help="Also analyze the texts of a CSV (header row) or JSONL file, UTF-8, "
            "from its 'text' column or field; an 'id' column is kept in --json output.",
            show_default=False,
        ),
    ] = None,
    moderator: ModeratorOpt = "builtin",
    as_json: JsonOpt = False,
    option: OptionOpt = None,
    store: StoreOpt = None,
) -> None:
    """Analyze texts: flagged or not, top scores and toxic spans, one result per text."""
    import tactful

    from .options import parse_options
    from .store import analyze_all

    # What each text is called in --json output: nothing for an argument, its id for a row.
    ids: list[str | None] = [None] * len(texts or [])
    texts = list(texts or [])
    if file is not None:
        from .assist import read_rows

        rows = read_rows(file)
        texts += rows.texts
        ids += rows.ids
    if not texts:
        raise ConfigError(
            "Nothing to analyze: give texts as arguments or --file FILE"
            + (f" ({file} has no rows)." if file is not None else ".")
        )
    mod = tactful.load(moderator, **parse_options(option or [], [moderator])[moderator])
    with opened_store(store) as db:
        # analyze_all checks that the moderator answers once per text.
        analyses = analyze_all(mod, texts, store=db)
    if as_json:
        _print_json(
            [
                {**({"id": i} if i is not None else {}), "text": t, **a.to_dict()}
                for i, t, a in zip(ids, texts, analyses, strict=True)
            ]
        )
        return
    for i, (text, a) in enumerate(zip(texts, analyses, strict=True), 1):
        verdict = Text("FLAGGED", style="bold red") if a.flagged else Text("ok", style="bold green")
        # The toxicity score always, then the strongest other categories above 0.
        ranked = sorted(a.scores.items(), key=lambda kv: -kv[1])
        top = [(k, v) for k, v in ranked if k == "toxicity"]
        top += [(k, v) for k, v in ranked if k != "toxicity" and v > 0][: 3 - len(top)]
        extras = [f"{k} {v:.2f}" for k, v in top]
        extras += [
            f"{k} {v:.2f}"
            for k, v in (("jailbreak", a.jailbreak), ("delicate", a.delicate))
            if v is not None
        ]
        # A model with harm-category heads names the categories it flags.
        harms = [c for c in HARM_CATEGORIES if a.flags.get(c)]
        if harms:
            extras.append("harm: " + ", ".join(harms))
        _out.print(Text.assemble(f"[{i}] ", verdict, "  " + " · ".join(extras) if extras else ""))
        shown = Text(text)
        for s in a.spans:
            shown.stylize("bold red reverse", s.start, s.end)
        _out.print(Text("    ") + shown)
        for s in a.spans:
            _out.print(
                f"    {s.start}–{s.end} {s.label} {s.score:.2f} {text[s.start : s.end]!r}",
                markup=False,
            )


# -------------------------------------------------------------------- datasets


def _split_counts(rows: dict[str, int]) -> str:
    return " · ".join(f"{split} {n:,}" for split, n in rows.items())


@app.command()
def datasets(data_dir: DataDirOpt = None, as_json: JsonOpt = False) -> None:
    """List the data sets, whether their files are present and their rows per split."""
    from .config import resolve_data_dir
    from .datasets import dataset_status

    folder = resolve_data_dir(data_dir)
    if not folder.is_dir():
        raise MissingDataError(
            f"The data folder {os.path.abspath(folder)} does not exist. "
            "Pass --data-dir DIR or set TACTFUL_DATA."
        )
    # Counting every data set parses every file (seconds): show that we are busy.
    with _err.status("counting rows…") if sys.stderr.isatty() else contextlib.nullcontext():
        status = dataset_status(folder)
    if as_json:
        _print_json(
            [
                {
                    "name": spec.name,
                    "task": spec.task,
                    "present": present,
                    "default_split": spec.default_split,
                    "rows": rows,
                    "expected_rows": dict(spec.expected_rows),
                }
                for spec, present, rows in status
            ]
        )
        return
    table = Table(title=f"data sets in {os.path.abspath(folder)}", title_justify="left")
    for col in ("name", "task", "present", "rows per split", "expected"):
        table.add_column(col)
    for spec, present, rows in status:
        # Both columns in the spec's split order, so that they read side by side.
        expected = {s: spec.expected_rows[s] for s in spec.splits if s in spec.expected_rows}
        matches = not expected or rows == expected
        table.add_row(
            spec.name,
            spec.task,
            Text("yes", style="green") if present else Text("no", style="red"),
            Text(_split_counts(rows), style="" if matches or not present else "yellow"),
            _split_counts(expected),
        )
    _out.print(table)


# ------------------------------------------------------------------------ eval


@app.command("eval")
def eval_(
    dataset: Annotated[
        str,
        typer.Argument(
            metavar="DATASET", help="Data set name (see `tactful datasets`).", show_default=False
        ),
    ],
    split: Annotated[
        str | None,
        typer.Option(
            help="Split to score. Default: the data set's test split.", show_default=False
        ),
    ] = None,
    moderator: ModeratorOpt = "builtin",
    data_dir: DataDirOpt = None,
    limit: Annotated[
        int | None,
        typer.Option(min=1, help="Score only the first N rows (smoke runs).", show_default=False),
    ] = None,
    as_json: JsonOpt = False,
    option: OptionOpt = None,
    store: StoreOpt = None,
    engine: EngineOpt = "local",
    batch_size: BatchSizeOpt = None,
    unseen: Annotated[
        bool,
        typer.Option(
            "--unseen",
            help="Score only the rows the moderator was not trained on (a held-out figure "
            "on a data set it partly saw; needs a model that records its training texts).",
        ),
    ] = False,
) -> None:
    """Score a moderator on a labelled data set with the papers' metrics.

    When some texts fail even when asked alone, the scores over the answered
    rows are printed (with their `failed` count), then one error line; exit 4.
    """
    from .errors import FailedItemsError
    from .evaluate import evaluate
    from .options import parse_options

    options = parse_options(option or [], [moderator])[moderator]
    with opened_store(store) as db:
        try:
            result = evaluate(
                dataset,
                moderator=moderator,
                split=split,
                data_dir=data_dir,
                limit=limit,
                store=db,
                engine=engine,
                options=options,
                batch_size=batch_size,
                unseen=unseen,
                # A live bar is for people: keep pipes and CI logs clean.
                progress=sys.stderr.isatty(),
            )
        except FailedItemsError as err:
            if err.report is not None:
                _show_eval(err.report, as_json)
            raise
    _show_eval(result, as_json)


def _show_eval(result: dict[str, Any], as_json: bool) -> None:
    from .evaluate import in_sample_warning

    warning = in_sample_warning(result)
    if warning is not None:  # stderr: --json stays one object on stdout
        click.echo(f"warning: {warning}", err=True)
    if as_json:
        _print_json(result)
        return
    table = Table(
        title=f"{result['moderator']} on {result['dataset']} / {result['split']}",
        title_justify="left",
    )
    table.add_column("metric")
    table.add_column("value", justify="right")
    breakdowns = {k: v for k, v in result.items() if isinstance(v, list)}
    if isinstance(result.get("categories"), dict):  # per harm category, a row each
        breakdowns["categories"] = [{"category": c, **m} for c, m in result["categories"].items()]
    for key, value in result.items():
        if key in ("dataset", "split", "moderator", "moderator_config") or key in breakdowns:
            continue
        table.add_row(key, _fmt(value))
    _out.print(table)
    for key, rows in breakdowns.items():
        if key == "functionalities":  # the functional suite's pass rates, in percent
            from .functional import functional_table

            _out.print(functional_table(rows))
        else:
            _out.print(_rows_table(key, rows))


def _rows_table(title: str, rows: list[dict[str, Any]]) -> Table:
    table = Table(title=title, title_justify="left")
    columns = list(dict.fromkeys(k for row in rows for k in row))
    for col in columns:
        first = col == columns[0]
        table.add_column(col, justify="left" if first else "right", no_wrap=first)
    for row in rows:
        table.add_row(*(_fmt(row.get(col)) for col in columns))
    return table


# ------------------------------------------------------------------ moderators


@app.command()
def moderators() -> None:
    """List the moderator names: tactful's own and installed plug-ins' (entry points)."""
    import tactful

    for name in tactful.available():
        click.echo(name)


# ------------------------------------------------------------------ builtin model


app.add_typer(train_app, name="train")


@app.command("model-card")
def model_card(
    as_json: JsonOpt = False,
    name: Annotated[
        str,
        typer.Option("--moderator", "-m", help="The packaged model: builtin or builtin-large."),
    ] = "builtin",
) -> None:
    """Show a packaged model's card: data, sizes, thresholds, hashes and measured figures."""
    from .moderators.builtin import load_card

    card = load_card(name=name)
    if as_json:
        _print_json(card)
        return
    table = Table(title=f"tactful {name} model {card.get('version', '?')}", show_header=False)
    for key in ("base_model", "architecture", "runtime"):
        table.add_row(key, str(card.get(key, "")))
    table.add_row(
        "thresholds", ", ".join(f"{k}={v}" for k, v in card.get("thresholds", {}).items())
    )
    refit = card.get("span_head")
    if isinstance(refit, dict):
        dev = refit.get("dev", {})
        table.add_row(
            "token head",
            f"refit from {refit.get('from', {}).get('version', '?')} with tactful train "
            f"span-head (float32; sequence heads unchanged); held-out clean prompts with a "
            f"span {_fmt(dev.get('held_out_prompts_with_span_before'))} -> "
            f"{_fmt(dev.get('held_out_prompts_with_span'))}",
        )
    head = card.get("delicate_head")
    if isinstance(head, dict):
        dev = card.get("dev", {})
        table.add_row(
            "delicate head",
            f"refit from {head.get('from', {}).get('version', '?')} with tactful train "
            f"delicate-head (other heads unchanged); point "
            f"{card.get('thresholds', {}).get('delicate', '?')} chosen on the "
            f"{dev.get('detexd_heldout_rows', '?')} DeTexD rows no training stage drew, "
            f"cross-fitted F1 there {_fmt(dev.get('detexd_heldout_delicate_crossfit_f1'))}",
        )
    repoint = card.get("delicate_point")
    if isinstance(repoint, dict):
        dev = card.get("dev", {})
        table.add_row(
            "delicate point",
            f"{repoint.get('from', {}).get('delicate', '?')} -> "
            f"{card.get('thresholds', {}).get('delicate', '?')}, chosen with tactful train "
            f"delicate-point on the {dev.get('detexd_heldout_rows', '?')} DeTexD rows no "
            f"training stage drew; F1 there {_fmt(dev.get('detexd_heldout_delicate_f1_at_0.5'))}"
            f" -> {_fmt(dev.get('detexd_heldout_delicate_crossfit_f1'))} (cross-fitted)",
        )
    graft = card.get("category_heads")
    if isinstance(graft, dict):
        # a graft onto a grafted model keeps the earlier record: oldest first
        chain = [graft]
        while isinstance(chain[-1].get("earlier"), dict):
            chain.append(chain[-1]["earlier"])
        texts = [_graft_text(g, card) for g in reversed(chain)]
        table.add_row("category heads", "; then ".join(texts) + " (other heads unchanged)")
    for file, digest in card.get("sha256", {}).items():
        table.add_row(f"sha256 {file}", digest)
    _out.print(table)
    categories = card.get("categories")
    if isinstance(categories, dict) and categories:
        cat_table = Table(title="harm categories (points and figures on the dev rows)")
        for col in ("category", "Llama Guard 3", "train positives", "dev rows", "AUC", "F1"):
            cat_table.add_column(col)
        cat_table.add_column("point")
        th = card.get("thresholds", {})
        # since 3.2.0 a category flags a text alone at its own flagging point
        flag_points = any(f"{c}_or" in th for c in categories)
        if flag_points:
            cat_table.add_column("flag point")
        for name_, entry in categories.items():
            dev = entry.get("dev", {})
            flag = [str(th.get(f"{name_}_or", "—"))] if flag_points else []
            cat_table.add_row(
                name_,
                ", ".join(entry.get("llama_guard_3", [])) or "—",
                str(sum(entry.get("train_examples", {}).values())),
                f"{dev.get('rows', '?')} ({dev.get('positives', '?')} in it)",
                _fmt(dev.get("auc")) if "auc" in dev else "—",
                _fmt(dev.get("f1")) if "f1" in dev else "—",
                str(th.get(name_, dev.get("threshold", "?"))),
                *flag,
            )
        _out.print(cat_table)
    figs = Table(title="measured figures")
    for col in ("figure", "value", "command"):
        figs.add_column(col)
    for f in card.get("figures", []):
        figs.add_row(f["name"], _fmt(f["value"]), f["command"])
    _out.print(figs)


def main() -> None:
    """Entry point of the ``tactful`` script and ``python -m tactful``."""
    app(prog_name="tactful")


# Faces defined beside their libraries register here, one line each.
app.command("audit")(audit_command)
app.command("serve")(serve_command)
app.command("triage")(triage_command)
app.command("detox-eval")(detox_eval_command)
app.add_typer(probe_app, name="probe")
