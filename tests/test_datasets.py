"""Tests of tactful.datasets: counts against the data README, exact first records,
span conversion, the raters' majority rule, seeded splits and error messages."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import tactful.datasets as ds
from tactful import Span
from tactful.datasets import (
    DatasetSpec,
    dataset_names,
    dataset_status,
    get_spec,
    load_dataset,
    load_holistic_buckets,
    load_holistic_descriptors,
    load_holistic_nouns,
    offsets_to_spans,
    rater_gold_spans,
    span_offsets,
)
from tactful.datasets._toxigen import decode_bytes_literal
from tactful.errors import DataError, MissingDataError, UnknownNameError
from tactful.identity import GROUPS

#: Row counts per split as the data README gives them (split names as tactful
#: names them). Derived splits are checked separately below.
README_ROWS: dict[str, dict[str, int]] = {
    "toxicchat": {"train_full": 2801, "test": 2853},
    "toxicchat_full": {"test": 5083},
    "detexd": {"all": 1023},
    "toxicspans": {"train": 7939, "dev": 690, "test": 2000},
    "toxicspans_raters": {"all": 16100},
    "davidson": {"all": 24783},
    "olid": {"train": 13240},
    "toxigen": {"all": 8960},
    "jigsaw_sentences": {"dev": 6648 + 6648, "test": 10000 + 10000},
    "jigsaw_bias": {"all": 76564},
    "jailbreak_inthewild": {"all": 666},
    "deepset_injections": {"all": 546},
    "gptfuzzer": {"all": 77},
    "tweeteval_hate": {"train": 9000, "dev": 1000, "test": 2970},
    "tweeteval_offensive": {"train": 11916, "dev": 1324, "test": 860},
    "openai_moderation": {"all": 1680},
    "ss_jigsaw_bias": {"all": 60560},
    "ss_stormfront": {"all": 10944},
    "ss_openai": {"all": 1680},
    "ss_tweeteval_hate": {"all": 12970},
    "ss_tweeteval_offensive": {"all": 14100},
    "stormfront": {"all": 10944},
}


# ----------------------------------------------------------------------------- registry
def test_public_surface():
    # order is ruff's RUF022 (constants, classes, functions), checked by the linter
    assert len(set(ds.__all__)) == len(ds.__all__)
    assert all(hasattr(ds, name) for name in ds.__all__)
    required = {
        "DatasetSpec",
        "Record",
        "dataset_names",
        "get_spec",
        "load_dataset",
        "dataset_status",
        "span_offsets",
        "load_holistic_descriptors",
    }
    assert required <= set(ds.__all__)


def test_names_are_sorted_and_cover_the_brief():
    names = dataset_names()
    assert names == sorted(names)
    assert set(README_ROWS) <= set(names)
    assert {"detexd_counterfactuals", "paradetox", "tv_synopses"} <= set(names)
    assert "holistic_bias" not in names  # a vocabulary, not a labelled data set


@pytest.mark.parametrize("name", dataset_names())
def test_spec_is_consistent(name):
    spec = get_spec(name)
    assert isinstance(spec, DatasetSpec)
    assert spec.name == name
    assert set(spec.expected_rows) == set(spec.splits)
    expected_default = (
        "test" if "test" in spec.splits else ("all" if "all" in spec.splits else spec.splits[0])
    )
    assert spec.default_split == expected_default
    assert all(not os.path.isabs(f) and not f.startswith("..") for f in spec.files)


def test_unknown_dataset_name():
    with pytest.raises(UnknownNameError) as exc:
        get_spec("toxicchatt")
    assert str(exc.value).startswith(
        "[T011] Unknown data set 'toxicchatt'. Known data sets: conan, davidson, "
    )
    with pytest.raises(UnknownNameError):
        load_dataset("nope", data_dir="/nonexistent")


def test_unknown_split_lists_the_splits():
    with pytest.raises(UnknownNameError) as exc:
        load_dataset("toxicchat", "validation", data_dir="/nonexistent")
    assert (
        str(exc.value)
        == "[T011] Unknown split 'validation'. Known splits: dev, test, train, train_full."
    )


# ----------------------------------------------------------------------------- errors
def test_missing_folder_message(tmp_path):
    folder = tmp_path / "no-such-folder"
    with pytest.raises(MissingDataError) as exc:
        load_dataset("toxicchat", data_dir=folder)
    assert str(exc.value) == (
        f"[T021] Data set 'toxicchat' needs toxicchat/toxicchat0124_train_human.json, but the data "
        f"folder {folder} does not exist. Pass --data-dir or set TACTFUL_DATA."
    )
    assert isinstance(exc.value, DataError) and exc.value.exit_code == 2


def test_missing_file_message(tmp_path):
    (tmp_path / "toxicchat").mkdir()
    (tmp_path / "toxicchat" / "toxicchat0124_train_human.json").write_text('{"instances": []}')
    with pytest.raises(MissingDataError) as exc:
        load_dataset("toxicchat", "test", data_dir=tmp_path)
    assert str(exc.value) == (
        f"[T021] Data set 'toxicchat' needs toxicchat/toxicchat0124_test_human.json, which is not in "
        f"{tmp_path}. Pass --data-dir or set TACTFUL_DATA."
    )


def test_data_dir_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("TACTFUL_DATA", str(tmp_path / "env-folder"))
    with pytest.raises(MissingDataError, match=str(tmp_path / "env-folder")):
        load_dataset("detexd")


def test_truncated_json_is_a_one_line_data_error(tmp_path):
    (tmp_path / "detexd").mkdir()
    (tmp_path / "detexd" / "detexd_benchmark_binary.json").write_text(
        '[\n  {"question": "hi", "answ'
    )
    with pytest.raises(DataError) as exc:
        load_dataset("detexd", data_dir=tmp_path)
    assert not isinstance(exc.value, MissingDataError)
    assert str(exc.value) == (
        "[T020] Data set 'detexd': cannot read detexd/detexd_benchmark_binary.json: invalid JSON at "
        "line 2 column 22 (Unterminated string starting at)"
    )
    assert "\n" not in str(exc.value)


def test_unexpected_label_names_file_and_row(tmp_path):
    (tmp_path / "detexd").mkdir()
    rows = [{"question": "a", "answer": "positive"}, {"question": "b", "answer": "maybe"}]
    (tmp_path / "detexd" / "detexd_benchmark_binary.json").write_text(json.dumps(rows))
    with pytest.raises(DataError) as exc:
        load_dataset("detexd", data_dir=tmp_path)
    assert str(exc.value) == (
        "[T020] Data set 'detexd': cannot read detexd/detexd_benchmark_binary.json, data row 2: "
        "unexpected label 'maybe' (expected one of ['negative', 'positive'])"
    )


def test_missing_column(tmp_path):
    (tmp_path / "davidson").mkdir()
    (tmp_path / "davidson" / "labeled_data.csv").write_text(",count,class\n0,3,1\n")
    with pytest.raises(DataError, match=r"labeled_data.csv: missing column\(s\) 'hate_speech'"):
        load_dataset("davidson", data_dir=tmp_path)


def test_status_reports_absent_sets(tmp_path):
    status = dataset_status(tmp_path)
    assert [s.name for s, _, _ in status] == dataset_names()
    assert all(present is False and counts == {} for _, present, counts in status)


# ----------------------------------------------------------------------------- spans
def test_span_offsets():
    assert span_offsets((Span(0, 3), Span(5, 7))) == frozenset({0, 1, 2, 5, 6})
    assert span_offsets(()) == frozenset()
    assert span_offsets(None) == frozenset()


def test_offsets_to_spans_runs_and_clipping():
    assert offsets_to_spans([0, 1, 2, 5, 6], 7) == ((Span(0, 3), Span(5, 7)), 0)
    # unsorted, duplicated, and two offsets past the end of a 6-character text
    assert offsets_to_spans([6, 5, 1, 0, 1, 7], 6) == ((Span(0, 2), Span(5, 6)), 2)
    assert offsets_to_spans([], 5) == ((), 0)


def _write_semeval(root: Path, train_rows: list[tuple[str, str]]) -> None:
    folder = root / "toxicspans" / "semeval2021"
    folder.mkdir(parents=True)
    header = "spans,text\n"
    body = "".join(f'"{s}","{t}"\n' for s, t in train_rows)
    (folder / "tsd_train.csv").write_text(header + body)
    (folder / "tsd_trial.csv").write_text(header + '"[]","calm"\n')
    (folder / "tsd_test.csv").write_text(header)


def test_semeval_csv_to_spans(tmp_path):
    _write_semeval(
        tmp_path, [("[0, 1, 2, 5, 6]", "abcdefg"), ("[]", "fine"), ("[2, 3, 9, 10]", "xyzw")]
    )
    train = load_dataset("toxicspans", "train", data_dir=tmp_path)
    assert [r.id for r in train] == ["train-0", "train-1", "train-2"]
    assert train[0].text == "abcdefg"
    assert train[0].spans == (Span(0, 3, "toxic"), Span(5, 7, "toxic"))
    assert [train[0].text[s.start : s.end] for s in train[0].spans] == ["abc", "fg"]
    assert (train[0].label, train[1].label, train[2].label) == (1, 0, 1)
    assert train[1].spans == ()
    assert train[2].spans == (Span(2, 4, "toxic"),)
    assert train[2].meta["offsets_out_of_range"] == 2
    dev = load_dataset("toxicspans", "dev", data_dir=tmp_path)
    assert [(r.id, r.split, r.label) for r in dev] == [("dev-0", "dev", 0)]
    assert load_dataset("toxicspans", data_dir=tmp_path) == []


def test_semeval_bad_offsets_cell(tmp_path):
    _write_semeval(tmp_path, [("[0, 1", "abc")])
    with pytest.raises(
        DataError, match=r"tsd_train.csv, data row 1: spans cell '\[0, 1' is not a list"
    ):
        load_dataset("toxicspans", "train", data_dir=tmp_path)


def test_rater_majority_rule_function():
    # 3 raters on "abcdefghij": chars 0-3 marked by two (gold), 6-7 by one (not gold)
    raters = [
        [(0, 4, "insult")],
        [(0, 2, "insult"), (2, 4, "threat"), (6, 8, "profanity")],
        [],
    ]
    # chars 0-1: insult x2 -> insult; chars 2-3: insult x1, threat x1 -> tie -> insult (earlier type)
    assert rater_gold_spans(10, 3, raters) == (Span(0, 4, "insult"),)
    # with 4 raters, 2 votes is not more than half
    assert rater_gold_spans(10, 4, raters) == ()


def test_rater_type_majority_and_runs():
    raters = [
        [(0, 3, "threat"), (3, 6, "insult")],
        [(0, 6, "threat")],
        [(1, 6, "insult")],
    ]
    # 0: threat 2/3 votes -> gold threat; 1-2: threat 2, insult 1 -> threat; 3-5: insult 2, threat 1
    assert rater_gold_spans(8, 3, raters) == (Span(0, 3, "threat"), Span(3, 6, "insult"))
    # overlapping spans of one rater count that rater once
    assert rater_gold_spans(5, 3, [[(0, 3, "insult"), (1, 4, "insult")], [], []]) == ()
    # offsets past the end are clipped
    assert rater_gold_spans(3, 1, [[(1, 9, "other")]]) == (Span(1, 3, "other"),)


def _write_raters(root: Path) -> None:
    folder = root / "toxicspans"
    folder.mkdir()
    (folder / "comments.csv").write_text(
        'comment_id,comment_text\n10,"you stupid fool"\n11,"nice day"\n'
    )
    (folder / "annotations.csv").write_text(
        "annotation,comment_id,worker,country,all toxic,not toxic\n"
        "0,10,1,USA,False,False\n1,10,2,USA,True,False\n2,10,3,VEN,False,False\n"
        "3,11,1,USA,False,True\n4,11,2,USA,False,True\n5,11,4,USA,False,False\n"
    )
    (folder / "spans.csv").write_text(
        "annotation,type,start,end\n"
        "0,Insult,4,10\n"  # "stupid"
        "1,Insult,4,15\n"  # "stupid fool"
        "1,Identity based Attack,11,15\n"
        "2,Profane/Obscene,11,15\n"
        "5,Other Toxicity,0,4\n"  # one of three raters: not gold
    )


def test_raters_folder_to_gold_spans(tmp_path):
    _write_raters(tmp_path)
    recs = load_dataset("toxicspans_raters", "all", data_dir=tmp_path)
    assert [r.id for r in recs] == ["10", "11"]
    first, second = recs
    # "stupid" by 2/3 raters -> gold insult; "fool" by 2/3 raters with insult, identity attack,
    # profanity one vote each -> tie -> insult (RATER_SPAN_TYPES order); " " between by 1/3 -> not gold
    assert first.spans == (Span(4, 10, "insult"), Span(11, 15, "insult"))
    assert first.label == 1
    assert dict(first.meta) == {
        "n_raters": 3,
        "all_toxic_votes": 1,
        "not_toxic_votes": 0,
        "marked_by_any": frozenset(range(4, 15)),
    }
    assert second.spans == () and second.label == 0
    assert second.meta["not_toxic_votes"] == 2
    # one of three raters marked "nice": in the union, not in the gold
    assert second.meta["marked_by_any"] == frozenset(range(4))


# ----------------------------------------------------------------------------- small units
def test_decode_bytes_literal():
    assert decode_bytes_literal("b'caf\\xc3\\xa9 ok'") == "café ok"
    assert decode_bytes_literal('b"it\'s"') == "it's"
    assert decode_bytes_literal("plain text") == "plain text"
    assert decode_bytes_literal("b'\\xff'") == "\ufffd"  # invalid UTF-8 replaced, not an error
    assert decode_bytes_literal("b'unterminated") == "b'unterminated"


def stormfront_file(folder: Path, *rows: str) -> Path:
    """A speech-suppression Stormfront csv with these data rows, in ``folder``."""
    (folder / "speech_suppression").mkdir()
    (folder / "speech_suppression" / "stormfront_with_identities.csv").write_text(
        "Sentence,label,Big_identity,Sub_Identities\n" + "".join(r + "\n" for r in rows)
    )
    return folder


def test_unknown_group_in_a_file_is_a_one_line_data_error(tmp_path):
    stormfront_file(tmp_path, "hello,0,Non-White,black", "there,1,martians;women,x")
    with pytest.raises(DataError) as err:
        load_dataset("ss_stormfront", data_dir=tmp_path)
    assert str(err.value) == (
        "[T020] Data set 'ss_stormfront': cannot read "
        "speech_suppression/stormfront_with_identities.csv, data row 2: "
        "Unknown identity group 'martians'. Known identity groups: "
        + ", ".join(sorted(GROUPS))
        + "."
    )


def test_group_spellings_are_read_through_the_identity_vocabulary(tmp_path):
    stormfront_file(tmp_path, "a,0,lgbt-related;Non-White;;non-white,gay; black;gay", "b,1,,")
    a, b = load_dataset("ss_stormfront", data_dir=tmp_path)
    assert (a.groups, a.sub_identities, a.labels["hate"]) == (
        ("non-white", "lgbt"),
        ("gay", "black"),
        0,
    )
    assert (b.groups, b.sub_identities, b.label) == ((), (), 1)


# ----------------------------------------------------------------------------- real data
@pytest.mark.parametrize("name", sorted(README_ROWS))
def test_readme_row_counts(data_dir, name):
    for split, n in README_ROWS[name].items():
        assert len(load_dataset(name, split, data_dir=data_dir)) == n, split


@pytest.mark.parametrize("name", dataset_names())
def test_every_split_loads_with_spec_counts(data_dir, name):
    spec = get_spec(name)
    for split in spec.splits:
        recs = load_dataset(name, split, data_dir=data_dir)
        assert len(recs) == spec.expected_rows[split], split
        assert all(r.split == split for r in recs)
    ids = [r.id for r in load_dataset(name, spec.splits[0], data_dir=data_dir)]
    assert len(set(ids)) == len(ids)


def test_status_counts_everything(data_dir):
    status = dataset_status(data_dir)
    assert [s.name for s, _, _ in status] == dataset_names()
    for spec, present, counts in status:
        assert present, spec.name
        assert counts == dict(spec.expected_rows), spec.name


def test_toxicchat_records(data_dir):
    test = load_dataset("toxicchat", data_dir=data_dir)
    assert test[0].id == "be1d83b107830f1fe09105a80a4816c1290c4b97c195564f5256b6a45f80dd3a"
    assert test[0].text.startswith("what topics should i start creating on youtube")
    assert (test[0].label, dict(test[0].labels)) == (0, {"toxicity": 0, "jailbreak": 0})
    assert sum(r.label for r in test) == 362
    assert sum(r.labels["jailbreak"] for r in test) == 91
    full = load_dataset("toxicchat", "train_full", data_dir=data_dir)
    assert full[0].id == "e0c9b3e05414814485dbdcb9a29334d502e59803af9c26df03e9d1de5e7afe67"
    assert full[0].text == "Masturbacja jest proces co oitrzebuje"
    assert sum(r.label for r in full) == 384 and sum(r.labels["jailbreak"] for r in full) == 113


def test_toxicchat_dev_carve_is_stratified_and_seeded(data_dir):
    full = load_dataset("toxicchat", "train_full", data_dir=data_dir)
    train = load_dataset("toxicchat", "train", data_dir=data_dir)
    dev = load_dataset("toxicchat", "dev", data_dir=data_dir)
    train_ids, dev_ids = [r.id for r in train], [r.id for r in dev]
    assert not set(train_ids) & set(dev_ids)
    assert sorted(train_ids + dev_ids) == sorted(r.id for r in full)
    # 10% of each class, round half up: 38 of 384 toxic, 242 of 2,417 non-toxic
    assert sum(r.label for r in dev) == 38 and len(dev) == 280
    # source order is kept within a split
    order = {r.id: i for i, r in enumerate(full)}
    assert [order[i] for i in dev_ids] == sorted(order[i] for i in dev_ids)
    # pinned: the seed gives the same carve in every process
    assert dev_ids[0] == "7fca0f1eabfd66ba34976850fd04f9f496d55569ff72ab272e23b3a33770fb5b"
    ds._build.cache_clear()
    assert [r.id for r in load_dataset("toxicchat", "dev", data_dir=data_dir)] == dev_ids


def test_toxicchat_full_agrees_with_human_part(data_dir):
    human = {r.id: r.label for r in load_dataset("toxicchat", "test", data_dir=data_dir)}
    full = load_dataset("toxicchat_full", data_dir=data_dir)
    ann = [r for r in full if r.meta["human_annotation"]]
    assert len(ann) == 2853 and all(human[r.id] == r.label for r in ann)
    assert all(r.label == 0 for r in full if not r.meta["human_annotation"])
    assert sum(r.labels["jailbreak"] for r in full) == 91


def test_detexd_folds_partition_and_stratify(data_dir):
    everything = load_dataset("detexd", "all", data_dir=data_dir)
    assert (everything[0].id, everything[0].label) == ("0", 0)
    assert everything[0].text.startswith('"), as well as other minority interests')
    assert sum(r.label for r in everything) == 336
    seen: list[str] = []
    for k in range(5):
        test = load_dataset("detexd", f"cv{k}-test", data_dir=data_dir)
        train = load_dataset("detexd", f"cv{k}-train", data_dir=data_dir)
        assert sorted({r.id for r in test} | {r.id for r in train}, key=int) == [
            r.id for r in everything
        ]
        assert not {r.id for r in test} & {r.id for r in train}
        assert abs(sum(r.label for r in test) - 336 / 5) <= 1
        seen += [r.id for r in test]
    assert sorted(seen, key=int) == [r.id for r in everything]


def test_detexd_counterfactuals(data_dir):
    pairs = load_dataset("detexd_counterfactuals", data_dir=data_dir)
    assert len(pairs) == 6 and all(r.label is None for r in pairs)
    assert pairs[0].text.endswith(
        "the sooner he is out of power the better off Zimbabweans will be."
    )
    assert (
        pairs[0]
        .meta["counterfactual"]
        .endswith("the sooner she is out of power the better off Zimbabweans will be.")
    )


def test_toxicspans_records(data_dir):
    train = load_dataset("toxicspans", "train", data_dir=data_dir)
    first = train[0]
    assert first.id == "train-0"
    assert first.spans == (Span(8, 40, "toxic"),)
    assert first.text[8:40] == "violent and aggressive immigrant"
    dev = load_dataset("toxicspans", "dev", data_dir=data_dir)
    assert (
        dev[0].text == "Because he's a moron and a bigot. It's not any more complicated than that."
    )
    assert [dev[0].text[s.start : s.end] for s in dev[0].spans] == ["moron", "bigot"]
    assert sum(r.meta["offsets_out_of_range"] for r in train + dev) == 0


def test_toxicspans_raters_splits(data_dir):
    everything = load_dataset("toxicspans_raters", "all", data_dir=data_dir)
    assert everything[0].id == "239607"
    assert everything[0].spans == (Span(134, 140, "insult"),)
    assert everything[0].text[134:140] == "idiots"
    assert sum(r.label for r in everything) == 9661
    tests = []
    for k in range(5):
        parts = [
            {r.id for r in load_dataset("toxicspans_raters", f"s{k}-{p}", data_dir=data_dir)}
            for p in ("train", "dev", "test")
        ]
        assert [len(p) for p in parts] == [12880, 1610, 1610]
        assert set.union(*parts) == {r.id for r in everything}
        assert sum(len(p) for p in parts) == 16100
        tests.append(parts[2])
    assert len({frozenset(t) for t in tests}) == 5  # each seed draws its own split


def test_hate_and_offensive_records(data_dir):
    dav = load_dataset("davidson", data_dir=data_dir)
    assert (dav[0].id, dav[0].label, dict(dav[0].labels)) == ("0", 0, {"hate": 0, "offensive": 0})
    assert dav[1].label == 1 and dav[1].labels["offensive"] == 1
    assert sum(r.label for r in dav) == 1430 + 19190
    olid = load_dataset("olid", data_dir=data_dir)
    assert (olid[0].id, olid[0].label, dict(olid[0].labels)) == (
        "86426",
        1,
        {"offensive": 1, "targeted": 0},
    )
    assert olid[0].text == "@USER She should ask a few native Americans what their take on this is."
    assert olid[1].meta["target"] == "IND"
    hate = load_dataset("tweeteval_hate", "train", data_dir=data_dir)
    # text is kept exactly, including the trailing space of the file's lines
    assert hate[0].text.endswith("crongregating on you… ")
    assert [r.label for r in hate[:3]] == [0, 1, 1]


def test_toxigen_records(data_dir):
    recs = load_dataset("toxigen", data_dir=data_dir)
    assert recs[0].text == "asians are trying to take over the world with their karate skills"
    assert (recs[0].label, recs[0].groups, recs[0].sub_identities) == (
        1,
        ("non-white",),
        ("asian",),
    )
    assert recs[0].meta["toxicity_human"] == 5.0
    assert sum(r.label for r in recs) == 2307
    assert not any(r.text.startswith(("b'", 'b"')) for r in recs)


def test_jigsaw_and_jailbreak_records(data_dir):
    dev = load_dataset("jigsaw_sentences", "dev", data_dir=data_dir)
    assert (dev[0].id, dev[0].text, dev[0].label) == (
        "dev-toxic-0",
        "thank you to thecanadians that vote for these clowns .",
        1,
    )
    assert sum(r.label for r in dev) == 6648
    fuzz = load_dataset("gptfuzzer", data_dir=data_dir)
    assert all(r.label == 1 for r in fuzz) and fuzz[0].id == "0"
    deepset = load_dataset("deepset_injections", data_dir=data_dir)
    assert (deepset[0].text, deepset[0].label) == ("Refugee crisis in Europe solutions", 0)


def test_openai_and_speech_suppression_records(data_dir):
    oa = load_dataset("openai_moderation", data_dir=data_dir)
    assert oa[0].labels["SH"] == 1 and oa[0].label == 1
    assert sum(r.label for r in oa) == 522
    assert sum(r.labels["H"] is None for r in oa) == 909
    ss = load_dataset("ss_openai", data_dir=data_dir)
    assert sum(r.label for r in ss) == 522
    assert (ss[0].groups, ss[0].sub_identities) == (("white", "non-white"), ("white", "asian"))
    jb = load_dataset("ss_jigsaw_bias", data_dir=data_dir)
    assert (jb[0].text, jb[0].label, jb[0].groups, jb[0].sub_identities) == (
        "hug lesbian",
        0,
        ("lgbt",),
        ("lesbian",),
    )
    groups = {
        g
        for name in ("ss_jigsaw_bias", "ss_stormfront", "ss_openai")
        for r in load_dataset(name, data_dir=data_dir)
        for g in r.groups
    }
    assert groups == set(GROUPS)


def test_paradetox_pairs(data_dir):
    recs = load_dataset("paradetox", data_dir=data_dir)
    assert sum(r.label for r in recs) == 11927
    assert (recs[0].id, recs[0].text, recs[0].label) == ("0-toxic", "he had steel balls too !", 1)
    assert (recs[1].id, recs[1].text, recs[1].label, recs[1].meta["pair"]) == (
        "0-neutral1",
        "he was brave too!",
        0,
        0,
    )


def test_holistic_descriptors(data_dir):
    axes = load_holistic_descriptors(data_dir)
    assert len(axes) == 13 and sum(map(len, axes.values())) == 583
    assert axes["ability"][:3] == ["Deaf", "hard-of-hearing", "hearing-impaired"]
    buckets = load_holistic_buckets(data_dir)
    assert list(buckets) == list(axes)
    assert buckets["ability"]["auditory"][:3] == ["Deaf", "hard-of-hearing", "hearing-impaired"]
    for axis, by_bucket in buckets.items():  # the flat list is the buckets', deduplicated
        assert list(dict.fromkeys(d for ds_ in by_bucket.values() for d in ds_)) == axes[axis]
    nouns = load_holistic_nouns(data_dir)
    assert nouns["female"][:2] == [("woman", "women"), ("lady", "ladies")]
    assert set(nouns) == {"female", "male", "neutral"}


def test_holistic_files_errors(tmp_path):
    (tmp_path / "holistic_bias").mkdir()
    with pytest.raises(MissingDataError, match="needs holistic_bias/nouns.json"):
        load_holistic_nouns(tmp_path)
    (tmp_path / "holistic_bias" / "nouns.json").write_text('{"female": [["woman"]]}')
    with pytest.raises(DataError, match=r"bucket 'female' is not a list of \[singular, plural\]"):
        load_holistic_nouns(tmp_path)
    (tmp_path / "holistic_bias" / "descriptors.json").write_text('{"ability": ["Deaf"]}')
    assert load_holistic_descriptors(tmp_path) == {"ability": ["Deaf"]}
    with pytest.raises(DataError, match="axis 'ability' is not an object of buckets"):
        load_holistic_buckets(tmp_path)


def test_tv_synopses(data_dir):
    recs = load_dataset("tv_synopses", data_dir=data_dir)
    first = recs[0]
    assert first.id == "tt0673989"
    assert first.text.startswith("The struggling Shady Rest Hotel is further jeopardized")
    assert dict(first.meta) == {
        "show": "Petticoat Junction",
        "rating": "TV-PG",
        "file": "episodes_df1.csv",
    }
    assert (first.label, dict(first.labels)) == (0, {"pg_ok": 1, "pg13_ok": 1})
    assert sum(r.label for r in recs) == 2036
    assert sum(r.meta["show"] is not None for r in recs) == 13376
    assert all(r.label == 1 - r.labels["pg13_ok"] for r in recs)
    assert all(
        r.meta["rating"] not in ("", "Not Rated", "Unrated", "Approved") and r.text.strip()
        for r in recs
    )
    tv14 = [r for r in recs if r.meta["rating"] == "TV-14"]
    assert tv14 and all(dict(r.labels) == {"pg_ok": 0, "pg13_ok": 1} and r.label == 0 for r in tv14)
    lgbt = [r for r in recs if "lgbt" in r.groups]
    assert len(lgbt) == 1119 and all("lgbt" in r.sub_identities for r in lgbt)
