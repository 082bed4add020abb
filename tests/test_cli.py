"""The ``tactful`` command line, in process (CliRunner) and as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tactful
import tactful._registry
from tactful import Analysis, Span
from tactful.cli import app

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()


class IdiotModerator:
    """Flags "idiot" and points at it; no jailbreak or delicate opinion."""

    name = "idiot"
    version = "1"

    def analyze(self, texts: Sequence[str]) -> list[Analysis]:
        out = []
        for t in texts:
            at = t.find("idiot")
            hit = at >= 0
            out.append(
                Analysis(
                    flagged=hit,
                    scores={"toxicity": 0.9 if hit else 0.1, "insult": 0.8 if hit else 0.0},
                    spans=(Span(at, at + 5, "insult", 0.9),) if hit else (),
                )
            )
        return out

    def config(self) -> dict:
        return {}


@pytest.fixture(autouse=True)
def idiot_moderator(monkeypatch):
    tactful._registry._ensure_builtins()
    monkeypatch.setitem(tactful._registry._REGISTRY, "_idiot", IdiotModerator)


def run_module(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m tactful ARGS`` from the repo root, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "tactful", *args],
        check=False,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


# ------------------------------------------------------------------------ check


def test_check_json():
    result = runner.invoke(app, ["check", "you idiot", "hello there", "-m", "_idiot", "--json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    assert [r["text"] for r in got] == ["you idiot", "hello there"]
    assert [r["flagged"] for r in got] == [True, False]
    assert got[0]["spans"] == [{"start": 4, "end": 9, "label": "insult", "score": 0.9}]
    assert set(got[0]) == {"text", "flagged", "scores", "spans", "jailbreak", "delicate", "flags"}


def test_check_human_output_shows_the_span_substring():
    result = runner.invoke(app, ["check", "you idiot", "-m", "_idiot"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "[1] FLAGGED  toxicity 0.90 · insult 0.80"
    assert lines[1] == "    you idiot"
    assert lines[2] == "    4–9 insult 0.90 'idiot'"


def test_check_unknown_moderator():
    result = runner.invoke(app, ["check", "hi", "--moderator", "nope"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("error: [T011] Unknown moderator 'nope'. Known moderators: ")
    assert "_idiot" in result.stderr
    assert result.stderr.count("\n") == 1


# --------------------------------------------------------------------- datasets


def test_datasets_json_matches_expected_rows(data_dir):
    result = runner.invoke(app, ["datasets", "--data-dir", str(data_dir), "--json"])
    assert result.exit_code == 0, result.output
    got = {d["name"]: d for d in json.loads(result.stdout)}
    assert got["toxicchat"]["present"] is True
    assert got["toxicchat"]["rows"]["test"] == 2853
    assert got["toxicspans"]["rows"] == {"train": 7939, "dev": 690, "test": 2000}
    for d in got.values():
        if d["present"]:
            assert d["rows"] == d["expected_rows"], d["name"]


def test_datasets_missing_folder(tmp_path):
    missing = tmp_path / "nope"
    result = runner.invoke(app, ["datasets", "--data-dir", str(missing)])
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: [T021] The data folder {missing} does not exist. Pass --data-dir DIR or set TACTFUL_DATA.\n"
    )


def test_datasets_empty_folder_lists_everything_absent(tmp_path):
    result = runner.invoke(app, ["datasets", "--data-dir", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    assert {d["name"] for d in got} >= {"toxicchat", "toxicspans", "detexd"}
    assert all(d["present"] is False and d["rows"] == {} for d in got)


# ------------------------------------------------------------------------- eval


def test_eval_json_toxicchat(data_dir):
    result = runner.invoke(
        app, ["eval", "toxicchat", "-m", "_idiot", "--data-dir", str(data_dir), "--json"]
    )
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    assert (got["dataset"], got["split"], got["moderator"], got["n"]) == (
        "toxicchat",
        "test",
        "idiot",
        2853,
    )
    for key in ("precision", "recall", "f1", "roc_auc", "jailbreak_recall"):
        assert 0.0 <= got[key] <= 1.0, key


def test_eval_table_and_limit(data_dir):
    result = runner.invoke(
        app,
        [
            "eval",
            "toxicspans",
            "--split",
            "dev",
            "-m",
            "_idiot",
            "--data-dir",
            str(data_dir),
            "--limit",
            "25",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "idiot on toxicspans / dev" in result.stdout
    assert "span_f1" in result.stdout
    assert "│ n " in result.stdout and " 25 │" in result.stdout


def test_eval_wrong_data_folder(tmp_path):
    missing = tmp_path / "elsewhere"
    result = runner.invoke(app, ["eval", "toxicspans", "-m", "_idiot", "--data-dir", str(missing)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "error: [T021] Data set 'toxicspans' needs toxicspans/semeval2021/tsd_train.csv, "
        f"but the data folder {missing} does not exist. Pass --data-dir or set TACTFUL_DATA.\n"
    )


def test_eval_unknown_split(data_dir):
    result = runner.invoke(
        app, ["eval", "toxicchat", "--split", "val", "-m", "_idiot", "--data-dir", str(data_dir)]
    )
    assert result.exit_code == 2
    assert (
        result.stderr
        == "error: [T011] Unknown split 'val'. Known splits: dev, test, train, train_full.\n"
    )


def test_eval_task_without_opinion(data_dir):
    result = runner.invoke(app, ["eval", "detexd", "-m", "_idiot", "--data-dir", str(data_dir)])
    assert result.exit_code == 2
    assert result.stderr == (
        "error: [T010] Moderator 'idiot' has no opinion on 'delicate' (Analysis.delicate is None); "
        "use a moderator with a delicate head.\n"
    )


def test_eval_bad_limit_is_a_usage_error():
    result = runner.invoke(app, ["eval", "toxicchat", "--limit", "0"])
    assert result.exit_code == 2
    assert "Invalid value for '--limit'" in result.stderr


def test_moderators_lists_registered_names():
    result = runner.invoke(app, ["moderators"])
    assert result.exit_code == 0
    assert result.stdout.splitlines() == tactful.available()
    assert "_idiot" in result.stdout.splitlines()


# ------------------------------------------------------------ real subprocesses


def test_module_unknown_data_set():
    proc = run_module("eval", "nope", "--moderator", "lexicon")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("error: [T011] Unknown data set 'nope'. Known data sets: ")
    assert "toxicchat" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_module_unknown_moderator():
    proc = run_module("eval", "toxicchat", "--moderator", "nope")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: [T011] Unknown moderator 'nope'. Known moderators: ")
    assert proc.stderr.count("\n") == 1


def test_module_wrong_data_folder(tmp_path):
    missing = tmp_path / "no-data-here"
    proc = run_module("eval", "toxicchat", "--moderator", "lexicon", "--data-dir", str(missing))
    assert proc.returncode == 2
    assert proc.stderr == (
        "error: [T021] Data set 'toxicchat' needs toxicchat/toxicchat0124_train_human.json, "
        f"but the data folder {missing} does not exist. Pass --data-dir or set TACTFUL_DATA.\n"
    )


def test_module_wrong_data_folder_from_environment(tmp_path):
    missing = tmp_path / "env-data"
    proc = run_module("datasets", env={"TACTFUL_DATA": str(missing)})
    assert proc.returncode == 2
    assert proc.stderr == (
        f"error: [T021] The data folder {missing} does not exist. Pass --data-dir DIR or set TACTFUL_DATA.\n"
    )


def test_module_usage_error_exits_2():
    proc = run_module("eval")
    assert proc.returncode == 2
    assert "Missing argument" in proc.stderr


def test_module_check_json_with_lexicon():
    proc = run_module(
        "check", "you absolute idiot", "have a nice day", "--moderator", "lexicon", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    first, second = json.loads(proc.stdout)
    assert (first["text"], first["flagged"], second["flagged"]) == (
        "you absolute idiot",
        True,
        False,
    )
    assert any(first["text"][s["start"] : s["end"]] == "idiot" for s in first["spans"])
