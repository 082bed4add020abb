"""Variations of the chat and jailbreak prompts, for the teacher-label bank.

A teacher that trained on a prompt labels it almost as its gold label, so a student learns
little beyond the hard label from it. A variation the teacher never saw carries its judgment:
where a crop stops being toxic, whether a jailbreak template is still one without its last
sentence, what a harmful request does inside a role-play template.

Three kinds, each a pure function of its input (the choices are seeded by the text's sha256,
so every machine builds the same variations):

- **crops** of one prompt: a window of its sentences, or of its words when it has one
  sentence; one sentence dropped; its sentences rotated;
- **recombinations**: a jailbreak template with a request in its placeholder
  (``[INSERT PROMPT HERE]``), or after a template that has none;
- the requests are harmful and harmless requests of the sets' *train* items only.

Only ToxicChat's ``train`` split (not ``dev``, which chooses operating points, nor ``test``)
and the jailbreak sets that no test reads are varied.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable, Iterator, Sequence

__all__ = [
    "PLACEHOLDER",
    "crops",
    "recombine",
    "sentences",
]

#: The request slot of the GPTFuzzer templates.
PLACEHOLDER = "[INSERT PROMPT HERE]"

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
#: A one-sentence prompt is cropped by words only from this many words on.
MIN_WORDS_TO_CROP = 12


def _rng(*parts: str) -> random.Random:
    h = hashlib.sha256("\x1f".join(parts).encode()).digest()
    return random.Random(int.from_bytes(h[:8], "big"))


def sentences(text: str) -> list[str]:
    """The text's sentences: split after ``.``, ``!`` or ``?`` and a space, and at line
    breaks; empty pieces dropped, each stripped."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def crops(text: str) -> list[str]:
    """Up to three variations of one prompt, none equal to it nor to each other.

    - Two sentences or more: a window of about half to all but one of its sentences,
      the prompt with one sentence dropped, and its sentences rotated by one or more.
    - One sentence of at least :data:`MIN_WORDS_TO_CROP` words: a window of 60 to 85 %
      of its words.
    """
    rng = _rng("crops", text)
    sents = sentences(text)
    out: list[str] = []
    if len(sents) >= 2:
        n = len(sents)
        if n >= 3:
            k = rng.randint(max(1, n // 2), n - 1)
            i = rng.randint(0, n - k)
            out.append(" ".join(sents[i : i + k]))
        d = rng.randrange(n)
        out.append(" ".join(sents[:d] + sents[d + 1 :]))
        r = rng.randint(1, n - 1)
        out.append(" ".join(sents[r:] + sents[:r]))
    else:
        words = text.split()
        if len(words) >= MIN_WORDS_TO_CROP:
            k = max(1, round(len(words) * rng.uniform(0.6, 0.85)))
            i = rng.randint(0, len(words) - k)
            out.append(" ".join(words[i : i + k]))
    seen = {text.strip()}
    kept = []
    for v in out:
        if v and v not in seen:
            seen.add(v)
            kept.append(v)
    return kept


def recombine(
    templates: Sequence[str], requests: Sequence[str], per_template: int
) -> Iterator[str]:
    """Each template with ``per_template`` requests drawn for it (seeded by the template):
    in its :data:`PLACEHOLDER`, or after it, on a new paragraph, when it has none."""
    if not requests:
        return
    for t in templates:
        rng = _rng("recombine", t)
        for req in rng.sample(list(requests), min(per_template, len(requests))):
            if PLACEHOLDER in t:
                yield t.replace(PLACEHOLDER, req)
            else:
                yield f"{t.rstrip()}\n\n{req}"


def all_crops(texts: Iterable[str]) -> Iterator[str]:
    """:func:`crops` of each text, in order."""
    for t in texts:
        yield from crops(t)
