"""Remote moderators from the command line: killed runs never pay twice; several APIs in one audit.

The CLI runs in a subprocess against a fake provider server on 127.0.0.1 (a real
HTTP server in this process). The kill test holds every request once half the
texts were answered, kills the audit with SIGKILL while its calls wait, and runs
it again: the server's log must show every text answered exactly once in all,
and the report must equal that of an uninterrupted run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from fakes import FakeServer

KEY = "sk-cli-test-key"
ENV = "TACTFUL_TEST_CLI_KEY"


def tactful(*args: str) -> list[str]:
    return [sys.executable, "-m", "tactful", *args]


def run_cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        tactful(*args), env=env, capture_output=True, text=True, timeout=900, check=False
    )


@pytest.fixture
def env(data_dir: Path) -> dict[str, str]:
    return {**os.environ, ENV: KEY, "TACTFUL_DATA": str(data_dir)}


def audit_args(server: FakeServer, out: Path, *extra: str) -> list[str]:
    return [
        "audit",
        "-m",
        "openai",
        "-O",
        f"base_url={server.url}/v1",
        "-O",
        f"api_key_env={ENV}",
        "--datasets",
        "ss_stormfront",
        "--limit",
        "2000",
        "--n-resamples",
        "20",
        "--out",
        str(out),
        *extra,
    ]


def test_a_killed_audit_resumes_and_pays_for_no_text_twice(env, tmp_path: Path) -> None:
    with FakeServer(key=KEY) as server:
        done = run_cli(audit_args(server, tmp_path / "reference"), env)
        assert done.returncode == 0, done.stderr
        reference = server.answered_texts()
        assert len(reference) > 1900 and len(set(reference)) == len(reference)
        server.reset()

        concurrency = 2  # the openai adapter's default
        server.hold_when(lambda answered: answered >= len(reference) // 2)
        run = subprocess.Popen(
            tactful(*audit_args(server, tmp_path / "run")),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            # Every call in flight is held: those that returned before were committed.
            assert server.wait_held(concurrency, timeout=600), "the audit never got halfway"
        finally:
            run.send_signal(signal.SIGKILL)
            run.wait(timeout=60)
        assert run.returncode == -signal.SIGKILL
        server.hold_when(None)
        server.release()  # the held requests are closed unanswered
        before_kill = server.answered_texts()
        assert 0 < len(before_kill) < len(reference)

        done = run_cli(audit_args(server, tmp_path / "run"), env)
        assert done.returncode == 0, done.stderr
        answered = Counter(server.answered_texts())
        assert max(answered.values()) == 1, "a text was answered twice"
        assert answered == Counter(reference)
        # The same report as the uninterrupted run's.
        got = json.loads((tmp_path / "run" / "report.json").read_text())
        want = json.loads((tmp_path / "reference" / "report.json").read_text())
        assert got == want


def test_one_audit_of_three_remote_apis(env, tmp_path: Path) -> None:
    with FakeServer(key=KEY) as server:
        names = ("openai", "perspective", "llama-guard-3")
        bases = {
            "openai": f"{server.url}/v1",
            "perspective": f"{server.url}/v1alpha1",
            "llama-guard-3": f"{server.url}/v1",
        }
        args = ["audit", "--datasets", "ss_openai", "--limit", "300", "--n-resamples", "20"]
        for name in names:
            args += ["-m", name, "-O", f"{name}.base_url={bases[name]}"]
            args += ["-O", f"{name}.api_key_env={ENV}"]
        args += ["-O", "perspective.qps=null", "--out", str(tmp_path / "out")]
        done = run_cli(args, env)
        assert done.returncode == 0, done.stderr
        report = json.loads((tmp_path / "out" / "report.json").read_text())
        assert [m["name"] for m in report["moderators"]] == list(names)
        assert {s["moderator"] for s in report["summary"]} == set(names)
        assert KEY not in (tmp_path / "out" / "report.json").read_text()
        paths = Counter(e["path"] for e in server.requests())
        assert set(paths) == {
            "/v1/moderations",
            "/v1alpha1/comments:analyze",
            "/v1/chat/completions",
        }


def test_eval_names_a_missing_key_in_one_line(env, tmp_path: Path) -> None:
    env = {k: v for k, v in env.items() if k != ENV}
    done = run_cli(["eval", "toxicchat", "-m", "openai", "-O", f"api_key_env={ENV}"], env)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        (
            f"error: [T045] Moderator 'openai' needs an API key in the environment variable "
            f"${ENV}, which is not set. Set it, or name another variable with -O api_key_env=NAME."
        )
    ]


def test_eval_reports_failed_texts_and_a_rerun_asks_only_them(
    env, data_dir: Path, tmp_path: Path
) -> None:
    with FakeServer(key=KEY) as server:
        base = ["eval", "toxicchat", "--limit", "60", "--json", "-m", "openai"]
        base += ["-O", f"base_url={server.url}/v1", "-O", f"api_key_env={ENV}"]
        base += ["-O", "max_retries=0", "--store", str(tmp_path / "s.sqlite")]
        from tactful.datasets import load_dataset

        texts = [r.text for r in load_dataset("toxicchat", split="test", data_dir=data_dir)][:60]
        server.poison = texts[7][:20]
        failing = [t for t in dict.fromkeys(texts) if server.poison in t]
        done = run_cli(base, env)
        assert done.returncode == 4
        assert json.loads(done.stdout)["failed"] == len(failing)
        assert f"{len(failing)} of 60 texts failed with moderator 'openai'" in done.stderr
        server.reset()
        server.poison = None
        done = run_cli(base, env)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["failed"] == 0
        assert server.answered_texts() == failing
