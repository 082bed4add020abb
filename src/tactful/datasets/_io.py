"""Reading the files of one data set, with one-line errors that name them."""

from __future__ import annotations

import ast
import csv
import dataclasses
import gzip
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pandas as pd

from ..errors import DataError, MissingDataError, UnknownNameError
from ..identity import normalize_groups
from ._record import Record

__all__ = [
    "BINARY",
    "BINARY_OR_MISSING",
    "SEED",
    "Source",
    "Table",
    "any_positive",
    "known_labels",
    "missing_message",
    "parse_offsets",
    "relabel",
    "rows",
]

#: Seed of every derived split (dev carve-outs, folds, the first random split).
SEED = 0

_HINT = "Pass --data-dir or set TACTFUL_DATA."


@dataclass(slots=True)
class Table:
    """A parsed data set: every record once, and which records each split holds.

    ``records[i].split`` is the record's *natural* split (``"train"``, ``"test"``,
    ``"all"``); ``splits`` maps every split name, including derived ones such as
    folds, to indices into ``records``. Records are shared between splits and
    only re-labelled with the requested split name on the way out, so derived
    splits cost an index array, not a copy of the data.
    """

    records: list[Record]
    splits: dict[str, Sequence[int]] = field(default_factory=dict)

    @classmethod
    def all_rows(cls, records: list[Record]) -> Table:
        """A data set with one split, ``"all"``, holding every record."""
        return cls(records, {"all": rows(len(records))})


def missing_message(name: str, rel: str, folder: Path) -> str:
    where = os.path.abspath(folder)
    if not Path(where).is_dir():
        return f"Data set {name!r} needs {rel}, but the data folder {where} does not exist. {_HINT}"
    return f"Data set {name!r} needs {rel}, which is not in {where}. {_HINT}"


class Source:
    """The files of one data set in one data folder.

    Every reader raises :class:`MissingDataError` for a missing file and
    :class:`DataError` (one line, naming the file) for a file it cannot parse.
    """

    def __init__(self, name: str, root: Path) -> None:
        self.name = name
        self.root = root

    # -- errors ----------------------------------------------------------------
    def error(self, rel: str, what: str, row: int | None = None) -> DataError:
        """A :class:`DataError` for ``rel``; ``row`` is 0-based, shown 1-based."""
        at = f", data row {row + 1}" if row is not None else ""
        what = " ".join(str(what).split())  # one line, whatever the parser said
        return DataError(f"Data set {self.name!r}: cannot read {rel}{at}: {what}")

    def path(self, rel: str) -> Path:
        p = self.root / rel
        if not p.is_file():
            raise MissingDataError(missing_message(self.name, rel, self.root))
        return p

    # -- readers -----------------------------------------------------------------
    def read_text(self, rel: str) -> str:
        p = self.path(rel)
        try:
            if rel.endswith(".gz"):
                with gzip.open(p, "rt", encoding="utf-8", newline="") as fh:
                    return fh.read()
            # newline="" keeps "\r" and "\r\n" inside texts as they are in the file.
            with open(p, encoding="utf-8", newline="") as fh:
                return fh.read()
        except (OSError, EOFError, UnicodeDecodeError) as exc:
            raise self.error(rel, f"{type(exc).__name__}: {exc}") from exc

    def read_json(self, rel: str) -> Any:
        text = self.read_text(rel)
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise self.error(
                rel, f"invalid JSON at line {exc.lineno} column {exc.colno} ({exc.msg})"
            ) from exc

    def read_jsonl(self, rel: str) -> list[Any]:
        out = []
        for i, line in enumerate(self.read_text(rel).split("\n")):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise self.error(rel, f"invalid JSON on line {i + 1} ({exc.msg})") from exc
        return out

    def read_lines(self, rel: str) -> list[str]:
        """Lines split on ``"\\n"`` only.

        ``str.splitlines`` would also split on U+2028, U+0085 and friends, which
        occur inside tweets; the files are one text per ``"\\n"``-terminated line.
        A trailing ``"\\r"`` (CRLF files) is dropped; other whitespace is kept.
        """
        text = self.read_text(rel)
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return [ln.removesuffix("\r") for ln in lines]

    def read_csv(
        self, rel: str, columns: Iterable[str] = (), sep: str = ","
    ) -> dict[str, list[str]]:
        """Column name → cells, every cell the exact string in the file.

        No NA guessing and no number parsing. Columns come back as plain lists:
        iterating pandas' Arrow-backed string columns cell by cell is several
        times slower than building records from lists.
        """
        p = self.path(rel)
        try:
            df = pd.read_csv(
                p,
                sep=sep,
                dtype=str,
                keep_default_na=False,
                na_filter=False,
                encoding="utf-8",
                quoting=csv.QUOTE_MINIMAL,
            )
        except (
            pd.errors.ParserError,
            pd.errors.EmptyDataError,
            UnicodeDecodeError,
            ValueError,
        ) as exc:
            raise self.error(rel, f"{type(exc).__name__}: {exc}") from exc
        missing = [c for c in columns if c not in df.columns]
        if missing:
            raise self.error(
                rel, f"missing column(s) {', '.join(map(repr, missing))}; found {list(df.columns)}"
            )
        return {str(c): df[c].tolist() for c in df.columns}

    # -- cell parsers --------------------------------------------------------------
    def text(self, rel: str, row: int, value: Any) -> str:
        """``value`` if it is a str (a JSON text field), else a DataError."""
        if not isinstance(value, str):
            raise self.error(rel, f"text is {type(value).__name__}, not a string", row)
        return value

    def groups(self, rel: str, row: int | None, names: Iterable[str]) -> tuple[str, ...]:
        """Identity groups of a row (:func:`tactful.identity.normalize_groups`).

        An unknown spelling is this file's :class:`DataError`, naming the file and row.
        """
        try:
            return normalize_groups(names)
        except UnknownNameError as exc:
            raise self.error(rel, exc.args[0], row) from None

    def binary(
        self, rel: str, row: int, value: Any, mapping: Mapping[str, int | None]
    ) -> int | None:
        """Map a cell to 1/0/None through ``mapping``; anything else is a DataError."""
        key = str(value).strip()
        if key not in mapping:
            raise self.error(
                rel, f"unexpected label {value!r} (expected one of {sorted(mapping)})", row
            )
        return mapping[key]

    def label_records(
        self,
        rel: str,
        text_col: str,
        label_col: str,
        key: str,
        mapping: Mapping[str, int | None] | None = None,
        *,
        extra_labels: Sequence[str] = (),
        meta_cols: Sequence[str] = (),
        group_cols: tuple[str, str] | None = None,
    ) -> list[Record]:
        """One record per csv row of a text and a binary label (split ``"all"``, id = row).

        Parameters
        ----------
        rel, text_col, label_col : str
            The file and its text and label columns.
        key : str
            ``labels[key]`` is the label, read through ``mapping`` (default :data:`BINARY`).
        extra_labels : sequence of str
            More label columns, read with :data:`BINARY_OR_MISSING` into ``labels``.
        meta_cols : sequence of str
            Columns kept as they are in ``meta``.
        group_cols : (str, str), optional
            The columns of ``;``-separated group names and sub-identities:
            ``groups`` through :func:`tactful.identity.normalize_groups`,
            ``sub_identities`` stripped, without blanks and repeats.
        """
        tag_cols = group_cols or ()
        cols = self.read_csv(rel, [text_col, label_col, *tag_cols, *extra_labels, *meta_cols])
        mapping = BINARY if mapping is None else mapping
        extras = {c: cols[c] for c in extra_labels}
        metas = {c: cols[c] for c in meta_cols}
        groups_of: dict[str, tuple[str, ...]] = {}  # few distinct cells: map each once
        out = []
        for i, (text, cell) in enumerate(zip(cols[text_col], cols[label_col], strict=True)):
            y = self.binary(rel, i, cell, mapping)
            labels: dict[str, int | None] = {key: y}
            for c, col in extras.items():
                labels[c] = self.binary(rel, i, col[i], BINARY_OR_MISSING)
            groups: tuple[str, ...] = ()
            subs: tuple[str, ...] = ()
            if group_cols is not None:
                big = cols[group_cols[0]][i]
                if big not in groups_of:
                    groups_of[big] = self.groups(rel, i, big.split(";"))
                groups = groups_of[big]
                sub = cols[group_cols[1]][i]
                subs = tuple(dict.fromkeys(t.strip() for t in sub.split(";") if t.strip()))
            out.append(
                Record(
                    str(i),
                    text,
                    y,
                    "all",
                    labels,
                    groups=groups,
                    sub_identities=subs,
                    meta={c: v[i] for c, v in metas.items()},
                )
            )
        return out


#: Cell spellings of a 0/1 label, including pandas' float rendering and blanks.
BINARY = {"0": 0, "1": 1, "0.0": 0, "1.0": 1}
BINARY_OR_MISSING = {**BINARY, "": None, "nan": None, "NaN": None}


def rows(n: int, start: int = 0) -> list[int]:
    """Indices ``start .. start + n - 1``: a split of ``n`` consecutive records."""
    return list(range(start, start + n))


def relabel(records: list[Record], split_of: Mapping[int, str]) -> list[Record]:
    """Records with their natural split set from ``split_of`` (index → split)."""
    return [
        dataclasses.replace(r, split=split_of[i]) if i in split_of else r
        for i, r in enumerate(records)
    ]


def known_labels(records: Sequence[Record]) -> list[int]:
    """The labels of records whose label is always known (splits stratify by them)."""
    labels = [r.label for r in records]
    if any(y is None for y in labels):  # a loader bug: a stratified set has no unknowns
        raise AssertionError("stratified split over records with an unknown label")
    return cast("list[int]", labels)


def any_positive(values: Sequence[int | None]) -> int | None:
    """1 if any value is 1; 0 if at least one is known and all known are 0; else None."""
    if any(v == 1 for v in values):
        return 1
    if any(v == 0 for v in values):
        return 0
    return None


def parse_offsets(src: Source, rel: str, row: int, cell: str) -> list[int]:
    """A SemEval ``spans`` cell such as ``"[0, 1, 2]"`` as a list of ints."""
    try:
        value = json.loads(cell)
    except json.JSONDecodeError:
        try:
            value = ast.literal_eval(cell)
        except (ValueError, SyntaxError) as exc:
            raise src.error(rel, f"spans cell {cell[:40]!r} is not a list of offsets", row) from exc
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise src.error(rel, f"spans cell {cell[:40]!r} is not a list of integer offsets", row)
    return value
