"""Sphinx extension of tactful's documentation site. At ``builder-inited`` it writes:

- ``docs/_generated/cli.md``, the command-line reference, generated from the ``tactful``
  Typer app by Typer's own ``typer tactful.cli utils docs`` (sphinx-click cannot read it:
  Typer 0.29 runs on its own copy of click);
- for each shipped model's card (``card.json``, read through
  :func:`tactful.moderators.builtin.load_card`) is written as a Markdown page fragment to
  ``docs/_generated/card-NAME.md``, which ``docs/models/NAME.md`` includes. A model that is
  not installed gets a one-paragraph note instead, so the build does not fail.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from tactful.errors import TactfulError

#: The shipped models that get a page generated from their card.
MODELS = ("builtin", "builtin-large")


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def _code(value: Any) -> str:
    return f"`{_cell(value)}`" if value not in (None, "") else "—"


def _num(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".") if value != int(value) else f"{value:.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return "—" if value is None else _cell(value)


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out + [""]


def _flatten(prefix: str, value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        rows: list[tuple[str, Any]] = []
        for key, sub in value.items():
            rows += _flatten(f"{prefix}.{key}" if prefix else str(key), sub)
        return rows
    return [(prefix, value)]


def card_markdown(name: str, card: dict[str, Any]) -> str:
    """The Markdown fragment of one model card: what ``tactful model-card -m NAME`` shows, and
    the card's training, data and dev records."""
    lines = [
        f"## Card of `{name}` {card.get('version', '?')}",
        "",
        (
            f"Generated from the model's `card.json` when this site was built "
            f"(`tactful model-card -m {name}` prints it, `--json` in full)."
        ),
        "",
    ]
    sizes = card.get("size_bytes", {})
    rows = [(key, _cell(card.get(key, "—"))) for key in ("name", "version", "encoder")]
    rows += [
        (key.replace("_", " "), _cell(card.get(key, "—")))
        for key in ("base_model", "architecture", "runtime", "quantization")
    ]
    rows.append(("heads", ", ".join(f"`{h}`" for h in card.get("heads", []))))
    rows.append(("span types", ", ".join(f"`{h}`" for h in card.get("span_types", []))))
    rows += [(f"size of `{f}`", f"{n / 1e6:.1f} MB ({n:,} bytes)") for f, n in sizes.items()]
    source = card.get("source_run", {})
    if isinstance(source, dict) and source.get("dir"):
        rows.append(("source run", _code(source["dir"])))
    lines += _table(("field", "value"), rows)

    thresholds = card.get("thresholds", {})
    lines += [
        "### Operating points",
        "",
        (
            "A head flags a text at its point; `offensive_or`, `threat_or` and `insult_or` are the "
            "high-precision points at which those heads also set `flagged`; `span` is the token "
            "head's point. Override one with `-O 'thresholds={\"jailbreak\": 0.5}'`."
        ),
        "",
    ]
    lines += _table(("point", "value"), [(f"`{k}`", _num(v)) for k, v in thresholds.items()])

    dev = card.get("dev", {})
    if isinstance(dev, dict) and dev:
        lines += ["### How the points were chosen (dev figures)", ""]
        if dev.get("command"):
            lines += [f"`{_cell(dev['command'])}`", ""]
        dev_rows = [
            (f"`{k}`", _num(v) if not isinstance(v, list) else ", ".join(map(_code, v)))
            for k, v in _flatten("", {k: v for k, v in dev.items() if k != "command"})
        ]
        lines += _table(("figure", "value"), dev_rows)

    for key, title in (
        ("span_head", "Token head refit (`tactful train span-head`)"),
        ("delicate_head", "Delicate head refit (`tactful train delicate-head`)"),
        ("delicate_point", "Delicate point (`tactful train delicate-point`)"),
    ):
        refit = card.get(key)
        if isinstance(refit, dict):
            lines += [f"### {title}", ""]
            if refit.get("command"):
                lines += [f"`{_cell(refit['command'])}`", ""]
            flat = _flatten("", {k: v for k, v in refit.items() if k != "command"})
            lines += _table(("field", "value"), [(f"`{k}`", _num(v)) for k, v in flat])

    figures = card.get("figures", [])
    if figures:
        lines += ["### Measured figures", ""]
        where = card.get("figures_measured_on")
        if isinstance(where, dict):
            dots = ", ".join(where.get("int8_dot_product", [])) or "none (AVX2 alone)"
            note = (
                f"Measured on {_cell(str(where.get('cpu')))} (8-bit dot product: {dots}), "
                f"onnxruntime {where.get('onnxruntime')}. The int8 `builtin` scores a little "
                "differently on a CPU with VNNI than on one without."
            )
            lines += [note, ""]
        lines += _table(
            ("figure", "value", "command"),
            [(_cell(f["name"]), _num(f["value"]), _code(f.get("command"))) for f in figures],
        )

    training = card.get("training", {})
    if isinstance(training, dict) and training:
        lines += ["### Training stages", ""]
        stage_rows = []
        for stage, run in training.items():
            sources = run.get("sources", {}) if isinstance(run, dict) else {}
            stage_rows.append(
                (
                    f"`{stage}`",
                    _num(run.get("examples")),
                    _num(run.get("steps")),
                    _num(run.get("seconds")),
                    ", ".join(f"{s} {n:,}" for s, n in sources.items()),
                )
            )
        lines += _table(
            ("stage", "examples", "steps", "seconds", "examples per source"), stage_rows
        )

    trained_on = card.get("trained_on", [])
    if trained_on:
        lines += [
            "### Training data",
            "",
            (
                "Every data set and split the model saw; `tactful eval` warns on these rows and "
                "`--unseen` leaves them out."
            ),
            "",
        ]
        lines += _table(
            ("data set", "split", "rows seen", "rows", "honest figure"),
            [
                (
                    f"`{t['dataset']}`",
                    _cell(t.get("split") or "—"),
                    _num(t.get("rows_seen")),
                    _num(t.get("rows")),
                    _code(t.get("honest_figure")),
                )
                for t in trained_on
            ],
        )

    hashes = card.get("sha256", {})
    if hashes:
        lines += ["### Hashes", "", "The runtime checks each file against its sha256.", ""]
        lines += _table(("file", "sha256"), [(f"`{f}`", f"`{d}`") for f, d in hashes.items()])
    return "\n".join(lines).rstrip("\n") + "\n"


def missing_markdown(name: str, error: Exception) -> str:
    """The fragment of a model that is not installed where the site is built."""
    return (
        f"## Card of `{name}`\n\n"
        f"```{{note}}\nThe `{name}` model is not installed in the environment that built this "
        f"site, so its card could not be shown here ({error}). Install the model, then rebuild "
        f"the site or run `tactful model-card -m {name}`.\n```\n"
    )


def write_cards(srcdir: Path) -> None:
    """Write ``_generated/card-NAME.md`` for every model of :data:`MODELS`."""
    from tactful.moderators.builtin import load_card

    out = srcdir / "_generated"
    out.mkdir(exist_ok=True)
    for name in MODELS:
        try:
            text = card_markdown(name, load_card(name=name))
        except TactfulError as exc:
            text = missing_markdown(name, exc)
        _write_if_changed(out / f"card-{name}.md", text)


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def write_cli(srcdir: Path) -> None:
    """Write ``_generated/cli.md`` from the Typer app ``tactful.cli:app``."""
    out = srcdir / "_generated"
    out.mkdir(exist_ok=True)
    command = [sys.executable, "-m", "typer", "tactful.cli", "utils", "docs"]
    command += ["--name", "tactful", "--title", "Command line"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    intro = (
        "`tactful` (or `python -m tactful`) is one command with a subcommand per job. This page "
        "is generated from the command's own help texts.\n"
    )
    head, _, rest = done.stdout.partition("\n")
    _write_if_changed(out / "cli.md", f"{head}\n\n{intro}{rest}")


def _on_builder_inited(app: Any) -> None:
    write_cli(Path(app.srcdir))
    write_cards(Path(app.srcdir))


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", _on_builder_inited)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
