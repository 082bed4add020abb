"""tactful train crossfit-noise refuses unusable folders in one line, before scoring any."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import Result
from typer.testing import CliRunner

from tactful.cli import app


def _run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, ["train", "crossfit-noise", *map(str, args)])


def test_unusable_folders_get_one_line_errors(tmp_path):
    missing = tmp_path / "missing"
    got = _run(missing)
    assert got.exit_code == 2
    assert got.stderr == (
        f"error: [T010] {missing}: [Errno 2] No such file or directory: '{missing / 'card.json'}'\n"
    )

    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "card.json").write_text(
        json.dumps({"dev": {"command": "tactful train ship runs/x --version 1"}})
    )
    got = _run(plain)
    assert (got.exit_code, got.stderr) == (
        2,
        f"error: [T010] {plain}: its card was not shipped with --crossfit\n",
    )

    gone = tmp_path / "gone"
    gone.mkdir()
    card = {
        "source_run": {"dir": str(tmp_path / "run")},
        "thresholds": {"toxicity": 0.5},
        "dev": {"crossfit_runs": [str(tmp_path / "f1"), str(tmp_path / "f2")]},
    }
    (gone / "card.json").write_text(json.dumps(card))
    # its card names fold runs, but its run is not there: refused before any scoring
    got = _run(gone, plain)
    assert got.exit_code == 2 and got.stdout == ""
    assert got.stderr == (
        f"error: [T010] {gone}: {tmp_path / 'run'} is not a training run: it holds no train.json.\n"
    )
