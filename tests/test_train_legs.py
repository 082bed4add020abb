"""Training in legs (``tactful.train._legs``): a run killed mid-leg and resumed from its
committed state ends with the weights and the loss log of one uninterrupted run.

The model is a 2-layer random transformer encoder built here (no pretrained weights, no
transformers); the data are a few dozen texts written here. Needs torch (CI installs the
CPU wheel); skips with the reason otherwise.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the train extra's torch is not installed")

from tactful._heads import SEQ_HEADS
from tactful.errors import ConfigError

FACTORY = textwrap.dedent(
    '''
    """A tiny model and data for the leg tests: importable by name from any process."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from torch import nn

    from tactful._heads import SEQ_HEADS, SPAN_TYPES
    from tactful.train._legs import apply_lora
    from tactful.train._mixture import Example

    WORDS = "you are an idiot have a nice day i will hurt kill the process".split()


    def tokenizer_file(path):
        vocab = {"[PAD]": 0, "[UNK]": 1, **{w: i + 2 for i, w in enumerate(WORDS)}}
        tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        tok.save(path)


    class Tiny(nn.Module):
        def __init__(self, hidden=16):
            super().__init__()
            self.emb = nn.Embedding(len(WORDS) + 2, hidden)
            layer = nn.TransformerEncoderLayer(hidden, 2, 32, dropout=0.1, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.drop = nn.Dropout(0.1)
            self.seq_head = nn.Linear(hidden, len(SEQ_HEADS))
            self.tok_head = nn.Linear(hidden, 1 + len(SPAN_TYPES))

        def forward(self, input_ids, attention_mask):
            h = self.encoder(self.emb(input_ids), src_key_padding_mask=attention_mask == 0)
            m = attention_mask.unsqueeze(-1).float()
            pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
            return self.seq_head(self.drop(pooled)), self.tok_head(self.drop(h))


    def tiny(r=2, alpha=4.0):
        torch.manual_seed(1234)  # the frozen "pretrained" base: the same on every machine
        model = Tiny()
        # Only the feed-forward layers: attention's out_proj is read as a raw weight.
        apply_lora(model.encoder, r=r, alpha=alpha, targets=("linear1", "linear2"))
        model.emb.requires_grad_(False)
        return model


    def examples(n=48):
        texts = ["you are an idiot", "have a nice day", "i will hurt you", "kill the process"]
        out = []
        for i in range(n):
            t = texts[i % 4]
            tox = 1.0 if i % 4 in (0, 2) else 0.0
            seq = [tox] + [float("nan")] * (len(SEQ_HEADS) - 1)
            out.append(Example(t + " " + WORDS[i % len(WORDS)], "tiny", seq))
        return out
    '''
)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    root = tmp_path_factory.mktemp("legs")
    (root / "legs_tiny.py").write_text(FACTORY)
    sys.path.insert(0, str(root))
    import legs_tiny

    legs_tiny.tokenizer_file(str(root / "tok.json"))
    yield root
    sys.path.remove(str(root))


def _config(root: Path, **over):
    from tactful.train._legs import LegConfig

    train = {"epochs": 2.0, "batch_size": 4, "lr": 1e-2, "head_lr": 1e-2, "warmup": 0.1}
    train |= {"threads": 1, "max_len": 16, "seed": 3}
    return LegConfig(
        model="legs_tiny:tiny",
        data="legs_tiny:examples",
        tokenizer=str(root / "tok.json"),
        train=train,
        checkpoint_steps=5,
        **over,
    )


def _leg_in_subprocess(root: Path, runs: Path, *, start: bool, kill_at: int | None = None):
    code = textwrap.dedent(
        f"""
        import sys, json
        sys.path.insert(0, {str(root)!r})
        from tactful.train._legs import LegConfig, resume_run, start_run
        cfg = LegConfig(**json.loads({json.dumps(json.dumps(_config_dict(root)))}))
        if {start!r}:
            start_run("tiny", cfg, runs_dir={str(runs)!r})
        else:
            resume_run("tiny", runs_dir={str(runs)!r})
        """
    )
    env = dict(os.environ)
    env.pop("TACTFUL_LEG_KILL_AT_STEP", None)
    if kill_at:
        env["TACTFUL_LEG_KILL_AT_STEP"] = str(kill_at)
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )


def _config_dict(root: Path):
    from dataclasses import asdict

    return asdict(_config(root))


def test_killed_leg_resumes_to_the_uninterrupted_run(env, tmp_path):
    from tactful.train._legs import resume_run, start_run

    whole = tmp_path / "whole"
    done = start_run("tiny", _config(env), runs_dir=whole)
    assert (done.step_from, done.step_to, done.total, done.done) == (0, 24, 24, True)

    legs = tmp_path / "legs"
    killed = _leg_in_subprocess(env, legs, start=True, kill_at=13)
    assert killed.returncode == -9, killed.stderr  # SIGKILL: the machine went away
    state = torch.load(legs / "tiny" / "state.pt", weights_only=True)
    assert state["step"] == 10  # the last checkpoint before the kill (every 5 steps)
    log = [json.loads(x) for x in (legs / "tiny" / "log.jsonl").read_text().splitlines()]
    assert [e["step"] for e in log] == list(range(1, 11))

    second = resume_run("tiny", runs_dir=legs)
    assert (second.leg, second.step_from, second.step_to) == (2, 10, 24)

    a = torch.load(whole / "tiny" / "state.pt", weights_only=True)
    b = torch.load(legs / "tiny" / "state.pt", weights_only=True)
    assert sorted(a["trainable"]) == sorted(b["trainable"])
    assert any("lora_a" in k for k in a["trainable"]) and "seq_head.weight" in a["trainable"]
    assert not any(k.startswith("emb.") for k in a["trainable"])  # the frozen base stays out
    for k in a["trainable"]:
        assert torch.allclose(a["trainable"][k], b["trainable"][k], atol=1e-6, rtol=0), k
    assert (whole / "tiny" / "log.jsonl").read_text() == (legs / "tiny" / "log.jsonl").read_text()
    legs_json = json.loads((legs / "tiny" / "legs.json").read_text())
    assert [(g["leg"], g["step_from"], g["step_to"]) for g in legs_json] == [
        (1, 0, 10),
        (2, 10, 24),
    ]

    with pytest.raises(ConfigError, match=r"is done \(24/24 steps\): nothing to resume\.$"):
        resume_run("tiny", runs_dir=legs)


def test_leg_budget_pauses_and_refusals(env, tmp_path):
    from tactful.train._legs import resume_run, start_run

    first = start_run("tiny", _config(env), runs_dir=tmp_path, leg_minutes=0)
    # A leg with no time left still writes its state: step 0, nothing lost, nothing done.
    assert (first.step_from, first.step_to, first.done) == (0, 0, False)
    assert sorted(p.name for p in (tmp_path / "tiny").iterdir()) == [
        "config.json",
        "legs.json",
        "log.jsonl",
        "state.pt",
    ]
    with pytest.raises(ConfigError, match=r"^\[T\d+\] A run already exists in .*tiny: continue"):
        start_run("tiny", _config(env), runs_dir=tmp_path)
    with pytest.raises(ConfigError, match=r"No run in .*nope \(it has no config.json\)\.$"):
        resume_run("nope", runs_dir=tmp_path)
    cfg = json.loads((tmp_path / "tiny" / "config.json").read_text())
    cfg["examples_sha256"] = "0" * 64
    (tmp_path / "tiny" / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(
        ConfigError, match=r"started on other data \(examples fingerprint 000000000000"
    ):
        resume_run("tiny", runs_dir=tmp_path)


def test_a_merged_run_scores_as_its_adapters(env, tmp_path):
    import legs_tiny

    from tactful.train._legs import load_run_model, merge_run, start_run

    start_run("tiny", _config(env), runs_dir=tmp_path)
    adapted, _ = load_run_model("tiny", runs_dir=tmp_path)
    out = merge_run("tiny", tmp_path / "merged", runs_dir=tmp_path)
    plain = legs_tiny.Tiny().eval()  # no adapters: the pretrained model's parameter names
    plain.load_state_dict(torch.load(out / "model.pt", weights_only=True))  # strict
    ids = torch.tensor([[2, 3, 4, 5, 0], [6, 7, 8, 9, 10]])
    mask = (ids != 0).long()
    # The eval fast path of nn.TransformerEncoderLayer reads linear1.weight raw: off.
    torch.backends.mha.set_fastpath_enabled(False)
    try:
        with torch.no_grad():
            pairs = list(zip(adapted(ids, mask), plain(ids, mask), strict=True))
    finally:
        torch.backends.mha.set_fastpath_enabled(True)
    for a, b in pairs:
        assert torch.allclose(a, b, atol=1e-5), (a - b).abs().max()
    info = json.loads((out / "train.json").read_text())
    assert info["legs_run"]["merged_layers"] == 4  # linear1 and linear2 of 2 layers
    assert info["heads"] == list(SEQ_HEADS)
    assert (info["legs_run"]["step"], info["legs_run"]["total_steps"]) == (24, 24)
    assert [g["step_to"] for g in info["legs_run"]["legs"]] == [24]


def test_a_later_stage_starts_from_another_runs_adapters(env, tmp_path):
    from tactful.train._legs import merge_run, resume_run, start_run

    start_run("first", _config(env), runs_dir=tmp_path)
    first = torch.load(tmp_path / "first" / "state.pt", weights_only=True)["trainable"]
    later = _config(env, init=str(tmp_path / "first"))
    start_run("later", later, runs_dir=tmp_path, leg_minutes=0)  # step 0: the init's weights
    got = torch.load(tmp_path / "later" / "state.pt", weights_only=True)
    assert got["step"] == 0 and sorted(got["trainable"]) == sorted(first)
    for k, v in first.items():
        assert torch.equal(got["trainable"][k], v), k
    assert got["opt"]["state"] == {}  # a fresh optimizer: only the weights carry over
    # Its next leg resumes its own state, not the init's.
    assert resume_run("later", runs_dir=tmp_path).step_from == 0
    # The merged run lists the legs of the whole chain, the init's first.
    info = json.loads(
        (merge_run("later", tmp_path / "m", runs_dir=tmp_path) / "train.json").read_text()
    )
    first_legs = json.loads((tmp_path / "first" / "legs.json").read_text())
    assert [(r["name"], r["step"], r["total_steps"]) for r in info["legs_run"]["init_runs"]] == [
        ("first", 24, 24)
    ]
    assert info["legs_run"]["init_runs"][0]["legs"] == first_legs
    assert [(g["leg"], g["step_from"], g["step_to"]) for g in info["legs_run"]["legs"]] == [
        (1, 0, 0),
        (2, 0, 24),
    ]
    with pytest.raises(ConfigError, match=r"The run's init .*nope holds no state\.pt"):
        start_run("orphan", _config(env, init=str(tmp_path / "nope")), runs_dir=tmp_path)


def test_lora_starts_as_the_base_layer():
    from tactful.train._legs import LoRALinear, apply_lora

    torch.manual_seed(0)
    base = torch.nn.Linear(6, 5)
    x = torch.randn(3, 6)
    lora = LoRALinear(base, r=2, alpha=4.0, dropout=0.0)
    assert torch.equal(lora(x), base(x))  # B starts at zero
    assert [n for n, p in lora.named_parameters() if p.requires_grad] == ["lora_a", "lora_b"]
    net = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    assert apply_lora(net, r=1, alpha=1.0) == 2
    assert sum(p.numel() for p in net.parameters() if p.requires_grad) == (4 + 4) + (4 + 2)


def test_start_refuses_an_unknown_template_set_before_writing(tmp_path):
    from typer.testing import CliRunner

    from tactful.cli import app

    res = CliRunner().invoke(
        app,
        ["train", "start", "x", "--runs", str(tmp_path), "--template", "nope"],
        env={"COLUMNS": "200"},
    )
    assert res.exit_code == 2
    assert "'nope' is not a template set: one of derogation, delicate, menace" in res.output
    assert list(tmp_path.iterdir()) == []
