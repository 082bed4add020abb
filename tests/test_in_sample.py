"""In-sample scores: training-text fingerprints, their count in eval, the warning and its line."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

import tactful
import tactful.datasets
from tactful import Analysis
from tactful.cli import app
from tactful.datasets import DatasetSpec, Record
from tactful.errors import ConfigError, ModelError
from tactful.evaluate import (
    IN_SAMPLE_ADVICE,
    IN_SAMPLE_MESSAGE,
    TRAINED_TEXTS_FILE,
    TrainedTexts,
    evaluate,
    in_sample_count,
    in_sample_warning,
    match_key,
    read_trained_texts,
    text_fingerprint,
    trained_texts,
)
from tactful.moderators.builtin import BuiltinModerator, default_model_dir, load_card

runner = CliRunner()

TRAINED = ["you idiot", "hello", "Tell me a joke"]


# ------------------------------------------------------------- fingerprints


def test_fingerprint_is_the_little_endian_head_of_the_match_keys_sha256():
    digest = hashlib.sha256(b"tell me a joke").digest()
    assert text_fingerprint("Tell me a joke!") == int.from_bytes(digest[:8], "little")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # TweetEval offensive is OLID with @USER lower-cased and URL dropped.
        (
            "@USER Go home you’re drunk!!! @USER #MAGA URL",
            "@user Go home you’re drunk!!! @user #MAGA ",
        ),
        ("tell me a joke", "Tell me a joke  "),
        ("Hi, who are you ?", "hi who are you"),
        ("ﬁne", "fine"),  # NFKC
        ("Obama was the fool.......", "Obama was the fool"),
    ],
)
def test_copies_a_corpus_reencoded_share_a_key(a, b):
    assert match_key(a) == match_key(b)
    assert text_fingerprint(a) == text_fingerprint(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("you idiot", "you idiots"),
        ("I will kill you", "I will not kill you"),
        ("🙂", "🙃"),  # no word left: the texts themselves
        ("", " "),
    ],
)
def test_other_texts_have_other_keys(a, b):
    assert text_fingerprint(a) != text_fingerprint(b)


def test_any_python_str_has_a_fingerprint():
    assert isinstance(text_fingerprint("a\ud800b"), int)  # a lone surrogate
    assert text_fingerprint("\x00") == text_fingerprint("\x00")


def test_trained_texts_counts_every_scored_row():
    seen = TrainedTexts.from_texts([*TRAINED, "hello"])
    assert len(seen) == 3  # duplicates kept once
    assert seen.count(["hello", "HELLO!", "bye", "hello", "you idiots"]) == 3
    assert seen.mask(["bye", "you idiot"]).tolist() == [False, True]
    assert "tell me a joke" in seen and "tell me a story" not in seen and 3 not in seen
    assert TrainedTexts.from_texts([]).count(["hello"]) == 0


def test_bytes_round_trip_sorted_unique_uint64():
    seen = TrainedTexts.from_texts(TRAINED)
    data = seen.to_bytes()
    assert len(data) == 8 * 3
    fps = np.frombuffer(data, dtype="<u8")
    assert fps.tolist() == sorted(text_fingerprint(t) for t in TRAINED)
    assert TrainedTexts.from_bytes(data).count(TRAINED) == 3


@pytest.mark.parametrize(
    "data",
    [b"\x00" * 7, np.array([3, 2], dtype="<u8").tobytes(), np.array([2, 2], "<u8").tobytes()],
)
def test_malformed_fingerprint_bytes_are_a_model_error(data):
    with pytest.raises(ModelError, match="trained-texts file"):
        TrainedTexts.from_bytes(data)


# ------------------------------------------------------- a fake model folder


def fake_model(folder: Path, texts: Sequence[str] = TRAINED, **card: Any) -> Path:
    """A model folder with only a card and its trained-texts file (no ONNX is needed)."""
    folder.mkdir(parents=True, exist_ok=True)
    data = TrainedTexts.from_texts(texts).to_bytes()
    (folder / TRAINED_TEXTS_FILE).write_bytes(data)
    full = {
        "name": "fake",
        "version": "0",
        "trained_on": [
            {
                "dataset": "fake",
                "split": "test",
                "rows_seen": 2,
                "rows": 4,
                "honest_figure": "tactful train cv fake",
            }
        ],
        "sha256": {TRAINED_TEXTS_FILE: hashlib.sha256(data).hexdigest()},
        **card,
    }
    (folder / "card.json").write_text(json.dumps(full))
    return folder


def test_read_trained_texts_checks_the_pin(tmp_path):
    d = fake_model(tmp_path / "m")
    seen = read_trained_texts(d, json.loads((d / "card.json").read_text()))
    assert seen is not None and len(seen) == 3
    assert seen.honest_figure("fake") == "tactful train cv fake"
    assert seen.honest_figure("other") is None
    assert read_trained_texts(d, {"sha256": {}}) is None  # nothing recorded: nothing checked
    with pytest.raises(ModelError, match="does not match the sha256 pinned in its card"):
        read_trained_texts(d, {"sha256": {TRAINED_TEXTS_FILE: "0" * 64}})
    (d / TRAINED_TEXTS_FILE).unlink()
    with pytest.raises(ModelError, match=f"No {TRAINED_TEXTS_FILE} at"):
        read_trained_texts(d, json.loads((d / "card.json").read_text()))


def test_builtin_reads_its_folders_fingerprints_lazily(tmp_path):
    d = fake_model(tmp_path / "m")
    mod = BuiltinModerator(model_dir=str(d))  # no ONNX in the folder: never loaded
    seen = mod.trained_texts()
    assert seen is not None and mod.trained_texts() is seen
    assert in_sample_count(mod, ["hello", "hello", "nope"]) == 2
    none = BuiltinModerator(model_dir=str(fake_model(tmp_path / "n", sha256={})))
    assert none.trained_texts() is None
    assert in_sample_count(none, ["hello"]) == 0


def test_a_tampered_fingerprint_file_is_refused(tmp_path):
    d = fake_model(tmp_path / "m")
    (d / TRAINED_TEXTS_FILE).write_bytes(TrainedTexts.from_texts(["x"]).to_bytes())
    with pytest.raises(ModelError, match="does not match the sha256 pinned in its card"):
        BuiltinModerator(model_dir=str(d)).trained_texts()


def test_moderators_without_the_method_have_no_check():
    lexicon = tactful.load("lexicon")
    assert trained_texts(lexicon) is None
    assert in_sample_count(lexicon, TRAINED) == 0


# ---------------------------------------------------------- evaluate and eval


class SeenModerator:
    """Flags texts containing "idiot"; trained on :data:`TRAINED` (or on nothing)."""

    name = "seen"
    version = "1"

    def __init__(self, texts: Sequence[str] | None = TRAINED, honest: bool = True) -> None:
        self.texts = texts
        self.honest = honest

    def trained_texts(self) -> TrainedTexts | None:
        if self.texts is None:
            return None
        figures = {"fake": "tactful train cv fake"} if self.honest else {}
        return TrainedTexts.from_texts(self.texts, figures)

    def analyze(self, texts: Sequence[str]) -> list[Analysis]:
        return [
            Analysis(flagged="idiot" in t, scores={"toxicity": 0.9 if "idiot" in t else 0.1})
            for t in texts
        ]

    def config(self) -> dict[str, Any]:
        return {}


FAKE = DatasetSpec(
    name="fake",
    task="toxicity",
    splits=("test",),
    default_split="test",
    files=("fake.csv",),
    description="in-memory rows for tests",
)


@pytest.fixture
def fake_data(monkeypatch):
    def rec(i: int, text: str, label: int | None) -> Record:
        return Record(id=str(i), text=text, label=label, split="test")

    rows = [
        rec(0, "you idiot", 1),  # trained on
        rec(1, "Hello!", 0),  # trained on (the same key)
        rec(2, "idiot", 0),
        rec(3, "bye", 1),
        rec(4, "hello", None),  # trained on, but not scored: no label, no spans
    ]
    real_get_spec = tactful.datasets.get_spec
    monkeypatch.setattr(tactful.datasets, "load_dataset", lambda *a, **k: list(rows))
    monkeypatch.setattr(
        tactful.datasets, "get_spec", lambda n: FAKE if n == "fake" else real_get_spec(n)
    )


def test_evaluate_counts_the_scored_rows_the_model_saw(fake_data):
    got = evaluate("fake", moderator=SeenModerator())
    assert (got["n"], got["in_sample"], got["n_in_sample"]) == (4, True, 2)
    assert got["honest_figure"] == "tactful train cv fake"
    assert in_sample_warning(got) == IN_SAMPLE_MESSAGE.format(
        n_in_sample=2, n=4, moderator="seen", extent="a partly", honest="`tactful train cv fake`"
    )


def test_evaluate_without_overlap_or_record(fake_data):
    for mod in (SeenModerator(["something else"]), SeenModerator(None)):
        got = evaluate("fake", moderator=mod)
        assert (got["in_sample"], got["n_in_sample"]) == (False, 0)
        assert "honest_figure" not in got
        assert in_sample_warning(got) is None


def test_evaluate_all_in_sample_without_a_named_command(fake_data):
    mod = SeenModerator(["you idiot", "hello", "idiot", "bye"], honest=False)
    got = evaluate("fake", moderator=mod)
    assert (got["n_in_sample"], got["n"]) == (4, 4) and "honest_figure" not in got
    assert in_sample_warning(got) == IN_SAMPLE_MESSAGE.format(
        n_in_sample=4, n=4, moderator="seen", extent="an", honest=IN_SAMPLE_ADVICE
    )


def test_in_sample_warning_formats_thousands():
    line = in_sample_warning(
        {"moderator": "builtin", "n": 1023, "n_in_sample": 1023, "honest_figure": "tactful x"}
    )
    assert line == IN_SAMPLE_MESSAGE.format(
        n_in_sample=1023, n=1023, moderator="builtin", extent="an", honest="`tactful x`"
    )
    assert line.startswith("1,023 of 1,023 scored rows were in builtin's training data")


def test_eval_prints_one_warning_line_on_stderr_and_keeps_json_clean(fake_data):
    with tactful.temporary_registration("_seen", SeenModerator):
        res = runner.invoke(app, ["eval", "fake", "-m", "_seen", "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    assert (got["in_sample"], got["n_in_sample"]) == (True, 2)
    want = IN_SAMPLE_MESSAGE.format(
        n_in_sample=2, n=4, moderator="seen", extent="a partly", honest="`tactful train cv fake`"
    )
    assert res.stderr == f"warning: {want}\n"


def test_eval_says_nothing_when_no_row_was_seen(fake_data):
    with tactful.temporary_registration("_unseen", lambda: SeenModerator(None)):
        res = runner.invoke(app, ["eval", "fake", "-m", "_unseen"])
    assert res.exit_code == 0, res.output
    assert res.stderr == ""
    assert "n_in_sample" in res.stdout


def test_eval_with_a_tampered_fingerprint_file_is_one_error_line(fake_data, tmp_path):
    d = fake_model(tmp_path / "m")
    (d / TRAINED_TEXTS_FILE).write_bytes(b"")
    res = runner.invoke(
        app, ["eval", "fake", "-m", "builtin", "-O", f"model_dir={json.dumps(str(d))}"]
    )
    assert res.exit_code == ModelError.exit_code
    assert res.stderr.startswith(f"error: [{ModelError.code}] The file ")
    assert res.stderr.count("\n") == 1


# ------------------------------------------------------------ the shipped model


MODEL_DIR = default_model_dir()


def test_the_shipped_card_pins_the_fingerprints_and_lists_what_it_saw():
    card = load_card()
    path = MODEL_DIR / TRAINED_TEXTS_FILE
    assert hashlib.sha256(path.read_bytes()).hexdigest() == card["sha256"][TRAINED_TEXTS_FILE]
    assert path.stat().st_size < 1_000_000
    seen = tactful.load("builtin").trained_texts()
    assert seen is not None and 8 * len(seen) == path.stat().st_size
    on = {(e["dataset"], e["split"]): e for e in card["trained_on"]}
    detexd = on[("detexd", "all")]
    # model 3.0.0 is a bank student that saw part of DeTexD (stage 7 draws 500 rows, and
    # 242 more are banked texts): its honest figure is the score on the rows it did not see
    assert (detexd["rows_seen"], detexd["rows"]) == (742, 1023)
    assert detexd["honest_figure"] == "tactful eval detexd -m builtin --unseen"
    assert seen.honest_figure("detexd") == "tactful eval detexd -m builtin --unseen"
    # Every training source of the card's stages is listed with the split it came from
    # (a bank source ``bank:NAME`` as data set NAME where there is one).
    training = card["training"]
    # model 3.0.0 is a chain of three legs of stage 7; 3.4.0 is a fourth from 3.3.0
    stages = [v for k, v in training.items() if k.startswith("stage")]
    assert [st["stage"] for st in stages] == [7, 7, 7, 7]
    listed = {e["dataset"] for e in card["trained_on"] if "via" not in e}
    sources = {s for st in stages for s in st["sources"]}
    assert "bank:detexd" in sources and "bank:detexd" not in listed
    assert {s if s in listed else s.removeprefix("bank:") for s in sources} <= listed


@pytest.mark.parametrize(
    ("dataset", "split"),
    [
        ("detexd", "all"),
        ("toxicchat", "test"),
        ("toxicchat", "dev"),
        ("tweeteval_offensive", "dev"),  # OLID re-encoded
        ("tweeteval_offensive", "test"),
        ("toxicspans", "test"),
    ],
)
def test_the_shipped_fingerprints_agree_with_the_card(data_dir, dataset, split):
    rows = tactful.datasets.load_dataset(dataset, split=split, data_dir=data_dir)
    entry = {(e["dataset"], e["split"]): e for e in load_card()["trained_on"]}[(dataset, split)]
    builtin = tactful.load("builtin")
    assert in_sample_count(builtin, [r.text for r in rows]) == entry["rows_seen"]
    assert len(rows) == entry["rows"]


def test_the_category_refits_texts_are_rebuilt_from_the_card_and_count_as_seen(data_dir):
    """builtin's category rows were fit again on its frozen encoder: ``tactful train
    trained-texts`` rebuilds what that refit read from the card's record, checked against
    its counts, and the shipped fingerprints hold it."""
    import copy

    from tactful.errors import DataError
    from tactful.train._category_templates import category_template_rows
    from tactful.train._categoryhead import category_refit_texts

    card = load_card()
    record = card["category_heads"]
    got = category_refit_texts(data_dir, card)
    texts = set().union(*got.values())
    revision = record["config"]["template_revision"]
    templates = {t for t, _, _ in category_template_rows("train", revision=revision)}
    assert got["category_templates"] == templates
    # deepset's 546 prompts but "What time is it?", a ToxicChat dev or test prompt too
    assert len(got["deepset_injections"]) == 545 and "What time is it?" not in texts
    assert in_sample_count(tactful.load("builtin"), sorted(texts)) == len(texts)
    # a record without its revision reads the newest one that gives its counts
    older = copy.deepcopy(card)
    del older["category_heads"]["config"]["template_revision"]
    assert category_refit_texts(data_dir, older) == got
    # counts that do not reproduce: one line that says so
    bad = copy.deepcopy(card)
    bad["category_heads"]["sources"]["toxicchat"] += 1
    with pytest.raises(DataError) as err:
        category_refit_texts(data_dir, bad)
    msg = str(err.value)
    assert msg.startswith(
        f"[{DataError.code}] the category-head refit of model {record['from']['version']} "
        "does not reproduce: "
        "got sources {"
    )
    assert "\n" not in msg


def test_sets_without_an_entry_share_no_text_with_training(data_dir):
    builtin = tactful.load("builtin")
    on = {(e["dataset"], e["split"]): e["rows_seen"] for e in load_card()["trained_on"]}
    for name in ("ss_jigsaw_bias", "tweeteval_hate"):
        for split in tactful.datasets.get_spec(name).splits:
            rows = tactful.datasets.load_dataset(name, split=split, data_dir=data_dir)
            got = in_sample_count(builtin, [r.text for r in rows])
            assert got == on.get((name, split), 0), (name, split)


def test_eval_detexd_with_builtin_warns(data_dir):
    res = runner.invoke(
        app,
        ["eval", "detexd", "-m", "builtin", "--limit", "3", "--json", "--data-dir", str(data_dir)],
    )
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    assert (got["in_sample"], got["n_in_sample"], got["n"]) == (True, 3, 3)
    want = IN_SAMPLE_MESSAGE.format(
        n_in_sample=3,
        n=3,
        moderator="builtin",
        extent="an",
        honest="`tactful eval detexd -m builtin --unseen`",
    )
    assert res.stderr == f"warning: {want}\n"


def test_a_copied_model_folder_keeps_its_check(tmp_path):
    d = tmp_path / "model"
    shutil.copytree(MODEL_DIR, d)
    copied = BuiltinModerator(model_dir=str(d)).trained_texts()
    shipped = tactful.load("builtin").trained_texts()
    assert copied is not None and shipped is not None
    assert copied.to_bytes() == shipped.to_bytes()


# ------------------------------------------------------------------- the audit


def test_audit_counts_and_warns_per_set_and_moderator(tmp_path):
    import importlib.util

    path = Path(__file__).parent / "data" / "audit_reference" / "synthetic.py"
    spec = importlib.util.spec_from_file_location("audit_synthetic_h9", path)
    assert spec is not None and spec.loader is not None
    synthetic = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(synthetic)

    class SeenFlagWord(synthetic.FlagWord):
        name = "seenflag"

        def trained_texts(self) -> TrainedTexts:
            return TrainedTexts.from_texts(r.text for r in rows["ss_stormfront"][:5])

    args = ["audit", "-m", "_seenflag", "-m", "_flagword", "--datasets", "ss_stormfront"]
    args += ["--out", str(tmp_path), "--data-dir", str(tmp_path / "no-data")]
    with (
        synthetic.patched_loader() as rows,
        tactful.temporary_registration("_seenflag", SeenFlagWord),
        tactful.temporary_registration("_flagword", synthetic.FlagWord),
    ):
        res = runner.invoke(app, [*args, "--n-resamples", "20"])
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "report.json").read_text())
    seen, plain = report["moderators"]
    assert seen["in_sample"] == {"ss_stormfront": 5}
    assert "in_sample" not in plain  # records no training texts: nothing to check
    n = report["datasets"][0]["n"]
    want = IN_SAMPLE_MESSAGE.format(
        n_in_sample=5, n=n, moderator="seenflag", extent="a partly", honest=IN_SAMPLE_ADVICE
    )
    assert res.stderr == f"warning: ss_stormfront: {want}\n"


def test_unseen_scores_only_the_rows_the_model_did_not_train_on(fake_data):
    got = evaluate("fake", moderator=SeenModerator(), unseen=True)
    # rows 0, 1 and 4 were trained on ("Hello!" shares "hello"'s key): 2 rows are left
    assert (got["n"], got["n_dropped_in_sample"]) == (2, 3)
    assert (got["in_sample"], got["n_in_sample"]) == (False, 0)
    # "idiot" (label 0) is flagged, "bye" (label 1) is not
    assert (got["precision"], got["recall"], got["f1"]) == (0.0, 0.0, 0.0)
    assert "n_dropped_in_sample" not in evaluate("fake", moderator=SeenModerator())


def test_unseen_needs_a_record_and_a_row_left(fake_data):
    with pytest.raises(ConfigError, match="seen records no training texts, so --unseen cannot"):
        evaluate("fake", moderator=SeenModerator(None), unseen=True)
    everything = SeenModerator(["you idiot", "hello", "idiot", "bye"])
    with pytest.raises(ConfigError, match=r"every row of fake/test was in seen's training data"):
        evaluate("fake", moderator=everything, unseen=True)


def test_eval_unseen_on_the_command_line(fake_data):
    with tactful.temporary_registration("_seen", SeenModerator):
        res = runner.invoke(app, ["eval", "fake", "-m", "_seen", "--unseen", "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    assert (got["n"], got["n_dropped_in_sample"], got["in_sample"]) == (2, 3, False)
    assert res.stderr == ""


def test_a_chain_that_repeats_a_stage_keeps_every_stage_in_the_card(tmp_path):
    # builtin 2.2.0's chain: stage 7, then two stage-10 passes (distill --init from a
    # stage-10 student). Keyed by stage number alone, the card dropped the first pass.
    from tactful.train import run_stages
    from tactful.train._provenance import stage_keys

    init = None
    for name, seed, stage in [("s23", 6, 7), ("s25", 10, 10), ("s27", 10, 10)]:
        (tmp_path / name).mkdir()
        config = {"seed": seed, "stage": stage, "init": init}
        (tmp_path / name / "train.json").write_text(json.dumps({"config": config}))
        init = str(tmp_path / name / "model.pt")
    stages = run_stages(tmp_path / "s27")
    assert stage_keys(stages) == ["stage7", "stage10", "stage10_2"]
    assert [s["config"]["init"] for s in stages] == [
        None,
        str(tmp_path / "s23" / "model.pt"),
        str(tmp_path / "s25" / "model.pt"),
    ]
    assert stage_keys([{"stage": 1}]) == ["stage1"]
