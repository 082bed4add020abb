"""The functional test suite: generation, the ``functional`` data set and scoring."""

from __future__ import annotations

import json
import math
from collections import Counter

import pandas as pd
import pytest

import tactful.functional as fn
from tactful import Analysis, Span
from tactful.datasets import dataset_names, get_spec, load_dataset
from tactful.errors import PARAM_MESSAGE, ConfigError, DataError, MissingDataError
from tactful.functional import (
    FUNCTIONALITIES,
    SUITE_TEMPLATES,
    Case,
    Functionality,
    Template,
    build_suite,
    case_records,
    fill,
    functional_rows,
    generate,
    normalized_text,
    score_functional,
)
from tactful.functional._dataset import SUITE_ROWS
from tactful.functional._fillers import FAMILIES, IDENTITIES, SLURS, indefinite
from tactful.functional._score import SCORE_COLUMNS
from tactful.identity import GROUPS, tag
from tactful.taxonomy import HARM_CATEGORIES

SUITE = build_suite()
BY_TEXT = {c.text: c for c in SUITE}


# ------------------------------------------------------------------ public surface
def test_all_is_sorted_and_importable():
    assert fn.__all__ == sorted(fn.__all__)
    for name in fn.__all__:
        assert hasattr(fn, name), name


# ------------------------------------------------------------------ the suite
def test_suite_is_deterministic_and_sized():
    again = build_suite()
    assert [(c.id, c.text) for c in again] == [(c.id, c.text) for c in SUITE]
    assert len(SUITE) == SUITE_ROWS == 3710
    assert len({c.id for c in SUITE}) == len(SUITE)
    assert len({normalized_text(c.text) for c in SUITE}) == len(SUITE)


def test_other_seed_draws_other_cases_of_capped_templates():
    other = {c.text for c in build_suite(seed=1)}
    assert other != {c.text for c in SUITE}
    assert len(other) == len(SUITE)


def test_every_functionality_has_cases_and_matches_its_expectations():
    counts = Counter(c.functionality for c in SUITE)
    assert set(counts) == {f.name for f in FUNCTIONALITIES}
    assert min(counts.values()) >= 30
    spec = {f.name: f for f in FUNCTIONALITIES}
    for c in SUITE:
        f = spec[c.functionality]
        assert (c.toxic, c.span_check, c.jailbreak, c.delicate) == (
            f.toxic,
            f.span_check,
            f.jailbreak,
            f.delicate,
        )


def test_the_issue_list_is_covered():
    names = {f.name for f in FUNCTIONALITIES}
    assert {
        "threat_direct",
        "threat_indirect",
        "derogation",  # beyond the issue's list: hate in plain words
        "dehumanisation",
        "insult_no_profanity",
        "slur",
        "profanity_non_hateful",
        "identity_self_description",
        "identity_positive",
        "identity_neutral",
        "identity_question",
        "identity_holistic",
        "negated_hate",
        "counter_speech",
        "delicate_grief",
        "delicate_illness",
        "violent_harm_request",
        "jailbreak",
        "jailbreak_lookalike",
        # issue 41: plain language, self-harm, and one harmful request per harm category
        "technical_violent_words",
        "figurative_language",
        "fiction_history_request",
        "safety_reporting_question",
        "definition_question",
        "threat_conditional",
        "self_harm_disclosure",
        "request_harassment",
        "request_threat",
        "request_hate",
        "request_hate_violence",
        "request_illicit",
        "request_weapons",
        "request_self_harm",
        "request_self_harm_method",
        "request_sexual",
        "request_sexual_minors",
        "request_gore",
        # tactful's own two categories, and harmless texts in their words
        "request_intellectual_property",
        "request_misinformation",
        "copyright_question",
        "fact_check_request",
    } == names
    # every harm category is some functionality's expected category; self-harm is never a threat
    assert {f.category for f in FUNCTIONALITIES} - {None} | {"self-harm/intent"} == set(
        HARM_CATEGORIES
    )
    for f in FUNCTIONALITIES:
        if f.category is not None and f.category.startswith("self-harm"):
            assert "threat" in f.not_categories, f.name
    # the issue's own examples of what model 1.2.0 gets wrong
    assert BY_TEXT["I am a gay man."].functionality == "identity_self_description"
    assert BY_TEXT["I will kill you."].toxic
    profanity = next(f for f in FUNCTIONALITIES if f.name == "profanity_non_hateful")
    assert profanity.toxic is False and "NOT toxic" in profanity.description


@pytest.mark.parametrize(
    "name", ["identity_self_description", "identity_positive", "identity_neutral"]
)
def test_identity_functionalities_cover_the_nine_groups(name):
    groups = {c.group for c in SUITE if c.functionality == name}
    assert groups == set(GROUPS)


#: Filler texts the identity lexicon does not tag yet (reported to its owner).
LEXICON_GAPS = {"straight people", "a straight woman"}


def test_identity_fillers_are_tagged_with_their_group():
    for entry in IDENTITIES:
        texts = [entry["identities"], entry["person"]]
        if "identity" in entry:
            texts.append(f"{entry['identity']} people")  # "white" alone is a colour
        for text in texts:
            if text not in LEXICON_GAPS:
                assert entry["_group"] in tag(text).groups, (text, entry)


def test_slur_fillers_agree_with_the_identity_lexicon_where_it_knows_them():
    unknown = []
    for entry in SLURS:
        t = tag(entry["slur"])
        if not t.groups:
            unknown.append(entry["slur"])  # a lexicon gap, reported to its owner
            continue
        assert t.has_slur and entry["_group"] in t.groups, entry
    assert len(unknown) < len(SLURS) / 2


def test_targets_cover_the_marked_words():
    for c in SUITE:
        if c.span_check == "hit":
            assert c.targets, c.id
        for s in c.targets:
            assert 0 <= s.start < s.end <= len(c.text)
    c = BY_TEXT["I will kill you."]
    assert [(c.text[s.start : s.end], s.label) for s in c.targets] == [("kill you", "threat")]
    c = next(c for c in SUITE if c.template_id == "ins04")
    words = [c.fillers["insult_adj"], c.fillers["insult"]]
    assert [c.text[s.start : s.end] for s in c.targets] == words


def test_sentence_start_is_capitalized():
    assert "Women are wonderful." in BY_TEXT
    assert "White people are wonderful." in BY_TEXT
    starts = [c for c in SUITE if c.template_id in ("deh01", "idp01", "idh03")]
    assert starts and all(c.text[0].isupper() for c in starts)


def test_builtin_descriptors_feed_the_holistic_cases():
    texts = [c for c in SUITE if c.functionality == "identity_holistic"]
    assert any("an autistic" in c.text or "a gay" in c.text for c in texts)
    narrow = build_suite({"religion": ["Sikh"]}, max_per_template=None)
    holistic = [c for c in narrow if c.functionality == "identity_holistic"]
    assert holistic and all("Sikh" in c.text for c in holistic)
    assert not [c for c in build_suite({}) if c.functionality == "identity_holistic"]


def test_excluded_descriptors_never_appear():
    cases = build_suite({"ability": ["retarded", "blind"]}, max_per_template=None)
    holistic = [c.text for c in cases if c.functionality == "identity_holistic"]
    assert holistic and not any("retarded" in t for t in holistic)


def test_gendered_descriptors_get_fitting_nouns():
    cases = build_suite({"race_ethnicity": ["Latina"]}, max_per_template=None)
    nouns = {c.fillers["noun"] for c in cases if c.functionality == "identity_holistic"}
    assert "woman" in nouns and "man" not in nouns and "person" in nouns


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("autistic man", "an autistic man"),
        ("US-born kid", "a US-born kid"),
        ("LGBTQ+ person", "an LGBTQ+ person"),
        ("BIPOC woman", "a BIPOC woman"),
        ("80-year-old", "an 80-year-old"),
        ("20-year-old", "a 20-year-old"),
        ("one-percenter", "a one-percenter"),
        ("European", "a European"),
        ("honest man", "an honest man"),
    ],
)
def test_indefinite_article(phrase, expected):
    assert indefinite(phrase) == expected


# ------------------------------------------------------------------ templates
def test_template_ids_are_unique():
    ids = [t.id for t in SUITE_TEMPLATES]
    assert len(ids) == len(set(ids))


def test_fill_reports_slot_and_target_offsets():
    t = Template("x1", "slur", "Get that ⟦{slur}⟧ out, {name}.", span_label="identity_attack")
    f = fill(t, {"slur": "honky", "name": "Tom"})
    assert f.text == "Get that honky out, Tom."
    assert f.targets == (Span(9, 14, "identity_attack"),)
    assert dict(f.slots) == {"slur": (9, 14), "name": (20, 23)}
    assert f.text[slice(*f.slots["name"])] == "Tom"


@pytest.mark.parametrize("text", ["⟦{slur}", "{slur}⟧", "⟦⟦{slur}⟧⟧"])
def test_unbalanced_marks_are_refused(text):
    with pytest.raises(ConfigError, match="unbalanced or nested"):
        Template("x2", "slur", text, span_label="insult")


def test_marks_need_a_span_label():
    with pytest.raises(ConfigError, match="has no span_label"):
        Template("x3", "slur", "⟦{slur}⟧")


def test_template_parameters_are_checked():
    with pytest.raises(ConfigError) as exc:
        Template("x4", "slur", "{slur}", split="test")
    rule = "one of 'suite', 'train', 'dev'"
    assert str(exc.value) == "[T010] " + PARAM_MESSAGE.format(
        name="split", owner="Template", rule=rule, value="test"
    )


def test_generate_checks_parameters_and_names():
    with pytest.raises(ConfigError) as exc:
        generate(SUITE_TEMPLATES[:1], FAMILIES, max_per_template=0)
    assert PARAM_MESSAGE.format(
        name="max_per_template", owner="generate", rule="an int >= 1 or None", value=0
    ) in str(exc.value)
    bad = Template("x5", "slur", "Hello {nobody}.")
    with pytest.raises(ConfigError, match=r"unknown slot \{nobody\}"):
        generate([bad], FAMILIES)
    with pytest.raises(ConfigError, match="Unknown functionality 'nope'"):
        generate([Template("x6", "nope", "Hello.")], FAMILIES)


# ------------------------------------------------------------------ records and the data set
def test_case_records_carry_labels_spans_and_meta():
    recs = {r.text: r for r in case_records(SUITE)}
    r = recs["I am a gay man."]
    assert (r.label, r.spans, r.split, dict(r.labels)) == (0, (), "test", {"toxicity": 0})
    assert r.groups == ("lgbt", "men")
    assert r.meta["functionality"] == "identity_self_description"
    r = recs["I will kill you."]
    assert r.spans is None and r.meta["targets"] == [[7, 15, "threat"]]
    jail = [r for r in recs.values() if r.meta["functionality"] == "jailbreak"]
    assert all(r.labels["jailbreak"] == 1 and r.label == 1 for r in jail)
    grief = [r for r in recs.values() if r.meta["functionality"] == "delicate_grief"]
    assert all(r.labels["delicate"] == 1 and r.label == 0 for r in grief)
    json.dumps([dict(r.meta) for r in recs.values()])  # JSON-ready


def test_functional_is_a_registered_data_set():
    assert "functional" in dataset_names()
    spec = get_spec("functional")
    assert (spec.task, spec.splits, spec.default_split) == ("toxicity", ("test",), "test")
    assert spec.expected_rows == {"test": SUITE_ROWS}


def test_the_data_set_needs_the_descriptor_file(tmp_path):
    with pytest.raises(MissingDataError, match="holistic_bias/descriptors.json"):
        load_dataset("functional", data_dir=tmp_path)


def test_the_data_set_loads_from_the_data_folder(data_dir):
    recs = load_dataset("functional", data_dir=data_dir)
    assert len(recs) == SUITE_ROWS
    assert len({r.id for r in recs}) == len(recs)
    holistic = [r for r in recs if r.meta["functionality"] == "identity_holistic"]
    assert holistic and all(r.meta["descriptors"] == "holistic_bias" for r in recs)
    # the non-holistic cases do not depend on the descriptors
    same = [r.text for r in recs if r.meta["functionality"] != "identity_holistic"]
    assert same == [c.text for c in SUITE if c.functionality != "identity_holistic"]


# ------------------------------------------------------------------ scoring
def _rec(text, functionality, label, *, span_check="none", targets=(), **labels):
    case = Case(
        id=f"{functionality}-{len(text)}",
        functionality=functionality,
        template_id="t",
        text=text,
        toxic=bool(label),
        span_check=span_check,
        targets=tuple(targets),
        jailbreak=labels.get("jailbreak"),
        delicate=labels.get("delicate"),
    )
    return case_records([case])[0]


def test_score_functional_pass_rates_and_span_checks():
    recs = [
        _rec(
            "I will kill you.",
            "threat_direct",
            1,
            span_check="hit",
            targets=[Span(7, 15, "threat")],
        ),
        _rec(
            "I will hurt you.",
            "threat_direct",
            1,
            span_check="hit",
            targets=[Span(7, 15, "threat")],
        ),
        _rec("I am a gay man.", "identity_self_description", 0, span_check="empty"),
        _rec("I am a deaf man.", "identity_self_description", 0, span_check="empty"),
        _rec("I am a Sikh.", "identity_self_description", 0, span_check="empty"),
    ]
    analyses = [
        Analysis(flagged=True, spans=(Span(7, 10, "threat"),)),  # pass; span overlaps
        Analysis(flagged=False, spans=(Span(0, 6, "other"),)),  # fail; span misses
        Analysis(flagged=False, spans=(Span(7, 14, "insult"),)),  # pass; but a span
        Analysis(flagged=True),  # fail; no span
        Analysis(flagged=False),  # pass; no span
    ]
    frame = score_functional(recs, analyses)
    assert list(frame.columns) == list(fn.SCORE_COLUMNS)
    assert frame["functionality"].tolist() == ["threat_direct", "identity_self_description"]
    assert frame["n"].tolist() == [2, 3]
    assert frame["expected"].tolist() == ["toxic", "not toxic"]
    assert frame["pass_rate"].tolist() == [0.5, pytest.approx(2 / 3)]
    assert frame["span_check"].tolist() == ["hit", "empty"]
    assert frame["span_pass_rate"].tolist() == [0.5, pytest.approx(2 / 3)]
    assert frame["jailbreak_pass_rate"].isna().all()
    assert str(frame["pass_rate"].dtype) == "Float64" and str(frame["n"].dtype) == "Int64"


def test_score_functional_heads_and_no_opinion():
    recs = [
        _rec("jb one", "jailbreak", 1, jailbreak=True),
        _rec("jb two", "jailbreak", 1, jailbreak=True),
        _rec("sad", "delicate_grief", 0, delicate=True),
    ]
    with_heads = [
        Analysis(flagged=True, flags={"jailbreak": True}),
        Analysis(flagged=True, flags={"jailbreak": False}),
        Analysis(flagged=False, flags={"delicate": True}),
    ]
    frame = score_functional(recs, with_heads).set_index("functionality")
    assert frame.loc["jailbreak", "jailbreak_pass_rate"] == 0.5
    assert frame.loc["delicate_grief", "delicate_pass_rate"] == 1.0
    assert pd.isna(frame.loc["jailbreak", "delicate_pass_rate"])
    assert pd.isna(frame.loc["jailbreak", "span_pass_rate"])
    # a moderator without those heads has no opinion: <NA>, not 0
    frame = score_functional(recs, [Analysis(flagged=True)] * 3)
    assert frame["jailbreak_pass_rate"].isna().all() and frame["delicate_pass_rate"].isna().all()
    rows = {r["functionality"]: r for r in functional_rows(frame)}
    assert rows["jailbreak"]["jailbreak_pass_rate"] is None and rows["jailbreak"]["n"] == 2
    json.dumps(list(rows.values()))


def test_score_functional_checks_categories_over_the_heads_a_moderator_has():
    (case,) = [c for c in SUITE if c.id == "shd01-000"]
    assert case.category == "self-harm/intent"
    (rec,) = case_records([case])
    assert rec.labels == {
        "toxicity": 1,
        "self-harm/intent": 1,
        "threat": 0,
        "harassment/threatening": 0,
    }
    right = Analysis(flagged=True, flags={"self-harm/intent": True, "threat": False})
    as_threat = Analysis(flagged=True, flags={"self-harm/intent": True, "threat": True})
    old_model = Analysis(flagged=True, flags={"threat": True})  # no category heads: threat only
    no_heads = Analysis(flagged=True)
    frame = score_functional([rec] * 4, [right, as_threat, old_model, no_heads])
    assert frame.loc[0, "category_pass_rate"] == pytest.approx(1 / 3)
    assert frame.loc[0, "pass_rate"] == 1.0
    frame = score_functional([rec], [no_heads])
    assert pd.isna(frame.loc[0, "category_pass_rate"])


def test_functionality_refuses_unknown_categories():
    with pytest.raises(ConfigError, match="'category'"):
        Functionality("x", "d", True, category="self harm")
    with pytest.raises(ConfigError, match="'not_categories' parameter of Functionality"):
        Functionality("x", "d", True, not_categories=("menace",))


def test_score_functional_orders_rows_and_refuses_bad_input():
    recs = [_rec("x", "jailbreak", 1), _rec("y", "custom_thing", 0), _rec("z", "slur", 1)]
    frame = score_functional(recs, [Analysis(flagged=True)] * 3)
    assert frame["functionality"].tolist() == ["slur", "jailbreak", "custom_thing"]
    with pytest.raises(ConfigError, match="same length. Got 3 and 2"):
        score_functional(recs, [Analysis(flagged=True)] * 2)
    from tactful.datasets import Record

    with pytest.raises(DataError, match="'r1' is not a suite case"):
        score_functional([Record("r1", "t", 1, "test")], [Analysis(flagged=True)])
    assert score_functional([], []).empty


def test_a_perfect_moderator_passes_everything():
    recs = case_records(SUITE)
    perfect = []
    for r in recs:
        flags = {k: bool(v) for k, v in r.labels.items() if k != "toxicity"}
        spans = tuple(Span(t[0], t[1], t[2]) for t in r.meta["targets"])
        perfect.append(Analysis(flagged=bool(r.label), spans=spans, flags=flags))
    frame = score_functional(recs, perfect)
    for col in (c for c in SCORE_COLUMNS if c.endswith("_rate")):
        values = [v for v in frame[col].tolist() if not pd.isna(v)]
        assert values and all(math.isclose(v, 1.0) for v in values), col


def test_eval_scores_the_suite_with_the_lexicon(data_dir):
    from tactful.evaluate import evaluate

    out = evaluate("functional", moderator="lexicon", data_dir=data_dir)
    assert out["n"] == SUITE_ROWS and out["task"] == "toxicity"
    assert {"precision", "recall", "f1", "span_f1", "jailbreak_recall"} <= set(out)
    assert out["jailbreak_recall"] == 0.0  # the lexicon knows no jailbreak


def test_module_face_prints_json(data_dir, tmp_path):
    from typer.testing import CliRunner

    from tactful.functional.__main__ import app

    result = CliRunner().invoke(
        app,
        ["-m", "lexicon", "--data-dir", str(data_dir), "--store", str(tmp_path / "s.db"), "--json"],
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["moderator"] == "lexicon" and out["n"] == SUITE_ROWS
    rows = {r["functionality"]: r for r in out["functionalities"]}
    assert set(rows) == {f.name for f in FUNCTIONALITIES}
    assert rows["delicate_grief"]["pass_rate"] == 1.0


def test_module_face_one_line_error(tmp_path):
    from typer.testing import CliRunner

    from tactful.functional.__main__ import app

    result = CliRunner().invoke(app, ["-m", "lexicon", "--data-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: [T021] Data set 'functional' needs holistic_bias/")
    assert result.stderr.count("\n") == 1


def test_functional_table_renders_rates_in_percent():
    from rich.console import Console

    from tactful.functional import functional_table

    rows = [
        {
            "functionality": "slur",
            "n": 3,
            "expected": "toxic",
            "pass_rate": 2 / 3,
            "span_check": "hit",
            "span_pass_rate": None,
            "jailbreak_pass_rate": None,
            "delicate_pass_rate": 1.0,
            "category_pass_rate": None,
        }
    ]
    console = Console(width=120, record=True)
    console.print(functional_table(rows))
    out = console.export_text()
    assert "slur" in out and "66.7" in out and "100.0" in out and "—" in out


def test_functional_table_fits_an_80_column_terminal():
    # Every header and every functionality name in full, nothing cut to "…", no line wider than 80.
    from rich.console import Console

    from tactful.functional import functional_table

    rows = [
        {
            "functionality": f.name,
            "n": 216,
            "expected": "not toxic",
            "pass_rate": 1.0,
            "span_check": "empty",
            "span_pass_rate": 1.0,
            "jailbreak_pass_rate": 1.0,
            "delicate_pass_rate": 1.0,
            "category_pass_rate": 1.0,
        }
        for f in FUNCTIONALITIES
    ]
    console = Console(width=80, record=True)
    console.print(functional_table(rows))
    lines = console.export_text().splitlines()
    assert "…" not in "\n".join(lines)
    assert max(len(line.rstrip()) for line in lines) <= 80
    header = next(line for line in lines if line.split()[:1] == ["functionality"])
    assert header.split() == [
        "functionality",
        "n",
        "expected",
        "pass",
        "span",
        "jailbreak",
        "delicate",
        "harm",
    ]
    assert all(any(line.split()[:1] == [f.name] for line in lines) for f in FUNCTIONALITIES)


def test_tactful_eval_functional_prints_the_percent_table(data_dir, tmp_path):
    from typer.testing import CliRunner

    from tactful.cli import app

    args = ["eval", "functional", "-m", "lexicon", "--data-dir", str(data_dir)]
    result = CliRunner().invoke(app, [*args, "--store", str(tmp_path / "s.db")])
    assert result.exit_code == 0, result.output
    assert "pass rate per functionality (%)" in result.stdout
    grief = next(line.split() for line in result.stdout.splitlines() if "delicate_grief" in line)
    assert grief[:5] == ["delicate_grief", "130", "not", "toxic", "100.0"]


def test_eval_hook_adds_the_pass_rate_table(data_dir):
    from tactful.evaluate import evaluate

    out = evaluate("functional", moderator="lexicon", data_dir=data_dir)
    assert [r["functionality"] for r in out["functionalities"]] == [f.name for f in FUNCTIONALITIES]
    json.dumps(out)
