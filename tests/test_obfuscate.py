"""Tests of tactful.obfuscate and ``tactful train obfuscate``: determinism, remapped
spans, and that tactful.normalize undoes each perturbation on hand-written examples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tactful.obfuscate as ob
from tactful import Span
from tactful.cli import app
from tactful.errors import ConfigError
from tactful.normalize import normalize

# (text, gold spans): the toxic words are all words tactful.normalize decodes.
EXAMPLES = [
    ("you are a fucking idiot", [(10, 23)]),
    ("What a stupid bitch, honestly.", [(7, 19)]),
    ("Shut up, moron!", [(9, 14)]),
    ("this is bullshit and you know it", [(8, 16)]),
    ("IDIOT", [(0, 5)]),
    ("go to hell, asshole", [(6, 10), (12, 19)]),
    ("pathetic loser", [(0, 14)]),
]
RECOVERED = ("asterisk", "leet", "spaced", "zero_width", "cyrillic", "repeat")


def test_same_seed_same_output_and_seeds_differ() -> None:
    text, spans = EXAMPLES[0]
    a = ob.obfuscate(text, spans, seed=7)
    assert a == ob.obfuscate(text, spans, seed=7)
    outputs = {ob.obfuscate(text, spans, seed=s)[0] for s in range(10)}
    assert len(outputs) > 1


@pytest.mark.parametrize(
    ("method", "text", "spans"),
    [
        ("asterisk", "you idi*t", [(4, 9)]),
        ("spaced", "you i.d.i.o.t", [(4, 13)]),
        ("repeat", "you idiiiot", [(4, 11)]),
        ("cyrillic", "you \u0456d\u0456ot", [(4, 9)]),  # two Cyrillic i
    ],
)
def test_exact_outputs(method: str, text: str, spans: list[tuple[int, int]]) -> None:
    assert ob.obfuscate("you idiot", [(4, 9)], seed=0, methods=[method]) == (text, spans)


@pytest.mark.parametrize("method", RECOVERED)
@pytest.mark.parametrize(("text", "spans"), EXAMPLES)
def test_normalize_recovers_the_original_words(
    text: str, spans: list[tuple[int, int]], method: str
) -> None:
    for seed in range(8):
        new, new_spans, used = ob.obfuscate_with_methods(text, spans, seed=seed, methods=[method])
        assert new != text
        assert set(used) == {method}
        n = normalize(new)
        assert n.text == text, (method, seed, new)
        # Each gold span, read in the normalized text, maps back exactly onto
        # the remapped span: the spans cover exactly the obfuscated words.
        for (s, e), (ns, ne) in zip(spans, new_spans, strict=True):
            assert n.to_original(s, e) == (ns, ne)


def test_text_outside_the_spans_is_untouched() -> None:
    text = "Well, you are a stupid idiot. Bye!"
    new, [(s, e)] = ob.obfuscate(text, [(16, 28)], seed=3)
    assert new[:s] == text[:16]
    assert new[e:] == text[28:]
    assert s == 16


def test_function_words_in_a_span_are_left_alone() -> None:
    text = "you are an idiot"
    for seed in range(5):
        new, [(s, e)] = ob.obfuscate(text, [(0, 16)], seed=seed)
        assert new.startswith("you are an ")
        assert (s, e) == (0, len(new))


def test_words_mode_finds_whole_word_occurrences() -> None:
    text = "Idiot! you idiot, idiotic"
    new, spans = ob.obfuscate(text, ["idiot"], seed=1, methods=["zero_width"])
    assert len(spans) == 2
    assert new.endswith(", idiotic")
    assert [normalize(new[s:e]).text for s, e in spans] == ["Idiot", "idiot"]


def test_span_objects_and_no_spans() -> None:
    assert ob.obfuscate("plain", [], seed=0) == ("plain", [])
    new, spans = ob.obfuscate("a damn shame", [Span(2, 6, "profanity")], seed=0, methods=["leet"])
    assert normalize(new).text == "a damn shame"
    assert spans == [(2, 6)]


@pytest.mark.parametrize(
    ("spans", "methods", "message"),
    [
        (
            [(5, 3)],
            ob.METHODS,
            "[T010] Span offsets must satisfy 0 <= start < end <= 9. Got (5, 3) instead.",
        ),
        (
            [(0, 99)],
            ob.METHODS,
            "[T010] Span offsets must satisfy 0 <= start < end <= 9. Got (0, 99) instead.",
        ),
        (
            [(0,)],
            ob.METHODS,
            "[T010] A span to obfuscate must be a Span or a (start, end) pair. Got (0,) instead.",
        ),
        (
            [(4, 9)],
            ["blur"],
            (
                "[T010] The 'methods' of obfuscate must be a non-empty subset of asterisk, leet, "
                "spaced, zero_width, cyrillic, repeat. Got ['blur'] instead."
            ),
        ),
    ],
)
def test_bad_arguments(spans: list, methods: list, message: str) -> None:
    with pytest.raises(ConfigError) as exc:
        ob.obfuscate("you idiot", spans, seed=0, methods=methods)
    assert str(exc.value) == message


# --------------------------------------------------------------------------------------
# Command line, on the shared data
# --------------------------------------------------------------------------------------


def _main(*args: str) -> tuple[int, str]:
    """``tactful train obfuscate ARGS``: its exit code and stderr."""
    result = CliRunner().invoke(app, ["train", "obfuscate", *args])
    return result.exit_code, result.stderr


def _run(tmp_path: Path, name: str, *args: str) -> tuple[int, list[dict], str]:
    out = tmp_path / name
    code, err = _main(*args, "--out", str(out))
    rows = (
        [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        if out.exists()
        else []
    )
    return code, rows, err


def test_cli_toxicspans_is_deterministic(data_dir: Path, tmp_path: Path) -> None:
    args = [
        "--dataset",
        "toxicspans",
        "--split",
        "dev",
        "--seed",
        "0",
        "--limit",
        "60",
        "--data-dir",
        str(data_dir),
    ]
    code, rows, err = _run(tmp_path, "a.jsonl", *args)
    assert code == 0
    assert _main(*args, "--out", str(tmp_path / "b.jsonl"))[0] == 0
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert len(rows) == 60
    assert set(rows[0]) == {"id", "text", "label", "spans", "methods"}
    from tactful.datasets import load_dataset

    gold = load_dataset("toxicspans", "dev", data_dir)[:60]
    changed = 0
    for row, rec in zip(rows, gold, strict=True):
        assert row["id"] == rec.id
        assert row["label"] == rec.label
        assert len(row["spans"]) == len(rec.spans or ())
        assert all(0 <= s < e <= len(row["text"]) for s, e in row["spans"])
        changed += row["text"] != rec.text
        assert (row["text"] != rec.text) == bool(row["methods"])
    assert changed > 0
    assert err.startswith("toxicspans/dev: 60 rows, ")


def test_cli_toxicchat_uses_the_lexicon(data_dir: Path, tmp_path: Path) -> None:
    code, rows, _ = _run(
        tmp_path, "tc.jsonl", "--dataset", "toxicchat", "--split", "test", "--limit", "200",
        "--data-dir", str(data_dir),
    )  # fmt: skip
    assert code == 0
    assert len(rows) == 200
    assert set(rows[0]) == {"id", "text", "label", "jailbreak", "spans", "methods"}
    assert any(r["methods"] for r in rows)
    assert all(r["spans"] for r in rows if r["methods"])


def test_cli_reports_missing_data_in_one_line(tmp_path: Path) -> None:
    code, _, err = _run(
        tmp_path, "x.jsonl", "--dataset", "toxicspans", "--data-dir", str(tmp_path / "nowhere")
    )
    assert code == 2
    err = err.strip()
    assert err.startswith("error: [T021]")
    assert "\n" not in err
    assert str(tmp_path / "nowhere") in err


def test_cli_methods_default_is_every_method() -> None:
    import typer

    group = typer.main.get_command(app)
    command = group.commands["train"].commands["obfuscate"]  # type: ignore[attr-defined]
    [methods] = [p for p in command.params if p.name == "methods"]
    assert methods.default == ",".join(ob.METHODS)
