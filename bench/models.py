"""Speed of tactful's models against a baseline model, in one run (issue 11 item 5).

    python bench/models.py --baseline-rev 2ac0eec [-m builtin] [-m builtin-large]
                           [--limit N] [--rounds 3] [--json out.json]

The baseline is a model folder: ``--baseline-dir DIR``, or the packaged
``builtin`` folder as it was at the git revision ``--baseline-rev`` (model 1.2.0
at 2ac0eec), extracted with ``git archive`` into a temporary folder. Each
``-m NAME`` is a packaged model (``builtin``, ``builtin-large``),
``NAME=DIR`` for another model folder of the same runtime, or
``builtin-cascade`` (the packaged models, cascaded with the default bands).

Every model analyses the ToxicChat 0124 test texts (all 2,853, or the first
``--limit``) with ``Moderator.analyze`` — the whole analysis: normalization,
windows, onnxruntime, spans — in its default settings, and, for a model whose
card says ``"quantization": "weights"`` (batch-invariant), again with
``batching="sorted"`` (padded, length-sorted batches across texts). The rounds
are interleaved (baseline, model, ... then again), so a machine that gets busier
slows every model alike; each figure is the median over ``--rounds``. Printed
per model: texts/s (wall clock), CPU ms per text, the ratio of texts/s to the
baseline's, and F1 of ``flagged`` against the ToxicChat toxicity labels
(as a check that the models did their work, not a selection figure).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

import numpy as np

import tactful
from tactful.datasets import load_dataset
from tactful.metrics import precision_recall_f1
from tactful.moderators.builtin import load_card

PACKAGED_PATH = "src/tactful/models/builtin"


def extract_model(rev: str, into: Path) -> Path:
    """The packaged builtin model folder at git revision ``rev``, written to ``into``."""
    repo = Path(__file__).resolve().parent.parent
    try:
        blob = subprocess.run(
            ["git", "-C", str(repo), "archive", "--format=tar", rev, PACKAGED_PATH],
            check=True,
            capture_output=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        err = getattr(exc, "stderr", b"") or b""
        raise SystemExit(
            f"error: cannot read {PACKAGED_PATH} at {rev}: {err.decode().strip() or exc}"
        ) from None
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        tar.extractall(into, filter="data")
    return into / PACKAGED_PATH


def _entries(args: argparse.Namespace, tmp: Path) -> list[tuple[str, str, dict[str, object]]]:
    """(label, registered name, options) per configuration, the baseline first."""
    base_dir = args.baseline_dir or extract_model(args.baseline_rev, tmp)
    base_card = load_card(base_dir)
    out = [(f"baseline {base_card.get('version')}", "builtin", {"model_dir": str(base_dir)})]
    for spec in args.model:
        name, _, folder = spec.partition("=")
        if name == "builtin-cascade":  # the packaged models, no card of its own
            out.append((name, name, {}))
            continue
        opts: dict[str, object] = {"model_dir": folder} if folder else {}
        card = load_card(folder or None, name)
        label = f"{name} {card.get('version')}" + (f" ({folder})" if folder else "")
        out.append((label, name, opts))
        if card.get("quantization") == "weights":
            out.append((f"{label}, batching=sorted", name, {**opts, "batching": "sorted"}))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline-rev", default="2ac0eec", help="git revision of the baseline")
    ap.add_argument("--baseline-dir", type=Path, default=None, help="baseline model folder")
    ap.add_argument("-m", "--model", action="append", default=None, help="NAME or NAME=DIR")
    ap.add_argument("--limit", type=int, default=None, help="only the first N test texts")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    args.model = args.model or ["builtin"]
    rows = load_dataset("toxicchat", "test")[: args.limit]
    texts = [r.text for r in rows]
    y = np.array([r.label for r in rows])
    with tempfile.TemporaryDirectory() as tmp:
        entries = _entries(args, Path(tmp))
        mods = [(label, tactful.load(name, **opts).load()) for label, name, opts in entries]
        for _, mod in mods:
            mod.analyze(texts[:20])  # warm-up: sessions, allocator
        wall: dict[str, list[float]] = {label: [] for label, _ in mods}
        cpu: dict[str, list[float]] = {label: [] for label, _ in mods}
        f1: dict[str, float] = {}
        for r in range(args.rounds):
            for label, mod in mods:
                t0, c0 = time.perf_counter(), time.process_time()
                out = mod.analyze(texts)
                wall[label].append(time.perf_counter() - t0)
                cpu[label].append(time.process_time() - c0)
                f1[label] = precision_recall_f1(y, np.array([a.flagged for a in out]))["f1"]
                print(f"round {r + 1}: {label}: {wall[label][-1]:.1f} s", file=sys.stderr)
    base = entries[0][0]
    base_rate = len(texts) / statistics.median(wall[base])
    report = []
    for label, _ in mods:
        rate = len(texts) / statistics.median(wall[label])
        report.append(
            {
                "model": label,
                "texts_per_s": round(rate, 1),
                "cpu_ms_per_text": round(1000 * statistics.median(cpu[label]) / len(texts), 1),
                "speed_vs_baseline": round(rate / base_rate, 2),
                "f1": round(f1[label], 4),
            }
        )
    print(
        f"{len(texts)} ToxicChat test texts, {os.cpu_count()} CPUs, "
        f"median of {args.rounds} interleaved rounds; baseline: {base}"
    )
    print("| model | texts/s | CPU ms/text | speed vs baseline | F1 (flagged) |")
    print("|---|---|---|---|---|")
    for e in report:
        print(
            f"| {e['model']} | {e['texts_per_s']} | {e['cpu_ms_per_text']} | "
            f"{e['speed_vs_baseline']}× | {e['f1']:.3f} |"
        )
    if args.json:
        args.json.write_text(json.dumps({"texts": len(texts), "rows": report}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
