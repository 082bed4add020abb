"""Agreement of tactful's identity tagger with the speech-suppression paper's own tags.

Tags the texts of ``speech_suppression/openai_moderation_with_identities.csv`` (column
``prompt``) and ``stormfront_with_identities.csv`` (column ``Sentence``) and compares
the groups with the paper's ``Big_identity`` column, per group (accuracy, precision,
recall, support). Also prints the tagging speed.

Usage::

    python scripts/identity_agreement.py [--data-dir DIR] [--format text|markdown]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tactful.config import resolve_data_dir
from tactful.errors import MissingDataError, TactfulError
from tactful.identity import IdentityTagger, agreement, parse_paper_groups

#: data set → (file under speech_suppression/, text column)
SETS = {
    "openai_moderation": ("openai_moderation_with_identities.csv", "prompt"),
    "stormfront": ("stormfront_with_identities.csv", "Sentence"),
}


def measure(data_dir: Path, name: str) -> tuple[pd.DataFrame, float]:
    """The agreement table of one data set and the tagging speed in texts per second."""
    file, column = SETS[name]
    path = data_dir / "speech_suppression" / file
    if not path.is_file():
        raise MissingDataError(
            f"Looked in {data_dir / 'speech_suppression'} for {file}: not found."
        )
    frame = pd.read_csv(path, keep_default_na=False)
    texts = frame[column].astype(str).tolist()
    gold = [parse_paper_groups(v) for v in frame["Big_identity"]]
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
