"""The ``ray`` engine: Ray Data actors, answers written by the driver, same results as local.

Runs on a local Ray with 2 CPUs; skipped when the ``scale`` extra (ray) is not installed.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from fakes import FakeServer, toxicity

import tactful
from tactful.errors import FailedItemsError
from tactful.moderators.remote import KeyRejectedError
from tactful.store import ResultStore, analyze_all

ray = pytest.importorskip(
    "ray", reason="the ray engine needs the 'scale' extra (pip install -e '.[scale]')"
)

KEY = "sk-ray-test-key"
ENV, WRONG_ENV = "TACTFUL_TEST_RAY_KEY", "TACTFUL_TEST_RAY_WRONG_KEY"
POISON = "\u2620FAIL"


@pytest.fixture(scope="module")
def local_ray():
    # Actors inherit the driver's environment as it is when Ray starts.
    os.environ[ENV], os.environ[WRONG_ENV] = KEY, "sk-not-this-one"
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()
    del os.environ[ENV], os.environ[WRONG_ENV]


@pytest.fixture(scope="module")
def server():
    with FakeServer(key=KEY) as s:
        yield s


def stored_rows(path: Path) -> list[tuple[str, str, str | None, str | None]]:
    with sqlite3.connect(path) as conn:
        return sorted(
            conn.execute("SELECT text_sha256, status, analysis, error FROM answers").fetchall()
        )


def test_builtin_on_ray_equals_local_on_toxicchat(
    local_ray, data_dir: Path, tmp_path: Path
) -> None:
    from tactful.datasets import load_dataset

    texts = [r.text for r in load_dataset("toxicchat", split="test", data_dir=data_dir)][:40]
    mod = tactful.load("builtin")
    local = analyze_all(mod, texts, store=tmp_path / "local.sqlite", batch_size=8)
    on_ray = analyze_all(mod, texts, store=tmp_path / "ray.sqlite", batch_size=8, engine="ray")
    assert [a.to_dict() for a in on_ray] == [a.to_dict() for a in local]
    assert [dict(a.raw) for a in on_ray] == [dict(a.raw) for a in local]
    assert stored_rows(tmp_path / "ray.sqlite") == stored_rows(tmp_path / "local.sqlite")


def test_remote_moderator_on_ray_keeps_failures_and_a_rerun_asks_only_them(
    local_ray, server: FakeServer, tmp_path: Path
) -> None:
    texts = [f"comment {i}, you idiot" if i % 3 else f"comment {i}" for i in range(30)]
    texts[4] += POISON
    texts[17] += POISON
    mod = tactful.load(
        "openai", base_url=f"{server.url}/v1", api_key_env=ENV, max_retries=0, batch_size=8
    )
    store = tmp_path / "store.sqlite"
    server.reset()
    server.poison = POISON
    with pytest.raises(FailedItemsError) as info:
        analyze_all(mod, texts, store=store, engine="ray")
    assert sorted(info.value.failed) == [4, 17]
    assert "answered 500 Internal Server Error" in info.value.failed[4]
    answered = server.answered_texts()
    assert sorted(answered) == sorted(t for i, t in enumerate(texts) if i not in (4, 17))
    with ResultStore(store) as db:
        assert db.count(mod) == 28 and db.count(mod, status="failed") == 2

    server.reset()
    server.poison = None
    got = analyze_all(mod, texts, store=store, engine="ray")
    assert sorted(server.answered_texts()) == sorted([texts[4], texts[17]])
    assert [a.scores["toxicity"] for a in got] == pytest.approx([toxicity(t) for t in texts])

    local = analyze_all(mod, texts, store=tmp_path / "local.sqlite")
    assert [a.to_dict() for a in got] == [a.to_dict() for a in local]


def test_an_actors_own_error_is_raised_as_itself(
    local_ray, server: FakeServer, tmp_path: Path
) -> None:
    mod = tactful.load("openai", base_url=f"{server.url}/v1", api_key_env=WRONG_ENV)
    with pytest.raises(KeyRejectedError, match=rf"the API key in \${WRONG_ENV} was refused"):
        analyze_all(mod, ["hello", "you idiot"], store=tmp_path / "s.sqlite", engine="ray")


def test_texts_that_arrow_cannot_hold_cross_ray_intact(local_ray, tmp_path: Path) -> None:
    texts = ["lone \udc00 surrogate, idiot", "nul\x00byte idiot", "plain text", ""]
    mod = tactful.load("lexicon")
    local = analyze_all(mod, texts, store=tmp_path / "l.sqlite")
    on_ray = analyze_all(mod, texts, store=tmp_path / "r.sqlite", engine="ray", batch_size=2)
    assert json.dumps([a.to_dict() for a in on_ray]) == json.dumps([a.to_dict() for a in local])
