"""Throughput of the ``ray`` engine against the ``local`` engine, and that both agree.

Runs one moderator (default ``builtin``) over the ToxicChat 0124 test texts
(2,853) twice through :func:`tactful.store.analyze_all`, each time into a fresh
result store: once with ``engine="local"`` (the baseline) and once with
``engine="ray"`` (Ray Data ``map_batches``, one moderator per actor, on a
local Ray with ``--cpus`` CPUs, or on the cluster named by ``RAY_ADDRESS``).
The Ray time includes starting the actors and loading one moderator in each,
not starting Ray itself.

Prints texts/s of each, the ratio ray/local, the machine's load average before
and after (the machine may be shared: say how busy it was), and checks that
every stored answer is identical (exit code 1 otherwise).

    python bench/ray_engine.py [-m builtin] [--limit N] [--cpus 2] [--batch-size 64] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path


def stored(path: Path) -> list[tuple[str, str, str | None]]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT text_sha256, status, analysis FROM answers").fetchall()
    return sorted(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-m", "--moderator", default="builtin")
    parser.add_argument("--limit", type=int, default=None, help="first N test texts only")
    parser.add_argument("--cpus", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()

    import ray

    import tactful
    from tactful.datasets import load_dataset
    from tactful.store import analyze_all

    texts = [r.text for r in load_dataset("toxicchat", split="test", data_dir=args.data_dir)]
    texts = texts[: args.limit] if args.limit else texts
    mod = tactful.load(args.moderator)
    load_before = os.getloadavg()
    if os.environ.get("RAY_ADDRESS"):
        ray.init()
    else:
        ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
    figures: dict[str, object] = {
        "moderator": args.moderator,
        "n": len(texts),
        "batch_size": args.batch_size,
        "ray_cpus": int(ray.cluster_resources().get("CPU", 0)),
        "machine_cpus": os.cpu_count(),
    }
    with tempfile.TemporaryDirectory() as tmp:
        times = {}
        for engine in ("local", "ray"):
            path = Path(tmp) / f"{engine}.sqlite"
            start = time.perf_counter()
            analyze_all(mod, texts, store=path, batch_size=args.batch_size, engine=engine)
            times[engine] = time.perf_counter() - start
            print(
                f"{engine}: {len(texts)} texts in {times[engine]:.1f} s "
                f"({len(texts) / times[engine]:.2f} texts/s)",
                flush=True,
            )
        identical = stored(Path(tmp) / "local.sqlite") == stored(Path(tmp) / "ray.sqlite")
    ray.shutdown()
    load_after = os.getloadavg()
    figures |= {
        "local_seconds": round(times["local"], 2),
        "ray_seconds": round(times["ray"], 2),
        "local_texts_per_s": round(len(texts) / times["local"], 3),
        "ray_texts_per_s": round(len(texts) / times["ray"], 3),
        "ratio_ray_over_local": round(times["local"] / times["ray"], 3),
        "identical": identical,
        "loadavg_1_5_15_before": [round(x, 2) for x in load_before],
        "loadavg_1_5_15_after": [round(x, 2) for x in load_after],
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    if not identical:
        print("error: the ray engine's answers differ from the local engine's", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
