"""Labelling legs: a teacher labels one bank source for as long as a leg allows.

``tactful train label --teacher builtin-large --source toxicchat --minutes 60``
labels the source's texts that the bank does not hold yet, saving every
``save_minutes`` (atomically) and when the time is up, so that the next leg, on
any machine, goes on from the committed files. No torch: the teacher runs on
ONNX Runtime, as at inference.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._hashing import sha256_file
from .._heads import SEQ_HEADS
from ._bank import (
    CHAR_SOURCES,
    TeacherId,
    merge_rows,
    read_bank,
    read_chars,
    text_key,
    write_bank,
    write_chars,
)
from ._bank_sources import source_texts

__all__ = ["LabelLeg", "char_probs", "label_source", "teacher_id"]

log = logging.getLogger("tactful.train")

#: Texts per ONNX call group of a labelling leg.
CHUNK = 64


@dataclass(frozen=True)
class LabelLeg:
    """What one labelling leg did."""

    source: str
    total: int  # distinct texts of the source
    before: int  # already in the bank when the leg started
    labelled: int  # labelled by this leg
    seconds: float

    @property
    def done(self) -> bool:
        return self.before + self.labelled >= self.total


def teacher_id(moderator: Any) -> TeacherId:
    """The :class:`TeacherId` of a builtin moderator: its name, card version and the
    sha256 of its ONNX file (read from the file, not trusted from the card)."""
    folder = Path(moderator._dir)
    return TeacherId(
        moderator.name, str(moderator.card["version"]), sha256_file(folder / "model.onnx")
    )


def char_probs(text: str, tox: np.ndarray, norm: Any, offsets: Any) -> np.ndarray:
    """The teacher's toxic probability per character of ``text`` (float16; NaN where
    no token covered it; the largest where tokens overlap), through the normalizer's
    offset map, as the runtime's spans are placed."""
    from ..align import align_tokens

    out = np.full(len(text), np.nan, dtype=np.float32)
    for k, (a, z) in enumerate(align_tokens(list(offsets), norm)):
        if z > a:
            out[a:z] = tox[k] if np.isnan(out[a]) else max(out[a], tox[k])
    return out.astype(np.float16)


def label_source(
    moderator: Any,
    source: str,
    bank_dir: str | os.PathLike[str],
    *,
    minutes: float,
    save_minutes: float = 5.0,
    data_dir: str | os.PathLike[str] | None = None,
    limit: int | None = None,
    teacher: TeacherId | None = None,
) -> LabelLeg:
    """Label ``source``'s missing texts with ``moderator`` until ``minutes`` have passed.

    The texts are taken in the source's order, skipping those the bank holds, so a
    killed leg loses only the texts since its last save. ``limit`` caps the texts this
    leg labels (tests); ``teacher`` is :func:`teacher_id` of ``moderator``, passed
    when labelling several sources so that the model file is hashed once.
    Returns what the leg did.
    """
    t0 = time.monotonic()
    teacher = teacher or teacher_id(moderator)
    texts = source_texts(source, data_dir)
    old = read_bank(bank_dir, teacher, source)
    have = old.key_set() if old is not None else set()
    todo = [t for t in texts if text_key(t) not in have]
    if limit is not None:
        todo = todo[:limit]
    seen_set = moderator.trained_texts()
    heads = tuple(getattr(moderator, "heads", SEQ_HEADS))  # a category model banks them all
    with_chars = source in CHAR_SOURCES
    char_rows: dict[bytes, np.ndarray] = (
        (read_chars(bank_dir, teacher, source) or {}) if with_chars else {}
    )
    keys: list[bytes] = []
    probs: list[np.ndarray] = []
    seen: list[bool] = []
    last_save = time.monotonic()
    labelled = 0

    def save() -> None:
        nonlocal old, keys, probs, seen
        if not keys:
            return
        k, p, s = merge_rows(old, keys, np.concatenate(probs), np.array(seen), len(heads))
        if with_chars:  # first: a text in the main file always has its characters
            write_chars(bank_dir, teacher, source, char_rows)
        write_bank(bank_dir, teacher, source, heads, k, p, s)
        old = read_bank(bank_dir, teacher, source)
        keys, probs, seen = [], [], []

    deadline = t0 + minutes * 60
    for start in range(0, len(todo), CHUNK):
        if time.monotonic() >= deadline:
            break
        chunk = todo[start : start + CHUNK]
        seq, tox, _typ, norms, offsets = moderator.predict_arrays(chunk)
        if with_chars:
            for text, t, norm, offs in zip(chunk, tox, norms, offsets, strict=True):
                char_rows[text_key(text)] = char_probs(text, t, norm, offs)
        keys.extend(text_key(t) for t in chunk)
        probs.append(seq.astype(np.float16))
        seen.extend(bool(seen_set is not None and t in seen_set) for t in chunk)
        labelled += len(chunk)
        if time.monotonic() - last_save >= save_minutes * 60:
            save()
            last_save = time.monotonic()
            log.info("%s: %d/%d labelled", source, len(have) + labelled, len(texts))
    save()
    return LabelLeg(source, len(texts), len(have), labelled, round(time.monotonic() - t0, 1))
