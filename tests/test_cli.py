"""The ``tactful`` command line, in process (CliRunner) and as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import pytest
from typer.testing import CliRunner

import tactful
from tactful import Analysis, Span
from tactful.cli import app
from tactful.errors import FAILED_ITEMS_MESSAGE, FAILED_ITEMS_STORED, RemoteResponseError
from tactful.options import AMBIGUOUS_OPTION_MESSAGE, MALFORMED_OPTION_MESSAGE
from tactful.store import SCHEMA_VERSION, ResultStore

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


class CountingModerator(IdiotModerator):
    """``IdiotModerator`` that records every text it is asked about (in ``ASKED``).

    ``threshold`` is config (it changes the store key); ``timeout`` is a runtime
    option (it does not); a text containing ``down`` fails with a 500.
    """

    name = "counting"
    runtime_options = ("timeout",)
    ASKED: ClassVar[list[list[str]]] = []

    def __init__(self, threshold: float = 0.5, timeout: float = 5.0, down: str = "") -> None:
        self.threshold, self.timeout, self.down = threshold, timeout, down

    def config(self) -> dict:
        return {"threshold": self.threshold, "timeout": self.timeout, "down": self.down}

    def analyze(self, texts: Sequence[str]) -> list[Analysis]:
        self.ASKED.append(list(texts))
        if self.down and any(self.down in t for t in texts):
            raise RemoteResponseError("HTTP 500 from the fake backend")
        return [
            Analysis(flagged=a.scores["toxicity"] >= self.threshold, scores=a.scores, spans=a.spans)
            for a in super().analyze(texts)
        ]


@pytest.fixture(autouse=True)
def idiot_moderator():
    with (
        tactful.temporary_registration("_idiot", IdiotModerator),
        tactful.temporary_registration("_counting", CountingModerator),
    ):
        CountingModerator.ASKED.clear()
        yield


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


def test_check_store_reuses_answers_counted_by_calls(tmp_path):
    store = tmp_path / "answers.sqlite"
    args = ["check", "you idiot", "hello", "you idiot", "-m", "_counting", "--json"]
    first = runner.invoke(app, [*args, "--store", str(store)])
    assert first.exit_code == 0, first.output
    assert CountingModerator.ASKED == [["you idiot", "hello"]]  # duplicates asked once
    again = runner.invoke(app, [*args, "--store", str(store), "-O", "timeout=60"])
    assert again.exit_code == 0, again.output
    assert CountingModerator.ASKED == [["you idiot", "hello"]]  # a timeout changes no answer
    assert again.stdout == first.stdout
    other = runner.invoke(app, [*args, "--store", str(store), "-O", "threshold=0.9"])
    assert other.exit_code == 0, other.output
    assert CountingModerator.ASKED[1:] == [["you idiot", "hello"]]  # another config: asked again
    with ResultStore(store) as db:
        assert db.count() == 4


def test_check_options_reach_the_moderator_and_bad_ones_are_one_line():
    result = runner.invoke(app, ["check", "hi", "-m", "_counting", "-O", "threshold"])
    assert result.exit_code == 2
    assert result.stderr == f"error: [T010] {MALFORMED_OPTION_MESSAGE.format(item='threshold')}\n"
    args = ["check", "you idiot", "-m", "_counting", "--json"]
    assert json.loads(runner.invoke(app, args).stdout)[0]["flagged"] is True
    result = runner.invoke(app, [*args, "-O", "threshold=0.95"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["flagged"] is False


def test_check_failed_items_exit_4_and_are_kept(tmp_path):
    store = tmp_path / "answers.sqlite"
    result = runner.invoke(
        app,
        ["check", "fine", "boom", "-m", "_counting", "-O", "down=boom", "--store", str(store)],
    )
    assert result.exit_code == 4
    message = FAILED_ITEMS_MESSAGE.format(
        k=1,
        n=2,
        name="counting",
        error="[T043] HTTP 500 from the fake backend",
        where=FAILED_ITEMS_STORED.format(path=store),
    )
    assert result.stderr == f"error: [T044] {message}\n"
    with ResultStore(store) as db:
        assert (db.count(), db.count(status="failed")) == (1, 1)


def test_check_file_adds_the_rows_of_a_csv_or_jsonl_file_after_the_arguments(tmp_path):
    csv_file = tmp_path / "comments.csv"
    csv_file.write_text('id,text\nc1,"hello, idiot"\nc2,fine\n', encoding="utf-8")
    result = runner.invoke(
        app, ["check", "you idiot", "--file", str(csv_file), "-m", "_idiot", "--json"]
    )
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    assert [(r.get("id"), r["text"], r["flagged"]) for r in got] == [
        (None, "you idiot", True),
        ("c1", "hello, idiot", True),
        ("c2", "fine", False),
    ]
    assert "id" not in got[0]
    assert got[1]["spans"] == [{"start": 7, "end": 12, "label": "insult", "score": 0.9}]
    jsonl = tmp_path / "comments.jsonl"
    jsonl.write_text('{"text": "idiot!"}\n\n{"text": "ok"}\n', encoding="utf-8")
    result = runner.invoke(app, ["check", "-f", str(jsonl), "-m", "_idiot", "--json"])
    assert result.exit_code == 0, result.output
    assert [(r["id"], r["flagged"]) for r in json.loads(result.stdout)] == [
        ("0", True),
        ("1", False),
    ]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.csv", b"text\nhello\xff\n", "{path}:2: not UTF-8 text (byte 0xff at offset 10)."),
        (
            "notes.txt",
            b"hello\n",
            "{path}: unknown file type '.txt'; use one of .csv, .jsonl, .ndjson.",
        ),
        (
            "empty.csv",
            b"text\n",
            "Nothing to analyze: give texts as arguments or --file FILE ({path} has no rows).",
        ),
        (
            "rows.jsonl",
            b'{"body": "hi"}\n',
            "{path}: row 0 has no text in column 'text' (columns: 'body').",
        ),
        ("broken.jsonl", b'{"text": "hi"\n', "{path}:1: not JSON (Expecting ',' delimiter)."),
    ],
)
def test_check_file_errors_are_one_line_and_ask_nothing(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    result = runner.invoke(app, ["check", "-f", str(path), "-m", "_counting"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.endswith(" " + message.format(path=path) + "\n")
    assert result.stderr.count("\n") == 1
    assert CountingModerator.ASKED == []


def test_check_without_texts_or_file_is_one_line():
    result = runner.invoke(app, ["check", "-m", "_idiot"])
    assert result.exit_code == 2
    assert result.stderr == (
        "error: [T010] Nothing to analyze: give texts as arguments or --file FILE.\n"
    )


def test_check_migrates_a_v1_store_with_one_line(tmp_path):
    import sqlite3

    store = tmp_path / "old.sqlite"
    conn = sqlite3.connect(store)
    conn.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE moderators (moderator_key TEXT PRIMARY KEY, name TEXT NOT NULL, "
        "version TEXT NOT NULL, config TEXT NOT NULL);"
        "CREATE TABLE answers (moderator_key TEXT NOT NULL, text_sha256 TEXT NOT NULL, "
        "analysis TEXT NOT NULL, created REAL NOT NULL, "
        "PRIMARY KEY (moderator_key, text_sha256)) WITHOUT ROWID;"
        "CREATE TABLE derived (namespace TEXT NOT NULL, key TEXT NOT NULL, "
        "value TEXT NOT NULL, created REAL NOT NULL, PRIMARY KEY (namespace, key)) WITHOUT ROWID;"
        "INSERT INTO meta VALUES ('schema_version', '1');"
    )
    conn.close()
    result = runner.invoke(app, ["check", "hi", "-m", "_idiot", "--store", str(store)])
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        f"note: upgraded the result store {store} from schema version 1 to {SCHEMA_VERSION}.\n"
    )
    again = runner.invoke(app, ["check", "hi", "-m", "_idiot", "--store", str(store)])
    assert again.exit_code == 0 and again.stderr == ""


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


class HarmWordsModerator(IdiotModerator):
    """Scores and flags two harm categories by a word each, as a remote API would."""

    name = "harmwords"
    WORDS: ClassVar[dict[str, str]] = {"self-harm": "self-harm", "sexual": "sex"}

    def analyze(self, texts: Sequence[str]) -> list[Analysis]:
        out = []
        for t in texts:
            hits = {c: w in t.lower() for c, w in self.WORDS.items()}
            out.append(
                Analysis(
                    flagged=any(hits.values()),
                    scores={"toxicity": 0.9 if any(hits.values()) else 0.1}
                    | {c: 0.8 if h else 0.1 for c, h in hits.items()},
                    flags={"toxicity": any(hits.values())} | hits,
                )
            )
        return out


def test_eval_reports_each_harm_category_the_set_labels_and_the_moderator_scores(data_dir):
    from tactful.datasets import load_dataset

    test = load_dataset("harm_requests", "test", data_dir=data_dir)
    args = ["eval", "harm_requests", "-m", "_harmwords", "--data-dir", str(data_dir)]
    with tactful.temporary_registration("_harmwords", HarmWordsModerator):
        got = json.loads(runner.invoke(app, [*args, "--json"]).stdout)["categories"]
        table = runner.invoke(app, args)
    assert list(got) == ["self-harm", "sexual"]  # the two it scores, in OpenAI's order
    for cat, entry in got.items():
        labelled = [r for r in test if r.labels.get(cat) is not None]
        assert (entry["n"], entry["n_positive"]) == (
            len(labelled),
            sum(r.labels[cat] for r in labelled),
        )
        assert 0.0 <= entry["roc_auc"] <= 1.0 and "f1" in entry
    assert table.exit_code == 0, table.output
    assert "categories" in table.stdout and "self-harm" in table.stdout


def test_eval_store_reuses_answers_counted_by_calls(data_dir, tmp_path):
    store = tmp_path / "answers.sqlite"
    args = ["eval", "toxicchat", "-m", "_counting", "--data-dir", str(data_dir)]
    args += ["--limit", "40", "--batch-size", "16", "--json", "--store", str(store)]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert [len(b) for b in CountingModerator.ASKED] == [16, 16, 8]
    got = json.loads(first.stdout)
    assert (got["n"], got["failed"]) == (40, 0)
    again = runner.invoke(app, [*args, "-O", "timeout=1"])
    assert again.exit_code == 0, again.output
    assert len(CountingModerator.ASKED) == 3  # nothing asked again
    assert json.loads(again.stdout) == {
        **got,
        "moderator_config": {**got["moderator_config"], "timeout": 1},
    }


def test_eval_failed_items_print_the_partial_report_then_one_line(data_dir, tmp_path):
    from tactful.datasets import load_dataset

    texts = [r.text for r in load_dataset("toxicchat", split="test", data_dir=data_dir)[:20]]
    word = next(w for w in texts[7].split() if sum(w in t for t in texts) == 1)
    store = tmp_path / "answers.sqlite"
    args = ["eval", "toxicchat", "-m", "_counting", "--data-dir", str(data_dir), "--limit", "20"]
    args += ["--json", "--store", str(store)]
    result = runner.invoke(app, [*args, "-O", json.dumps(f"down={word}")[1:-1]])
    assert result.exit_code == 4
    report = json.loads(result.stdout)
    assert (report["n"], report["failed"]) == (19, 1)
    assert result.stderr.startswith("error: [T044] 1 of 20 texts failed with moderator 'counting'")
    asked = len(CountingModerator.ASKED)
    healed = runner.invoke(app, args)  # "down" is config: healed is another moderator
    assert healed.exit_code == 0
    assert len(CountingModerator.ASKED) == asked + 1


def test_eval_ray_engine_needs_a_store():
    result = runner.invoke(app, ["eval", "toxicchat", "-m", "_idiot", "--engine", "ray"])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "error: [T010] The ray engine writes its answers to a result store"
    )
    result = runner.invoke(app, ["eval", "toxicchat", "-m", "_idiot", "--engine", "spark"])
    assert result.exit_code == 2


def test_eval_several_moderator_prefix_is_accepted_for_its_own_name():
    result = runner.invoke(app, ["eval", "nope", "-m", "_idiot", "-O", "_idiot.x=1"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: [T011] Unknown data set 'nope'")
    assert AMBIGUOUS_OPTION_MESSAGE  # the several-moderator case is covered in test_options


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
