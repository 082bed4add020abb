"""The SQLite result store: answers kept once, runs resumable, kills survivable."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from tactful import Analysis, Span
from tactful.store import (
    ResultStore,
    analysis_from_json,
    analysis_to_json,
    moderator_key,
    text_sha256,
)
from tactful.errors import BackendError, ConfigError, DataError


class CountingModerator:
    """Flags texts containing "bad"; counts every text it is asked about."""

    name = "counting"
    version = "1"

    def __init__(self, threshold: float = 0.5, fail_after_calls: int | None = None) -> None:
        self.threshold = threshold
        self.fail_after_calls = fail_after_calls
        self.seen: list[str] = []
        self.calls = 0

    def config(self) -> dict:
        return {"threshold": self.threshold}

    def analyze(self, texts):
        if self.fail_after_calls is not None and self.calls >= self.fail_after_calls:
            raise RuntimeError("simulated crash")
        self.calls += 1
        self.seen.extend(texts)
        out = []
        for t in texts:
            score = 0.9 if "bad" in t else 0.1
            spans = (Span(t.index("bad"), t.index("bad") + 3, "insult", 0.9),) if "bad" in t else ()
            out.append(
                Analysis(
                    flagged=score >= self.threshold,
                    scores={"toxicity": score},
                    spans=spans,
                    raw={"text_len": len(t), "tags": ("a", "b")},
                )
            )
        return out


def _texts(n: int) -> list[str]:
    return [f"text {i} {'bad' if i % 3 == 0 else 'fine'}" for i in range(n)]


def test_analysis_json_round_trip_keeps_every_field():
    a = Analysis(
        flagged=True,
        scores={"toxicity": 0.75, "insult": 0.5},
        spans=(Span(4, 9, "insult", 0.5), Span(0, 2, "other", 1.0)),
        jailbreak=0.25,
        delicate=None,
        flags={"toxicity": True, "jailbreak": False},
        raw={"model": "x", "logits": [1.5, -2.0]},
    )
    b = analysis_from_json(analysis_to_json(a))
    assert b == a
    assert b.spans == (Span(0, 2, "other", 1.0), Span(4, 9, "insult", 0.5))
    assert dict(b.raw) == {"model": "x", "logits": [1.5, -2.0]}


def test_moderator_key_depends_on_name_version_and_config_only():
    a, b, c = CountingModerator(0.5), CountingModerator(0.5), CountingModerator(0.7)
    assert moderator_key(a) == moderator_key(b)
    assert moderator_key(a) != moderator_key(c)
    assert len(moderator_key(a)) == 64
    assert text_sha256("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_get_many_and_put_many(tmp_path: Path):
    mod = CountingModerator()
    texts = ["a bad one", "a fine one", "a bad one"]
    with ResultStore(tmp_path / "s.sqlite") as store:
        assert store.get_many(mod, texts) == {}
        store.put_many(mod, texts[:2], mod.analyze(texts[:2]))
        got = store.get_many(mod, texts)
        assert sorted(got) == [0, 1, 2]
        assert got[0].flagged is True and got[1].flagged is False
        assert got[2] == got[0]
        assert store.count(mod) == 2
        # Another config is another moderator: nothing stored for it.
        assert store.get_many(CountingModerator(0.7), texts) == {}
        with pytest.raises(ConfigError, match="one analysis per text. Got 2 texts and 1 analyses"):
            store.put_many(mod, texts[:2], mod.analyze(texts[:1]))


def test_analyze_cached_computes_each_text_once_across_runs(tmp_path: Path):
    path = tmp_path / "s.sqlite"
    texts = _texts(10) + _texts(10)[:4]  # 4 duplicates inside the input
    mod = CountingModerator()
    ticks: list[int] = []
    with ResultStore(path) as store:
        first = store.analyze_cached(mod, texts, batch_size=3, progress=ticks.append)
    assert mod.seen == _texts(10)  # unique texts only, in input order
    assert mod.calls == 4  # ceil(10 / 3)
    assert sum(ticks) == len(texts)
    assert [a.flagged for a in first] == ["bad" in t for t in texts]

    mod2 = CountingModerator()
    ticks2: list[int] = []
    with ResultStore(path) as store:
        second = store.analyze_cached(
            mod2, texts + ["new bad text"], batch_size=3, progress=ticks2.append
        )
    assert mod2.seen == ["new bad text"]
    assert second[: len(texts)] == first
    assert second[-1].spans == (Span(4, 7, "insult", 0.9),)
    assert ticks2 == [len(texts), 1]


def test_simulated_crash_keeps_committed_batches(tmp_path: Path):
    path = tmp_path / "s.sqlite"
    texts = _texts(20)
    crashing = CountingModerator(fail_after_calls=3)
    with ResultStore(path) as store:
        with pytest.raises(RuntimeError, match="simulated crash"):
            store.analyze_cached(crashing, texts, batch_size=4)
        assert store.count(crashing) == 12  # 3 batches of 4 committed
    resumed = CountingModerator()
    with ResultStore(path) as store:
        out = store.analyze_cached(resumed, texts, batch_size=4)
    assert resumed.seen == texts[12:]
    assert len(out) == 20 and [a.flagged for a in out] == ["bad" in t for t in texts]


def test_wrong_number_of_answers_is_a_backend_error(tmp_path: Path):
    class Short(CountingModerator):
        def analyze(self, texts):
            return super().analyze(texts)[:-1]

    with ResultStore(tmp_path / "s.sqlite") as store:
        with pytest.raises(BackendError, match="returned 1 analyses for 2 texts"):
            store.analyze_cached(Short(), ["x", "y"])
        with pytest.raises(
            ConfigError, match="The .batch_size. parameter of ResultStore.ensure must be an int >= 1. Got 0 instead."
        ):
            store.analyze_cached(Short(), ["x"], batch_size=0)


def test_ensure_then_flags_and_max_scores_read_in_sql(tmp_path: Path):
    from tactful.audit.metrics import max_category_score

    class Mixed(CountingModerator):
        def analyze(self, texts):
            self.seen.extend(texts)
            out = []
            for t in texts:
                if t.startswith("none"):
                    out.append(Analysis(flagged=False))  # no scores at all
                else:
                    out.append(
                        Analysis(
                            flagged="bad" in t, scores={"a": 0.25, "b": 0.75 if "bad" in t else 0.5}
                        )
                    )
            return out

    texts = ["bad one", "fine one", "none here", "bad one"]
    mod = Mixed()
    with ResultStore(tmp_path / "s.sqlite") as store:
        with pytest.raises(
            DataError, match="has no answer of moderator 'counting' for 3 of the texts"
        ):
            store.flags_and_max_scores(mod, texts)
        computed = store.ensure(mod, texts, batch_size=2)
        assert mod.seen == ["bad one", "fine one", "none here"] and len(computed) == 3
        assert store.ensure(mod, texts) == {} and len(mod.seen) == 3
        flagged, scores = store.flags_and_max_scores(mod, texts)
        answers = store.analyze_cached(mod, texts)
    assert flagged.tolist() == [True, False, False, True]
    assert scores[[0, 1, 3]].tolist() == [0.75, 0.5, 0.75]
    # The same numbers as the metric on decoded answers, NaN for "no scores".
    np.testing.assert_array_equal(scores, max_category_score(answers))


def test_derived_values_round_trip(tmp_path: Path):
    with ResultStore(tmp_path / "s.sqlite") as store:
        store.put_derived("tags/v1", {"k1": {"groups": ["men"], "has_slur": False}, "k2": [1, 2.5]})
        assert store.get_derived("tags/v1", ["k1", "k2", "k3"]) == {
            "k1": {"groups": ["men"], "has_slur": False},
            "k2": [1, 2.5],
        }
        assert store.get_derived("tags/v2", ["k1"]) == {}


def test_corrupt_file_is_a_one_line_data_error(tmp_path: Path):
    path = tmp_path / "s.sqlite"
    path.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(DataError) as info:
        ResultStore(path)
    msg = str(info.value)
    assert "\n" not in msg
    assert (
        msg.startswith("[T020] The result store ")
        and "is not a readable tactful SQLite database" in msg
    )


def test_folder_path_is_a_config_error(tmp_path: Path):
    with pytest.raises(ConfigError, match="is a folder; give a file path"):
        ResultStore(tmp_path)


def test_locked_store_is_a_one_line_data_error(tmp_path: Path):
    path = tmp_path / "s.sqlite"
    ResultStore(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process holding the write lock
    try:
        store = ResultStore(path, timeout=0.1)
        with pytest.raises(DataError, match=r"is locked by another process \(waited 0.1 s\)"):
            store.put_many(CountingModerator(), ["x"], [Analysis(flagged=False)])
        store.close()
    finally:
        holder.execute("ROLLBACK")
        holder.close()


_CHILD = textwrap.dedent(
    """
    import sys, time
    from tactful import Analysis
    from tactful.store import ResultStore

    class Slow:
        name = "slow-fake"
        version = "1"
        def config(self):
            return {}
        def analyze(self, texts):
            time.sleep(0.05)
            return [Analysis(flagged="bad" in t, scores={"toxicity": 0.5}) for t in texts]

    texts = [f"text {i} {'bad' if i % 3 == 0 else 'fine'}" for i in range(int(sys.argv[2]))]
    ResultStore(sys.argv[1]).analyze_cached(Slow(), texts, batch_size=5)
    """
)


class SlowTwin(CountingModerator):
    """Same identity as the child's moderator, so it reads the child's answers."""

    name = "slow-fake"
    version = "1"

    def config(self) -> dict:
        return {}


def test_sigkill_mid_run_keeps_committed_rows(tmp_path: Path):
    path = tmp_path / "s.sqlite"
    n = 2000  # 400 batches x 0.05 s: far longer than the test waits
    env = dict(os.environ)
    env["PYTHONPATH"] = (
        str(Path(__file__).resolve().parents[1] / "src") + os.pathsep + env.get("PYTHONPATH", "")
    )
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(path), str(n)], env=env)
    try:
        deadline = time.monotonic() + 60
        committed = 0
        while time.monotonic() < deadline:
            if path.exists():
                try:
                    with sqlite3.connect(path, timeout=5) as conn:
                        committed = conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
                except sqlite3.OperationalError:
                    committed = 0  # schema not created yet
            if committed >= 20:
                break
            time.sleep(0.02)
        assert committed >= 20, "the child committed nothing within 60 s"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL

    twin = SlowTwin()
    texts = _texts(n)
    with ResultStore(path) as store:
        kept = store.count(twin)
        assert 20 <= kept < n
        assert kept % 5 == 0  # whole batches only: a batch commits entirely or not at all
        stored = store.get_many(twin, texts)
        assert len(stored) == kept
        assert all(stored[i].flagged == ("bad" in texts[i]) for i in stored)
        out = store.analyze_cached(twin, texts, batch_size=50)
    assert len(twin.seen) == n - kept
    assert set(twin.seen).isdisjoint(texts[i] for i in stored)
    assert len(out) == n
