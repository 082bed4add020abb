"""The identity tagger: matching rules, the shipped lexicon, agreement with the paper's tags."""

from __future__ import annotations

import csv
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tactful.errors import ConfigError, DataError, MissingDataError, UnknownNameError
from tactful.identity import (
    GROUP_ALIASES,
    GROUPS,
    TOXIGEN_GROUPS,
    IdentityTagger,
    IdentityTags,
    agreement,
    group_lists,
    normalize_group,
    normalize_groups,
    parse_paper_groups,
    tag,
    term_forms,
    term_key,
)

REPO = Path(__file__).resolve().parents[1]
LEXICON_DIR = REPO / "src" / "tactful" / "data" / "identity"


def groups(text: str) -> list[str]:
    return sorted(tag(text).groups)


# --------------------------------------------------------------------------- matching


@pytest.mark.parametrize(
    ("text", "expected_groups", "expected_subs"),
    [
        # multi-word terms, and their words alone are not enough
        ("Black Lives Matter marched today", ["non-white"], ["black"]),
        ("a black cat on a white fence", [], []),
        ("Native-American art", ["non-white"], ["native american"]),
        ("people of color", ["non-white"], ["poc"]),
        ("a mental health day", ["disability"], ["mental"]),
        # case
        ("MUSLIM SCHOLARS", ["non-christian"], ["muslim"]),
        # punctuation and possessives
        ("(Muslims!)", ["non-christian"], ["muslim"]),
        ("women's rights", ["women"], ["female"]),
        ("Women\u2019s rights", ["women"], ["female"]),
        ("the Muslims' holiday", ["non-christian"], ["muslim"]),
        ("gay-rights march", ["lgbt"], ["gay"]),
        ("she's here", ["women"], ["female"]),
        ("he'll come", ["men"], ["male"]),
        # plurals
        ("Christians and churches", ["christian"], ["christian"]),
        ("ladies first", ["women"], ["female"]),
        ("three gentlemen", ["men"], ["male"]),
        ("white men", ["men", "white"], ["male", "white"]),
        ("black children", ["non-white"], ["black"]),
        # whole words only
        ("Manchester", [], []),
        ("whitewash the theme of the shepherd's history", [], []),
        ("Arabic numerals", [], []),
        # an apostrophe keeps "can't" whole, so "can't, guys" is not the slur "t-guy"
        ("I can't, guys", ["men"], ["male"]),
        # accents are ignored
        ("Sapatão", ["lgbt"], ["lgbt-related"]),
        ("sapatao", ["lgbt"], ["lgbt-related"]),
        # HolisticBias additions
        ("my grandma is autistic", ["disability", "women"], ["female", "mental"]),
        ("", [], []),
    ],
)
def test_tags_of_hand_written_sentences(text, expected_groups, expected_subs):
    tags = tag(text)
    assert sorted(tags.groups) == expected_groups
    assert sorted(tags.sub_identities) == expected_subs


def test_has_slur_follows_the_slur_list_and_neutral_terms_win():
    t = tag("He called him a redneck.")
    assert t == IdentityTags(frozenset({"men", "white"}), frozenset({"male", "white"}), True)
    # "queer" is on both of the paper's lists; the neutral listing is kept
    assert tag("a queer film festival") == IdentityTags(
        frozenset({"lgbt"}), frozenset({"lgbt"}), False
    )
    # a slur's plural is a slur too
    assert tag("papists").has_slur and groups("papists") == ["christian"]
    assert tag("my wife and daughters").has_slur is False


def test_a_term_the_lists_give_several_groups_keeps_its_last_listing():
    # "Paki" is listed under middle eastern, asian and indian; the paper's code keeps indian
    assert tag("paki") == IdentityTags(frozenset({"non-white"}), frozenset({"indian"}), True)


def test_results_are_frozen_slotted_and_groups_are_known():
    t = tag("Jewish and Sikh women")
    assert t.groups <= set(GROUPS)
    with pytest.raises(AttributeError):
        t.has_slur = True  # type: ignore[misc]
    assert not hasattr(t, "__dict__")


def test_tag_many_is_tag_per_text():
    texts = ["my sister", "Manchester", "", "gay dads"]
    tagger = IdentityTagger()
    assert tagger.tag_many(texts) == [tagger.tag(t) for t in texts]
    assert [sorted(t.groups) for t in tagger.tag_many(texts)] == [
        ["women"],
        [],
        [],
        ["lgbt", "men"],
    ]
    assert tagger.tag_many([]) == []


def test_bad_input_is_a_one_line_config_error():
    tagger = IdentityTagger()
    with pytest.raises(
        ConfigError, match=r"'text' parameter of IdentityTagger.tag must be a str\. Got int"
    ):
        tagger.tag(3)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="not a single str"):
        tagger.tag_many("one text")
    with pytest.raises(ConfigError, match="Got NoneType at position 1"):
        tagger.tag_many(["a", None])  # type: ignore[list-item]


def test_term_key_and_forms():
    assert term_key("Burr-head") == "burr head"
    assert term_key("Jehovah's Witness") == "jehovah witness"
    assert term_key("Sapatão", fold_accents=True) == "sapatao"
    assert term_forms("white man") == {"white man", "white mans", "white men"}
    assert term_forms("lady") == {"lady", "ladys", "ladies"}
    assert term_forms("church") == {"church", "churchs", "churches"}
    assert term_forms("boy") == {"boy", "boys"}  # vowel + y: no "boies"
    assert term_forms("wife") == {"wife", "wifes", "wives"}


# --------------------------------------------------------------------------- lexicon files


def write_lexicon(folder: Path, rows: list[tuple[str, str, str, str]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "terms.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["term", "group", "sub_identity", "kind", "source"])
        for term, group, sub, kind in rows:
            w.writerow([term, group, sub, kind, "test"])
    return folder


def test_constructor_is_cheap_and_a_missing_lexicon_names_folder_and_file(tmp_path):
    tagger = IdentityTagger(lexicon_dir=tmp_path / "nowhere")  # reads nothing yet
    with pytest.raises(MissingDataError) as err:
        tagger.tag("text")
    assert str(err.value) == f"[T021] Looked in {tmp_path / 'nowhere'} for terms.csv: not found."


def test_custom_lexicon_and_a_listed_form_beats_a_plural(tmp_path):
    folder = write_lexicon(
        tmp_path,
        [
            ("ban", "men", "male", "neutral"),
            ("bans", "women", "female", "slur"),
            ("x y", "lgbt", "gay", "neutral"),
        ],
    )
    tagger = IdentityTagger(lexicon_dir=folder)
    assert tagger.tag("bans") == IdentityTags(frozenset({"women"}), frozenset({"female"}), True)
    assert tagger.tag("X-Ys") == IdentityTags(frozenset({"lgbt"}), frozenset({"gay"}), False)
    assert tagger.lexicon_sha256 == hashlib.sha256((folder / "terms.csv").read_bytes()).hexdigest()


def test_malformed_lexicon_is_a_data_error(tmp_path):
    folder = write_lexicon(tmp_path, [("x", "martians", "green", "neutral")])
    with pytest.raises(DataError, match=r"terms.csv:2: unknown group 'martians'"):
        IdentityTagger(lexicon_dir=folder).tag("x")
    (tmp_path / "terms.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(
        DataError, match="must have the columns term, group, sub_identity, kind, source"
    ):
        IdentityTagger(lexicon_dir=tmp_path).tag("x")


def test_shipped_lexicon_covers_every_group_with_known_kinds():
    frame = pd.read_csv(LEXICON_DIR / "terms.csv", keep_default_na=False)
    assert list(frame.columns) == ["term", "group", "sub_identity", "kind", "source"]
    assert set(frame["group"]) == set(GROUPS)
    assert set(frame["kind"]) == {"neutral", "slur"}
    assert frame["term"].is_unique
    # a sub-identity belongs to one group
    assert frame.groupby("sub_identity")["group"].nunique().max() == 1


def test_lexicon_rebuilds_byte_identically_from_the_data(data_dir, tmp_path):
    manifest = json.loads((LEXICON_DIR / "manifest.json").read_text(encoding="utf-8"))
    for rel, info in manifest["sources"].items():
        assert hashlib.sha256((data_dir / rel).read_bytes()).hexdigest() == info["sha256"], rel
    out = tmp_path / "identity"
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "build_identity_lexicon.py"),
            "--data-dir",
            str(data_dir),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert (out / "terms.csv").read_bytes() == (LEXICON_DIR / "terms.csv").read_bytes()
    assert (out / "manifest.json").read_bytes() == (LEXICON_DIR / "manifest.json").read_bytes()


def test_lexicon_builder_names_the_missing_file(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "build_identity_lexicon.py"),
            "--data-dir",
            str(tmp_path),
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"error: [T021] Looked in {tmp_path} for speech_suppression/lexicon/slur_identity_terms.csv: not found."
    )
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- groups and agreement


def test_normalize_and_parse_paper_groups():
    assert normalize_group(" Non-White ") == "non-white"
    assert normalize_group("lgbt-related") == "lgbt"
    with pytest.raises(UnknownNameError, match="Unknown identity group 'martians'"):
        normalize_group("martians")
    assert parse_paper_groups("women;lgbt-related;Non-Christian") == {
        "women",
        "lgbt",
        "non-christian",
    }
    assert parse_paper_groups(float("nan")) == frozenset()
    assert parse_paper_groups("") == frozenset()
    assert parse_paper_groups(None) == frozenset()


def test_one_vocabulary_of_group_names():
    assert set(GROUP_ALIASES.values()) == set(GROUPS)
    assert all(GROUP_ALIASES[g] == g for g in GROUPS)
    assert {normalize_group(a) for a in ("LGBTQ", "nonwhite", "Non Christian")} == {
        "lgbt",
        "non-white",
        "non-christian",
    }
    assert normalize_groups(["Non-White", "lgbt-related", "", " ", "women", "non-white"]) == (
        "women",
        "non-white",
        "lgbt",
    )
    assert set(TOXIGEN_GROUPS.values()) <= set(GROUPS)
    with pytest.raises(UnknownNameError) as err:
        normalize_groups(["women", "martians"])
    assert str(err.value) == (
        "[T011] Unknown identity group 'martians'. Known identity groups: "
        + ", ".join(sorted(GROUPS))
        + "."
    )
    with pytest.raises(ConfigError, match="must be a str. Got int"):
        normalize_group(3)  # type: ignore[arg-type]


def test_group_lists_checks_the_shape_once():
    assert group_lists([{"men"}, (), ["x", "y"]]) == [["men"], [], ["x", "y"]]
    with pytest.raises(ConfigError, match="'pred' parameter must be a sequence of group"):
        group_lists("men", "pred")
    with pytest.raises(ConfigError, match=r"got the str 'men;women' at position 0 \(split"):
        group_lists(["men;women"])
    with pytest.raises(ConfigError, match="Got int at position 1"):
        group_lists([{"men"}, 3])  # type: ignore[list-item]


def test_agreement_on_a_hand_made_case():
    pred = [{"men"}, {"men", "women"}, set(), {"lgbt-related"}, {"white"}]
    gold = [{"men"}, {"women"}, {"men"}, {"lgbt"}, set()]
    table = agreement(pred, gold, groups=["men", "women", "lgbt", "white", "straight"])
    assert list(table.columns) == [
        "group",
        "n",
        "n_gold",
        "n_pred",
        "tp",
        "fp",
        "fn",
        "accuracy",
        "precision",
        "recall",
    ]
    assert table["group"].tolist() == ["men", "women", "lgbt", "white", "straight"]
    men, women, lgbt, white, straight = (table.iloc[i] for i in range(5))
    # men: TP row 0, FP row 1, FN row 2, TN rows 3-4
    assert (men.n, men.n_gold, men.n_pred, men.tp, men.fp, men.fn) == (5, 2, 2, 1, 1, 1)
    assert (men.accuracy, men.precision, men.recall) == (0.6, 0.5, 0.5)
    assert (women.accuracy, women.precision, women.recall) == (1.0, 1.0, 1.0)
    assert (lgbt.tp, lgbt.accuracy) == (1, 1.0)  # the paper's spelling is normalized
    # no reference positives: recall is NA, not a number
    assert white.precision == 0.0 and pd.isna(white.recall) and white.accuracy == 0.8
    # neither side: precision and recall NA, accuracy 1
    assert pd.isna(straight.precision) and pd.isna(straight.recall) and straight.accuracy == 1.0
    assert str(table["precision"].dtype) == "Float64"


def test_agreement_default_has_one_row_per_group_and_checks_input():
    table = agreement([set()], [set()])
    assert table["group"].tolist() == list(GROUPS)
    with pytest.raises(ConfigError, match="same length. Got 1 and 2"):
        agreement([set()], [set(), set()])
    with pytest.raises(ConfigError, match="parse_paper_groups"):
        agreement(["men;women"], [set()])
    with pytest.raises(UnknownNameError):
        agreement([{"martians"}], [set()])


def read_paper_set(
    data_dir: Path, file: str, column: str
) -> tuple[list[str], list[frozenset[str]]]:
    frame = pd.read_csv(data_dir / "speech_suppression" / file, keep_default_na=False)
    return frame[column].astype(str).tolist(), [
        parse_paper_groups(v) for v in frame["Big_identity"]
    ]


def test_agreement_with_the_papers_tags_on_the_openai_set(data_dir):
    texts, gold = read_paper_set(data_dir, "openai_moderation_with_identities.csv", "prompt")
    assert len(texts) == 1680
    table = agreement([t.groups for t in IdentityTagger().tag_many(texts)], gold).set_index("group")
    assert (table["accuracy"] >= 0.95).all(), table
    # the tagger finds every text the paper tagged (it only adds texts the paper's
    # padded-substring matching missed)
    assert (table["recall"] == 1.0).all(), table


def test_agreement_with_the_papers_tags_on_stormfront(data_dir):
    texts, gold = read_paper_set(data_dir, "stormfront_with_identities.csv", "Sentence")
    table = agreement([t.groups for t in IdentityTagger().tag_many(texts)], gold).set_index("group")
    assert (table["accuracy"] >= 0.99).all(), table
    assert table.loc["men", "n_gold"] == 1025 and table.loc["straight", "n_gold"] == 1


def test_agreement_script_prints_both_tables(data_dir):
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "research" / "identity_agreement.py"),
            "--data-dir",
            str(data_dir),
            "--format",
            "markdown",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "openai_moderation: 1680 texts" in out and "stormfront: 10944 texts" in out
    assert (
        out.count("| group | n | n_gold | n_pred | tp | fp | fn | accuracy | precision | recall |")
        == 2
    )
    assert "| straight | 1680 | 5 | 5 | 5 | 0 | 0 | 1.000 | 1.000 | 1.000 |" in out


def test_agreement_script_names_the_missing_file(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "research" / "identity_agreement.py"),
            "--data-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "error: [T021] Data set 'ss_openai' needs "
        f"speech_suppression/openai_moderation_with_identities.csv, which is not in {tmp_path}. "
        "Pass --data-dir or set TACTFUL_DATA."
    )
