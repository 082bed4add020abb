"""Rows in and out: user CSV/JSONL files and data set references.

A user file is CSV (header row) or JSON Lines (one object per line), UTF-8,
chosen by its suffix. Bad input is one :class:`~tactful.errors.DataError` line
naming the file and, where it helps, the line: nothing is half-read silently.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError, DataError, MissingDataError

__all__ = ["FORMATS", "Rows", "read_rows", "rows_from", "write_rows"]

#: File suffixes read and written, and their format.
FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}

# Texts can be long (stories, logs): the csv module's 128 KiB field limit would
# reject them with an error that names no line. 64 MiB is far above any text.
_FIELD_LIMIT = 64 * 1024 * 1024

_TRUE = {"1", "true", "toxic", "yes"}
_FALSE = {"0", "false", "nontoxic", "non-toxic", "no"}


@dataclass(frozen=True, slots=True)
class Rows:
    """Texts to run, with their ids, optional labels and the raw rows they came from.

    Attributes
    ----------
    source : str
        Where they came from: a file path or ``"dataset:split"``.
    ids, texts : tuple of str
        One per row.
    labels : tuple of int or None
        Gold labels (1 = toxic) per row; ``None`` for an unlabelled row.
    raw : tuple of dict
        The rows as read (a file's columns, or ``id``/``text``/``label`` of a data set).
    fmt : str or None
        ``"csv"`` or ``"jsonl"`` for a file, ``None`` for a data set.
    """

    source: str
    ids: tuple[str, ...]
    texts: tuple[str, ...]
    labels: tuple[int | None, ...]
    raw: tuple[dict[str, Any], ...]
    fmt: str | None = None

    @property
    def labelled(self) -> bool:
        """Whether every row has a label (and there is at least one row)."""
        return bool(self.labels) and all(v is not None for v in self.labels)


def _format(path: Path) -> str:
    try:
        return FORMATS[path.suffix.lower()]
    except KeyError:
        raise ConfigError(
            f"{path}: unknown file type {path.suffix or '(no suffix)'!r}; "
            f"use one of {', '.join(sorted(FORMATS))}."
        ) from None


def _decode(path: Path) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise MissingDataError(f"No file {os.path.abspath(path)}.") from None
    except IsADirectoryError:
        raise ConfigError(f"{path} is a folder, not a CSV/JSONL file.") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataError(
            f"{path}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})."
        ) from None


def _csv_records(path: Path, text: str) -> list[dict[str, Any]]:
    old = csv.field_size_limit(_FIELD_LIMIT)
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
        out: list[dict[str, Any]] = []
        try:
            for row in reader:
                if None in row:  # more cells than header fields
                    raise DataError(
                        f"{path}:{reader.line_num}: more cells than the header has columns."
                    )
                out.append(dict(row))
        except csv.Error as exc:
            raise DataError(f"{path}:{reader.line_num}: malformed CSV ({exc}).") from None
        return out
    finally:
        csv.field_size_limit(old)


def _jsonl_records(path: Path, text: str) -> list[dict[str, Any]]:
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}:{lineno}: not JSON ({exc.msg}).") from None
        if not isinstance(obj, dict):
            raise DataError(f"{path}:{lineno}: a JSON object is wanted, got {type(obj).__name__}.")
        out.append(obj)
    return out


def _label(path: Path, where: int, value: Any) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)) and value in (0, 1):
        return int(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return int(value.strip().lower() in _TRUE)
    raise DataError(f"{path}: row {where}: label must be 0/1 or true/false. Got {value!r}.")


def read_rows(
    path: str | os.PathLike[str], *, text_column: str = "text", label_column: str = "label"
) -> Rows:
    """The rows of a CSV or JSONL file.

    Parameters
    ----------
    path : path-like
        ``.csv`` (with a header) or ``.jsonl``/``.ndjson``, UTF-8 (a BOM is fine).
    text_column : str, default="text"
        The column holding the text; every row must have a string there.
    label_column : str, default="label"
        Optional gold label column: 0/1, true/false, toxic/nontoxic; blank = unknown.

    Returns
    -------
    Rows
        ``ids`` from an ``id`` column when the file has one, else the row number (0-based).

    Raises
    ------
    MissingDataError
        No such file.
    DataError
        Not UTF-8, malformed CSV/JSON, a row without a text, a bad label, repeated ids.
    ConfigError
        A suffix other than .csv/.jsonl/.ndjson.
    """
    p = Path(path)
    fmt = _format(p)
    text = _decode(p)
    records = _csv_records(p, text) if fmt == "csv" else _jsonl_records(p, text)
    ids, texts, labels = [], [], []
    for i, rec in enumerate(records):
        value = rec.get(text_column)
        if not isinstance(value, str):
            have = ", ".join(map(repr, rec)) or "none"
            raise DataError(
                f"{p}: row {i} has no text in column {text_column!r} (columns: {have})."
            )
        texts.append(value)
        rid = rec.get("id")
        ids.append(str(i) if rid is None or rid == "" else str(rid))
        labels.append(_label(p, i, rec.get(label_column)))
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        dup = next(x for x in ids if x in seen or seen.add(x))  # type: ignore[func-returns-value]
        raise DataError(f"{p}: the id {dup!r} occurs more than once.")
    return Rows(str(p), tuple(ids), tuple(texts), tuple(labels), tuple(records), fmt)


def rows_from(
    ref: str | os.PathLike[str], *, data_dir: str | os.PathLike[str] | None = None
) -> Rows:
    """Rows from a file path, else from a data set reference ``NAME[:SPLIT]``.

    An existing file wins; otherwise ``ref`` must name a registered data set
    (``toxicchat:train_full``), whose records give ``id``, ``text`` and ``label``.

    Raises
    ------
    ConfigError
        ``ref`` is neither a file nor a registered data set (an unknown split is
        an :class:`~tactful.errors.UnknownNameError`).
    """
    from ..datasets import dataset_names, load_dataset

    path = Path(ref)
    name, _, split = str(ref).partition(":")
    if path.is_file() or path.is_dir() or path.suffix.lower() in FORMATS:
        return read_rows(path)
    if name not in dataset_names():
        raise ConfigError(
            f"{ref!s} is neither a file nor a data set (data sets: {', '.join(dataset_names())})."
        )
    records = load_dataset(name, split or None, data_dir=data_dir)
    split = records[0].split if records else (split or "")
    return Rows(
        source=f"{name}:{split}",
        ids=tuple(r.id for r in records),
        texts=tuple(r.text for r in records),
        labels=tuple(r.label for r in records),
        raw=tuple({"id": r.id, "text": r.text, "label": r.label} for r in records),
    )


def write_rows(
    path: str | os.PathLike[str],
    rows: Iterable[Mapping[str, Any]],
    fields: Sequence[str],
    fmt: str | None = None,
) -> Path:
    """Write ``rows`` (only ``fields``, in that order) as CSV or JSONL; return the path.

    The format is ``fmt`` when given, else the suffix's. The file is written
    next to its final name and renamed into place, so a killed run never leaves
    a half file where a reader (the review console) would take it for whole.
    """
    p = Path(path)
    fmt = fmt or _format(p)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".part")
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        if fmt == "csv":
            writer = csv.DictWriter(fh, fieldnames=list(fields), extrasaction="ignore")
            writer.writeheader()
            for row in rows:
                writer.writerow({k: _cell(row.get(k)) for k in fields})
        else:
            for row in rows:
                fh.write(json.dumps({k: row.get(k) for k in fields}, ensure_ascii=False) + "\n")
    os.replace(tmp, p)
    return p


def _cell(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else value
