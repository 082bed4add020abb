"""The audit runner: wiring of data sets, groups, moderators, store and report.

Most tests feed hand-made records through a patched ``load_dataset`` so that every
figure can be checked by hand; one test runs the real data sets (skipped without
them) and one drives ``tactful audit`` through the CLI.
"""

from __future__ import annotations

import csv
import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import tactful.datasets
from tactful import Analysis
from tactful.audit import build_audit_sets, run_audit
from tactful.audit._sets import audit_views, resolve_datasets
from tactful.datasets import Record
from tactful.errors import (
    PARAM_MESSAGE,
    ConfigError,
    DataError,
    MissingDataError,
    UnknownNameError,
)
from tactful.store import ResultStore


def _a_slur() -> str:
    """A slur term from the tagger's own lexicon (kept out of this file's text)."""
    path = resources.files("tactful").joinpath("data", "identity", "terms.csv")
    with path.open(encoding="utf-8") as f:
        return next(
            r["term"] for r in csv.DictReader(f) if r["kind"] == "slur" and " " not in r["term"]
        )


def _records() -> dict[str, list[Record]]:
    rec = Record
    return {
        # Paper tags: the data's groups are used as they are, whatever the text says.
        "ss_stormfront": [
            rec("0", "FLAG about women", 0, "all", groups=("women",)),
            rec("1", "calm words about women", 0, "all", groups=("women",)),
            rec("2", "FLAG about men", 1, "all", groups=("men",)),
            rec("3", "calm text about muslims", 0, "all"),
            rec("4", "a calm text", 0, "all"),
            rec("5", "FLAG text", 0, "all"),
        ],
        # No tags in the data: the tagger gives the groups.
        "ss_tweeteval_hate": [
            rec("0", "FLAG about women", 0, "all"),
            rec("1", "my gay neighbour", 0, "all"),
            rec("2", f"a {_a_slur()} FLAG", 1, "all"),
            rec("3", "a calm text", 0, "all"),
        ],
        "ss_openai": [
            rec(
                "0",
                "FLAG openai one about women",
                1,
                "all",
                labels={"S": 1, "H": 0},
                groups=("women",),
            ),
            rec(
                "1",
                "openai two about women",
                0,
                "all",
                labels={"S": 0, "H": None},
                groups=("women",),
            ),
            rec("2", "FLAG openai three", 0, "all", labels={"S": 0, "H": 0}),
        ],
        "tv_synopses": [
            rec(
                "0",
                "FLAG episode one",
                0,
                "all",
                labels={"pg_ok": 1, "pg13_ok": 1},
                groups=("lgbt",),
            ),
            rec("1", "episode two", 1, "all", labels={"pg_ok": 0, "pg13_ok": 0}),
            rec(
                "2", "episode three", 0, "all", labels={"pg_ok": 0, "pg13_ok": 1}, groups=("lgbt",)
            ),
        ],
    }


@pytest.fixture
def fake_data(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Record]]:
    data = _records()

    def load_dataset(name: str, split: str | None = None, data_dir: Any = None) -> list[Record]:
        if name not in data:
            raise MissingDataError(f"Data set {name!r} needs fake.csv in /nowhere (not found).")
        return list(data[name])

    monkeypatch.setattr(tactful.datasets, "load_dataset", load_dataset)
    return data


class FlagWord:
    """Flags texts containing FLAG; scores 0.9 for those, else 0.1 + 0.01 per word."""

    name = "flagword"
    version = "1"

    def __init__(self, fail_after_calls: int | None = None) -> None:
        self.fail_after_calls = fail_after_calls
        self.calls = 0
        self.seen: list[str] = []

    def config(self) -> dict[str, Any]:
        return {}

    def analyze(self, texts):
        if self.fail_after_calls is not None and self.calls >= self.fail_after_calls:
            raise RuntimeError("moderator crashed")
        self.calls += 1
        self.seen.extend(texts)
        return [
            Analysis(
                flagged="FLAG" in t,
                scores={"toxicity": 0.9 if "FLAG" in t else 0.1 + 0.01 * len(t.split())},
            )
            for t in texts
        ]


class NoScores(FlagWord):
    name = "noscores"

    def analyze(self, texts):
        return [Analysis(flagged=a.flagged) for a in super().analyze(texts)]


def _result(report: dict[str, Any], moderator: str, set_id: str) -> dict[str, Any]:
    [row] = [r for r in report["results"] if r["moderator"] == moderator and r["set"] == set_id]
    return row


def _group(block: dict[str, Any], group: str) -> dict[str, Any]:
    [row] = [g for g in block["groups"] if g["group"] == group]
    return row


# --------------------------------------------------------------------------- data views


def test_audit_sets_labels_groups_and_sources(fake_data, tmp_path: Path):
    with ResultStore(tmp_path / "s.sqlite") as store:
        sets, skipped, agreement = build_audit_sets("traditional,genai", store=store)
    by_id = {s.id: s for s in sets}
    # The fake ss_openai has labels for S and H only: the other categories have no rows.
    assert list(by_id) == [
        "ss_stormfront",
        "ss_tweeteval_hate",
        "ss_openai",
        "ss_openai/S",
        "ss_openai/H",
        "tv_synopses/pg_ok",
        "tv_synopses/pg13_ok",
    ]
    assert [s["dataset"] for s in skipped] == [
        "ss_jigsaw_bias",
        "ss_tweeteval_offensive",
        "ss_openai/V",
        "ss_openai/HR",
        "ss_openai/SH",
        "ss_openai/S3",
        "ss_openai/H2",
        "ss_openai/V2",
    ]
    assert "fake.csv" in skipped[0]["reason"]
    assert skipped[2]["reason"] == "no row has a known label (category V)"

    storm = by_id["ss_stormfront"]
    assert storm.group_source == "paper tags"
    assert storm.groups[3] == frozenset()  # "muslims" in the text, but the data's tags rule
    assert storm.y_true.tolist() == [0, 0, 1, 0, 0, 0]

    hate = by_id["ss_tweeteval_hate"]
    assert hate.group_source == "tagger"
    assert [sorted(g) for g in hate.groups][:2] == [["women"], ["lgbt"]]
    assert hate.has_slur.tolist() == [False, False, True, False]

    # OpenAI: overall = Toxic; a category = that category, unknown rows left out.
    assert by_id["ss_openai"].y_true.tolist() == [1, 0, 0]
    assert by_id["ss_openai/S"].y_true.tolist() == [1, 0, 0]
    assert by_id["ss_openai/H"].texts == ("FLAG openai one about women", "FLAG openai three")
    assert [s.primary for s in sets if s.dataset == "ss_openai"] == [True, False, False]

    # TV: violating = not ok.
    assert by_id["tv_synopses/pg_ok"].y_true.tolist() == [0, 1, 1]
    assert by_id["tv_synopses/pg13_ok"].y_true.tolist() == [0, 1, 0]
    assert by_id["tv_synopses/pg13_ok"].primary and not by_id["tv_synopses/pg_ok"].primary
    assert by_id["tv_synopses/pg_ok"].group_source == "show tags"

    # Tagger vs paper tags on ss_openai: 'women' found in both texts the paper tags.
    women = next(r for r in agreement["ss_openai"] if r["group"] == "women")
    assert (women["tp"], women["fp"], women["fn"], women["accuracy"]) == (2, 0, 0, 1.0)
    assert sorted(agreement) == ["ss_openai", "ss_stormfront"]


def test_unknown_data_set_name_lists_the_known_ones():
    with pytest.raises(UnknownNameError) as info:
        resolve_datasets("traditional,bogus")
    assert str(info.value) == (
        "[T011] Unknown audit data set 'bogus'. Known audit data sets: genai, ss_jigsaw_bias, "
        "ss_openai, ss_stormfront, ss_tweeteval_hate, ss_tweeteval_offensive, traditional, tv_synopses."
    )
    assert resolve_datasets(["tv_synopses", "ss_stormfront"]) == [
        ("traditional", "ss_stormfront"),
        ("genai", "tv_synopses"),
    ]


def test_no_readable_data_set_is_a_data_error(fake_data, tmp_path: Path):
    with pytest.raises(
        DataError, match=r"None of the audit data sets could be read: .*ss_jigsaw_bias"
    ):
        run_audit([FlagWord()], datasets="ss_jigsaw_bias", out=tmp_path, progress=False)


# --------------------------------------------------------------------------- figures


def test_hand_computed_figures(fake_data, tmp_path: Path):
    report = run_audit(
        [FlagWord(), NoScores()],
        datasets="traditional,genai",
        out=tmp_path,
        n_resamples=50,
        progress=False,
    )
    storm = _result(report, "flagword", "ss_stormfront")
    # 5 texts not violating, 2 of them flagged (rows 0 and 5).
    assert (storm["n"], storm["n_negative"], storm["n_positive"], storm["fpr"]) == (6, 5, 1, 0.4)
    women = _group(storm["flag"], "women")
    # women: 2 true negatives, 1 flagged -> i-FPR 0.5, ratio 0.5 / 0.4.
    assert (women["n"], women["n_tn"], women["n_fp"], women["i_fpr"], women["ratio"]) == (
        2,
        2,
        1,
        0.5,
        1.25,
    )
    assert (
        _group(storm["flag"], "men")["ratio"] is None
    )  # its only text is violating: no true negative
    assert storm["flag"]["worst"]["group"] == "women" and storm["flag"]["worst"]["ratio"] == 1.25
    assert storm["flag"]["worst"]["n_fp"] == 1 and storm["flag"]["worst"]["n_tn"] == 2
    # Scores over the true negatives: 0.9, 0.14, 0.14, 0.13, 0.9 -> median 0.14; women: 0.9, 0.14 -> 0.52.
    s_women = _group(storm["score"], "women")
    assert s_women["median"] == pytest.approx(0.14) and s_women["i_median"] == pytest.approx(0.52)
    assert s_women["ratio"] == pytest.approx(0.52 / 0.14)
    assert _result(report, "noscores", "ss_stormfront")["score"] is None

    # Pooled traditional family = ss_stormfront + ss_tweeteval_hate (tagger groups).
    [pooled] = [
        p
        for p in report["families"]
        if p["moderator"] == "flagword" and p["family"] == "traditional"
    ]
    assert pooled["sets"] == ["ss_stormfront", "ss_tweeteval_hate"]
    assert (pooled["n"], pooled["n_negative"], pooled["fpr"]) == (10, 8, 0.375)
    assert (
        _group(pooled["flag"], "women")["n_tn"] == 3
        and _group(pooled["flag"], "women")["n_fp"] == 2
    )
    # The summary repeats the pooled worst group.
    [summary] = [
        s
        for s in report["summary"]
        if s["moderator"] == "flagword" and s["family"] == "traditional"
    ]
    assert summary["flag"] == pooled["flag"]["worst"]
    # Within data sets: women have 2 true negatives in ss_stormfront (FPR 2/5) and 1 in
    # ss_tweeteval_hate (FPR 1/3), so 2 * 0.4 + 1 / 3 false positives are expected.
    w = _group(pooled["standardized"], "women")
    expected = 2 * 0.4 + 1 / 3
    assert (w["n_tn"], w["n_fp"]) == (3, 2)
    assert w["expected_fp"] == pytest.approx(expected)
    assert w["standardized_ratio"] == pytest.approx(2 / expected)
    assert w["composition_ratio"] == pytest.approx(expected / (3 * 0.375))
    assert w["standardized_ratio"] * w["composition_ratio"] == pytest.approx(
        _group(pooled["flag"], "women")["ratio"]
    )
    assert summary["standardized"] == pooled["standardized"]["worst"]

    # Regressions pool the primary sets of both families, genai = 1 for ss_openai and tv rows.
    [reg] = [r for r in report["regressions"] if r["moderator"] == "flagword"]
    assert reg["sets"] == ["ss_stormfront", "ss_tweeteval_hate", "ss_openai", "tv_synopses/pg13_ok"]
    assert reg["n"] == 16
    assert reg["score"] is not None
    assert next(r for r in report["regressions"] if r["moderator"] == "noscores")["score"] is None

    entry = next(d for d in report["datasets"] if d["set"] == "ss_tweeteval_hate")
    assert (entry["group_source"], entry["n_has_slur"], entry["group_counts"]["women"]) == (
        "tagger",
        1,
        1,
    )
    assert [m["label"] for m in report["moderators"]] == ["flagword", "noscores"]
    assert report["moderators"][0]["config"] == {} and len(report["moderators"][0]["key"]) == 64
    assert any("Jigsaw Kaggle" in n for n in report["notes"])
    for name in ("report.json", "report.md", "report.html"):
        assert (tmp_path / name).stat().st_size > 1000
    assert json.loads((tmp_path / "report.json").read_text(encoding="utf-8")) == report


# --------------------------------------------------------------------------- store and memo


def test_second_run_computes_nothing_and_writes_identical_json(
    fake_data, tmp_path: Path, monkeypatch
):
    from tactful import identity
    from tactful.audit import metrics

    calls = {"tag_many": 0, "suppression_table": 0, "score_suppression_table": 0}

    def counting(owner: Any, name: str) -> None:
        original = getattr(owner, name)

        def wrapper(*args, **kwargs):
            calls[name] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, wrapper)

    counting(identity.IdentityTagger, "tag_many")
    counting(metrics, "suppression_table")
    counting(metrics, "score_suppression_table")

    first_mod = FlagWord()
    run_audit(
        [first_mod],
        datasets="traditional,genai",
        out=tmp_path / "a",
        store=tmp_path / "s.sqlite",
        n_resamples=30,
        progress=False,
    )
    first_json = (tmp_path / "a" / "report.json").read_bytes()
    # 6 + 4 + 3 + 3 texts, 2 of them twice: 14 unique texts, each analyzed once.
    assert len(first_mod.seen) == len(set(first_mod.seen)) == 14
    assert calls["tag_many"] == 1 and calls["suppression_table"] > 0

    calls.update(dict.fromkeys(calls, 0))
    second_mod = FlagWord()
    report = run_audit(
        [second_mod],
        datasets="traditional,genai",
        out=tmp_path / "b",
        store=tmp_path / "s.sqlite",
        n_resamples=30,
        progress=False,
    )
    assert second_mod.seen == []
    assert calls == {"tag_many": 0, "suppression_table": 0, "score_suppression_table": 0}
    assert (tmp_path / "b" / "report.json").read_bytes() == first_json
    assert report["parameters"]["n_resamples"] == 30

    # Another bootstrap setting is another computation, but not another moderator call.
    third_mod = FlagWord()
    run_audit(
        [third_mod],
        datasets="traditional,genai",
        out=tmp_path / "c",
        store=tmp_path / "s.sqlite",
        n_resamples=40,
        progress=False,
    )
    assert third_mod.seen == [] and calls["suppression_table"] > 0


def test_crashed_run_resumes_without_recomputing(fake_data, tmp_path: Path):
    crashing = FlagWord(fail_after_calls=2)
    with pytest.raises(RuntimeError, match="moderator crashed"):
        run_audit(
            [crashing],
            datasets="ss_stormfront,ss_tweeteval_hate",
            out=tmp_path,
            batch_size=3,
            progress=False,
        )
    assert len(crashing.seen) == 6 and not (tmp_path / "report.json").exists()
    resumed = FlagWord()
    run_audit(
        [resumed],
        datasets="ss_stormfront,ss_tweeteval_hate",
        out=tmp_path,
        batch_size=3,
        progress=False,
    )
    texts = [r.text for r in fake_data["ss_stormfront"] + fake_data["ss_tweeteval_hate"]]
    assert resumed.seen == list(dict.fromkeys(texts))[6:]
    assert (tmp_path / "report.json").exists()


def test_bad_parameters_are_config_errors(tmp_path: Path):
    from tactful.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        run_audit([FlagWord()], out=tmp_path, n_resamples=0)
    assert str(info.value) == "[T010] " + PARAM_MESSAGE.format(
        name="n_resamples", owner="run_audit", rule="an int >= 1", value=0
    )
    with pytest.raises(ConfigError) as info:
        run_audit([FlagWord()], out=tmp_path, engine="spark")
    assert str(info.value) == "[T010] " + PARAM_MESSAGE.format(
        name="engine", owner="run_audit", rule="one of 'local', 'ray'", value="spark"
    )
    with pytest.raises(ConfigError, match="must name at least one moderator"):
        run_audit([], out=tmp_path)
    with pytest.raises(UnknownNameError, match="Unknown moderator 'nope'"):
        run_audit(["nope"], out=tmp_path / "never")
    assert not (tmp_path / "never").exists()


# --------------------------------------------------------------------------- CLI


def test_cli_audit_writes_reports_and_fails_in_one_line(fake_data, tmp_path: Path):
    from tactful.cli import app

    runner = CliRunner()
    out = tmp_path / "cli"
    result = runner.invoke(
        app,
        [
            "audit",
            "-m",
            "random",
            "--datasets",
            "ss_stormfront,tv_synopses",
            "--out",
            str(out),
            "--n-resamples",
            "20",
        ],
    )
    assert result.exit_code == 0, result.output
    assert f"wrote {out / 'report.html'}" in result.stdout
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    # The console table ends with the worst within-data-set (standardized) ratio.
    header = next(line for line in result.stdout.splitlines() if "moderator" in line)
    assert header.rstrip(" │┃").endswith("within sets ┃ group")
    std = next(s["standardized"] for s in report["summary"] if s["family"] == "traditional")
    row = next(line for line in result.stdout.splitlines() if "traditional" in line)
    cell = "—" if std is None else f"{std['standardized_ratio']:.2f} │ {std['group']}"
    assert row.rstrip(" │").endswith(cell)
    assert [d["set"] for d in report["datasets"]] == [
        "ss_stormfront",
        "tv_synopses/pg_ok",
        "tv_synopses/pg13_ok",
    ]
    assert (out / "store.sqlite").exists()

    bad = runner.invoke(
        app, ["audit", "-m", "random", "--datasets", "bogus", "--out", str(tmp_path / "x")]
    )
    assert bad.exit_code == 2
    assert bad.stderr.startswith("error: [T011] Unknown audit data set 'bogus'.")
    assert bad.stderr.count("\n") == 1


# --------------------------------------------------------------------------- real data


def test_small_real_audit(data_dir: Path, tmp_path: Path):
    report = run_audit(
        ["lexicon", "random"],
        datasets="traditional,genai",
        data_dir=data_dir,
        out=tmp_path,
        limit=80,
        n_resamples=20,
        progress=False,
    )
    sources = {d["set"]: d["group_source"] for d in report["datasets"]}
    assert sources == {
        "ss_jigsaw_bias": "paper tags",
        "ss_stormfront": "paper tags",
        "ss_tweeteval_hate": "tagger",
        "ss_tweeteval_offensive": "tagger",
        "ss_openai": "paper tags",
        **{
            v.set_id("ss_openai"): "paper tags"
            for v in audit_views("ss_openai").views
            if not v.primary
        },
        "tv_synopses/pg_ok": "show tags",
        "tv_synopses/pg13_ok": "show tags",
    }
    assert report["skipped"] == []
    assert all(d["n"] == 80 for d in report["datasets"] if d["primary"])
    assert len(report["results"]) == 2 * len(report["datasets"])
    assert [(s["moderator"], s["family"]) for s in report["summary"]] == [
        ("lexicon", "traditional"),
        ("lexicon", "genai"),
        ("random", "traditional"),
        ("random", "genai"),
    ]
    for r in report["results"]:
        assert [g["group"] for g in r["flag"]["groups"]] == report["groups"]
        worst = r["flag"]["worst"]
        ratios = [g["ratio"] for g in r["flag"]["groups"] if g["ratio"] is not None]
        assert (worst is None) == (not ratios)
        if ratios:
            assert worst["ratio"] == max(ratios)
    assert sorted(report["tagger_agreement"]) == ["ss_openai", "ss_stormfront"]
    assert all(len(rows) == 9 for rows in report["tagger_agreement"].values())


def test_data_rows_are_memoized_by_file_stamps(fake_data, tmp_path: Path, monkeypatch):
    from tactful.datasets import get_spec

    data = tmp_path / "data"
    files = [data / rel for rel in get_spec("ss_stormfront").files]
    for f in files:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("stand-in: the patched loader does not read it\n", encoding="utf-8")
    calls: list[str] = []
    fake = tactful.datasets.load_dataset

    def counting(name, split=None, data_dir=None):
        calls.append(name)
        return fake(name, split, data_dir)

    monkeypatch.setattr(tactful.datasets, "load_dataset", counting)

    def run() -> dict[str, Any]:
        return run_audit(
            [FlagWord()],
            datasets="ss_stormfront",
            data_dir=data,
            out=tmp_path / "o",
            n_resamples=10,
            progress=False,
        )

    first = run()
    second = run()
    assert calls == ["ss_stormfront"]  # the second run read the memo, not the files
    assert second == first
    with files[0].open("a", encoding="utf-8") as f:
        f.write("changed\n")  # another size: the memo no longer applies
    run()
    assert calls == ["ss_stormfront", "ss_stormfront"]


# --------------------------------------------------------------------------- reference figures

REFERENCE = Path(__file__).parent / "data" / "audit_reference"


def _synthetic() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("audit_synthetic", REFERENCE / "synthetic.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_same_figures_as_before_the_split(tmp_path: Path):
    """The synthetic audit writes, byte for byte, the stored report.json (made again when the
    schema gained the within-data-set tables; every other figure was byte-identical)."""
    _synthetic().run(tmp_path)
    assert (tmp_path / "report.json").read_bytes() == (REFERENCE / "report.json").read_bytes()


# --------------------------------------------------------------------------- audit views


def test_audit_views_are_declared_once_beside_the_data_sets():
    from tactful.datasets import (
        AuditView,
        AuditViews,
        audit_dataset_names,
        audit_families,
        register_audit_views,
    )

    assert audit_families() == {
        "traditional": (
            "ss_jigsaw_bias",
            "ss_stormfront",
            "ss_tweeteval_hate",
            "ss_tweeteval_offensive",
        ),
        "genai": ("ss_openai", "tv_synopses"),
    }
    assert audit_dataset_names() == sum(audit_families().values(), ())
    tv = audit_views("tv_synopses")
    assert [v.set_id("tv_synopses") for v in tv.views] == [
        "tv_synopses/pg_ok",
        "tv_synopses/pg13_ok",
    ]
    assert tv.label_keys == ("pg_ok", "pg13_ok") and not tv.tagger_groups
    # TV: violating = not ok; unknown labels stay unknown.
    pg13 = tv.views[1]
    assert pg13.violating([9, 9, 9], {"pg13_ok": [1, 0, None]}) == [0, 1, None]
    assert audit_views("ss_tweeteval_hate").tagger_groups
    with pytest.raises(UnknownNameError, match="Unknown audit data set 'toxicchat'"):
        audit_views("toxicchat")
    with pytest.raises(ConfigError, match="already has audit views"):
        register_audit_views(audit_views("ss_stormfront"))
    with pytest.raises(ConfigError, match="exactly one primary view"):
        AuditViews("x", "genai", "tagger", (AuditView("a"), AuditView("b", suffix="b")))
    with pytest.raises(ConfigError) as info:
        AuditViews("x", "modern", "tagger", (AuditView("a"),))
    assert str(info.value) == "[T010] " + PARAM_MESSAGE.format(
        name="family", owner="AuditViews", rule="one of 'traditional', 'genai'", value="modern"
    )
    with pytest.raises(ConfigError) as info:
        AuditView("a", primary=1)  # type: ignore[arg-type]
    assert str(info.value) == "[T010] " + PARAM_MESSAGE.format(
        name="primary", owner="AuditView", rule="a bool", value=1
    )


# --------------------------------------------------------------------------- failed items


class Flaky(FlagWord):
    """A backend that fails on every text with 'calm' in it, even when asked alone."""

    name = "flaky"

    def analyze(self, texts):
        from tactful.errors import BackendError

        if any("calm" in t for t in texts):
            raise BackendError("backend down")
        return super().analyze(texts)


def test_failed_texts_are_counted_per_moderator_and_no_report_is_written(fake_data, tmp_path: Path):
    from tactful.audit import AUDIT_FAILED_MESSAGE
    from tactful.errors import FAILED_ITEMS_STORED, FailedItemsError

    store = tmp_path / "s.sqlite"
    args = {"datasets": "ss_stormfront", "out": tmp_path / "o", "store": store, "progress": False}
    healthy = FlagWord()
    with pytest.raises(FailedItemsError) as info:
        run_audit([Flaky(), healthy], **args)
    # Both moderators ran over all six texts; three have 'calm' in them.
    assert len(healthy.seen) == 6
    assert str(info.value) == "[T044] " + AUDIT_FAILED_MESSAGE.format(
        k=1,
        m=2,
        counts="flaky: 3 of 6 texts (first: [T040] backend down)",
        where=FAILED_ITEMS_STORED.format(path=store),
    )
    assert sorted(info.value.failed) == [1, 3, 4]
    assert not (tmp_path / "o" / "report.json").exists()

    class Recovered(FlagWord):
        name = "flaky"  # same name, version and config: the same store key as Flaky

    recovered = Recovered()
    report = run_audit([recovered, FlagWord()], **args)
    assert sorted(recovered.seen) == sorted(
        r.text for r in fake_data["ss_stormfront"] if "calm" in r.text
    )
    assert [m["label"] for m in report["moderators"]] == ["flaky", "flagword"]


# --------------------------------------------------------------------------- CLI options


class Thresholded(FlagWord):
    name = "thresholded"

    def __init__(self, threshold: float = 0.5) -> None:
        super().__init__()
        self.threshold = threshold

    def config(self) -> dict[str, Any]:
        return {"threshold": self.threshold}


def test_cli_options_reach_the_moderators_and_the_store_is_where_asked(fake_data, tmp_path: Path):
    import tactful
    from tactful.cli import app

    runner = CliRunner()
    out, store = tmp_path / "cli", tmp_path / "elsewhere.sqlite"
    two = ["audit", "-m", "thresholded", "-m", "random", "--out", str(out)]
    with tactful.temporary_registration("thresholded", Thresholded):
        result = runner.invoke(
            app,
            [
                *two,
                "-O",
                "thresholded.threshold=0.25",
                "--datasets",
                "ss_stormfront",
                "--store",
                str(store),
                "--engine",
                "local",
                "--batch-size",
                "2",
                "--n-resamples",
                "10",
            ],
        )
        assert result.exit_code == 0, result.output
        report = json.loads((out / "report.json").read_text(encoding="utf-8"))
        assert report["moderators"][0]["config"] == {"threshold": 0.25}
        assert store.exists() and not (out / "store.sqlite").exists()

        ambiguous = runner.invoke(app, [*two, "-O", "threshold=0.25"])
    assert ambiguous.exit_code == 2
    assert ambiguous.stderr.startswith("error: [T010] -O threshold=0.25 is ambiguous")
    assert ambiguous.stderr.count("\n") == 1


def test_cli_failed_texts_are_one_line_and_exit_4(fake_data, tmp_path: Path):
    import tactful
    from tactful.cli import app

    with tactful.temporary_registration("flaky", Flaky):
        result = CliRunner().invoke(
            app, ["audit", "-m", "flaky", "--datasets", "ss_stormfront", "--out", str(tmp_path)]
        )
    assert result.exit_code == 4
    assert result.stderr.startswith(
        "error: [T044] The audit wrote no report: texts failed with 1 of 1 moderators "
        "(flaky: 3 of 6 texts (first: [T040] backend down));"
    )
    assert result.stderr.count("\n") == 1
