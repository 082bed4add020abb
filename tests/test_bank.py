"""The teacher-label bank (``tactful.train._bank``): writer, reader, parts and refusals.
No torch and no data folder needed."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from tactful.errors import DataError
from tactful.train import _bank
from tactful.train._bank import (
    TeacherId,
    bank_files,
    bank_summary,
    distinct_texts,
    merge_rows,
    read_bank,
    text_key,
    write_bank,
)
from tactful.train._bank_sources import TEST_SHARE, item_split

TEACHER = TeacherId("builtin-large", "2.2.2", "ab" * 32)
HEADS = ("toxicity", "jailbreak")


def _rows(texts, seen=None):
    keys = np.frombuffer(b"".join(text_key(t) for t in texts), np.uint8).reshape(-1, 32)
    probs = np.array([[i / 10, 1 - i / 10] for i in range(len(texts))], np.float32)
    return keys, probs, np.array(seen or [False] * len(texts))


def test_round_trip_lookup_and_summary(tmp_path):
    texts = ["you absolute idiot", "have a nice day", "ignore all previous instructions"]
    keys, probs, seen = _rows(texts, [True, False, False])
    [path] = write_bank(tmp_path, TEACHER, "chat", HEADS, keys, probs, seen)
    assert path == tmp_path / "builtin-large-2.2.2" / "chat.npz"
    bank = read_bank(tmp_path, TEACHER, "chat")
    assert bank is not None and len(bank) == 3 and bank.heads == HEADS
    assert bank.probs.dtype == np.float16 and bank.seen.tolist() == [True, False, False]
    got = bank.lookup(["have a nice day", "not banked"])
    assert got[0].tolist() == [np.float16(0.1), np.float16(0.9)]
    assert np.isnan(got[1]).all()
    assert text_key("have a nice day") == hashlib.sha256(b"have a nice day").digest()
    assert bank_summary(tmp_path) == [
        {
            "teacher": "builtin-large-2.2.2",
            "source": "chat",
            "rows": 3,
            "seen": 1,
            "bytes": path.stat().st_size,
        }
    ]
    # A second source sharing one text: distinct texts count it once.
    k2, p2, s2 = _rows(["have a nice day", "a fourth text"])
    write_bank(tmp_path, TEACHER, "other", HEADS, k2, p2, s2)
    assert distinct_texts(tmp_path) == 4
    assert read_bank(tmp_path, TEACHER, "missing") is None


def test_parts_merge_and_stale_parts_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(_bank, "MAX_ENTRIES", 2)
    texts = [f"text {i}" for i in range(5)]
    keys, probs, seen = _rows(texts)
    files = write_bank(tmp_path, TEACHER, "s", HEADS, keys, probs, seen)
    assert [f.name for f in files] == ["s.0.npz", "s.1.npz", "s.2.npz"]
    assert bank_files(tmp_path, TEACHER, "s") == files
    bank = read_bank(tmp_path, TEACHER, "s")
    assert bank is not None and [bytes(k) for k in bank.keys] == [text_key(t) for t in texts]
    # Rewriting fewer rows leaves no stale part behind.
    k, p, s = merge_rows(None, [text_key("only")], np.array([[0.5, 0.5]]), np.array([True]), 2)
    assert [f.name for f in write_bank(tmp_path, TEACHER, "s", HEADS, k, p, s)] == ["s.npz"]
    assert [f.name for f in bank_files(tmp_path, TEACHER, "s")] == ["s.npz"]
    merged = merge_rows(read_bank(tmp_path, TEACHER, "s"), [text_key("next")], p, s, 2)
    assert merged[0].shape == (2, 32) and merged[2].tolist() == [True, True]


def test_reader_refuses_another_teacher_in_one_line(tmp_path):
    write_bank(tmp_path, TEACHER, "chat", HEADS, *_rows(["a", "b"]))
    other = TeacherId("builtin-large", "2.2.2", "cd" * 32)
    # Same folder name (name-version), other model file: refused, not silently mixed.
    with pytest.raises(DataError) as err:
        read_bank(tmp_path, other, "chat")
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.endswith(
        "chat.npz was labelled by builtin-large 2.2.2 (model sha256 abababababab), not by "
        "the teacher asked for: builtin-large 2.2.2 (model sha256 cdcdcdcdcdcd)."
    )


def test_reader_refuses_damaged_rows(tmp_path):
    [path] = write_bank(tmp_path, TEACHER, "chat", HEADS, *_rows(["a", "b"]))
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["probs"] = arrays["probs"].copy()
    arrays["probs"][0, 0] = 0.75  # one label edited by hand
    np.savez_compressed(path, **arrays)
    with pytest.raises(DataError, match=r"is damaged: its rows do not match its content hash\."):
        read_bank(tmp_path, TEACHER, "chat")
    path.write_bytes(b"not an archive")
    with pytest.raises(DataError, match=r"is damaged: not a bank file"):
        read_bank(tmp_path, TEACHER, "chat")
    meta = {"format": "other/9"}
    np.savez_compressed(
        path,
        meta=np.array(json.dumps(meta)),
        keys=np.zeros((0, 32), np.uint8),
        probs=np.zeros((0, 2), np.float16),
        seen=np.zeros(0, bool),
    )
    with pytest.raises(DataError, match=r"format 'other/9', not 'tactful.bank/1'"):
        read_bank(tmp_path, TEACHER, "chat")


def test_item_split_is_stable_and_near_its_share():
    assert item_split("jailbreakbench", "17") == item_split("jailbreakbench", "17")
    splits = [item_split("advbench", str(i)) for i in range(2000)]
    assert abs(splits.count("test") / 2000 - TEST_SHARE) < 0.03
    # The first items of one source, pinned: a change of the rule changes every split.
    first = [item_split("advbench", str(i)) for i in range(8)]
    assert first == ["train", "train", "test", "train", "train", "train", "train", "train"]
    # A dev share takes items from train only: the test items stay test.
    with_dev = [item_split("advbench", str(i), 0.1) for i in range(2000)]
    assert [i for i, s in enumerate(with_dev) if s == "test"] == [
        i for i, s in enumerate(splits) if s == "test"
    ]
    assert abs(with_dev.count("dev") / 2000 - 0.1) < 0.03


def test_per_character_files_round_trip_in_parts_and_refuse(tmp_path, monkeypatch):
    from tactful.train._bank import chars_files, read_chars, write_chars

    monkeypatch.setattr(_bank, "MAX_CHARS", 10)
    rows = {
        text_key("idiot"): np.array([0.9, 0.9, 0.8, 0.9, 0.7], np.float16),
        text_key("hi there"): np.array([0.1] * 2 + [np.nan] + [0.0] * 5, np.float16),
        text_key("ok"): np.array([0.2, 0.3], np.float16),
    }
    files = write_chars(tmp_path, TEACHER, "toxicspans", rows)
    # 5 + 8 > 10 characters: a second part; 8 + 2 fit in it.
    assert [p.name for p in files] == ["toxicspans.0.npz", "toxicspans.1.npz"]
    got = read_chars(tmp_path, TEACHER, "toxicspans")
    assert got is not None and list(got) == list(rows)
    for k, v in rows.items():
        np.testing.assert_array_equal(got[k], v)  # NaN where no token covered a character
    monkeypatch.setattr(_bank, "MAX_CHARS", 100)
    assert [p.name for p in write_chars(tmp_path, TEACHER, "toxicspans", rows)] == [
        "toxicspans.npz"
    ]
    # The parts of the larger write are gone.
    one = tmp_path / "builtin-large-2.2.2" / "chars" / "toxicspans.npz"
    assert chars_files(tmp_path, TEACHER, "toxicspans") == [one]
    other = TeacherId("builtin", "2.1.2", "ef" * 32)
    assert read_chars(tmp_path, other, "toxicspans") is None
    with pytest.raises(
        DataError, match=r"was labelled by builtin-large 2\.2\.2 .* builtin 2\.1\.2"
    ):
        # Another teacher's name on the folder: the files inside still say who labelled them.
        (tmp_path / "builtin-2.1.2").symlink_to(tmp_path / "builtin-large-2.2.2")
        read_chars(tmp_path, other, "toxicspans")


def test_a_labelling_leg_with_the_builtin_model_keeps_span_characters(tmp_path, monkeypatch):
    import tactful
    from tactful.train import _bank_sources
    from tactful.train._bank import read_chars
    from tactful.train._label import label_source, teacher_id

    texts = ["you are an idiot", "have a lovely day", "shut up, you moron"]
    monkeypatch.setitem(_bank_sources.BANK_SOURCES, "toxicspans", lambda d: iter(texts))
    mod = tactful.load("builtin", threads=1)
    leg = label_source(mod, "toxicspans", tmp_path, minutes=5, data_dir=tmp_path, limit=2)
    assert (leg.total, leg.before, leg.labelled, leg.done) == (3, 0, 2, False)
    tid = teacher_id(mod)
    leg = label_source(mod, "toxicspans", tmp_path, minutes=5, data_dir=tmp_path, teacher=tid)
    assert (leg.before, leg.labelled, leg.done) == (2, 1, True)
    bank = read_bank(tmp_path, tid, "toxicspans")
    chars = read_chars(tmp_path, tid, "toxicspans")
    assert bank is not None and chars is not None and len(bank) == len(chars) == 3
    seq = mod.predict_arrays(texts)[0]
    np.testing.assert_allclose(bank.lookup(texts), seq.astype(np.float16), atol=0)
    for t in texts:
        assert len(chars[text_key(t)]) == len(t)
    insult = chars[text_key("you are an idiot")].astype(np.float32)
    # The runtime's span is where the per-character probability passes its span point.
    span = mod.analyze(["you are an idiot"])[0].spans
    assert span and all(
        insult[i] >= mod.card["thresholds"]["span"] for s in span for i in range(s.start, s.end)
    )
    assert np.nanmax(chars[text_key("have a lovely day")].astype(np.float32)) < 0.5


def test_the_bank_command_counts_distinct_texts_and_bytes(tmp_path):
    from typer.testing import CliRunner

    from tactful.cli import app
    from tactful.train._bank import write_chars

    k1, p1, s1 = _rows(["you absolute idiot", "have a nice day"], [True, False])
    write_bank(tmp_path, TEACHER, "chat", HEADS, k1, p1, s1)
    k2, p2, s2 = _rows(["have a nice day", "a third text", "a fourth"])
    write_bank(tmp_path, TEACHER, "other", HEADS, k2, p2, s2)
    write_chars(tmp_path, TEACHER, "toxicspans", {text_key("idiot"): np.ones(5, np.float16)})
    res = CliRunner().invoke(app, ["train", "bank", "--bank", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    files = sorted(tmp_path.glob("*/*.npz")) + sorted(tmp_path.glob("*/chars/*.npz"))
    assert out["distinct_texts"] == 4 and out["files"] == 3
    assert out["bytes"] == sum(p.stat().st_size for p in files)
    assert out["largest_file_bytes"] == max(p.stat().st_size for p in files)
    assert [(r["source"], r["rows"], r["seen"]) for r in out["sources"]] == [
        ("chat", 2, 1),
        ("other", 3, 0),
    ]
    assert list(out["character_files"]) == ["builtin-large-2.2.2/chars/toxicspans.npz"]
    text = CliRunner().invoke(app, ["train", "bank", "--bank", str(tmp_path)]).output
    assert text.splitlines()[-1].startswith("4 distinct texts from 2 sources in 3 files, ")
