"""Load test of ``tactful serve``: single-text requests, micro-batching on and off, one run.

For each server configuration (micro-batching on/off, and the worker counts
asked for) the script starts ``tactful serve -m builtin`` on 127.0.0.1 and
measures, with ToxicChat 0124 test prompts in turn (not one repeated text):

* closed loop: ``wrk`` (C, one thread) with ``bench/load.lua`` cycling the
  request bodies, at concurrency 1, 8 and 32: requests/s, p50 and p99 latency;
* open loop: a fixed arrival rate (default 150 requests/s for 30 s) from a
  small asyncio generator on raw sockets (wrk has no fixed-rate mode). Latency
  is measured from each request's *scheduled* time, so a server that falls
  behind is charged for the queue it builds (no coordinated omission).

Before the server runs, two baselines are measured in the same run: the
machine's single-thread float32 matmul speed (numpy, 512 x 512), and the model
alone (``builtin.analyze([text])`` in-process, CPU per text), which gives the
ceiling no server can pass: CPUs x 1000 / (ms per text) texts/s.

Both generators' CPU time is reported next to the server's, so their share of
the two cores is visible. The machine's load average before each step is
printed too: figures taken on a busy machine are provisional.

    python bench/load.py [--workers 1,2] [--duration 20] [--rate 150] [--open-seconds 30]
                         [--json out.json]

Needs ``wrk`` (``apt-get install wrk``) and the shared data folder
(``$TACTFUL_DATA`` or ``../shared/data``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np

HERE = Path(__file__).resolve().parent
LUA = HERE / "load.lua"
TICKS = os.sysconf("SC_CLK_TCK")


# ----------------------------------------------------------------------------- helpers


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def tree_cpu_seconds(pid: int) -> float:
    """utime + stime of ``pid`` and its children (uvicorn workers), from /proc."""
    total = 0.0
    pids = {pid}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            if int(fields[1]) == pid:  # ppid
                pids.add(int(entry.name))
    for p in pids:
        try:
            stat = Path(f"/proc/{p}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        total += (int(fields[11]) + int(fields[12])) / TICKS
    return total


def bodies_file(folder: Path, limit: int | None) -> tuple[Path, list[bytes]]:
    from tactful.datasets import load_dataset

    texts = [r.text for r in load_dataset("toxicchat", split="test")]
    if limit:
        texts = texts[:limit]
    bodies = [json.dumps({"input": t, "model": "builtin"}).encode("ascii") for t in texts]
    path = folder / "bodies.jsonl"
    path.write_bytes(b"\n".join(bodies) + b"\n")
    return path, bodies


class Server:
    """``tactful serve`` in a subprocess."""

    def __init__(
        self, port: int, labels: Path, *, workers: int, batching: bool, concurrency: int
    ) -> None:
        cmd = [
            sys.executable,
            "-m",
            "tactful",
            "serve",
            "-m",
            "builtin",
            "--port",
            str(port),
            "--labels",
            str(labels),
            "--workers",
            str(workers),
            "--micro-batching" if batching else "--no-micro-batching",
            "--max-queue",
            "1024",
            "--concurrency",
            str(concurrency),
        ]
        if workers > 1:
            cmd += ["-O", "threads=1"]  # one core per process
        self.url = f"http://127.0.0.1:{port}"
        # A session of its own: stop() can end the uvicorn workers with their parent.
        self.proc = subprocess.Popen(
            cmd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )

    def wait_ready(self, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {self.proc.stderr.read()[-2000:]}")
            try:
                if httpx.get(self.url + "/readyz", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError("the server was not ready in time")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        # Whatever is left of the server's session (workers, their resource tracker).
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


# ----------------------------------------------------------------------------- closed loop


def closed_loop(url: str, bodies: Path, concurrency: int, seconds: int) -> dict[str, Any]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [
            "wrk",
            "-t1",
            f"-c{concurrency}",
            f"-d{seconds}s",
            "--timeout",
            "10s",
            "-s",
            str(LUA),
            url,
            "--",
            str(bodies),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    match = re.search(r"^WRK_JSON (.*)$", out, re.MULTILINE)
    if match is None:
        raise RuntimeError(f"wrk printed no summary:\n{out}")
    r = json.loads(match.group(1))
    errors = sum(r["errors"].values())
    return {
        "concurrency": concurrency,
        "requests": r["requests"],
        "rps": r["requests"] / (r["duration_us"] / 1e6),
        "p50_ms": r["latency_us"]["p50"] / 1000,
        "p90_ms": r["latency_us"]["p90"] / 1000,
        "p99_ms": r["latency_us"]["p99"] / 1000,
        "max_ms": r["latency_us"]["max"] / 1000,
        "errors": errors,
        "generator_cpu_s": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
    }


# ----------------------------------------------------------------------------- open loop


async def _exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes
) -> tuple[int, bool]:
    """Send one request on a connection; (status, the server closes the connection)."""
    writer.write(request)
    status_line = await reader.readuntil(b"\r\n")
    status = int(status_line.split()[1])
    length, close = 0, False
    while True:
        line = await reader.readuntil(b"\r\n")
        if line == b"\r\n":
            break
        name, _, value = line.decode("latin-1").partition(":")
        name = name.strip().lower()
        if name == "content-length":
            length = int(value)
        elif name == "connection" and value.strip().lower() == "close":
            close = True
    await reader.readexactly(length)
    return status, close


async def _one(
    port: int, body: bytes, idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]
) -> int:
    request = (
        f"POST /v1/moderations HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode("ascii") + body
    while idle:
        reader, writer = idle.pop()
        try:
            status, close = await _exchange(reader, writer, request)
        except (OSError, EOFError):
            writer.close()  # the server closed this idle connection: take another
            continue
        break
    else:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        status, close = await _exchange(reader, writer, request)
    if close:
        writer.close()
    else:
        idle.append((reader, writer))
    return status


async def _open_loop(port: int, bodies: list[bytes], rate: float, seconds: float) -> dict[str, Any]:
    idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    n = int(rate * seconds)
    loop = asyncio.get_running_loop()
    start = loop.time() + 0.2
    latencies: list[float] = []
    statuses: dict[str, int] = {}

    async def fire(i: int) -> None:
        due = start + i / rate
        delay = due - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        try:
            status = await asyncio.wait_for(_one(port, bodies[i % len(bodies)], idle), 30)
            key = str(status)
        except TimeoutError:
            key = "timeout"
        except (OSError, EOFError, ValueError) as exc:  # refused, reset, cut or garbled
            key = type(exc).__name__
        statuses[key] = statuses.get(key, 0) + 1
        if key == "200":
            latencies.append(loop.time() - due)

    t0 = time.perf_counter()
    await asyncio.gather(*(fire(i) for i in range(n)))
    wall = time.perf_counter() - t0
    for _, writer in idle:
        writer.close()
    lat = np.array(latencies) * 1000 if latencies else np.array([np.nan])
    ok = statuses.get("200", 0)
    return {
        "rate": rate,
        "seconds": seconds,
        "sent": n,
        "ok": ok,
        "achieved_rps": ok / wall,
        "p50_ms": float(np.percentile(lat, 50)),
        "p90_ms": float(np.percentile(lat, 90)),
        "p99_ms": float(np.percentile(lat, 99)),
        "max_ms": float(np.max(lat)),
        "errors": n - ok,
        "statuses": statuses,
    }


def open_loop(port: int, bodies: list[bytes], rate: float, seconds: float) -> dict[str, Any]:
    before = resource.getrusage(resource.RUSAGE_SELF)
    result = asyncio.run(_open_loop(port, bodies, rate, seconds))
    after = resource.getrusage(resource.RUSAGE_SELF)
    result["generator_cpu_s"] = (after.ru_utime + after.ru_stime) - (
        before.ru_utime + before.ru_stime
    )
    return result


# ----------------------------------------------------------------------------- baseline


def model_alone(bodies: list[bytes], n: int) -> dict[str, Any]:
    """CPU per text of ``builtin.analyze([text])`` in this process (the server's floor).

    Measured in the same run as the server, so that on a busy machine both
    are inflated alike and their ratio still says what the service adds.
    """
    import tactful

    texts = [json.loads(b)["input"] for b in bodies[:n]]
    mod = tactful.load("builtin", threads=1).load()
    mod.analyze(texts[:5])
    t0, c0 = time.perf_counter(), time.process_time()
    for t in texts:
        mod.analyze([t])
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    per_text = 1000 * cpu / len(texts)
    return {
        "texts": len(texts),
        "cpu_ms_per_text": per_text,
        # No server can answer faster than the model computes on every core.
        "ceiling_texts_per_s": (os.cpu_count() or 1) * 1000 / per_text,
        "wall_s": wall,
        "loadavg_before": loadavg(),
    }


def machine_gflops(n: int = 512, repeats: int = 40) -> float:
    """Single-thread float32 matrix-multiply speed (numpy, n x n): how fast this CPU is.

    The model's cost is mostly such products, so this figure lets a reader
    compare a run here with a run on another machine.
    """
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    a, b = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    with threadpool_limits(1):
        a @ b
        t0 = time.perf_counter()
        for _ in range(repeats):
            a @ b
        return 2 * n**3 * repeats / (time.perf_counter() - t0) / 1e9


# ----------------------------------------------------------------------------- main


def run_config(
    workers: int,
    batching: bool,
    bodies_path: Path,
    bodies: list[bytes],
    args: argparse.Namespace,
    folder: Path,
) -> dict[str, Any]:
    port = free_port()
    # Model calls in flight per process: one per core the process has.
    concurrency = max(1, (os.cpu_count() or 1) // workers)
    server = Server(
        port,
        folder / f"labels-{workers}-{batching}.sqlite",
        workers=workers,
        batching=batching,
        concurrency=concurrency,
    )
    name = f"workers={workers} calls={concurrency} batching={'on' if batching else 'off'}"
    try:
        server.wait_ready()
        with httpx.Client(base_url=server.url, timeout=30) as c:  # warm-up: every worker
            for b in bodies[:20]:
                c.post("/v1/moderations", content=b, headers={"content-type": "application/json"})
        out: dict[str, Any] = {
            "config": name,
            "workers": workers,
            "micro_batching": batching,
            "closed": [],
            "open": None,
        }
        for conc in args.concurrency:
            load = loadavg()
            cpu0 = tree_cpu_seconds(server.proc.pid)
            r = closed_loop(server.url, bodies_path, conc, args.duration)
            r["server_cpu_s"] = tree_cpu_seconds(server.proc.pid) - cpu0
            r["server_cpu_ms_per_request"] = 1000 * r["server_cpu_s"] / max(1, r["requests"])
            r["loadavg_before"] = load
            out["closed"].append(r)
            print(
                f"{name:34s} closed c={conc:<3d} {r['rps']:7.1f} req/s  p50 {r['p50_ms']:7.1f} ms"
                f"  p99 {r['p99_ms']:7.1f} ms  errors {r['errors']}  server cpu "
                f"{r['server_cpu_s'] / args.duration:4.2f} cores "
                f"({r['server_cpu_ms_per_request']:.1f} ms/request)  wrk cpu "
                f"{r['generator_cpu_s'] / args.duration:4.2f}  (load {load})",
                flush=True,
            )
        load = loadavg()
        cpu0 = tree_cpu_seconds(server.proc.pid)
        r = open_loop(port, bodies, args.rate, args.open_seconds)
        r["server_cpu_s"] = tree_cpu_seconds(server.proc.pid) - cpu0
        r["loadavg_before"] = load
        out["open"] = r
        print(
            f"{name:34s} open {args.rate:g}/s x {args.open_seconds:g} s: {r['achieved_rps']:7.1f} "
            f"req/s  p50 {r['p50_ms']:7.1f} ms  p99 {r['p99_ms']:7.1f} ms  errors {r['errors']} "
            f"{r['statuses']}  server cpu {r['server_cpu_s'] / args.open_seconds:4.2f} cores  "
            f"generator cpu {r['generator_cpu_s'] / args.open_seconds:4.2f}  (load {load})",
            flush=True,
        )
        return out
    finally:
        server.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", default="1,2", help="Worker counts to measure (comma-separated).")
    ap.add_argument("--duration", type=int, default=20, help="Seconds per closed-loop step.")
    ap.add_argument("--concurrency", default="1,8,32", help="Closed-loop concurrencies.")
    ap.add_argument("--rate", type=float, default=150.0, help="Open-loop arrivals per second.")
    ap.add_argument("--open-seconds", type=float, default=30.0, help="Open-loop duration.")
    ap.add_argument("--limit", type=int, default=None, help="Use only the first N prompts.")
    ap.add_argument(
        "--baseline", type=int, default=300, help="Prompts for the model-alone CPU figure."
    )
    ap.add_argument("--json", type=Path, default=None, help="Write all figures here.")
    args = ap.parse_args()
    args.concurrency = [int(c) for c in args.concurrency.split(",")]
    if shutil.which("wrk") is None:
        sys.exit("error: wrk is not installed (apt-get install wrk)")
    with tempfile.TemporaryDirectory(prefix="tactful-load-") as tmp:
        folder = Path(tmp)
        bodies_path, bodies = bodies_file(folder, args.limit)
        print(
            f"{len(bodies)} ToxicChat test prompts in turn; {os.cpu_count()} CPUs; "
            f"load {loadavg()}",
            flush=True,
        )
        gflops = machine_gflops()
        base = model_alone(bodies, args.baseline)
        print(
            f"machine: {gflops:.1f} GFLOP/s float32 matmul on one thread (numpy 512x512)\n"
            f"model alone (builtin, 1 thread, in-process): {base['cpu_ms_per_text']:.1f} ms CPU "
            f"per text over the first {base['texts']} prompts (load {base['loadavg_before']}); "
            f"ceiling on {os.cpu_count()} CPUs: {base['ceiling_texts_per_s']:.1f} texts/s",
            flush=True,
        )
        results = []
        for workers in (int(w) for w in args.workers.split(",")):
            for batching in (True, False):
                results.append(run_config(workers, batching, bodies_path, bodies, args, folder))
    report = {
        "prompts": len(bodies),
        "cpus": os.cpu_count(),
        "machine_gflops_1thread": gflops,
        "model_alone": base,
        "results": results,
        "command": " ".join(sys.argv),
    }
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
