"""What the three tools share: the moderator, its answers through the store, one head's values."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._registry import Moderator
from .._types import Analysis
from ..errors import ConfigError

__all__ = [
    "HEAD_MESSAGE",
    "Answers",
    "ask",
    "head_values",
    "in_sample",
    "moderator_block",
    "resolve_moderator",
]

#: Message of a head the moderator has no opinion on.
HEAD_MESSAGE = (
    "Moderator {moderator!r} has no {head!r} head (no decision or score for it); "
    "pick another --head or moderator."
)

# Heads that are attributes of Analysis rather than entries of Analysis.scores.
_ATTRIBUTE_HEADS = ("delicate", "jailbreak")


def resolve_moderator(
    moderator: str | Moderator, options: Mapping[str, Any] | None = None
) -> Moderator:
    """A moderator instance: ``tactful.load(name, **options)`` for a name, else as given."""
    import tactful

    if isinstance(moderator, str):
        return tactful.load(moderator, **dict(options or {}))
    if options:
        raise ConfigError("Options go with a moderator name, not with a moderator instance.")
    return moderator


def moderator_block(moderator: Moderator) -> dict[str, Any]:
    """``name``, ``version`` and ``config`` for a report: enough to rebuild the moderator."""
    from ..store import jsonable

    return {
        "name": moderator.name,
        "version": str(moderator.version),
        "config": jsonable(moderator.config()),
    }


def ask(
    moderator: Moderator,
    texts: Sequence[str],
    *,
    store: str | os.PathLike[str] | None,
    progress: bool,
    description: str,
) -> list[Analysis]:
    """The moderator's answers through :func:`tactful.store.analyze_all` (the one way to ask)."""
    from ..store import analyze_all

    return analyze_all(
        moderator, list(texts), store=store, progress=progress, description=description
    )


Answers = tuple[NDArray[np.bool_], NDArray[np.float64]]


def head_values(analyses: Sequence[Analysis], head: str, moderator: str) -> Answers:
    """(decisions, scores) of one head: ``"toxicity"``, a score category, ``"delicate"``, ...

    The decision is ``flags[head]`` and the score ``scores[head]`` (``Analysis.delicate`` /
    ``.jailbreak`` for those heads); a moderator without either for some text
    raises :class:`ConfigError` with :data:`HEAD_MESSAGE`.
    """
    decisions = np.zeros(len(analyses), dtype=bool)
    scores = np.zeros(len(analyses), dtype=np.float64)
    for i, a in enumerate(analyses):
        flag = a.flags.get(head)
        score = getattr(a, head) if head in _ATTRIBUTE_HEADS else a.scores.get(head)
        if flag is None or score is None:
            raise ConfigError(HEAD_MESSAGE.format(moderator=moderator, head=head))
        decisions[i], scores[i] = flag, score
    return decisions, scores


def in_sample(moderator: Moderator, label: str, texts: Sequence[str]) -> dict[str, Any]:
    """``{"rows", "n", "n_in_sample"}``: how many of ``texts`` the moderator was trained on.

    Every report lists one such entry per set of texts it scores, so that a
    figure measured on a model's own training texts is never taken for a test
    figure (the CLI prints :func:`tactful.evaluate.in_sample_warning` for each).
    """
    from ..evaluate import in_sample_count

    return {"rows": label, "n": len(texts), "n_in_sample": in_sample_count(moderator, texts)}
