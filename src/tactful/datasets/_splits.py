"""Seeded, reproducible splits.

Every derived split is a pure function of the labels (or the row count) and a
seed, so the same files give the same ids in every process and on every machine.
``numpy.random.default_rng`` (PCG64) is used because NumPy keeps its stream
stable across releases for a given seed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

__all__ = ["TEST_SHARE", "item_split", "random_split", "stratified_holdout", "stratified_kfold"]


def _round_half_up(x: float) -> int:
    return int(np.floor(x + 0.5))


def stratified_holdout(
    labels: Sequence[int], fraction: float, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Hold out ``fraction`` of each class.

    Each class (in sorted order) holds out ``round_half_up(fraction * n_class)``
    of its rows, drawn with one ``default_rng(seed)``.

    Returns
    -------
    kept, held_out : ndarray of int
        Sorted row indices.
    """
    y = np.asarray(labels)
    rng = np.random.default_rng(seed)
    held: list[np.ndarray] = []
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        held.append(rng.permutation(idx)[: _round_half_up(fraction * len(idx))])
    mask = np.zeros(len(y), dtype=bool)
    if held:
        mask[np.concatenate(held)] = True
    return np.flatnonzero(~mask), np.flatnonzero(mask)


def random_split(
    n: int, seed: int, fractions: tuple[float, float] = (0.8, 0.1)
) -> tuple[np.ndarray, ...]:
    """A random train/dev/test split of ``n`` rows.

    ``round_half_up(0.8 n)`` rows go to train, ``round_half_up(0.1 n)`` to dev,
    the rest to test (the ToxicSpans paper's 80/10/10 Monte-Carlo splits).

    Returns
    -------
    train, dev, test : ndarray of int
        Sorted row indices.
    """
    perm = np.random.default_rng(seed).permutation(n)
    n_train = _round_half_up(fractions[0] * n)
    n_dev = _round_half_up(fractions[1] * n)
    parts = perm[:n_train], perm[n_train : n_train + n_dev], perm[n_train + n_dev :]
    return tuple(np.sort(p) for p in parts)


def stratified_kfold(
    labels: Sequence[int], n_splits: int = 5, seed: int = 0
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``sklearn.model_selection.StratifiedKFold(n_splits, shuffle=True, random_state=seed)``.

    Returns
    -------
    list of (train, test) ndarray of int
        One pair per fold; the test parts partition the rows.
    """
    from sklearn.model_selection import StratifiedKFold

    y = np.asarray(labels)
    skf = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    return [(np.sort(tr), np.sort(te)) for tr, te in skf.split(np.zeros(len(y)), y)]


#: Share of each new set's items held out as its test part (never banked nor trained on).
TEST_SHARE = 0.2


def item_split(source: str, item: str, dev_share: float = 0.0) -> str:
    """``"test"`` for about :data:`TEST_SHARE` of a source's items, ``"dev"`` for about
    ``dev_share`` more, else ``"train"``.

    Stable across machines and orders: the first 8 hex digits of
    ``sha256("SOURCE:ITEM")`` below ``TEST_SHARE * 16**8`` are test, the next
    ``dev_share * 16**8`` dev (so a dev part never takes a test item). The item is what
    must not straddle the split: a Do-Not-Answer question with its six responses, a
    JailbreakBench behaviour with its harmless twin, a DIALOCONAN dialogue.
    """
    h = int(hashlib.sha256(f"{source}:{item}".encode()).hexdigest()[:8], 16)
    if h < TEST_SHARE * 16**8:
        return "test"
    return "dev" if h < (TEST_SHARE + dev_share) * 16**8 else "train"
