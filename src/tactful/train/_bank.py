"""The teacher-label bank: a teacher's sequence probabilities, keyed by the text's sha256.

A bank lives in a folder (``training/bank/`` in the repository), one subfolder per
teacher and version, one file per source (``SOURCE.npz``, or ``SOURCE.K.npz`` parts
when a source outgrows :data:`MAX_ENTRIES`)::

    training/bank/builtin-large-2.2.2/toxicchat.npz

Each file is a compressed NumPy archive holding no objects (``allow_pickle=False``):

``keys``
    ``uint8 [N, 32]``: the sha256 of each text's UTF-8 bytes, in labelling order.
``probs``
    ``float16 [N, H]``: the teacher's probability per sequence head (``meta["heads"]``).
``seen``
    ``bool [N]``: whether the teacher's training texts hold the text (a text the
    teacher saw is relabelled by a fold teacher that held it out).
``meta``
    A JSON string: the format, the teacher's name, version and model sha256, the
    heads, the source, the row count and the sha256 of ``keys``, ``probs`` and
    ``seen`` (the content hash).

Texts with toxic spans (:data:`CHAR_SOURCES`) also get the teacher's toxic probability per
*character* of the text, which a student with another tokenizer averages over its own tokens:
``chars/SOURCE.npz`` beside the source's file (``SOURCE.K.npz`` parts of at most
:data:`MAX_CHARS` characters), holding ``keys``, ``lens`` (``int32 [N]``, each text's length)
and ``chars`` (``float16 [sum(lens)]``, NaN where no token of the teacher covered the
character), with a ``meta`` like the main file's (format :data:`CHARS_FORMAT`).

Files are written atomically (a temporary file, then :func:`os.replace`), so a
labelling leg that is killed loses only the rows since its last save. The reader
refuses, in one line, a file whose teacher, version or model hash is not the one
asked for, or whose content hash does not match its rows.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DataError

__all__ = [
    "BANK_CORRUPT_MESSAGE",
    "BANK_FORMAT",
    "BANK_MISMATCH_MESSAGE",
    "CHARS_FORMAT",
    "CHAR_SOURCES",
    "MAX_CHARS",
    "MAX_ENTRIES",
    "BankFile",
    "TeacherId",
    "bank_files",
    "read_bank",
    "read_chars",
    "text_key",
    "write_bank",
    "write_chars",
]

#: The format tag in every file's ``meta``.
BANK_FORMAT = "tactful.bank/1"
#: The format tag of the per-character files.
CHARS_FORMAT = "tactful.bank-chars/1"
#: The bank sources whose texts carry toxic spans: their per-character probabilities are kept.
CHAR_SOURCES = ("toxicspans", "toxicspans_raters")
#: Characters per per-character file (float16: 2 bytes each before compression).
MAX_CHARS = 3_000_000

#: Rows per file at most: 48 bytes a row uncompressed, so a part stays far below 10 MB.
MAX_ENTRIES = 150_000

#: The one line for a file labelled by another teacher than the one asked for.
BANK_MISMATCH_MESSAGE = (
    "The bank file {path} was labelled by {found}, not by the teacher asked for: {wanted}."
)

#: The one line for a file whose rows do not match its content hash (edited or truncated).
BANK_CORRUPT_MESSAGE = (
    "The bank file {path} is damaged: {problem}. Label the source again "
    "(tactful train label --teacher NAME --source SOURCE)."
)


@dataclass(frozen=True, slots=True)
class TeacherId:
    """Who labelled a bank: the model's name, its version and its model file's sha256."""

    name: str
    version: str
    sha256: str

    @property
    def folder(self) -> str:
        """The bank subfolder of this teacher: ``NAME-VERSION``."""
        return f"{self.name}-{self.version}"

    def __str__(self) -> str:
        return f"{self.name} {self.version} (model sha256 {self.sha256[:12]})"


@dataclass(frozen=True)
class BankFile:
    """The rows of one bank file (or of all the parts of one source, concatenated)."""

    teacher: TeacherId
    source: str
    heads: tuple[str, ...]
    keys: np.ndarray  # uint8 [N, 32]
    probs: np.ndarray  # float16 [N, H]
    seen: np.ndarray  # bool [N]

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    def key_set(self) -> set[bytes]:
        """The sha256 digests of the labelled texts."""
        return {bytes(k) for k in self.keys}

    def lookup(self, texts: Sequence[str]) -> np.ndarray:
        """The probabilities of ``texts`` as float32 ``[len(texts), H]``; NaN rows for
        texts the file does not hold."""
        index = {bytes(k): i for i, k in enumerate(self.keys)}
        out = np.full((len(texts), len(self.heads)), np.nan, dtype=np.float32)
        for r, t in enumerate(texts):
            i = index.get(text_key(t))
            if i is not None:
                out[r] = self.probs[i]
        return out


def text_key(text: str) -> bytes:
    """The bank key of a text: the sha256 digest of its UTF-8 bytes (lone surrogates
    are written as U+FFFD so that every Python string has a key)."""
    return hashlib.sha256(text.encode("utf-8", "replace")).digest()


def _content_hash(*arrays: np.ndarray) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _source_files(base: Path, source: str) -> list[Path]:
    # SOURCE.npz, or its parts SOURCE.0.npz, SOURCE.1.npz, ... in order.
    one = base / f"{source}.npz"
    parts = sorted(
        base.glob(f"{source}.*.npz"), key=lambda p: int(p.name[len(source) + 1 : -len(".npz")])
    )
    return ([one] if one.exists() else []) + parts


def bank_files(folder: str | os.PathLike[str], teacher: TeacherId, source: str) -> list[Path]:
    """The files of one source in a bank folder, parts in order (may be empty)."""
    return _source_files(Path(folder) / teacher.folder, source)


def write_bank(
    folder: str | os.PathLike[str],
    teacher: TeacherId,
    source: str,
    heads: Sequence[str],
    keys: np.ndarray,
    probs: np.ndarray,
    seen: np.ndarray,
) -> list[Path]:
    """Write all rows of one source atomically, in parts of at most :data:`MAX_ENTRIES`.

    Returns the files written. Parts left over from a larger earlier write are removed.
    """
    keys = np.asarray(keys, dtype=np.uint8).reshape(-1, 32)
    probs = np.asarray(probs, dtype=np.float16).reshape(len(keys), len(heads))
    seen = np.asarray(seen, dtype=bool).reshape(len(keys))
    base = Path(folder) / teacher.folder
    base.mkdir(parents=True, exist_ok=True)
    n_parts = max(1, -(-len(keys) // MAX_ENTRIES))
    written: list[Path] = []
    for k in range(n_parts):
        sl = slice(k * MAX_ENTRIES, (k + 1) * MAX_ENTRIES)
        path = base / (f"{source}.npz" if n_parts == 1 else f"{source}.{k}.npz")
        kk, pp, ss = keys[sl], probs[sl], seen[sl]
        meta = {
            "format": BANK_FORMAT,
            "teacher": teacher.name,
            "version": teacher.version,
            "sha256": teacher.sha256,
            "heads": list(heads),
            "source": source,
            "part": k,
            "parts": n_parts,
            "rows": len(kk),
            "content_sha256": _content_hash(kk, pp, ss),
        }
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as f:
            np.savez_compressed(f, keys=kk, probs=pp, seen=ss, meta=np.array(json.dumps(meta)))
        os.replace(tmp, path)
        written.append(path)
    for old in bank_files(folder, teacher, source):
        if old not in written:
            old.unlink()
    return written


def _read_one(path: Path, teacher: TeacherId | None) -> tuple[dict[str, Any], BankFile]:
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            keys, probs, seen = z["keys"], z["probs"], z["seen"]
    except (OSError, ValueError, KeyError) as exc:
        raise DataError(
            BANK_CORRUPT_MESSAGE.format(path=path, problem=f"not a bank file ({exc})")
        ) from None
    if meta.get("format") != BANK_FORMAT:
        raise DataError(
            BANK_CORRUPT_MESSAGE.format(
                path=path, problem=f"format {meta.get('format')!r}, not {BANK_FORMAT!r}"
            )
        )
    found = TeacherId(str(meta["teacher"]), str(meta["version"]), str(meta["sha256"]))
    if teacher is not None and found != teacher:
        raise DataError(BANK_MISMATCH_MESSAGE.format(path=path, found=found, wanted=teacher))
    if len(keys) != meta["rows"] or _content_hash(keys, probs, seen) != meta["content_sha256"]:
        raise DataError(
            BANK_CORRUPT_MESSAGE.format(path=path, problem="its rows do not match its content hash")
        )
    heads = tuple(meta["heads"])
    return meta, BankFile(found, str(meta["source"]), heads, keys, probs, seen)


def read_bank(folder: str | os.PathLike[str], teacher: TeacherId, source: str) -> BankFile | None:
    """All rows of one source labelled by ``teacher`` (``None`` when there are none).

    Raises
    ------
    DataError
        A file was labelled by another teacher, version or model
        (:data:`BANK_MISMATCH_MESSAGE`), or its rows do not match its content hash
        (:data:`BANK_CORRUPT_MESSAGE`).
    """
    files = bank_files(folder, teacher, source)
    if not files:
        return None
    parts = [_read_one(p, teacher)[1] for p in files]
    heads = parts[0].heads
    return BankFile(
        teacher,
        source,
        heads,
        np.concatenate([p.keys for p in parts]),
        np.concatenate([p.probs for p in parts]),
        np.concatenate([p.seen for p in parts]),
    )


def read_any(path: str | os.PathLike[str]) -> BankFile:
    """One bank file, whoever labelled it (for listings; training uses :func:`read_bank`)."""
    return _read_one(Path(path), None)[1]


def bank_summary(folder: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """One row per teacher and source: rows, distinct texts, texts the teacher saw, bytes."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for path in sorted(Path(folder).glob("*/*.npz")):
        f = read_any(path)
        row = rows.setdefault(
            (f.teacher.folder, f.source),
            {"teacher": f.teacher.folder, "source": f.source, "rows": 0, "seen": 0, "bytes": 0},
        )
        row["rows"] += len(f)
        row["seen"] += int(f.seen.sum())
        row["bytes"] += path.stat().st_size
    return list(rows.values())


def distinct_texts(folder: str | os.PathLike[str], teacher_folder: str | None = None) -> int:
    """The number of distinct text keys in a bank (over every source of one teacher,
    or of all teachers)."""
    keys: set[bytes] = set()
    pattern = f"{teacher_folder}/*.npz" if teacher_folder else "*/*.npz"
    for path in Path(folder).glob(pattern):
        keys.update(read_any(path).key_set())
    return len(keys)


def merge_rows(
    old: BankFile | None, keys: Iterable[bytes], probs: np.ndarray, seen: np.ndarray, n_heads: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``old``'s rows followed by the new ones, as the arrays :func:`write_bank` takes."""
    new_keys = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(-1, 32)
    if old is None:
        return new_keys, np.asarray(probs, np.float16).reshape(-1, n_heads), np.asarray(seen, bool)
    return (
        np.concatenate([old.keys, new_keys]),
        np.concatenate([old.probs, np.asarray(probs, np.float16).reshape(-1, n_heads)]),
        np.concatenate([old.seen, np.asarray(seen, bool)]),
    )


def chars_files(folder: str | os.PathLike[str], teacher: TeacherId, source: str) -> list[Path]:
    """The per-character files of one source, parts in order (may be empty)."""
    return _source_files(Path(folder) / teacher.folder / "chars", source)


def write_chars(
    folder: str | os.PathLike[str],
    teacher: TeacherId,
    source: str,
    per_text: dict[bytes, np.ndarray],
) -> list[Path]:
    """Write the per-character toxic probabilities of one source's texts (by key),
    atomically, in parts of at most :data:`MAX_CHARS` characters. Returns the files."""
    base = Path(folder) / teacher.folder / "chars"
    base.mkdir(parents=True, exist_ok=True)
    groups: list[list[bytes]] = [[]]
    size = 0
    for key, arr in per_text.items():
        if groups[-1] and size + len(arr) > MAX_CHARS:
            groups.append([])
            size = 0
        groups[-1].append(key)
        size += len(arr)
    written: list[Path] = []
    for k, group in enumerate(groups):
        path = base / (f"{source}.npz" if len(groups) == 1 else f"{source}.{k}.npz")
        keys = np.frombuffer(b"".join(group), dtype=np.uint8).reshape(-1, 32)
        lens = np.array([len(per_text[g]) for g in group], dtype=np.int32)
        chars = (
            np.concatenate([per_text[g] for g in group]).astype(np.float16)
            if group
            else np.zeros(0, np.float16)
        )
        meta = {
            "format": CHARS_FORMAT,
            "teacher": teacher.name,
            "version": teacher.version,
            "sha256": teacher.sha256,
            "source": source,
            "rows": len(group),
            "content_sha256": _content_hash(keys, lens, chars),
        }
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as f:
            np.savez_compressed(
                f, keys=keys, lens=lens, chars=chars, meta=np.array(json.dumps(meta))
            )
        os.replace(tmp, path)
        written.append(path)
    for old in chars_files(folder, teacher, source):
        if old not in written:
            old.unlink()
    return written


def read_chars(
    folder: str | os.PathLike[str], teacher: TeacherId, source: str
) -> dict[bytes, np.ndarray] | None:
    """The per-character toxic probabilities (float16) of one source's texts, by key
    (``None`` when the bank holds none).

    Raises
    ------
    DataError
        A file of another teacher (:data:`BANK_MISMATCH_MESSAGE`) or a damaged one
        (:data:`BANK_CORRUPT_MESSAGE`).
    """
    files = chars_files(folder, teacher, source)
    if not files:
        return None
    out: dict[bytes, np.ndarray] = {}
    for path in files:
        try:
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                keys, lens, chars = z["keys"], z["lens"], z["chars"]
        except (OSError, ValueError, KeyError) as exc:
            raise DataError(
                BANK_CORRUPT_MESSAGE.format(path=path, problem=f"not a bank file ({exc})")
            ) from None
        found = TeacherId(str(meta["teacher"]), str(meta["version"]), str(meta["sha256"]))
        if meta.get("format") != CHARS_FORMAT or found != teacher:
            raise DataError(BANK_MISMATCH_MESSAGE.format(path=path, found=found, wanted=teacher))
        if (
            len(keys) != meta["rows"]
            or int(lens.sum()) != len(chars)
            or _content_hash(keys, lens, chars) != meta["content_sha256"]
        ):
            raise DataError(
                BANK_CORRUPT_MESSAGE.format(
                    path=path, problem="its rows do not match its content hash"
                )
            )
        ends = np.cumsum(lens)
        for key, end, n in zip(keys, ends, lens, strict=True):
            out[bytes(key)] = chars[end - n : end]
    return out
