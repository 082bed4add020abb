"""``tactful triage``, ``tactful detox-eval`` and ``tactful probe`` from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tactful.cli import app
from tactful.errors import PARAM_MESSAGE

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path):
    trial = write(
        tmp_path / "trial.csv",
        "text,label\nhave a nice day,0\nthanks a lot,0\nyou are an idiot,1\nwhat a lovely cat,0\n",
    )
    new = write(
        tmp_path / "new.csv",
        "id,text\nn1,good morning everyone\nn2,shut up you stupid idiot\n",
    )
    return trial, new


def test_triage_writes_reports_and_split_files(tmp_path, files):
    trial, new = files
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        [
            "triage",
            "-m",
            "lexicon",
            "--trial",
            str(trial),
            "--new",
            str(new),
            "--out",
            str(out),
            "--n-resamples",
            "20",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "human work saved" in result.output
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "auto_nontoxic.csv",
        "needs_human.csv",
        "triage.html",
        "triage.json",
        "triage_curve.png",
    ]
    report = json.loads((out / "triage.json").read_text())
    # lexicon scores the clean rows 0 and the insult > 0: all three clean rows go auto.
    assert (report["trial"]["n_auto"], report["trial"]["n_missed"]) == (3, 0)
    human = (out / "needs_human.csv").read_text().splitlines()
    assert human[0] == "id,text,score"
    assert [line.split(",")[0] for line in human[1:]] == ["n2"]


def test_triage_json_on_stdout(tmp_path, files):
    trial, _ = files
    result = runner.invoke(
        app,
        [
            "triage",
            "-m",
            "lexicon",
            "--trial",
            str(trial),
            "--out",
            str(tmp_path),
            "--n-resamples",
            "10",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["command"] == "triage" and report["moderator"]["name"] == "lexicon"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--safe-rate", "2"],
            PARAM_MESSAGE.format(
                name="safe_rate", owner="triage", rule="a float in [0, 1]", value=2.0
            ),
        ),
        (["--trial", "missing.csv"], "No file"),
        (["-m", "nope"], "Unknown moderator 'nope'"),
        (["-O", "oops"], "-O 'oops' is not KEY=VALUE"),
        (["--head", "delicate"], "Moderator 'lexicon' has no 'delicate' head"),
    ],
)
def test_triage_mistakes_are_one_line(tmp_path, files, args, message):
    trial, _ = files
    base = ["triage", "-m", "lexicon", "--trial", str(trial), "--out", str(tmp_path)]
    result = runner.invoke(app, [*base, *args])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: [T0")
    assert message in lines[0]


def test_detox_eval_on_a_file(tmp_path):
    pairs = write(
        tmp_path / "pairs.jsonl",
        '{"source": "you are an idiot", "rewrite": "you are mistaken", "spans": [[11, 16]]}\n'
        '{"source": "shut up, idiot", "rewrite": "please stop, idiot"}\n',
    )
    result = runner.invoke(
        app,
        [
            "detox-eval",
            "-m",
            "lexicon",
            "--pairs",
            str(pairs),
            "--no-sim",
            "--out",
            str(tmp_path),
            "--n-resamples",
            "10",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["span_source"] == "mixed"
    assert report["n_pairs"] == 2
    assert report["acc3"]["point"] == 0.5  # "idiot" survives in the second rewrite
    assert (tmp_path / "detox_eval.html").is_file()


def test_probe_country_with_lexicon(tmp_path):
    result = runner.invoke(app, ["probe", "country", "-m", "lexicon", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "highest five" in result.output and "lowest five" in result.output
    report = json.loads((tmp_path / "probe_country.json").read_text())
    assert report["n"] == 193
    assert (tmp_path / "probe_country_scores.png").read_bytes()[:4] == b"\x89PNG"


def test_probe_unknown_subcommand_and_bad_template(tmp_path):
    result = runner.invoke(app, ["probe", "colour"])
    assert result.exit_code == 2
    result = runner.invoke(
        app, ["probe", "country", "-m", "lexicon", "--template", "no slot", "--out", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert result.stderr.startswith("error: [T010] The 'template' parameter of probe_country")


def test_probe_gender_and_identity_run_as_a_user_runs_them(tmp_path, data_dir):
    """A real subprocess, from the repo root, on the shared data (lexicon: seconds)."""
    env_args = ["--data-dir", str(data_dir)]
    for args in (
        ["probe", "gender", "-m", "lexicon", "--n-resamples", "20"],
        ["probe", "identity", "-m", "lexicon", "--limit", "1500"],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "tactful", *args, *env_args, "--out", str(tmp_path)],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        assert "Traceback" not in proc.stderr
    assert sorted(p.name for p in tmp_path.glob("*.png")) == [
        "probe_gender_flips.png",
        "probe_identity_auc.png",
    ]


def test_in_sample_rows_give_one_warning_line(tmp_path, files):
    import tactful
    from tactful.evaluate import IN_SAMPLE_ADVICE, IN_SAMPLE_MESSAGE, TrainedTexts

    class Trained:
        name, version = "trained", "1"

        def analyze(self, texts):
            return tactful.load("lexicon").analyze(texts)

        def config(self):
            return {}

        def trained_texts(self):
            return TrainedTexts.from_texts(["you are an idiot"])

    trial, _ = files
    with tactful.temporary_registration("_h6_trained", Trained):
        result = runner.invoke(
            app,
            [
                "triage",
                "-m",
                "_h6_trained",
                "--trial",
                str(trial),
                "--out",
                str(tmp_path),
                "--n-resamples",
                "10",
                "--json",
            ],
        )
    assert result.exit_code == 0, result.output
    json.loads(result.stdout)  # stdout stays one JSON object
    expected = IN_SAMPLE_MESSAGE.format(
        n_in_sample=1, n=4, moderator="trained", extent="a partly", honest=IN_SAMPLE_ADVICE
    )
    assert result.stderr.strip() == f"warning: trial set {trial}: {expected}"
