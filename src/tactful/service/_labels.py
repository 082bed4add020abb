"""The console's SQLite store: analyzed items, upload jobs and people's labels.

One file in WAL mode, safe to share between worker processes. Each label is
kept with who gave it and when (UTC); a later label of the same item is a new
row, and the newest counts. Texts are stored as UTF-8 with lone surrogates
passed through, so any Python ``str`` comes back exactly as it went in.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import socket
import sqlite3
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._types import Analysis
from ..align import replace_surrogates
from ..errors import ConfigError, DataError, TactfulError

__all__ = [
    "EXPORT_COLUMNS",
    "LABELS",
    "LabelStore",
    "parse_texts_file",
    "review_uncertainty",
]

#: The labels a person can give.
LABELS = ("toxic", "not_toxic")

#: Columns of the CSV/JSONL export, one row per label given.
EXPORT_COLUMNS = (
    "label_id",
    "item_id",
    "ext_id",
    "text",
    "model",
    "model_flagged",
    "score",
    "threshold",
    "label",
    "decision",
    "who",
    "key",
    "at",
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY,
    model TEXT NOT NULL,
    source TEXT NOT NULL,
    digest TEXT,
    status TEXT NOT NULL,
    owner TEXT NOT NULL,
    done INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL,
    error TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (model, digest)
);
CREATE TABLE IF NOT EXISTS items (
    id INTEGER PRIMARY KEY,
    job_id INTEGER REFERENCES jobs(id),
    ext_id TEXT,
    text BLOB NOT NULL,
    model TEXT NOT NULL,
    source TEXT NOT NULL,
    flagged INTEGER NOT NULL,
    score REAL,
    threshold REAL NOT NULL,
    uncertainty REAL,
    analysis TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS items_by_job ON items (job_id, id);
CREATE INDEX IF NOT EXISTS items_by_doubt ON items (model, uncertainty);
CREATE TABLE IF NOT EXISTS labels (
    id INTEGER PRIMARY KEY,
    item_id INTEGER NOT NULL REFERENCES items(id),
    label TEXT NOT NULL,
    model_flagged INTEGER NOT NULL,
    who TEXT NOT NULL,
    key TEXT,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS labels_by_item ON labels (item_id, id);
"""


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _alive(owner: str) -> bool:
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False  # another machine's job cannot be checked: treat it as stopped
    if int(pid) == os.getpid():
        return False  # this process is starting: nothing of its own runs yet
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _enc(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _dec(blob: bytes) -> str:
    return bytes(blob).decode("utf-8", "surrogatepass")


def review_uncertainty(
    a: Analysis, head: str, threshold: float
) -> tuple[float | None, float | None]:
    """``(score, |score - threshold|)`` of ``head``; ``(None, None)`` if ``a`` has no such score.

    The review queue shows the smallest distances first: the items whose
    decision the model is least sure of (ToxicChat's human-AI annotation).
    """
    score = a.scores.get(head)
    if score is None:
        return None, None
    return score, abs(score - threshold)


@dataclass(frozen=True, slots=True)
class _Row:
    ext_id: str | None
    text: str


class LabelStore:
    """Items, jobs and labels in one SQLite file (created when missing).

    Parameters
    ----------
    path : path-like
        The SQLite file; its folder must exist.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.parent.is_dir():
            raise ConfigError(f"The folder of the labels file {self.path} does not exist.")
        with self._db() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)

    @contextlib.contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        try:
            db = sqlite3.connect(self.path, timeout=30)
        except sqlite3.Error as exc:
            raise DataError(f"Cannot open the labels file {self.path}: {exc}.") from None
        db.row_factory = sqlite3.Row
        try:
            with db:  # commit on success, roll back on error
                db.execute("PRAGMA foreign_keys=ON")
                yield db
        except sqlite3.DatabaseError as exc:
            raise DataError(f"The labels file {self.path} cannot be used: {exc}.") from None
        finally:
            db.close()

    # -- jobs ---------------------------------------------------------------------
    def start_job(
        self, *, model: str, source: str, total: int, digest: str | None
    ) -> tuple[int, bool]:
        """A new job, or the existing one with the same ``(model, digest)``: ``(id, is_new)``.

        A file already imported for a moderator is not imported twice, so a
        restart (or a second upload of the same file) adds no duplicates; a job
        that failed or was interrupted is started afresh.
        """
        with self._db() as db:
            # Look and insert in one write transaction: two workers may import the same file.
            db.execute("BEGIN IMMEDIATE")
            if digest is not None:
                row = db.execute(
                    "SELECT id, status FROM jobs WHERE model = ? AND digest = ?", (model, digest)
                ).fetchone()
                if row is not None and row["status"] in ("running", "done"):
                    return int(row["id"]), False
                if row is not None:
                    db.execute(
                        "DELETE FROM labels WHERE item_id IN "
                        "(SELECT id FROM items WHERE job_id = ?)",
                        (row["id"],),
                    )
                    db.execute("DELETE FROM items WHERE job_id = ?", (row["id"],))
                    db.execute("DELETE FROM jobs WHERE id = ?", (row["id"],))
            cur = db.execute(
                "INSERT INTO jobs (model, source, digest, status, owner, done, total, "
                "created_at) VALUES (?, ?, ?, 'running', ?, 0, ?, ?)",
                (model, source, digest, _owner(), total, _now()),
            )
            return int(cur.lastrowid or 0), True

    def finish_job(self, job_id: int, error: str | None = None) -> None:
        with self._db() as db:
            db.execute(
                "UPDATE jobs SET status = ?, error = ? WHERE id = ?",
                ("failed" if error else "done", error, job_id),
            )

    def interrupt_running_jobs(self) -> int:
        """Mark jobs left ``running`` by a stopped server as ``interrupted``; how many.

        A job whose process is still alive (another worker of the same server
        on this machine) is left running.
        """
        with self._db() as db:
            rows = db.execute("SELECT id, owner FROM jobs WHERE status = 'running'").fetchall()
            dead = [r["id"] for r in rows if not _alive(r["owner"])]
            db.executemany(
                "UPDATE jobs SET status = 'interrupted' WHERE id = ?", [(i,) for i in dead]
            )
        return len(dead)

    def job(self, job_id: int) -> dict[str, Any]:
        with self._db() as db:
            row = db.execute(
                "SELECT id, model, source, status, done, total, error FROM jobs WHERE id = ?",
                (job_id,),
            ).fetchone()
        if row is None:
            raise KeyError(job_id)
        return dict(row)

    # -- items --------------------------------------------------------------------
    def add_items(
        self,
        *,
        model: str,
        source: str,
        rows: Sequence[tuple[str | None, str]],
        analyses: Sequence[Analysis],
        head: str,
        threshold: float,
        job_id: int | None = None,
    ) -> list[int]:
        """Store analyzed texts; their ids. A job's ``done`` count grows by ``len(rows)``."""
        if len(rows) != len(analyses):
            raise ValueError("one analysis per row")
        now = _now()
        ids = []
        with self._db() as db:
            for (ext_id, text), a in zip(rows, analyses, strict=True):
                score, doubt = review_uncertainty(a, head, threshold)
                cur = db.execute(
                    "INSERT INTO items (job_id, ext_id, text, model, source, flagged, score, "
                    "threshold, uncertainty, analysis, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        job_id,
                        ext_id,
                        _enc(text),
                        model,
                        source,
                        int(a.flagged),
                        score,
                        threshold,
                        doubt,
                        json.dumps(a.to_dict(), allow_nan=False),
                        now,
                    ),
                )
                ids.append(int(cur.lastrowid or 0))
            if job_id is not None:
                db.execute("UPDATE jobs SET done = done + ? WHERE id = ?", (len(rows), job_id))
        return ids

    _ITEM_SQL = (
        "SELECT i.id, i.ext_id, i.text, i.model, i.source, i.score, i.threshold, "
        "i.uncertainty, i.analysis, "
        "(SELECT l.label FROM labels l WHERE l.item_id = i.id ORDER BY l.id DESC LIMIT 1) "
        "AS label FROM items i "
    )

    @staticmethod
    def _item(row: sqlite3.Row) -> dict[str, Any]:
        out = dict(row)
        out["text"] = _dec(row["text"])
        out["analysis"] = json.loads(row["analysis"])
        return out

    def items(self, ids: Sequence[int]) -> list[dict[str, Any]]:
        """Items by id, in the order asked."""
        if not ids:
            return []
        with self._db() as db:
            marks = ",".join("?" * len(ids))
            rows = db.execute(self._ITEM_SQL + f"WHERE i.id IN ({marks})", list(ids)).fetchall()
        by_id = {r["id"]: self._item(r) for r in rows}
        return [by_id[i] for i in ids if i in by_id]

    def job_items(self, job_id: int, *, offset: int = 0, limit: int = 500) -> list[dict[str, Any]]:
        with self._db() as db:
            rows = db.execute(
                self._ITEM_SQL + "WHERE i.job_id = ? ORDER BY i.id LIMIT ? OFFSET ?",
                (job_id, limit, offset),
            ).fetchall()
        return [self._item(r) for r in rows]

    def queue(self, *, model: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """Unlabelled items, least sure first (items without the review score last)."""
        where = "WHERE NOT EXISTS (SELECT 1 FROM labels l WHERE l.item_id = i.id)"
        args: list[Any] = []
        if model is not None:
            where += " AND i.model = ?"
            args.append(model)
        with self._db() as db:
            rows = db.execute(
                self._ITEM_SQL + where + " ORDER BY i.uncertainty IS NULL, i.uncertainty, i.id "
                "LIMIT ?",
                [*args, limit],
            ).fetchall()
        return [self._item(r) for r in rows]

    # -- labels -------------------------------------------------------------------
    def add_label(
        self, item_id: int, label: str, *, who: str, key: str | None = None
    ) -> dict[str, Any]:
        """Record ``label`` for an item; the label row (with ``decision``: accept or override)."""
        if label not in LABELS:
            raise ConfigError(f"A label is one of {', '.join(LABELS)}. Got {label!r} instead.")
        with self._db() as db:
            item = db.execute("SELECT flagged FROM items WHERE id = ?", (item_id,)).fetchone()
            if item is None:
                raise KeyError(item_id)
            at = _now()
            cur = db.execute(
                "INSERT INTO labels (item_id, label, model_flagged, who, key, at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (item_id, label, item["flagged"], who, key, at),
            )
            label_id = int(cur.lastrowid or 0)
        return {
            "id": label_id,
            "item_id": item_id,
            "label": label,
            "decision": _decision(label, bool(item["flagged"])),
            "who": who,
            "key": key,
            "at": at,
        }

    def export_rows(self) -> list[dict[str, Any]]:
        """Every label given, oldest first, with its item (columns :data:`EXPORT_COLUMNS`)."""
        with self._db() as db:
            rows = db.execute(
                "SELECT l.id AS label_id, i.id AS item_id, i.ext_id, i.text, i.model, "
                "l.model_flagged, i.score, i.threshold, l.label, l.who, l.key, l.at "
                "FROM labels l JOIN items i ON i.id = l.item_id ORDER BY l.id"
            ).fetchall()
        out = []
        for r in rows:
            d = dict(r)
            d["text"] = _dec(r["text"])
            d["model_flagged"] = bool(r["model_flagged"])
            d["decision"] = _decision(r["label"], d["model_flagged"])
            out.append({c: d[c] for c in EXPORT_COLUMNS})
        return out

    def export_jsonl(self) -> str:
        """The labels as JSON lines (ASCII; lone surrogates kept as ``\\ud800`` escapes)."""
        return "".join(json.dumps(r, allow_nan=False) + "\n" for r in self.export_rows())

    def export_csv(self) -> str:
        """The labels as CSV (lone surrogates, which UTF-8 cannot hold, become U+FFFD)."""
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=EXPORT_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for r in self.export_rows():
            writer.writerow({**r, "text": replace_surrogates(r["text"])})
        return buf.getvalue()


def _decision(label: str, model_flagged: bool) -> str:
    return "accept" if (label == "toxic") == model_flagged else "override"


def parse_texts_file(data: bytes, name: str, *, max_chars: int) -> list[tuple[str | None, str]]:
    """``(id, text)`` rows of an uploaded CSV or JSONL file.

    The file is read by :func:`tactful.assist.read_rows`, the reader of the
    triage's own files (so a ``needs_human`` file reads the same in both): CSV
    with a header holding a ``text`` column, or JSON Lines with a ``text``
    string per object; ``id`` optional (the row number otherwise); the suffix
    of ``name`` picks the format.

    Raises
    ------
    DataError
        Bytes that are not UTF-8, a malformed line, a row without a text,
        repeated ids, a text longer than ``max_chars``, a file without texts;
        the message names the file and the line or row.
    ConfigError
        A name without a ``.csv``, ``.jsonl`` or ``.ndjson`` suffix.
    """
    from ..assist import read_rows

    base = Path(name).name or "upload"
    with tempfile.TemporaryDirectory(prefix="tactful-upload-") as tmp:
        path = Path(tmp) / base
        path.write_bytes(data)
        try:
            rows = read_rows(path)
        except TactfulError as exc:
            # Name the file as the person knows it, not the temporary copy.
            text = str(exc).removeprefix(f"[{exc.code}] ").replace(f"{tmp}{os.sep}", "")
            raise (ConfigError if isinstance(exc, ConfigError) else DataError)(text) from None
    if not rows.texts:
        raise DataError(f"{base} holds no texts.")
    for i, text in enumerate(rows.texts):
        if len(text) > max_chars:
            raise DataError(
                f"{base}: row {i} has {len(text):,} characters (at most {max_chars:,})."
            )
    return list(zip(rows.ids, rows.texts, strict=True))
