"""The speech-suppression paper's nine identity groups, and the spellings seen in the data."""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import DataError

__all__ = ["GROUP_ALIASES", "IDENTITY_GROUPS", "TOXIGEN_GROUPS", "normalize_groups"]

#: The general identity groups of Anigboro et al. (2024), in the paper's order.
IDENTITY_GROUPS: tuple[str, ...] = (
    "men",
    "women",
    "white",
    "non-white",
    "christian",
    "non-christian",
    "lgbt",
    "straight",
    "disability",
)

#: Spelling in ``speech_suppression/*.csv`` (``Big_identity``, lower-cased and
#: stripped) → group. Seen values (``python -c`` over the three csv files):
#: ``Non-White``/``non-white``, ``Non-Christian``/``non-christian``,
#: ``Christian``/``christian``, ``lgbt-related``, ``disability``, ``straight``,
#: ``white``, ``men``, ``women``. The tag folders under ``identity_tags`` use
#: the same names (``lgbt-related``).
GROUP_ALIASES: dict[str, str] = {
    **{g: g for g in IDENTITY_GROUPS},
    "lgbt-related": "lgbt",
    "lgbtq": "lgbt",
    "nonwhite": "non-white",
    "non white": "non-white",
    "nonchristian": "non-christian",
    "non christian": "non-christian",
}

#: ToxiGen ``target_group`` → general group. ToxiGen covers 13 minority
#: groups; each falls in one of the paper's groups (``Record.sub_identities``
#: keeps the original value).
TOXIGEN_GROUPS: dict[str, str] = {
    "asian": "non-white",
    "black": "non-white",
    "chinese": "non-white",
    "jewish": "non-christian",
    "latino": "non-white",
    "lgbtq": "lgbt",
    "mental_dis": "disability",
    "mexican": "non-white",
    "middle_east": "non-white",
    "muslim": "non-christian",
    "native_american": "non-white",
    "physical_dis": "disability",
    "women": "women",
}


def normalize_groups(values: Iterable[str], *, where: str = "") -> tuple[str, ...]:
    """Map raw group names to :data:`IDENTITY_GROUPS`, dropping blanks and duplicates.

    Parameters
    ----------
    values : iterable of str
        Raw names, e.g. ``["Non-White", "lgbt-related"]``.
    where : str, optional
        Where the values come from, for the error message.

    Returns
    -------
    tuple of str
        Groups in :data:`IDENTITY_GROUPS` order.

    Raises
    ------
    DataError
        For a name with no mapping (so that a new spelling is noticed, not dropped).
    """
    found = set()
    for v in values:
        key = v.strip().lower()
        if not key:
            continue
        try:
            found.add(GROUP_ALIASES[key])
        except KeyError:
            raise DataError(
                f"Unknown identity group {v!r}{' in ' + where if where else ''}; "
                f"known: {', '.join(sorted(GROUP_ALIASES))}."
            ) from None
    return tuple(g for g in IDENTITY_GROUPS if g in found)
