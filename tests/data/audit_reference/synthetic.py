"""A synthetic, deterministic audit: six fake data sets, three fake moderators.

``report.json`` beside this file was written by the audit code *before* the runner
was split into parts (commit f8c4fdd)::

    git archive f8c4fdd | tar -x -C /work/ref_audit
    PYTHONPATH=/work/ref_audit/src python tests/data/audit_reference/synthetic.py OUT

``tests/test_audit_runner.py::test_same_figures_as_before_the_split`` runs the same
audit with the current code and compares the bytes. Nothing here reads the shared
data folder: the records are made below and served by a patched
``tactful.datasets.load_dataset``; the moderators are plain classes.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: Parameters of the reference run.
N_RESAMPLES = 200
SEED = 0

# (words that make the identity tagger find a group, the group the paper would tag)
_TOPICS = (
    ("women", "women"),
    ("men", "men"),
    ("gay people", "lgbt"),
    ("muslims", "non-christian"),
    ("christians", "christian"),
    ("black people", "non-white"),
    ("white people", "white"),
    ("wheelchair users", "disability"),
    ("the weather", None),
    ("my garden", None),
    ("football", None),
)
_FILLERS = ("today", "again and again", "in the city", "at home this week", "online")


def _text(i: int, tag: str) -> tuple[str, str | None, bool]:
    """Text i of a data set: its topic group, and whether it carries the word FLAG."""
    words, group = _TOPICS[(i * 7 + len(tag)) % len(_TOPICS)]
    filler = _FILLERS[(i * 3) % len(_FILLERS)]
    flagged = (i * 5 + len(tag)) % 7 in (0, 3) or (group in ("lgbt", "non-white") and i % 3 == 0)
    word = "FLAG " if flagged else ""
    return f"{tag} {i}: {word}a note about {words} {filler}", group, flagged


def records() -> dict[str, list[Any]]:
    """The fake records of every audit data set (60 or 40 rows each)."""
    from tactful.datasets import Record

    out: dict[str, list[Any]] = {}
    for name, tag, n, tagged in (
        ("ss_jigsaw_bias", "jigsaw", 60, True),
        ("ss_stormfront", "storm", 60, True),
        ("ss_tweeteval_hate", "hate", 60, False),
        ("ss_tweeteval_offensive", "offense", 40, False),
    ):
        rows = []
        for i in range(n):
            text, group, _ = _text(i, tag)
            label = 1 if i % 6 == 1 else 0
            groups = (group,) if tagged and group else ()
            rows.append(Record(str(i), text, label, "all", groups=groups))
        out[name] = rows

    cats = ("S", "H", "V", "HR", "SH", "S3", "H2", "V2")
    rows = []
    for i in range(50):
        text, group, _ = _text(i, "openai")
        labels = {
            c: (None if (i + k) % 9 == 0 else int((i + 2 * k) % 8 == 0)) for k, c in enumerate(cats)
        }
        toxic = int(any(v for v in labels.values()))
        rows.append(
            Record(str(i), text, toxic, "all", labels=labels, groups=(group,) if group else ())
        )
    out["ss_openai"] = rows

    rows = []
    for i in range(40):
        text, group, _ = _text(i, "tv")
        pg13 = 0 if i % 5 == 2 else 1
        pg = 0 if (pg13 == 0 or i % 4 == 1) else 1
        labels = {"pg_ok": None if i % 13 == 12 else pg, "pg13_ok": pg13}
        rows.append(
            Record(str(i), text, 1 - pg13, "all", labels=labels, groups=(group,) if group else ())
        )
    out["tv_synopses"] = rows
    return out


class FlagWord:
    """Flags texts with FLAG; scores 0.9 for those, else 0.05 + 0.01 per word."""

    name = "flagword"
    version = "1"

    def config(self) -> dict[str, Any]:
        return {"word": "FLAG"}

    def analyze(self, texts: list[str]) -> list[Any]:
        from tactful import Analysis

        return [
            Analysis(
                flagged="FLAG" in t,
                scores={"toxicity": 0.9 if "FLAG" in t else 0.05 + 0.01 * len(t.split())},
            )
            for t in texts
        ]


class NoScores(FlagWord):
    """Flags only: the audit gives it no score tables and no score regression."""

    name = "noscores"

    def analyze(self, texts: list[str]) -> list[Any]:
        from tactful import Analysis

        return [Analysis(flagged=a.flagged) for a in super().analyze(texts)]


class ZeroScores(FlagWord):
    """Like the lexicon: scores of 0 unless flagged, so no score ratio is defined."""

    name = "zeroscores"

    def analyze(self, texts: list[str]) -> list[Any]:
        from tactful import Analysis

        return [
            Analysis(flagged=a.flagged, scores={"toxicity": 1.0 if a.flagged else 0.0})
            for a in super().analyze(texts)
        ]


@contextmanager
def patched_loader() -> Iterator[dict[str, list[Any]]]:
    """``tactful.datasets.load_dataset`` serving :func:`records` while inside."""
    import tactful.datasets

    data = records()
    original = tactful.datasets.load_dataset

    def load_dataset(name: str, split: str | None = None, data_dir: Any = None) -> list[Any]:
        return list(data[name])

    tactful.datasets.load_dataset = load_dataset  # type: ignore[assignment]
    try:
        yield data
    finally:
        tactful.datasets.load_dataset = original  # type: ignore[assignment]


def run(out: Path) -> dict[str, Any]:
    """The reference audit into ``out`` (a fresh store there)."""
    from tactful.audit import run_audit

    with patched_loader():
        return run_audit(  # type: ignore[no-any-return]
            [FlagWord(), NoScores(), ZeroScores()],
            datasets="traditional,genai",
            data_dir=out / "no-data",  # no files: the rows memo is not used
            out=out,
            store=out / "store.sqlite",
            n_resamples=N_RESAMPLES,
            seed=SEED,
            progress=False,
        )


if __name__ == "__main__":
    run(Path(sys.argv[1]))
