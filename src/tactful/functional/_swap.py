"""Counterfactual identity swaps with span offsets kept right."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .._types import Span
from ..params import Constraints, Int, Str, validate_params

__all__ = ["PERSON_WORDS", "SWAP_CLASSES", "SwapClass", "Swapped", "swap_identity_terms"]


@dataclass(frozen=True, slots=True)
class SwapClass:
    """Identity terms that can stand in for one another in a sentence.

    Attributes
    ----------
    name : str
        What the class is (``"religion plural"``).
    terms : tuple of (str, str)
        ``(term, group)``: each term is replaced by another of the class, and
        each is tagged with its group by :func:`tactful.identity.tag` (a test
        checks it: the swaps use the identity vocabulary's terms).
    sources_only : tuple of (str, str)
        Terms that may be replaced but never inserted (``"Jewish"`` is an
        adjective only, so it cannot replace the noun ``"Muslim"``).
    needs_person : bool
        Replace only when a person word follows (:data:`PERSON_WORDS`), for
        words with other senses (``white wine``, ``blind spot``).
    """

    name: str
    terms: tuple[tuple[str, str], ...]
    sources_only: tuple[tuple[str, str], ...] = ()
    needs_person: bool = False


#: Words after which an ambiguous identity adjective is about people.
PERSON_WORDS: frozenset[str] = frozenset(
    [
        "people",
        "person",
        "persons",
        "man",
        "men",
        "woman",
        "women",
        "guy",
        "guys",
        "kid",
        "kids",
        "child",
        "children",
        "family",
        "families",
        "folks",
        "folk",
        "neighbor",
        "neighbors",
        "neighbour",
        "neighbours",
        "student",
        "students",
        "friend",
        "friends",
        "coworker",
        "coworkers",
        "community",
        "communities",
        "girl",
        "girls",
        "boy",
        "boys",
        "couple",
        "couples",
        "parents",
        "parent",
        "americans",
        "voters",
        "workers",
        "artist",
        "artists",
    ]
)


def _pairs(*pairs: tuple[str, str]) -> tuple[SwapClass, ...]:
    return tuple(SwapClass(f"{a}/{b}", ((a, "men"), (b, "women"))) for a, b in pairs)


#: The swap classes: gender pairs, then religion, race and ethnicity,
#: sexuality and disability terms.
SWAP_CLASSES: tuple[SwapClass, ...] = (
    *_pairs(
        ("man", "woman"), ("men", "women"), ("boy", "girl"), ("boys", "girls"),
        ("husband", "wife"), ("husbands", "wives"), ("father", "mother"), ("fathers", "mothers"),
        ("dad", "mom"), ("son", "daughter"), ("sons", "daughters"), ("brother", "sister"),
        ("brothers", "sisters"), ("boyfriend", "girlfriend"), ("male", "female"),
        ("gentleman", "lady"), ("gentlemen", "ladies"), ("grandfather", "grandmother"),
        ("uncle", "aunt"), ("king", "queen"),
    ),
    SwapClass(
        "religion",
        (("Muslim", "non-christian"), ("Christian", "christian"), ("Hindu", "non-christian"),
         ("Buddhist", "non-christian"), ("Sikh", "non-christian"), ("Catholic", "christian")),
        sources_only=(("Jewish", "non-christian"),),
    ),
    SwapClass(
        "religion plural",
        (("Muslims", "non-christian"), ("Christians", "christian"), ("Hindus", "non-christian"),
         ("Buddhists", "non-christian"), ("Sikhs", "non-christian"), ("Catholics", "christian"),
         ("Jews", "non-christian")),
    ),
    SwapClass(
        "race",
        (("Black", "non-white"), ("white", "white"), ("Asian", "non-white"),
         ("Latino", "non-white"), ("Arab", "non-white"), ("Mexican", "non-white")),
        needs_person=True,
    ),
    SwapClass(
        "race plural",
        (("Asians", "non-white"), ("Latinos", "non-white"), ("Arabs", "non-white"),
         ("Mexicans", "non-white"), ("Africans", "non-white")),
    ),
    SwapClass(
        "sexuality",
        (("gay", "lgbt"), ("straight", "straight"), ("bisexual", "lgbt"),
         ("heterosexual", "straight"), ("lesbian", "lgbt")),
        needs_person=True,
    ),
    SwapClass(
        "disability",
        (("disabled", "disability"), ("blind", "disability"), ("deaf", "disability"),
         ("autistic", "disability")),
        needs_person=True,
    ),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Swapped:
    """A text after a counterfactual swap.

    Attributes
    ----------
    text : str
        The new text.
    spans : tuple of Span
        The input spans moved to the new text (a span that covered a swapped
        term covers its replacement).
    swaps : tuple of (str, str)
        ``(old, new)`` per replaced occurrence, in text order.
    """

    text: str
    spans: tuple[Span, ...]
    swaps: tuple[tuple[str, str], ...]


def _index() -> tuple[re.Pattern[str], dict[str, SwapClass]]:
    by_term: dict[str, SwapClass] = {}
    for cls in SWAP_CLASSES:
        for term, _ in (*cls.terms, *cls.sources_only):
            by_term[term.lower()] = cls
    words = sorted(by_term, key=len, reverse=True)
    pattern = re.compile(
        r"(?<![^\W_])(" + "|".join(map(re.escape, words)) + r")(?![^\W_])", re.IGNORECASE
    )
    return pattern, by_term


_PATTERN, _BY_TERM = _index()
_NEXT_WORD = re.compile(r"\s+([^\W_]+)")


def _canonical(term: str) -> str:
    cls = _BY_TERM[term.lower()]
    return next(t for t, _ in (*cls.terms, *cls.sources_only) if t.lower() == term.lower())


def _cased(new: str, old: str) -> str:
    """``new`` in the case of ``old`` (a lower-cased proper name stays lower-cased)."""
    if len(old) > 1 and old.isupper():
        return new.upper()
    if old[:1].isupper():
        return new[:1].upper() + new[1:]
    if _canonical(old)[:1].isupper():
        return new.lower()
    return new


def _move(offset: int, edits: Sequence[tuple[int, int, int]], *, end: bool) -> int:
    """Where ``offset`` of the old text is in the new one.

    ``edits`` are ``(start, end, new length)`` of the replaced terms, in order.
    An offset inside a replaced term snaps to the replacement's start (a
    span's start) or end (a span's end).
    """
    shift = 0
    for a, b, n in edits:
        if offset < a or (end and offset == a):
            break
        if offset < b or (end and offset == b):
            return a + shift + (n if end else 0)
        shift += n - (b - a)
    return offset + shift


_SWAP_CONSTRAINTS: Constraints = {"text": Str(), "seed": Int()}


def swap_identity_terms(text: str, spans: Sequence[Span] = (), *, seed: int = 0) -> Swapped | None:
    """Swap the identity terms of ``text`` for others of their class.

    Every occurrence of one term (case-insensitively) gets the same
    replacement, a different term of the same :class:`SwapClass` drawn with
    ``random.Random(f"{seed}:{text}")``; case follows the original (``MUSLIMS``
    → ``HINDUS``, ``Man`` → ``Woman``). Ambiguous adjectives are replaced only
    before a person word. Pronouns are left alone (``her`` is both ``his`` and
    ``him``).

    Parameters
    ----------
    text : str
    spans : sequence of Span, default=()
        Spans of ``text``; they come back moved to the new text.
    seed : int, default=0

    Returns
    -------
    Swapped or None
        ``None`` when the text has no term to swap.

    Examples
    --------
    >>> s = swap_identity_terms("Those women are idiots", [Span(16, 22, "insult")])
    >>> s.text, [(s.text[x.start:x.end], x.label) for x in s.spans]
    ('Those men are idiots', [('idiots', 'insult')])
    """
    p = validate_params("swap_identity_terms", _SWAP_CONSTRAINTS, text=text, seed=seed)
    rng = random.Random(f"{p['seed']}:{text}")
    choice: dict[str, str] = {}
    edits: list[tuple[int, int, int]] = []
    pieces: list[str] = []
    swaps: list[tuple[str, str]] = []
    pos = 0
    for m in _PATTERN.finditer(text):
        old = m.group(1)
        cls = _BY_TERM[old.lower()]
        if cls.needs_person:
            nxt = _NEXT_WORD.match(text, m.end())
            if nxt is None or nxt.group(1).lower() not in PERSON_WORDS:
                continue
        key = old.lower()
        if key not in choice:
            options = [t for t, _ in cls.terms if t.lower() != key]
            choice[key] = rng.choice(options)
        new = _cased(choice[key], old)
        pieces += [text[pos : m.start()], new]
        edits.append((m.start(), m.end(), len(new)))
        swaps.append((old, new))
        pos = m.end()
    if not edits:
        return None
    pieces.append(text[pos:])
    new_text = "".join(pieces)
    moved = []
    for s in spans:
        start, end = _move(s.start, edits, end=False), _move(s.end, edits, end=True)
        if end > start:
            moved.append(Span(start, end, s.label, s.score))
    return Swapped(new_text, tuple(moved), tuple(swaps))
