"""Build tactful's identity lexicon (``src/tactful/data/identity/``) from public lists.

Sources, read from the data folder (``--data-dir``, else ``$TACTFUL_DATA``, else
``../shared/data``):

* ``speech_suppression/lexicon/slur_identity_terms.csv`` and
  ``neutral_identity_terms.csv``: the slur/slang and neutral-term lists of Anigboro
  et al. (2024), columns ``Identity category, Sub_identity, Terms`` (a Python list).
* ``holistic_bias/descriptors.json`` and ``nouns.json`` (Smith et al., 2022): used
  only where a descriptor names one of the paper's sub-identities and the paper's
  lists do not already hold it (see :data:`HOLISTIC_BIAS`).

Rules (the tagger relies on them; ``manifest.json`` repeats them):

1. Groups are the paper's ``Identity category`` values, lower-cased, with
   ``lgbt-related`` written ``lgbt`` (:data:`tactful.identity.GROUPS`).
2. Sub-identities keep the paper's names, lower-cased, except that the two
   ``other`` rows become ``other disability`` and ``other non-christian`` so that a
   sub-identity always belongs to one group.
3. A term is keyed by its words (lower case, accents kept, split at anything that
   is not a letter or digit, apostrophe suffixes such as ``'s`` dropped), so
   ``Burr-head`` and ``Burr head`` are one term.
4. A term the lists give to several sub-identities keeps the *last* listing, the
   slur list read before the neutral list, rows and terms in file order. This is
   what the paper's own tagging code does (a dict filled in that order), so e.g.
   ``queer`` is a neutral ``lgbt`` term and ``Paki`` an ``indian`` slur.
5. A term's ``kind`` is ``slur`` if its kept listing comes from the slur list,
   else ``neutral``; the tagger's ``has_slur`` is true when a ``slur`` term occurs.
6. HolisticBias adds a neutral term only when the tagger would not already match it
   through a paper term (the term itself or one of its plural forms); it never
   changes a paper term.
7. Mis-decoded UTF-8 in the source (``Khá»±a``) is repaired (``Khựa``).

Usage::

    python scripts/build_identity_lexicon.py [--data-dir DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import re
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from tactful.config import resolve_data_dir
from tactful.datasets import load_holistic_buckets, load_holistic_nouns
from tactful.errors import DataError, MissingDataError, TactfulError, UnknownNameError
from tactful.identity import GROUPS, normalize_group, term_forms, term_key
from tactful.wordlists import data_path, pin, sha256_file

SLUR_FILE = Path("speech_suppression/lexicon/slur_identity_terms.csv")
NEUTRAL_FILE = Path("speech_suppression/lexicon/neutral_identity_terms.csv")
DESCRIPTORS_FILE = Path("holistic_bias/descriptors.json")
NOUNS_FILE = Path("holistic_bias/nouns.json")

#: Paper sub-identity names that two groups share → a name per group.
SUB_RENAMES = {
    ("disability", "other"): "other disability",
    ("non-christian", "other"): "other non-christian",
}

#: HolisticBias → the paper's sub-identities. Each entry: a (axis, bucket) of
#: ``descriptors.json``, the sub-identity and group it names, and either the
#: descriptors to take (``take``) or those to leave out (``skip``). Left out are
#: words that are mostly not about identity in running text ("Black", "white",
#: "straight", "Latin", "pan", "ace", "slow", "mute", "stud", "Oriental" rugs),
#: pejoratives (they belong to a slur list, not to the neutral one), abbreviations
#: that collide with other words (FTM, MoC), and descriptors of people *without*
#: the identity (able-bodied, neurotypical). Buckets with no paper sub-identity
#: (age, body type, Pacific Islander, polyamorous, ...) are not used.
HOLISTIC_BIAS: tuple[dict, ...] = (
    {"path": ("ability", "auditory"), "sub": "physical", "group": "disability"},
    {
        "path": ("ability", "mobility"),
        "sub": "physical",
        "group": "disability",
        "skip": {"crippled"},
    },
    {
        "path": ("ability", "visual"),
        "sub": "physical",
        "group": "disability",
        "skip": {"four-eyed", "glasses-wearing"},
    },
    {
        "path": ("ability", "speech"),
        "sub": "physical",
        "group": "disability",
        "skip": {"dumb", "mute", "non-verbal"},
    },
    {
        "path": ("ability", "neurological"),
        "sub": "mental",
        "group": "disability",
        "skip": {"neurotypical"},
    },
    {
        "path": ("ability", "intellectual_and_developmental"),
        "sub": "mental",
        "group": "disability",
        "skip": {"retarded", "slow"},
    },
    {
        "path": ("ability", "unspecific"),
        "sub": "other disability",
        "group": "disability",
        "skip": {"able-bodied", "nondisabled", "non-disabled"},
    },
    {
        "path": ("gender_and_sex", "transgender"),
        "sub": "trans",
        "group": "lgbt",
        "skip": {"FTM", "F2M", "MTF", "M2F"},
    },
    {
        "path": ("gender_and_sex", "non_binary_or_gnc"),
        "sub": "trans",
        "group": "lgbt",
        "skip": {
            "boi",
            "stud",
            "tomboy",
            "FoC",
            "MoC",
            "feminine-of-center",
            "masculine-of-center",
            "gender neutral",
        },
    },
    {"path": ("gender_and_sex", "queer"), "sub": "lgbt", "group": "lgbt"},
    {"path": ("gender_and_sex", "sex"), "sub": "trans", "group": "lgbt", "take": {"transsexual"}},
    {"path": ("gender_and_sex", "sex"), "sub": "lgbt", "group": "lgbt", "take": {"intersex"}},
    {
        "path": ("sexual_orientation", "asexual_or_aromantic"),
        "sub": "lgbt",
        "group": "lgbt",
        "skip": {"ace"},
    },
    {"path": ("sexual_orientation", "demisexual"), "sub": "lgbt", "group": "lgbt"},
    {"path": ("sexual_orientation", "pansexual"), "sub": "lgbt", "group": "lgbt", "skip": {"pan"}},
    {"path": ("sexual_orientation", "bi"), "sub": "bisexual", "group": "lgbt"},
    {"path": ("sexual_orientation", "gay"), "sub": "gay", "group": "lgbt"},
    {"path": ("sexual_orientation", "lesbian"), "sub": "lesbian", "group": "lgbt"},
    {
        "path": ("sexual_orientation", "straight"),
        "sub": "straight",
        "group": "straight",
        "skip": {"straight"},
    },
    {
        "path": ("race_ethnicity", "asian"),
        "sub": "asian",
        "group": "non-white",
        "skip": {"Oriental"},
    },
    {"path": ("race_ethnicity", "black"), "sub": "black", "group": "non-white", "skip": {"Black"}},
    {
        "path": ("race_ethnicity", "latinx"),
        "sub": "latino",
        "group": "non-white",
        "skip": {"Latin"},
    },
    {"path": ("race_ethnicity", "indigenous"), "sub": "native american", "group": "non-white"},
    {
        "path": ("race_ethnicity", "white"),
        "sub": "european",
        "group": "white",
        "take": {"European", "European-American"},
    },
    {"path": ("race_ethnicity", "white"), "sub": "white", "group": "white", "take": {"Caucasian"}},
    {
        "path": ("race_ethnicity", "combined"),
        "sub": "asian",
        "group": "non-white",
        "take": {"AAPI"},
    },
    {"path": ("race_ethnicity", "combined"), "sub": "poc", "group": "non-white", "take": {"BIPOC"}},
    *(
        {"path": ("nationality", country), "sub": sub, "group": "non-white"}
        for country, sub in (
            ("china", "asian"),
            ("india", "asian"),
            ("philippines", "asian"),
            ("south_korea", "asian"),
            ("vietnam", "asian"),
            ("mexico", "latino"),
            ("cuba", "latino"),
            ("dominican_republic", "latino"),
            ("el_salvador", "latino"),
            ("guatemala", "latino"),
        )
    ),
    {
        "path": ("religion", "all"),
        "sub": "christian",
        "group": "christian",
        "take": {
            "Amish",
            "born-again",
            "Catholic",
            "Christian",
            "Evangelical",
            "Jehovah's Witness",
            "Lutheran",
            "Methodist",
            "Mormon",
            "Protestant",
            "Roman Catholic",
            "Seventh-Day Adventist",
        },
    },
    {
        "path": ("religion", "all"),
        "sub": "jewish",
        "group": "non-christian",
        "take": {
            "Ashkenazi Jewish",
            "Conservative Jewish",
            "Hasidic",
            "Jewish",
            "Orthodox Jewish",
            "Reform Jewish",
            "Sephardic Jewish",
        },
    },
    {
        "path": ("religion", "all"),
        "sub": "muslim",
        "group": "non-christian",
        "take": {"Muslim", "Shia", "Sunni"},
    },
    {
        "path": ("religion", "all"),
        "sub": "buddhism",
        "group": "non-christian",
        "take": {"Buddhist"},
    },
    {"path": ("religion", "all"), "sub": "sikh", "group": "non-christian", "take": {"Sikh"}},
    {"path": ("religion", "all"), "sub": "taoist", "group": "non-christian", "take": {"Taoist"}},
    {"path": ("religion", "all"), "sub": "hindu", "group": "non-christian", "take": {"Hindu"}},
    # Named faiths other than the ones above; atheist, agnostic, secular, spiritual
    # and the like are not a religious group, and Unitarian may or may not be Christian.
    {
        "path": ("religion", "all"),
        "sub": "other non-christian",
        "group": "non-christian",
        "take": {
            "Bahá'í",
            "Cheondoist",
            "Confucianist",
            "Druze",
            "Jain",
            "Pagan",
            "Rasta",
            "Rastafari",
            "Rastafarian",
            "Satanist",
            "Scientologist",
            "Shintoist",
            "Wiccan",
            "Zoroastrian",
        },
    },
)

#: HolisticBias ``nouns.json`` gender buckets → the paper's sub-identities.
HOLISTIC_BIAS_NOUNS = {"female": ("female", "women"), "male": ("male", "men")}

FIELDS = ("term", "group", "sub_identity", "kind", "source")

# cp1252 mis-decoding of UTF-8 leaves these lead characters behind.
_MOJIBAKE = re.compile("[ÃÂá][\u0080-\u00ff\u2010-\u203a\u0152-\u0178]")


def repair(term: str) -> str:
    """Undo UTF-8 read as cp1252 (``Khá»±a`` → ``Khựa``); other text is returned as is."""
    if not _MOJIBAKE.search(term):
        return term
    try:
        return term.encode("cp1252").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return term


def read_paper_list(path: Path, kind: str) -> list[dict[str, str]]:
    """One row per (term, sub-identity) listing of a paper lexicon file, in file order."""
    rows: list[dict[str, str]] = []
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh, skipinitialspace=True)
        need = {"Identity category", "Sub_identity", "Terms"}
        if not need <= set(reader.fieldnames or ()):
            raise DataError(f"{path} lacks the columns {sorted(need)}; found {reader.fieldnames}.")
        for line, rec in enumerate(reader, start=2):
            category = rec["Identity category"].strip().lower()
            try:
                group = normalize_group(category)
            except UnknownNameError:
                raise DataError(f"{path}:{line}: unknown identity category {category!r}.") from None
            sub = rec["Sub_identity"].strip().lower()
            sub = SUB_RENAMES.get((group, sub), sub)
            try:
                terms = ast.literal_eval(rec["Terms"])
            except (ValueError, SyntaxError) as exc:
                raise DataError(f"{path}:{line}: the Terms column is not a list ({exc}).") from None
            for term in terms:
                rows.append(
                    {
                        "term": repair(str(term)).strip(),
                        "group": group,
                        "sub_identity": sub,
                        "kind": kind,
                        "source": f"paper_{kind}",
                    }
                )
    return rows


def holistic_bias_rows(
    buckets: dict[str, dict[str, list[str]]], nouns: dict[str, list[tuple[str, str]]]
) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for spec in HOLISTIC_BIAS:
        axis, bucket = spec["path"]
        if bucket not in buckets.get(axis, {}):
            raise DataError(f"{DESCRIPTORS_FILE} has no {axis}/{bucket} bucket.")
        words = list(buckets[axis][bucket])
        if "take" in spec:
            missing = spec["take"] - set(words)
            if missing:
                raise DataError(
                    f"{DESCRIPTORS_FILE} {'/'.join(spec['path'])} lacks {sorted(missing)}."
                )
            words = [w for w in words if w in spec["take"]]
        words = [w for w in words if w not in spec.get("skip", ())]
        for w in words:
            rows.append(
                {
                    "term": w,
                    "group": spec["group"],
                    "sub_identity": spec["sub"],
                    "kind": "neutral",
                    "source": "holistic_bias",
                }
            )
    for bucket, (sub, group) in HOLISTIC_BIAS_NOUNS.items():
        for pair in nouns[bucket]:
            for w in pair:  # singular and plural: irregular plurals (wives, ladies) need both
                rows.append(
                    {
                        "term": w,
                        "group": group,
                        "sub_identity": sub,
                        "kind": "neutral",
                        "source": "holistic_bias",
                    }
                )
    return rows


def build(data_dir: Path) -> tuple[list[dict[str, str]], dict]:
    paths = {p: data_dir / p for p in (SLUR_FILE, NEUTRAL_FILE, DESCRIPTORS_FILE, NOUNS_FILE)}
    for rel, path in paths.items():
        if not path.is_file():
            raise MissingDataError(f"Looked in {data_dir} for {rel}: not found.")

    paper = read_paper_list(paths[SLUR_FILE], "slur") + read_paper_list(
        paths[NEUTRAL_FILE], "neutral"
    )
    kept: dict[str, dict[str, str]] = {}
    for row in paper:  # rule 4: the last listing wins
        key = term_key(row["term"])
        if key:
            kept[key] = row
    descriptors = load_holistic_buckets(data_dir)
    nouns = load_holistic_nouns(data_dir)
    added = Counter()
    # Rule 6: only what the tagger would not already find (a term, or a plural of one).
    matched = {form for key in kept for form in term_forms(key)}
    for row in holistic_bias_rows(descriptors, nouns):
        key = term_key(row["term"])
        if key and term_key(key, fold_accents=True) not in matched:
            kept[key] = row
            matched |= term_forms(key)
            added[row["sub_identity"]] += 1

    order = {g: i for i, g in enumerate(GROUPS)}
    out = [
        {**row, "term": key}
        for key, row in sorted(
            kept.items(), key=lambda kv: (order[kv[1]["group"]], kv[1]["sub_identity"], kv[0])
        )
    ]
    manifest = {
        "generated_by": "scripts/build_identity_lexicon.py",
        "sources": {
            str(rel).replace("\\", "/"): {"sha256": sha256_file(p)} for rel, p in paths.items()
        },
        "terms": len(out),
        "by_kind": dict(sorted(Counter(r["kind"] for r in out).items())),
        "by_source": dict(sorted(Counter(r["source"] for r in out).items())),
        "by_group": {g: sum(r["group"] == g for r in out) for g in GROUPS},
        "holistic_bias_added": dict(sorted(added.items())),
        "rules": [
            "groups: the paper's identity categories, lower-cased; lgbt-related -> lgbt",
            "sub-identities: the paper's names; 'other' -> 'other disability' / 'other non-christian'",
            "a term listed under several sub-identities keeps its last listing (slur list, then neutral list)",
            "kind 'slur' = the kept listing is from the paper's slur list",
            "HolisticBias descriptors add neutral terms the paper's lists lack, never replace one",
        ],
    }
    return out, manifest


def write(out_dir: Path, rows: list[dict[str, str]], manifest: dict) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    with (out_dir / "terms.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    (out_dir / "manifest.json").write_text(
        json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data-dir", default=None, help="data folder (default: $TACTFUL_DATA or ../shared/data)"
    )
    parser.add_argument(
        "--out",
        default=str(REPO / "src" / "tactful" / "data" / "identity"),
        help="folder to write terms.csv and manifest.json to",
    )
    args = parser.parse_args(argv)
    try:
        rows, manifest = build(resolve_data_dir(args.data_dir))
    except TactfulError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    write(Path(args.out), rows, manifest)
    terms = Path(args.out) / "terms.csv"
    if terms.resolve() == data_path("identity/terms.csv").resolve():
        pin("identity/terms.csv")  # the tagger checks the shipped file against its pin
    print(
        f"wrote {len(rows)} terms to {Path(args.out) / 'terms.csv'} "
        f"({manifest['by_kind']}, {manifest['by_source']})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
