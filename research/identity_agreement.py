"""Agreement of tactful's identity tagger with the speech-suppression paper's own tags.

Tags the texts of the data sets ``ss_openai`` and ``ss_stormfront`` (the paper's
``speech_suppression/openai_moderation_with_identities.csv`` and
``stormfront_with_identities.csv``, read by :mod:`tactful.datasets`) and compares the
groups with the paper's own ``Big_identity`` tags (``Record.groups``, mapped by the
one identity vocabulary), per group (accuracy, precision, recall, support). Also
prints the tagging speed.

Usage::

    python research/identity_agreement.py [--data-dir DIR] [--format text|markdown]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tactful.config import resolve_data_dir
from tactful.datasets import load_dataset
from tactful.errors import TactfulError
from tactful.identity import IdentityTagger, agreement

#: shown name → the data set with the paper's tags
SETS = {"openai_moderation": "ss_openai", "stormfront": "ss_stormfront"}


def measure(data_dir: Path, name: str) -> tuple[pd.DataFrame, float]:
    """The agreement table of one data set and the tagging speed in texts per second."""
    records = load_dataset(SETS[name], data_dir=data_dir)
    texts = [r.text for r in records]
    gold = [r.groups for r in records]
    tagger = IdentityTagger()
    tagger.tag("warm-up")  # reading the lexicon is not tagging time
    start = time.perf_counter()
    tags = tagger.tag_many(texts)
    speed = len(texts) / (time.perf_counter() - start)
    return agreement([t.groups for t in tags], gold), speed


def render(table: pd.DataFrame, fmt: str) -> str:
    shown = table.copy()
    for col in ("accuracy", "precision", "recall"):
        shown[col] = [("n/a" if pd.isna(v) else f"{v:.3f}") for v in shown[col]]
    if fmt == "text":
        return shown.to_string(index=False)
    head = "| " + " | ".join(shown.columns) + " |"
    rule = "|" + "|".join("---" for _ in shown.columns) + "|"
    body = ["| " + " | ".join(str(v) for v in row) + " |" for row in shown.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data-dir", default=None, help="data folder (default: $TACTFUL_DATA or ../shared/data)"
    )
    parser.add_argument("--format", choices=("text", "markdown"), default="text")
    args = parser.parse_args(argv)
    data_dir = resolve_data_dir(args.data_dir)
    try:
        for name in SETS:
            table, speed = measure(data_dir, name)
            print(f"\n{name}: {int(table['n'].iloc[0])} texts, tagged at {speed:,.0f} texts/s")
            print(render(table, args.format))
    except TactfulError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
