#!/usr/bin/env python3
"""Regenerate ``src/tactful/data/lexicon.json``, the lexicon of the ``lexicon`` moderator.

Usage::

    python scripts/build_lexicon.py [--data-dir ../shared/data] [--out src/tactful/data/lexicon.json]

What goes in (all paths relative to the data folder):

* ``toxicspans/semeval2021/tsd_train.csv``: every lower-cased token with its
  number of training occurrences and of *toxic* occurrences (gold offsets cover
  more than half of the token's characters). Tokens never marked toxic are left
  out: no ``min_ratio > 0`` can keep them.
* ``toxicspans/{comments,annotations,spans}.csv`` (rater level, optional): the
  label of a learned word is the majority rater span type (insult, threat,
  identity attack, profanity, other) over its toxic training occurrences; only
  the raters of the training posts are read. Without these files learned words
  get the label ``"toxic"``.
* ``speech_suppression/lexicon/slur_identity_terms.csv``: slur terms, label
  ``identity_attack``, minus :data:`SLUR_EXCLUDED` (ordinary words, names and
  neutral identity words that the list also carries).
* :data:`PROFANITY`, a hand-curated list (``tactful/data/words/vocabulary.tsv``, the
  words with the use ``lexicon``), label ``profanity``.
* ``toxicspans/semeval2021/tsd_trial.csv``: only to report span F1 of candidate
  settings (``selection.trial`` in the file); the test split is never read.

The file records the SHA-256 of every input. Written to its default place, the new
file is pinned in ``src/tactful/data/manifest.json`` (:func:`tactful.wordlists.pin`);
elsewhere its SHA-256 is only printed.
"""

from __future__ import annotations

import argparse
import ast
import csv
import hashlib
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

from tactful.align import WORD_PATTERN
from tactful.config import resolve_data_dir
from tactful.datasets import RATER_TYPE_ALIASES
from tactful.errors import DataError, MissingDataError, TactfulError
from tactful.metrics import span_f1
from tactful.moderators.lexicon import (
    LEXICON_FORMAT,
    TermEntry,
    find_spans,
    select_terms,
    tokenize,
)
from tactful.wordlists import data_path, pin, sha256_file, slur_exclusions, words

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "src" / "tactful" / "data" / "lexicon.json"

TRAIN = "toxicspans/semeval2021/tsd_train.csv"
TRIAL = "toxicspans/semeval2021/tsd_trial.csv"
COMMENTS = "toxicspans/comments.csv"
ANNOTATIONS = "toxicspans/annotations.csv"
RATER_SPANS = "toxicspans/spans.csv"
SLURS = "speech_suppression/lexicon/slur_identity_terms.csv"

#: Settings whose trial span F1 is recorded; min_ratio is fixed at 0.5 by the issue.
MIN_RATIO = 0.5
MIN_COUNTS = (1, 2, 3, 5)

#: Profanity and obscenity, spelled out and in the common starred forms: the words
#: of tactful/data/words/vocabulary.tsv with the use "lexicon" (vulgar in almost any
#: context: "hell" and "screw" are not), shared with tactful.normalize.
PROFANITY = words("lexicon")

#: Terms of the slur list left out of the lexicon, by reason
#: (tactful/data/words/slur_exclusions.tsv). Marking these would flag ordinary or
#: neutral text, including people naming their own identity, which is the speech
#: suppression the audit measures.
SLUR_EXCLUDED = slur_exclusions()


def need(data_dir: Path, rel: str) -> Path:
    path = data_dir / rel
    if not path.is_file():
        raise MissingDataError(f"Data file {rel} not found in data folder {data_dir}.")
    return path


def read_tsd(path: Path) -> list[tuple[frozenset[int], str]]:
    """SemEval-2021 Task 5 rows as (gold offsets, text)."""
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    try:
        return [(frozenset(json.loads(r["spans"])), r["text"]) for r in rows]
    except (KeyError, ValueError) as exc:
        raise DataError(
            f"{path} is not a SemEval-2021 toxic spans file (spans,text): {exc}"
        ) from None


def term_key(term: str) -> tuple[str, ...]:
    return tuple(tok[2] for tok in tokenize(term))


def read_slurs(path: Path) -> set[tuple[str, ...]]:
    excluded = {term_key(t) for group in SLUR_EXCLUDED.values() for t in group}
    terms: set[tuple[str, ...]] = set()
    with path.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            for term in ast.literal_eval(row["Terms"]):
                key = term_key(term)
                if key and key not in excluded:
                    terms.add(key)
    return terms


# Ties go to the first label in this order.
LABEL_ORDER = ("insult", "profanity", "identity_attack", "threat", "other")


def read_rater_spans(
    data_dir: Path, texts: Iterable[str]
) -> dict[str, list[tuple[int, int, str]]] | None:
    """Rater spans (start, end, label) of the given texts, or None if the files are absent."""
    paths = [data_dir / rel for rel in (COMMENTS, ANNOTATIONS, RATER_SPANS)]
    if not all(p.is_file() for p in paths):
        return None
    wanted = set(texts)
    ids: dict[str, str] = {}
    with paths[0].open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["comment_text"] in wanted:
                ids[row["comment_id"]] = row["comment_text"]
    ann: dict[str, str] = {}
    with paths[1].open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["comment_id"] in ids:
                ann[row["annotation"]] = ids[row["comment_id"]]
    out: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    with paths[2].open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            # Every spelling of a type (tactful.datasets.RATER_TYPE_ALIASES); a blank
            # type marks toxic characters but gives no label vote here.
            kind = row["type"].strip().lower()
            label = RATER_TYPE_ALIASES.get(kind) if kind else None
            if row["annotation"] in ann and label:
                out[ann[row["annotation"]]].append((int(row["start"]), int(row["end"]), label))
    return out


def count_terms(
    posts: Sequence[tuple[frozenset[int], str]],
    phrases: set[tuple[str, ...]],
    rater: dict[str, list[tuple[int, int, str]]] | None,
) -> tuple[Counter, Counter, dict[tuple[str, ...], Counter]]:
    """Occurrences, toxic occurrences and rater-label votes per term."""
    total: Counter = Counter()
    toxic: Counter = Counter()
    votes: dict[tuple[str, ...], Counter] = defaultdict(Counter)
    lengths = sorted({len(p) for p in phrases if len(p) > 1})
    for gold, text in posts:
        tokens = tokenize(text)
        for i, (start, end, key) in enumerate(tokens):
            candidates = [((key,), [(start, end)])]
            for n in lengths:
                window = tokens[i : i + n]
                phrase = tuple(t[2] for t in window)
                if len(window) == n and phrase in phrases:
                    candidates.append((phrase, [(t[0], t[1]) for t in window]))
            for term, parts in candidates:
                total[term] += 1
                size = sum(e - s for s, e in parts)
                marked = sum(1 for s, e in parts for k in range(s, e) if k in gold)
                if 2 * marked <= size:
                    continue
                toxic[term] += 1
                for rs, re_, label in (rater or {}).get(text, ()):
                    if rs < parts[-1][1] and parts[0][0] < re_:
                        votes[term][label] += 1
    return total, toxic, votes


def majority(votes: Counter) -> str:
    if not votes:
        return "toxic"
    return max(LABEL_ORDER, key=lambda lab: (votes[lab], -LABEL_ORDER.index(lab)))


def mean_span_f1(posts, terms, merge: bool) -> float:
    """Span F1 of SemEval-2021 Task 5 (:func:`tactful.metrics.span_f1`) of the lexicon on ``posts``."""
    gold = [g for g, _ in posts]
    pred = [
        {k for s in find_spans(text, terms, merge=merge) for k in s.offsets()} for _, text in posts
    ]
    return span_f1(gold, pred)


def build(data_dir: Path) -> tuple[dict, list[dict]]:
    train_path, trial_path, slur_path = (need(data_dir, r) for r in (TRAIN, TRIAL, SLURS))
    train = read_tsd(train_path)
    trial = read_tsd(trial_path)
    profanity = {term_key(t) for t in PROFANITY}
    slurs = read_slurs(slur_path)
    rater = read_rater_spans(data_dir, (t for _, t in train))
    total, toxic, votes = count_terms(train, profanity | slurs, rater)

    entries: dict[tuple[str, ...], TermEntry] = {}
    for term in sorted(set(toxic) | profanity | slurs):
        sources = tuple(
            name
            for name, inside in (
                ("train", toxic[term] > 0),
                ("profanity", term in profanity),
                ("slur", term in slurs),
            )
            if inside
        )
        if term in profanity:
            label = "profanity"
        elif term in slurs:
            label = "identity_attack"
        else:
            label = majority(votes[term])
        entries[term] = TermEntry(toxic[term], total[term], label, sources)

    trial_table = [
        {
            "min_ratio": MIN_RATIO,
            "min_count": mc,
            "merge": merge,
            "span_f1": round(
                mean_span_f1(
                    trial, select_terms(entries, min_ratio=MIN_RATIO, min_count=mc), merge
                ),
                4,
            ),
        }
        for mc in MIN_COUNTS
        for merge in (False, True)
    ]
    best = max(trial_table, key=lambda r: r["span_f1"])

    def source(rel: str) -> dict:
        return {"file": rel, "sha256": sha256_file(data_dir / rel)}

    doc = {
        "format": LEXICON_FORMAT,
        "generated_by": "scripts/build_lexicon.py",
        "tokenizer": WORD_PATTERN,
        "sources": {
            "train": {**source(TRAIN), "rows": len(train)},
            "trial": {**source(TRIAL), "rows": len(trial)},
            "slurs": source(SLURS),
            "rater_types": [source(r) for r in (COMMENTS, ANNOTATIONS, RATER_SPANS)]
            if rater is not None
            else None,
        },
        "selection": {"split": "trial", "best": best, "trial": trial_table},
        "terms": {
            " ".join(k): [e.toxic, e.total, e.label, list(e.sources)] for k, e in entries.items()
        },
    }
    return doc, trial_table


def dumps(doc: dict) -> str:
    """JSON with one term per line, so regenerated files diff well."""
    head = {k: v for k, v in doc.items() if k != "terms"}
    lines = [json.dumps(head, indent=1, ensure_ascii=False)[:-2] + ',\n "terms": {']
    items = [
        f"  {json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}"
        for k, v in doc["terms"].items()
    ]
    lines.append(",\n".join(items))
    lines.append(" }\n}\n")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="data folder (default: $TACTFUL_DATA, else ../shared/data)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help=f"output file (default: {DEFAULT_OUT.relative_to(REPO)})",
    )
    args = parser.parse_args(argv)
    data_dir = resolve_data_dir(args.data_dir)
    try:
        if not data_dir.is_dir():
            raise MissingDataError(f"Data folder {data_dir} not found (wanted {TRAIN} in it).")
        doc, table = build(data_dir)
    except TactfulError as exc:
        print(f"build_lexicon: {exc}", file=sys.stderr)
        return exc.exit_code
    text = dumps(doc)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    for row in table:
        print(
            f"trial span_f1 min_ratio={row['min_ratio']} min_count={row['min_count']} merge={row['merge']!s:5}: {row['span_f1']:.4f}"
        )
    print(f"terms: {len(doc['terms'])}")
    print(f"wrote {args.out}")
    print(f"sha256 {hashlib.sha256(text.encode('utf-8')).hexdigest()}")
    if args.out.resolve() == data_path("lexicon.json").resolve():
        pin("lexicon.json")
        print("pinned in tactful/data/manifest.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
