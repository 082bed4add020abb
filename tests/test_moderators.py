"""The baseline moderators: ``lexicon`` and ``random``."""

from __future__ import annotations

import csv
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import tactful
from tactful import Span, _registry
from tactful.errors import PARAM_MESSAGE, ConfigError, ModelError, UnknownNameError
from tactful.metrics import span_f1
from tactful.moderators import lexicon as lexicon_mod
from tactful.moderators._random import RandomModerator
from tactful.moderators.lexicon import LexiconModerator, read_lexicon, tokenize
from tactful.params import Float, Int
from tactful.wordlists import data_path

REPO = Path(__file__).resolve().parents[1]
TSD = "toxicspans/semeval2021"

# Training counts of the words used below, as recorded in the shipped lexicon.
IDIOT = 668 / 735
STUPID = 1246 / 1455
MORON = 192 / 227


def only(texts: list[str], **config) -> list[tuple[int, int, str, float]]:
    [a] = tactful.load("lexicon", **config).analyze(texts)
    return [(s.start, s.end, s.label, s.score) for s in a.spans]


def mean_span_f1(moderator, path: Path) -> float:
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    results = moderator.analyze([r["text"] for r in rows])
    return span_f1(
        [json.loads(r["spans"]) for r in rows],
        [[k for s in a.spans for k in s.offsets()] for a in results],
    )


# -- lexicon: spans ----------------------------------------------------------------------------


def test_lexicon_marks_the_insult_with_exact_offsets() -> None:
    [a] = tactful.load("lexicon").analyze(["you absolute idiot"])
    assert a.flagged is True
    assert a.spans == (Span(13, 18, "insult", IDIOT),)
    assert dict(a.scores) == {
        "toxicity": IDIOT,
        "insult": IDIOT,
        "threat": 0.0,
        "identity_attack": 0.0,
        "profanity": 0.0,
    }
    assert a.jailbreak is None and a.delicate is None
    assert dict(a.flags) == {"toxicity": True}


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("IDIOT!!", 0, 5),
        ("\U0001f600\U0001f44d\U0001f3fd you idiot", 8, 13),  # emoji count as one code point each
        ("Cafe\u0301 idiot", 6, 11),  # combining accent before the word
        ("fine\r\nyou idiot\r\n", 10, 15),
        ("id\u200biot", 0, 6),  # a zero-width space does not hide the word
        ("(idiot)", 1, 6),
    ],
)
def test_lexicon_offsets_index_the_original_text(text: str, start: int, end: int) -> None:
    assert only([text]) == [(start, end, "insult", IDIOT)]


def test_lexicon_merges_runs_across_spaces_only() -> None:
    # SemEval gold marks "stupid ignorant fool" as one run; the run keeps its best part.
    assert only(["what a stupid ignorant fool"]) == [(7, 27, "insult", STUPID)]
    assert only(["stupid\nidiot"]) == [(0, 6, "insult", STUPID), (7, 12, "insult", IDIOT)]
    assert only(["stupid, idiot"]) == [(0, 6, "insult", STUPID), (8, 13, "insult", IDIOT)]


def test_lexicon_labels_profanity_and_slurs() -> None:
    # List terms score (toxic + 1) / (total + 1): bullshit was toxic 37 of 54 times.
    assert only(["this is bullshit"]) == [(8, 16, "profanity", 38 / 55)]
    assert only(["white trash"]) == [(0, 11, "identity_attack", 8 / 12)]
    # Unseen in training: the slur list alone scores it 1.0; hyphen and spaces both match.
    assert only(["a burr-head"]) == [(2, 11, "identity_attack", 1.0)]
    assert only(["Burr  head"]) == [(0, 10, "identity_attack", 1.0)]


def test_lexicon_leaves_civil_text_alone() -> None:
    [a] = tactful.load("lexicon").analyze(["What a lovely day for a walk in the park."])
    assert a.flagged is False
    assert a.spans == ()
    assert a.scores["toxicity"] == 0.0


def test_lexicon_leaves_out_curated_exclusions() -> None:
    # "monkey" and "queer" are on the slur list but excluded as ordinary/self-identity words.
    terms = read_lexicon()["terms"]
    assert "monkey" not in terms and "queer" not in terms
    assert only(["my queer friend fed the monkey"]) == []


def test_lexicon_known_identity_bias(data_dir: Path) -> None:
    # The neutral identity terms the learned lexicon keeps, as its docstring states.
    import ast

    path = data_dir / "speech_suppression" / "lexicon" / "neutral_identity_terms.csv"
    with path.open(newline="", encoding="utf-8") as f:
        neutral = {t.lower() for row in csv.DictReader(f) for t in ast.literal_eval(row["Terms"])}
    flagged = sorted(t for t in neutral if only([f"they are {t}"]))
    assert flagged == ["bisexual", "disorder", "gay", "iranian", "latino", "lesbian", "mexican"]


def test_min_count_applies_to_learned_words_not_to_lists() -> None:
    assert only(["idiot"], min_count=1000) == []
    assert only(["fuck"], min_count=1000) == [(0, 4, "profanity", 46 / 62)]
    assert only(["moron"], min_ratio=0.85) == []  # 0.846 of its uses were toxic
    assert only(["moron"], min_ratio=0.84) == [(0, 5, "insult", MORON)]


def test_tokenize_keeps_offsets_and_normalizes_keys() -> None:
    assert tokenize("You IDIOT!!") == [(0, 3, "you"), (4, 9, "idiot")]
    assert tokenize("Cafe\u0301s don\u2019t f**k") == [
        (0, 6, "caf\u00e9s"),
        (7, 12, "don't"),
        (13, 17, "f**k"),
    ]
    assert tokenize("zero\u200bwidth \ufeff") == [(0, 10, "zerowidth")]
    assert tokenize("") == []


# -- lexicon: configuration and errors --------------------------------------------------------


def test_lexicon_config_round_trip() -> None:
    mod = tactful.load("lexicon", min_ratio=0.7, min_count=3)
    assert isinstance(mod, LexiconModerator)
    assert mod.config() == {"min_ratio": 0.7, "min_count": 3}
    assert tactful.load("lexicon", **mod.config()).config() == mod.config()
    assert tactful.load("lexicon").config() == {"min_ratio": 0.5, "min_count": 2}
    assert (mod.name, mod.version) == ("lexicon", "1")


def param_message(owner: str, name: str, rule: object, value: object) -> str:
    return "[T010] " + PARAM_MESSAGE.format(
        name=name, owner=owner, rule=rule.describe(), value=value
    )


RATIO, COUNT = Float(0.0, 1.0, closed="right"), Int(1)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"min_ratio": 0}, param_message("LexiconModerator", "min_ratio", RATIO, 0)),
        ({"min_ratio": 1.5}, param_message("LexiconModerator", "min_ratio", RATIO, 1.5)),
        ({"min_ratio": "0.5"}, param_message("LexiconModerator", "min_ratio", RATIO, "0.5")),
        ({"min_ratio": True}, param_message("LexiconModerator", "min_ratio", RATIO, True)),
        ({"min_count": 0}, param_message("LexiconModerator", "min_count", COUNT, 0)),
        ({"min_count": 2.0}, param_message("LexiconModerator", "min_count", COUNT, 2.0)),
        ({"min_count": True}, param_message("LexiconModerator", "min_count", COUNT, True)),
    ],
)
def test_lexicon_rejects_bad_parameters(config: dict, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        tactful.load("lexicon", **config)
    assert str(info.value) == message


@pytest.mark.parametrize("name", ["lexicon", "random"])
def test_analyze_rejects_a_bare_string(name: str) -> None:
    mod = tactful.load(name)
    with pytest.raises(ConfigError, match=r"takes a sequence of texts, not a single str"):
        mod.analyze("you idiot")
    with pytest.raises(ConfigError, match=r"takes str texts\. Got int at position 1\."):
        mod.analyze(["ok", 3])


def pinned_sha(rel: str) -> str:
    """The sha256 the package manifest pins for ``rel``."""
    return json.loads(data_path("manifest.json").read_text())["files"][rel]


@pytest.fixture
def tampered_data(monkeypatch, tmp_path):
    """Point tactful.wordlists at a copy of the package data with one file changed."""
    import shutil

    from tactful import wordlists

    copy = tmp_path / "data"
    shutil.copytree(data_path(), copy)

    def tamper(rel: str, change) -> str:
        """Change ``rel`` in the copy; return the sha256 of the changed file."""
        data = change((copy / rel).read_bytes())
        (copy / rel).write_bytes(data)
        monkeypatch.setattr(wordlists, "data_path", lambda rel="": copy / rel)
        return hashlib.sha256(data).hexdigest()

    return tamper


@pytest.fixture
def fresh_lexicon_cache():
    """Drop the cached lexicon before and after a test that tampers with it."""

    def clear() -> None:
        for fn in (lexicon_mod.read_lexicon, lexicon_mod._entries, lexicon_mod._active):
            fn.cache_clear()

    clear()
    yield
    clear()


def test_lexicon_file_is_read_lazily_and_checked_against_its_hash(
    tampered_data, fresh_lexicon_cache
) -> None:
    got = tampered_data("lexicon.json", lambda data: data.replace(b'"idiot"', b'"idjit"'))
    mod = LexiconModerator()  # cheap: nothing is read yet
    with pytest.raises(ModelError) as err:
        mod.analyze(["idiot"])
    assert str(err.value) == (
        f"[T030] tactful/data/lexicon.json has SHA-256 {got}, "
        f"expected {pinned_sha('lexicon.json')} (pinned in tactful/data/manifest.json); "
        "the file was changed without re-pinning it."
    )


# -- lexicon: the shipped file ----------------------------------------------------------------


def test_shipped_lexicon_matches_its_pinned_hash() -> None:
    data = (REPO / "src" / "tactful" / "data" / "lexicon.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == pinned_sha("lexicon.json")
    doc = read_lexicon()
    assert doc["sources"]["train"]["file"] == f"{TSD}/tsd_train.csv"
    assert doc["sources"]["train"]["rows"] == 7939
    # The class defaults are the setting that scored best on the trial split.
    best = doc["selection"]["best"]
    assert (best["min_ratio"], best["min_count"], best["merge"]) == (0.5, 2, True)
    assert LexiconModerator().config() == {
        "min_ratio": best["min_ratio"],
        "min_count": best["min_count"],
    }


def test_recorded_sources_match_the_data_folder(data_dir: Path) -> None:
    sources = read_lexicon()["sources"]
    recorded = [sources["train"], sources["trial"], sources["slurs"], *sources["rater_types"]]
    for src in recorded:
        path = data_dir / src["file"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == src["sha256"], src["file"]


def test_build_script_regenerates_the_shipped_file(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "lexicon.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "build_lexicon.py"),
            "--data-dir",
            str(data_dir),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.read_bytes() == (REPO / "src" / "tactful" / "data" / "lexicon.json").read_bytes()
    assert f"sha256 {pinned_sha('lexicon.json')}" in proc.stdout
    assert "pinned" not in proc.stdout  # written elsewhere: the package manifest is untouched
    assert "trial span_f1 min_ratio=0.5 min_count=2 merge=True : 0.6080" in proc.stdout


def test_build_script_names_the_missing_file(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "build_lexicon.py"),
            "--data-dir",
            str(tmp_path),
            "--out",
            str(tmp_path / "x.json"),
        ],
        check=False,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert (
        proc.stderr
        == f"build_lexicon: [T021] Data file {TSD}/tsd_train.csv not found in data folder {tmp_path}.\n"
    )
    assert not (tmp_path / "x.json").exists()


# -- span F1 on SemEval-2021 (the "done when") ----------------------------------------


def test_lexicon_span_f1_on_semeval_test(data_dir: Path) -> None:
    f1 = mean_span_f1(tactful.load("lexicon"), data_dir / TSD / "tsd_test.csv")
    assert 0.55 <= f1 <= 0.70
    assert round(f1, 4) == 0.6492


def test_lexicon_span_f1_on_semeval_trial(data_dir: Path) -> None:
    assert (
        round(mean_span_f1(tactful.load("lexicon"), data_dir / TSD / "tsd_trial.csv"), 4) == 0.6080
    )


def test_random_span_f1_on_semeval_test_is_low(data_dir: Path) -> None:
    assert mean_span_f1(tactful.load("random"), data_dir / TSD / "tsd_test.csv") < 0.25


# -- random --------------------------------------------------------------------------------------


def test_random_is_pinned_per_seed_and_text() -> None:
    # Derived from BLAKE2b(seed, text): stable across processes and Python versions.
    [a] = tactful.load("random").analyze(["hello"])
    assert a.scores["toxicity"] == 0.5442705054586172
    assert a.flagged is True
    assert a.spans == (Span(0, 5, "toxic", 0.5442705054586172),)
    assert (a.jailbreak, a.delicate) == (0.028767828110090172, 0.1638673494148408)
    assert dict(a.flags) == {"toxicity": True, "jailbreak": False, "delicate": False}


def test_random_is_deterministic_and_batch_invariant() -> None:
    texts = [f"text number {i}" for i in range(50)]
    batch = RandomModerator(seed=5).analyze(texts)
    assert batch == RandomModerator(seed=5).analyze(texts)
    assert batch == [RandomModerator(seed=5).analyze([t])[0] for t in texts]


def test_random_depends_on_the_seed() -> None:
    texts = [f"text number {i}" for i in range(50)]
    s0 = [a.scores["toxicity"] for a in RandomModerator(seed=0).analyze(texts)]
    s1 = [a.scores["toxicity"] for a in RandomModerator(seed=1).analyze(texts)]
    assert all(x != y for x, y in zip(s0, s1))


def test_random_rate_sets_the_flag_share_and_spans_are_words() -> None:
    texts = [f"some words here number {i}" for i in range(2000)]
    assert not any(a.flagged for a in RandomModerator(rate=0.0).analyze(texts[:200]))
    flagged = [a for a in RandomModerator(rate=0.3).analyze(texts) if a.flagged]
    assert 0.27 <= len(flagged) / len(texts) <= 0.33
    for text, a in zip(texts, RandomModerator(rate=1.0).analyze(texts[:200])):
        assert a.flagged is True
        [s] = a.spans
        assert text[s.start : s.end] in text.split()
    [blank] = RandomModerator(rate=1.0).analyze(["  \n -- !"])
    assert blank.flagged is True and blank.spans == ()
    # words by tactful's one tokenizer: punctuation is not part of them
    [a] = RandomModerator(rate=1.0).analyze(['"idiot!"'])
    assert [(s.start, s.end) for s in a.spans] == [(1, 6)]


def test_random_config_round_trip() -> None:
    mod = tactful.load("random", seed=9, rate=0.25)
    assert mod.config() == {"seed": 9, "rate": 0.25}
    assert tactful.load("random", **mod.config()).config() == {"seed": 9, "rate": 0.25}
    assert (mod.name, mod.version) == ("random", "2")


SEED, RATE = Int(), Float(0.0, 1.0)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"seed": "1"}, param_message("RandomModerator", "seed", SEED, "1")),
        ({"seed": 1.0}, param_message("RandomModerator", "seed", SEED, 1.0)),
        ({"seed": True}, param_message("RandomModerator", "seed", SEED, True)),
        ({"rate": 1.5}, param_message("RandomModerator", "rate", RATE, 1.5)),
        ({"rate": float("nan")}, param_message("RandomModerator", "rate", RATE, float("nan"))),
        ({"rate": False}, param_message("RandomModerator", "rate", RATE, False)),
    ],
)
def test_random_rejects_bad_parameters(config: dict, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        tactful.load("random", **config)
    assert str(info.value) == message


# -- registry --------------------------------------------------------------------------------------


def test_reregistering_a_name_with_another_factory_is_an_error() -> None:
    def other(**config):
        return RandomModerator(**config)

    with pytest.raises(ConfigError, match=r"A moderator named 'lexicon' is already registered"):
        tactful.register("lexicon")(other)
    assert type(tactful.load("lexicon")) is LexiconModerator
    # Registering the same class again (e.g. on re-import) is allowed, and leaves the name
    # with its entry point (whose duplicate check keeps running: tests/test_plugins.py).
    assert tactful.register("lexicon")(LexiconModerator) is LexiconModerator
    assert "lexicon" not in _registry._REGISTRY


def test_unknown_moderator_lists_the_known_names() -> None:
    with pytest.raises(UnknownNameError) as info:
        tactful.load("nope")
    message = str(info.value)
    assert message.startswith("[T011] Unknown moderator 'nope'. Known moderators: ")
    assert "lexicon" in message and "random" in message
    assert info.value.known == tactful.available()
