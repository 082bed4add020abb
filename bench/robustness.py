"""Obfuscation robustness: F1 on clean vs obfuscated test sets, in one run.

For ToxicChat test (toxicity F1, jailbreak recall) and ToxicSpans SemEval-2021
test (span F1), the toxic words of every text are obfuscated with
``tactful.obfuscate`` (seeded), and the moderator is scored on both versions
with the same metric code as ``tactful eval``. Issue 3 asks for a drop of at
most 5 points.

    python bench/robustness.py --moderator builtin [-O model_dir=DIR] [--seed 0] [--limit N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import tactful
from tactful import Span
from tactful.datasets import Record, get_spec, load_dataset
from tactful.evaluate import score
from tactful.obfuscate import obfuscate
from tactful.options import parse_options
from tactful.store import analyze_all


def _obfuscated(records: list[Record], dataset: str, seed: int) -> list[Record]:
    import zlib

    words = None
    if dataset == "toxicchat":
        words = tactful.load("lexicon").analyze([r.text for r in records])
    out = []
    for i, r in enumerate(records):
        spans = (
            [(s.start, s.end) for s in (r.spans or ())]
            if words is None
            else [(s.start, s.end) for s in words[i].spans]
        )
        row_seed = zlib.crc32(f"{seed}:{r.id}".encode())
        text, new = obfuscate(r.text, spans, seed=row_seed)
        gold = tuple(Span(s, e) for s, e in new) if r.spans is not None else None
        out.append(
            Record(r.id, text, r.label, r.split, r.labels, gold, r.groups, r.sub_identities, r.meta)
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--moderator", default="builtin")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument(
        "-O", "--option", action="append", default=[], help="KEY=VALUE, as tactful's -O"
    )
    a = ap.parse_args()
    options = parse_options(a.option, [a.moderator])[a.moderator]
    mod = tactful.load(a.moderator, **options)
    res: dict = {"moderator": a.moderator, "options": options, "seed": a.seed}
    for dataset, metric in (("toxicchat", "f1"), ("toxicspans", "span_f1")):
        spec = get_spec(dataset)
        recs = load_dataset(dataset, "test", a.data_dir)[: a.limit]
        obf = _obfuscated(recs, dataset, a.seed)
        changed = sum(o.text != r.text for o, r in zip(obf, recs))
        for tag, rows in (("clean", recs), ("obfuscated", obf)):
            an = analyze_all(mod, [r.text for r in rows], batch_size=64)
            m = score(rows, an, task=spec.task, moderator=a.moderator)
            res[f"{dataset}_{tag}_{metric}"] = m[metric]
            if "jailbreak_recall" in m:
                res[f"{dataset}_{tag}_jailbreak_recall"] = m["jailbreak_recall"]
        res[f"{dataset}_texts_changed"] = changed
        res[f"{dataset}_drop_points"] = 100 * (
            res[f"{dataset}_clean_{metric}"] - res[f"{dataset}_obfuscated_{metric}"]
        )
    for k, v in res.items():
        print(f"{k:40s} {v:.4f}" if isinstance(v, float) else f"{k:40s} {v}")
    if a.json:
        a.json.write_text(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
