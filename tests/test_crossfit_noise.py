"""scripts/crossfit_noise.py refuses unusable folders in one line, before scoring any."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "crossfit_noise.py"


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_unusable_folders_get_one_line_errors(tmp_path):
    missing = tmp_path / "missing"
    got = _run(missing)
    assert got.returncode == 1
    assert got.stderr == (
        f"error: {missing}: [Errno 2] No such file or directory: '{missing / 'card.json'}'\n"
    )

    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "card.json").write_text(
        json.dumps({"dev": {"command": "tactful train ship runs/x --version 1"}})
    )
    got = _run(plain)
    assert (got.returncode, got.stderr) == (
        1,
        f"error: {plain}: its card was not shipped with --crossfit\n",
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
    assert got.returncode == 1 and got.stdout == ""
    assert got.stderr == (
        f"error: {gone}: [T010] {tmp_path / 'run'} is not a training run: it holds no train.json.\n"
    )
