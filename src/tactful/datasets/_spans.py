"""Character offsets ⇄ spans, and the rater-majority ground truth of ToxicSpans."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from .._types import Span

__all__ = [
    "RATER_SPAN_TYPES",
    "RATER_TYPE_ALIASES",
    "offsets_to_spans",
    "rater_gold_spans",
    "span_offsets",
]

#: ToxicSpans rater span types → tactful span labels. The order is also the
#: tie-break when two types get the same number of votes on a character.
RATER_SPAN_TYPES: dict[str, str] = {
    "Insult": "insult",
    "Threat": "threat",
    "Identity based Attack": "identity_attack",
    "Profane/Obscene": "profanity",
    "Other toxicity": "other",
}

#: Every spelling of a type in ``toxicspans/spans.csv`` (lower-cased) → label.
#: Besides the five names the file has "Other Toxicity" (2,723 rows), two
#: truncated "Insu", one truncated "Identity based" and 14 blank types
#: (counted with pandas ``value_counts(dropna=False)``). A blank type still
#: marks the characters as toxic; it is typed "other".
RATER_TYPE_ALIASES: dict[str, str] = {
    **{k.lower(): v for k, v in RATER_SPAN_TYPES.items()},
    "insu": "insult",
    "identity based": "identity_attack",
    "": "other",
}


def span_offsets(spans: Iterable[Span] | None) -> frozenset[int]:
    """The character offsets covered by ``spans``.

    Parameters
    ----------
    spans : iterable of Span or None
        Half-open ``[start, end)`` ranges; ``None`` is treated as no spans.

    Returns
    -------
    frozenset of int

    Examples
    --------
    >>> sorted(span_offsets((Span(0, 3), Span(5, 7))))
    [0, 1, 2, 5, 6]
    """
    out: set[int] = set()
    for s in spans or ():
        out.update(range(s.start, s.end))
    return frozenset(out)


def offsets_to_spans(
    offsets: Iterable[int], text_length: int, label: str = "toxic"
) -> tuple[tuple[Span, ...], int]:
    """Contiguous runs of character offsets as spans.

    Offsets outside ``[0, text_length)`` are dropped: SemEval-2021 Task 5 has a
    few offsets past the end of their text (annotations made on a longer version
    of the post); they cannot point at any character of the text we have.

    Parameters
    ----------
    offsets : iterable of int
        Character offsets, in any order, duplicates allowed.
    text_length : int
        ``len(text)``.
    label : str, default "toxic"

    Returns
    -------
    spans : tuple of Span
        Sorted, non-overlapping, non-adjacent.
    dropped : int
        How many distinct offsets were out of range.

    Examples
    --------
    >>> offsets_to_spans([0, 1, 2, 5, 6], 7)
    ((Span(start=0, end=3, label='toxic', score=1.0), Span(start=5, end=7, label='toxic', score=1.0)), 0)
    """
    uniq = sorted(set(offsets))
    kept = [o for o in uniq if 0 <= o < text_length]
    spans: list[Span] = []
    start = prev = -1  # offsets are >= 0: -1 means no run yet
    for o in kept:
        if start < 0:
            start = prev = o
        elif o == prev + 1:
            prev = o
        else:
            spans.append(Span(start, prev + 1, label))
            start = prev = o
    if start >= 0:
        spans.append(Span(start, prev + 1, label))
    return tuple(spans), len(uniq) - len(kept)


def rater_gold_spans(
    text_length: int,
    n_raters: int,
    rater_spans: Sequence[Sequence[tuple[int, int, str]]],
) -> tuple[Span, ...]:
    """Ground-truth spans of one post from its raters' spans (ToxicSpans protocol).

    A character is gold when *more than half* of the post's raters marked it
    (Pavlopoulos et al., 2022): ``votes > n_raters / 2``. Raters who marked
    nothing still count in ``n_raters``. Each gold character takes the type most
    of the raters who marked it gave it (ties → the earlier type in
    :data:`RATER_SPAN_TYPES`); contiguous same-type runs become one span.
    Offsets outside the text are clipped.

    Parameters
    ----------
    text_length : int
        ``len(text)``.
    n_raters : int
        Raters of the post (annotation rows), including those with no span.
    rater_spans : sequence of sequence of (start, end, type)
        Per rater, the half-open spans marked, ``type`` a tactful label
        (values of :data:`RATER_SPAN_TYPES`).

    Returns
    -------
    tuple of Span
    """
    if text_length <= 0 or n_raters <= 0 or not any(rater_spans):
        return ()
    labels = list(RATER_SPAN_TYPES.values())
    index = {lab: i for i, lab in enumerate(labels)}
    votes = np.zeros(text_length, dtype=np.int32)
    type_votes = np.zeros((len(labels), text_length), dtype=np.int32)
    for spans in rater_spans:
        marked = np.zeros(text_length, dtype=bool)
        typed = np.zeros((len(labels), text_length), dtype=bool)
        for start, end, lab in spans:
            s, e = max(0, start), min(text_length, end)
            if s < e:
                marked[s:e] = True
                typed[index[lab], s:e] = True
        # a rater counts once per character, however many of their spans overlap it
        votes += marked
        type_votes += typed
    gold = votes * 2 > n_raters
    if not gold.any():
        return ()
    best = type_votes.argmax(axis=0)  # argmax takes the first maximum: the tie-break order
    out: list[Span] = []
    i = 0
    while i < text_length:
        if not gold[i]:
            i += 1
            continue
        j = i + 1
        while j < text_length and gold[j] and best[j] == best[i]:
            j += 1
        out.append(Span(i, j, labels[int(best[i])]))
        i = j
    return tuple(out)
