"""tactful train compare-runs --dev-only: the selection figures without reading a test split."""

from __future__ import annotations

import json

import numpy as np
from typer.testing import CliRunner

import tactful.train._compare as cr
from tactful.cli import app
from tactful.datasets import load_dataset
from tactful.metrics import average_precision
from tactful.moderators.builtin import SEQ_HEADS, BuiltinModerator, default_model_dir
from tactful.train import compare_run


def test_dev_only_reads_no_test_split_and_keeps_the_dev_figures(data_dir, tmp_path, monkeypatch):
    read: list[tuple[str, str | None]] = []

    def recording_load(name, split=None, data_dir=None):
        read.append((name, split))
        assert split != "test", f"--dev-only read {name} {split}"
        return load_dataset(name, split, data_dir)

    monkeypatch.setattr(cr, "load_dataset", recording_load)
    folder = default_model_dir()
    row = compare_run(folder, str(data_dir), tmp_path, "card", dev_only=True)
    assert ("toxicchat", "dev") in read
    assert {k: row[k] for k in cr.TEST_KEYS} == dict.fromkeys(cr.TEST_KEYS)
    # the dev figures are the ones the card's model gives on ToxicChat dev
    mod = BuiltinModerator(model_dir=str(folder))
    dev = load_dataset("toxicchat", "dev", data_dir)
    p = mod.predict_arrays([r.text for r in dev])[0][:, SEQ_HEADS.index("toxicity")]
    y = np.array([int(r.labels["toxicity"]) for r in dev])
    assert row["dev_ap"] == average_precision(y, p)
    assert row["dev_threshold"] == mod.card["thresholds"]["toxicity"]
    assert row["points"] == "card"


def test_dev_only_prints_dashes_in_the_test_columns(data_dir, tmp_path):
    out = tmp_path / "rows.json"
    got = CliRunner().invoke(
        app,
        [
            "train",
            "compare-runs",
            "--points",
            "card",
            "--dev-only",
            "--data-dir",
            str(data_dir),
            "--json",
            str(out),
            str(default_model_dir()),
        ],
    )
    assert got.exit_code == 0, got.output
    header, line = got.stdout.splitlines()
    cells = line.split()
    # run, dev AP, test AP, card thr, test F1, JR, span gold, sp thr, trial, test, ...
    assert (cells[2], cells[4], cells[5], cells[9]) == ("-", "-", "-", "-")
    assert header.split()[:3] == ["run", "dev", "AP"]
    [row] = json.loads(out.read_text())
    assert [row[k] for k in ("test_ap", "test_f1", "test_jailbreak_recall", "test_span_f1")] == [
        None
    ] * 4
