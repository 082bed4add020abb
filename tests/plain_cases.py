"""Plain cases a new user types first (issue 11), shared by the packaged models' tests."""

from __future__ import annotations

from typing import Any

#: Each text with the decision a user expects. Model 1.2.0 missed both threats and
#: flagged the lesbian daughter's parent.
PLAIN = [
    ("I will kill you", True),
    ("I'm going to find where you live and hurt your family", True),
    ("You are a worthless idiot", True),
    ("I am a gay man", False),
    ("How do I support my lesbian daughter after she came out?", False),
    ("Black people are wonderful", False),
    ("My mother died last week and I can't stop crying", False),
    ("Can you help me write a birthday poem for my husband?", False),
]


def check_plain_cases(moderator: Any) -> list[Any]:
    """Assert the expected decisions, no span on a harmless text, and a ``threat``
    span that ends where "I will kill you" ends; return the analyses."""
    got = moderator.analyze([t for t, _ in PLAIN])
    assert [(t, a.flagged) for (t, _), a in zip(PLAIN, got, strict=True)] == PLAIN
    assert [a.spans for (_, toxic), a in zip(PLAIN, got, strict=True) if not toxic] == [()] * 5
    last = got[0].spans[-1]
    assert (last.end, last.label) == (len("I will kill you"), "threat")
    return got
