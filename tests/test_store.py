"""The SQLite result store: answers kept once, runs resumable, kills survivable."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
import types
from pathlib import Path

import numpy as np
import pytest

from tactful import Analysis, Span
from tactful.errors import (
    FAILED_ITEMS_MESSAGE,
    FAILED_ITEMS_STORED,
    FAILED_ITEMS_UNSTORED,
    PARAM_MESSAGE,
    BackendError,
    ConfigError,
    DataError,
    FailedItemsError,
    RemoteResponseError,
)
from tactful.store import (
    RAY_EXTRA_MESSAGE,
    SCHEMA_VERSION,
    ResultStore,
    analysis_from_json,
    analysis_to_json,
    analyze_all,
    code_fingerprint,
    memo,
    memo_key,
    moderator_identity,
    moderator_key,
    text_sha256,
)


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
            ConfigError,
            match="The .batch_size. parameter of ResultStore.ensure must be an int >= 1. Got 0 instead.",
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


# ------------------------------------------------------------------ memo


def test_memo_computes_once_and_gives_back_json(tmp_path: Path):
    calls: list[int] = []

    def compute() -> dict:
        calls.append(1)
        return {"pair": (1, 2), "nan": float("nan")}

    with ResultStore(tmp_path / "s.sqlite") as store:
        first = store.memo("table/abc", ("x", 3), compute)
        again = store.memo("table/abc", ["x", 3], compute)  # lists and tuples key alike
        other = store.memo("table/abc", ("x", 4), compute)
    assert first == again == other == {"pair": [1, 2], "nan": None}
    assert len(calls) == 2
    # Without a store: computed every time, same shape as with one.
    assert memo(None, "table/abc", ("x", 3), compute) == first
    assert len(calls) == 3


def test_memo_key_parts():
    assert memo_key("a", 1) == memo_key("a", 1) != memo_key("a", 2)
    assert memo_key("ab", "c") != memo_key("a", "bc")
    assert memo_key({"b": 1, "a": 2}) == memo_key({"a": 2, "b": 1})
    ints = np.array([1, 2, 3], dtype=np.int64)
    assert memo_key(ints) == memo_key(ints.copy())
    assert memo_key(ints) != memo_key(ints.astype(np.int32))
    assert memo_key(b"\x00\x01") != memo_key("\x00\x01")
    assert len(memo_key()) == 64


def test_code_fingerprint_follows_the_source(tmp_path: Path, monkeypatch):
    (tmp_path / "fp_probe_mod.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = code_fingerprint("fp_probe_mod")
    assert before == code_fingerprint("fp_probe_mod") and len(before) == 16
    (tmp_path / "fp_probe_mod.py").write_text("X = 2\n")
    assert code_fingerprint("fp_probe_mod") != before
    assert code_fingerprint("tactful.store") != code_fingerprint("tactful.store._sqlite")
    with pytest.raises(ConfigError, match="Cannot locate the module 'no_such_module_x'"):
        code_fingerprint("no_such_module_x")


# ------------------------------------------------------------- schema versions

_V1_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE moderators (moderator_key TEXT PRIMARY KEY, name TEXT NOT NULL,
    version TEXT NOT NULL, config TEXT NOT NULL);
CREATE TABLE answers (moderator_key TEXT NOT NULL, text_sha256 TEXT NOT NULL,
    analysis TEXT NOT NULL, created REAL NOT NULL,
    PRIMARY KEY (moderator_key, text_sha256)) WITHOUT ROWID;
CREATE TABLE derived (namespace TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
    created REAL NOT NULL, PRIMARY KEY (namespace, key)) WITHOUT ROWID;
INSERT INTO meta VALUES ('schema_version', '1');
"""


def _v1_store(path: Path, mod: CountingModerator, texts: list[str]) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(_V1_SCHEMA)
    for t, a in zip(texts, mod.analyze(texts)):
        conn.execute(
            "INSERT INTO answers VALUES (?, ?, ?, 1.0)",
            (moderator_key(mod), text_sha256(t), analysis_to_json(a)),
        )
    conn.execute("INSERT INTO derived VALUES ('ns', 'k', '[1,2]', 1.0)")
    conn.commit()
    conn.close()


def test_v1_store_is_migrated_in_place(tmp_path: Path):
    path = tmp_path / "old.sqlite"
    texts = ["a bad one", "a fine one"]
    _v1_store(path, CountingModerator(), texts)
    with ResultStore(path) as store:
        assert store.migrated_from == 1
        assert store.count() == 2 and store.count(status="failed") == 0
        got = store.get_many(CountingModerator(), texts)
        assert [got[0].flagged, got[1].flagged] == [True, False]
        assert store.get_derived("ns", ["k"]) == {"k": [1, 2]}
        store.put_failed(CountingModerator(), ["new"], ["[T043] down"])
        assert store.count(status="failed") == 1
    with ResultStore(path) as store:
        assert store.migrated_from is None
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (
        str(SCHEMA_VERSION),
    )
    conn.close()


def test_other_versions_and_foreign_databases_are_refused(tmp_path: Path):
    newer = tmp_path / "newer.sqlite"
    _v1_store(newer, CountingModerator(), [])
    conn = sqlite3.connect(newer)
    conn.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(DataError) as info:
        ResultStore(newer)
    assert str(info.value) == (
        f"[T020] The result store {newer} has schema version 7; this tactful reads version "
        f"{SCHEMA_VERSION} (and migrates version 1). Use another --store file."
    )
    foreign = tmp_path / "foreign.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE answers (x)")
    conn.commit()
    conn.close()
    with pytest.raises(DataError, match="is an SQLite database but not a tactful result store"):
        ResultStore(foreign)


# ---------------------------------------------------------------- failed items


class FlakyModerator(CountingModerator):
    """Raises a RemoteResponseError for any call that includes a text in ``down``."""

    def __init__(self, down: tuple[str, ...] = (), **kw) -> None:
        super().__init__(**kw)
        self.down = set(down)
        self.batches: list[list[str]] = []

    def analyze(self, texts):
        self.batches.append(list(texts))
        broken = [t for t in texts if t in self.down]
        if broken:
            raise RemoteResponseError(f"HTTP 500 for {broken[0]!r}")
        return super().analyze(texts)


def test_failed_items_are_kept_reported_and_retried_alone(tmp_path: Path):
    path = tmp_path / "s.sqlite"
    texts = ["t0 bad", "t1", "t2 down", "t3", "t4", "t2 down", "t6 down bad"]
    flaky = FlakyModerator(down=("t2 down", "t6 down bad"))
    with pytest.raises(FailedItemsError) as info:
        analyze_all(flaky, texts, store=path, batch_size=3)
    err = info.value
    # The failing batch is asked again one text at a time; texts that fail alone are failed.
    assert flaky.batches == [
        ["t0 bad", "t1", "t2 down"],
        ["t0 bad"],
        ["t1"],
        ["t2 down"],
        ["t3", "t4", "t6 down bad"],
        ["t3"],
        ["t4"],
        ["t6 down bad"],
    ]
    first = "[T043] HTTP 500 for 't2 down'"
    assert err.failed == {2: first, 5: first, 6: "[T043] HTTP 500 for 't6 down bad'"}
    assert [a is None for a in err.analyses] == [False, False, True, False, False, True, True]
    assert err.analyses[0].flagged is True and err.analyses[1].flagged is False
    assert str(err) == "[T044] " + FAILED_ITEMS_MESSAGE.format(
        k=3,
        n=7,
        name="counting",
        error=first,
        where=FAILED_ITEMS_STORED.format(path=path),
    )
    assert err.code == "T044" and err.exit_code == 4 and isinstance(err, BackendError)

    with ResultStore(path) as store:
        assert store.count(flaky) == 4 and store.count(flaky, status="failed") == 2
        # Failed rows are not answers.
        assert sorted(store.get_many(flaky, texts)) == [0, 1, 3, 4]
        assert store.get_failed(flaky, texts) == err.failed
        with pytest.raises(DataError, match="for 2 of the texts"):
            store.flags_and_max_scores(flaky, texts)
        # A failure never replaces an answer.
        store.put_failed(flaky, ["t1"], ["[T043] later"])
        assert 1 in store.get_many(flaky, texts)

    # The re-run asks only for the failed texts, and their answers replace the failures.
    healed = FlakyModerator()
    out = analyze_all(healed, texts, store=path, batch_size=3)
    assert healed.batches == [["t2 down", "t6 down bad"]]
    assert [a.flagged for a in out] == ["bad" in t for t in texts]
    with ResultStore(path) as store:
        assert store.count(healed) == 6 and store.count(healed, status="failed") == 0
        assert store.ensure(healed, texts) == {}


def test_failed_items_without_a_store(tmp_path: Path):
    flaky = FlakyModerator(down=("b",))
    with pytest.raises(FailedItemsError) as info:
        analyze_all(flaky, ["a", "b", "b"], batch_size=2)
    assert info.value.failed == {1: "[T043] HTTP 500 for 'b'", 2: "[T043] HTTP 500 for 'b'"}
    assert str(info.value).endswith("; " + FAILED_ITEMS_UNSTORED)
    assert flaky.batches == [["a", "b"], ["a"], ["b"], ["b"]]


def test_ensure_raises_failed_items_too(tmp_path: Path):
    with ResultStore(tmp_path / "s.sqlite") as store:
        with pytest.raises(FailedItemsError) as info:
            store.ensure(FlakyModerator(down=("x",)), ["x", "y"])
        assert info.value.failed == {0: "[T043] HTTP 500 for 'x'"}
        assert info.value.analyses[1].flagged is False


def test_other_exceptions_are_bugs_not_failures(tmp_path: Path):
    class Buggy(CountingModerator):
        def analyze(self, texts):
            if "boom" in texts:
                raise KeyError("a bug")
            return super().analyze(texts)

    path = tmp_path / "s.sqlite"
    with pytest.raises(KeyError, match="a bug"):
        analyze_all(Buggy(), ["a", "b", "boom", "c"], store=path, batch_size=2)
    with ResultStore(path) as store:
        assert store.count() == 2 and store.count(status="failed") == 0


def test_failed_items_error_survives_pickling():
    import pickle

    err = FailedItemsError("1 of 1 texts failed", {0: "x"}, [None])
    back = pickle.loads(pickle.dumps(err))
    assert (str(back), back.failed, back.analyses) == (str(err), {0: "x"}, [None])


# ------------------------------------------------------------ hints and reuse


def test_analyze_all_reuses_the_store_counted_by_calls(tmp_path: Path):
    path = tmp_path / "s.sqlite"
    texts = _texts(9)
    first = CountingModerator()
    out1 = analyze_all(first, texts, store=path, batch_size=4)
    assert (first.calls, len(first.seen)) == (3, 9)
    second = CountingModerator()
    out2 = analyze_all(second, texts, store=path, batch_size=4)
    assert (second.calls, second.seen) == (0, [])
    assert out1 == out2


class TimedOut(CountingModerator):
    """A moderator whose ``timeout`` changes no answer."""

    runtime_options = ("timeout", "concurrency")

    def __init__(self, threshold: float = 0.5, timeout: float = 5.0) -> None:
        super().__init__(threshold)
        self.timeout = timeout

    def config(self) -> dict:
        return {"threshold": self.threshold, "timeout": self.timeout, "concurrency": 1}


def test_runtime_options_are_left_out_of_the_key(tmp_path: Path):
    assert moderator_key(TimedOut(timeout=5)) == moderator_key(TimedOut(timeout=60))
    assert moderator_key(TimedOut(0.5)) != moderator_key(TimedOut(0.7))
    assert moderator_identity(TimedOut(timeout=60))["config"] == {"threshold": 0.5}
    path = tmp_path / "s.sqlite"
    analyze_all(TimedOut(timeout=5), ["a", "b bad"], store=path)
    slower = TimedOut(timeout=60)
    analyze_all(slower, ["a", "b bad"], store=path)
    assert slower.calls == 0
    other = TimedOut(threshold=0.7)
    analyze_all(other, ["a", "b bad"], store=path)
    assert other.calls == 1


def test_moderator_batch_size_hint_and_its_checks(tmp_path: Path):
    class Small(CountingModerator):
        batch_size = 2

    mod = Small()
    analyze_all(mod, _texts(5))
    assert mod.calls == 3
    mod = Small()
    analyze_all(mod, _texts(5), batch_size=5)  # the caller's value wins
    assert mod.calls == 1

    class Broken(CountingModerator):
        concurrency = 0

    expected = PARAM_MESSAGE.format(
        name="concurrency", owner="moderator 'counting'", rule="an int >= 1", value=0
    )
    with pytest.raises(ConfigError, match=re.escape(expected)):
        analyze_all(Broken(), ["a"])
    expected = PARAM_MESSAGE.format(
        name="concurrency", owner="analyze_all", rule="an int >= 1", value=True
    )
    with pytest.raises(ConfigError, match=re.escape(expected)):
        analyze_all(CountingModerator(), ["a"], concurrency=True)


class HeldModerator:
    """Answers one text per call; the call with "held" waits until released."""

    name = "held"
    version = "1"
    batch_size = 1
    concurrency = 4

    def __init__(self) -> None:
        self.release = threading.Event()
        self.held_returned = threading.Event()
        self.lock = threading.Lock()
        self.active = 0
        self.most_active = 0

    def config(self) -> dict:
        return {}

    def analyze(self, texts):
        with self.lock:
            self.active += 1
            self.most_active = max(self.most_active, self.active)
        try:
            if texts == ["held"]:
                assert self.release.wait(120), "never released"
                self.held_returned.set()
            return [Analysis(flagged="bad" in t) for t in texts]
        finally:
            with self.lock:
                self.active -= 1


def test_concurrent_calls_commit_as_each_returns(tmp_path: Path):
    path = tmp_path / "s.sqlite"
    texts = ["held"] + [f"t{i} {'bad' if i % 2 else 'ok'}" for i in range(7)]
    mod = HeldModerator()
    result: dict = {}
    worker = threading.Thread(
        target=lambda: result.update(out=analyze_all(mod, texts, store=path)), daemon=True
    )
    worker.start()
    try:
        seen = 0
        deadline = time.monotonic() + 120  # a guard against hanging, not a timed assertion
        while seen < 7 and time.monotonic() < deadline:
            if path.exists():
                with contextlib.suppress(sqlite3.OperationalError):
                    reader = sqlite3.connect(path, timeout=5)
                    seen = reader.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
                    reader.close()
            time.sleep(0.01)
        # Every other call's answers are committed while the held call is still running.
        assert seen == 7
        assert not mod.held_returned.is_set() and worker.is_alive()
    finally:
        mod.release.set()
        worker.join(120)
    assert not worker.is_alive()
    assert [a.flagged for a in result["out"]] == ["bad" in t for t in texts]
    assert 1 < mod.most_active <= 4
    with ResultStore(path) as store:
        assert store.count(mod) == 8


# ------------------------------------------------------------------- engines


def test_ray_engine_needs_a_store_and_ray(tmp_path: Path, monkeypatch):
    with pytest.raises(
        ConfigError,
        match=r"The ray engine writes its answers to a result store: give one \(--store PATH\)\.",
    ):
        analyze_all(CountingModerator(), ["a"], engine="ray")
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(ConfigError) as info:
        analyze_all(CountingModerator(), ["a"], store=tmp_path / "s.sqlite", engine="ray")
    assert str(info.value) == "[T010] " + RAY_EXTRA_MESSAGE
    expected = PARAM_MESSAGE.format(
        name="engine", owner="analyze_all", rule="one of 'local', 'ray'", value="spark"
    )
    with pytest.raises(ConfigError, match=re.escape(expected)):
        analyze_all(CountingModerator(), ["a"], engine="spark")


def test_ray_engine_dispatch_reads_answers_back_from_the_store(tmp_path: Path, monkeypatch):
    """The dispatch only: a stand-in for ``tactful.store._ray`` that writes as actors do."""
    asked: list[tuple[list[str], str, int]] = []

    def analyze_ray(moderator, texts, store_path, *, batch_size):
        asked.append((list(texts), str(store_path), batch_size))
        with ResultStore(store_path) as db:
            fresh = CountingModerator()
            db.put_outcomes(
                moderator,
                texts,
                [None if "down" in t else a for t, a in zip(texts, fresh.analyze(texts))],
                ["[T043] down" if "down" in t else None for t in texts],
            )

    monkeypatch.setitem(sys.modules, "ray", types.ModuleType("ray"))
    fake = types.ModuleType("tactful.store._ray")
    fake.analyze_ray = analyze_ray  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tactful.store._ray", fake)
    path = tmp_path / "s.sqlite"
    analyze_all(CountingModerator(), ["a bad"], store=path)  # already answered
    with pytest.raises(FailedItemsError) as info:
        analyze_all(
            CountingModerator(),
            ["a bad", "b", "c down", "b"],
            store=path,
            engine="ray",
            batch_size=7,
        )
    assert asked == [(["b", "c down"], str(path), 7)]
    assert info.value.failed == {2: "[T043] down"}
    assert [a and a.flagged for a in info.value.analyses] == [True, False, None, False]
