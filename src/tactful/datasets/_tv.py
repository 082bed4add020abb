"""TV episode synopses with age ratings and show identity tags (speech-suppression paper).

The episode files (``speech_suppression/tv/episodes_info/episodes_df{1..45}.csv``)
carry the description and the rating but not the show. The show is recovered
from ``age_ratings.csv`` (show, rating, tags per rated episode, in the same
scraping order): an episode whose ``(age_rating, tags)`` pair is unique among
the episodes and belongs to one show in ``age_ratings.csv`` anchors its *run*
(consecutive rows whose IMDb ``ttep_epN`` numbers count up by one) to that show.
Measured on the shipped files: 917 of 2,444 runs get anchors, and no run gets
anchors from two shows; episodes of runs without an anchor keep
``meta["show"] = None`` and no groups.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from ._io import Source, Table
from ._record import Record
from ._spec import DatasetSpec, dataset

TV_DIR = "speech_suppression/tv"
EPISODE_FILES = tuple(f"{TV_DIR}/episodes_info/episodes_df{k}.csv" for k in range(1, 46))
AGE_RATINGS = f"{TV_DIR}/age_ratings.csv"
_TAGS = "speech_suppression/identity_tags/tv_shows/tags"
#: Show-title lists per identity: (file, group folder, sub-identity).
TV_IDENTITY_FILES: tuple[tuple[str, str, str], ...] = tuple(
    (f"{_TAGS}/{cat}/{grp}/{sub}_tagged_tvs.csv", grp, sub)
    for cat, grp, sub in (
        ("disability", "disability", "mental-disability"),
        ("disability", "disability", "physical-disability"),
        ("gender", "men", "men"),
        ("gender", "women", "women"),
        ("race-ethnicity", "non-white", "asian"),
        ("race-ethnicity", "non-white", "black"),
        ("race-ethnicity", "non-white", "latinx"),
        ("race-ethnicity", "non-white", "native-americans"),
        ("race-ethnicity", "white", "white"),
        ("religion", "christian", "christian"),
        ("religion", "non-christian", "islam"),
        ("religion", "non-christian", "jewish"),
        ("religion", "non-christian", "other-non-christian"),
        ("sexuality", "lgbt-related", "lgbt"),
    )
)

#: Rating → audience level. "pg" = fine for PG (TV-Y, TV-Y7, TV-G, TV-PG and the
#: film-style G/PG a few episodes carry), "pg13" = fine for PG-13 but not PG
#: (TV-14, PG-13, 13+), "mature" = neither. TV-Y7-FV is TV-Y7 with fantasy
#: violence; M (Australian, 15+) counts as mature.
TV_RATING_LEVELS: dict[str, str] = {
    **dict.fromkeys(("TV-Y", "TV-Y7", "TV-Y7-FV", "TV-G", "TV-PG", "G", "PG"), "pg"),
    **dict.fromkeys(("TV-14", "PG-13", "13+"), "pg13"),
    **dict.fromkeys(("TV-MA", "R", "NC-17", "M", "16+", "18+"), "mature"),
}
#: Ratings that say nothing about the audience: the row is excluded.
TV_UNRATED = frozenset({"", "Not Rated", "Unrated", "Approved"})

_EP = re.compile(r"ttep_ep(\d+)")
_TT = re.compile(r"/title/(tt\d+)")


@dataset(
    DatasetSpec(
        name="tv_synopses",
        task="delicate",
        splits=("all",),
        default_split="all",
        files=(*EPISODE_FILES, AGE_RATINGS, *(f for f, _, _ in TV_IDENTITY_FILES)),
        description=(
            "IMDb TV episode descriptions with their age rating (speech-suppression paper). Of the "
            "39,567 episode rows, 22,358 have no usable rating (blank, Not Rated, Unrated, Approved), "
            "1,516 rated rows have no description and 283 repeat an episode already kept: 15,410 "
            "remain; the show is recovered for 13,376 of them. labels: pg_ok (TV-Y, TV-Y7(-FV), TV-G, TV-PG, G, PG), pg13_ok (those + TV-14, "
            "PG-13, 13+). label = 1 - pg13_ok: 1 = not fine for a PG-13 audience, the text a "
            "moderator should hold back. meta: show (None when it cannot be recovered), rating, "
            "file. groups / sub_identities: the paper's show identity tags for the episode's show. "
            "id = the episode's IMDb title id."
        ),
        expected_rows={"all": 15410},
    )
)
def _tv_synopses(src: Source) -> Table:
    # -- the episodes, in scraping order
    rows: list[
        tuple[str, str, str, str, str, int]
    ] = []  # file, link, description, rating, tags, ep
    for rel in EPISODE_FILES:
        cols = src.read_csv(rel, ["episode_link", "description", "age_rating", "tags"])
        for i, (link, desc, rating, tags) in enumerate(
            zip(
                cols["episode_link"],
                cols["description"],
                cols["age_rating"],
                cols["tags"],
                strict=True,
            )
        ):
            m = _EP.search(link)
            if m is None or not _TT.search(link):
                raise src.error(
                    rel, f"episode_link {link!r} has no IMDb title id and episode number", i
                )
            if rating not in TV_UNRATED and rating not in TV_RATING_LEVELS:
                raise src.error(rel, f"unknown age_rating {rating!r}", i)
            rows.append((rel.rsplit("/", 1)[1], link, desc, rating, tags, int(m.group(1))))

    # -- runs of consecutive episode numbers, anchored to shows through unique (rating, tags)
    ar = src.read_csv(AGE_RATINGS, ["show_name", "age_rating", "tags"])
    shows_of: dict[tuple[str, str], set[str]] = defaultdict(set)
    for show, rating, tags in zip(ar["show_name"], ar["age_rating"], ar["tags"], strict=True):
        if tags != "[]":
            shows_of[(rating, tags)].add(show)
    key_count = Counter((r[3], r[4]) for r in rows if r[4] != "[]")
    run_of: list[int] = []
    votes: dict[int, Counter[str]] = defaultdict(Counter)
    run = -1
    prev_ep = None
    for _, _, _, rating, tags, ep in rows:
        if prev_ep is None or ep != prev_ep + 1:
            run += 1
        prev_ep = ep
        run_of.append(run)
        key = (rating, tags)
        if tags != "[]" and key_count[key] == 1 and len(shows_of.get(key, ())) == 1:
            votes[run][next(iter(shows_of[key]))] += 1
    show_of_run = {r: c.most_common(1)[0][0] for r, c in votes.items()}

    # -- identity tags per show title
    tags_of: dict[str, tuple[set[str], list[str]]] = defaultdict(lambda: (set(), []))
    for rel, group, sub in TV_IDENTITY_FILES:
        cols = src.read_csv(rel)
        if len(cols) != 1:
            raise src.error(rel, f"expected one column of show titles, found {len(cols)}")
        for title in next(iter(cols.values())):
            groups, subs = tags_of[title.strip()]
            groups.add(group)
            if sub not in subs:
                subs.append(sub)

    out: list[Record] = []
    seen: set[str] = set()
    for (fname, link, desc, rating, _, _), run in zip(rows, run_of, strict=True):
        if rating in TV_UNRATED or not desc.strip():
            continue
        tt = _TT.search(link).group(1)  # type: ignore[union-attr]
        if tt in seen:  # the same episode scraped twice
            continue
        seen.add(tt)
        level = TV_RATING_LEVELS[rating]
        pg, pg13 = int(level == "pg"), int(level in ("pg", "pg13"))
        show_name = show_of_run.get(run)
        no_tags: tuple[set[str], list[str]] = (set(), [])
        groups, subs = no_tags if show_name is None else tags_of.get(show_name, no_tags)
        out.append(
            Record(
                tt,
                desc,
                1 - pg13,
                "all",
                {"pg_ok": pg, "pg13_ok": pg13},
                groups=src.groups(_TAGS, None, groups),
                sub_identities=tuple(subs),
                meta={"show": show_name, "rating": rating, "file": fname},
            )
        )
    return Table.all_rows(out)
