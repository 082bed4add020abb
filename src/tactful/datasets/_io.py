"""Reading the files of one data set, with one-line errors that name them."""

from __future__ import annotations

import ast
import csv
import gzip
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import DataError, MissingDataError
from ._record import Record

__all__ = ["Source", "Table"]

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


#: Cell spellings of a 0/1 label, including pandas' float rendering and blanks.
BINARY = {"0": 0, "1": 1, "0.0": 0, "1.0": 1}
BINARY_OR_MISSING = {**BINARY, "": None, "nan": None, "NaN": None}


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
