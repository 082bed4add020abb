"""The result store: every (moderator, text) answer kept once, in SQLite.

A moderator's answer is written to the store, and committed, before the caller
sees it. A crash, a ``Ctrl-C`` or a ``SIGKILL`` therefore loses at most the
batch in flight, and a re-run asks the moderator only for texts it has never
answered. This matters most for remote moderators, where an answer costs money
and time.

Answers are keyed by ``(moderator_key, text_sha256)``:

- ``moderator_key`` is the SHA-256 of the canonical JSON of the moderator's
  ``{"name", "version", "config"}``, so a moderator with another threshold,
  model file or version gets its own answers (config keys the moderator names
  in ``runtime_options``, such as timeouts, are left out: they change no answer);
- ``text_sha256`` is the SHA-256 of the UTF-8 text, so the store never needs to
  hold the text itself (the stored answer may still quote it in ``raw``).

A text the moderator's backend could not answer, even asked alone, is kept as
*failed* with its error (schema version 2): a failed row is not an answer, it
is never read as one, and the next run asks the moderator for it again.

The store also keeps *derived* values (identity tags, bootstrap tables,
figures) through one memo mechanism (:meth:`ResultStore.memo`, keys from
:func:`~tactful.store.memo_key`), so that a second identical audit recomputes
nothing expensive.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from os import PathLike
from pathlib import Path
from typing import Any, ClassVar, Self

from .._types import Analysis, Span
from ..errors import ConfigError, DataError
from ..params import Constraints, Float, OneOf, validate_params
from ._keys import (
    canonical_json,
    jsonable,
    memo_key,
    moderator_identity,
    moderator_key,
    text_sha256,
)
from ._run import Hints, failed_items_error, run_batches

__all__ = [
    "SCHEMA_VERSION",
    "ResultStore",
    "analysis_from_json",
    "analysis_to_json",
    "memo",
]

#: The shape of the tables. Version 1 (no failed items) is migrated in place;
#: any other version is refused.
SCHEMA_VERSION = 2

# SQLite caps the number of ``?`` parameters per statement (32,766 since 3.32,
# 999 before); 900 keeps every build happy.
_CHUNK = 900

_ANSWERS = """
CREATE TABLE {name} (
    moderator_key TEXT NOT NULL,
    text_sha256 TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    analysis TEXT,
    error TEXT,
    created REAL NOT NULL,
    CHECK ((status = 'ok') = (analysis IS NOT NULL)),
    PRIMARY KEY (moderator_key, text_sha256)
) WITHOUT ROWID
"""

_TABLES = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    (
        "CREATE TABLE moderators (moderator_key TEXT PRIMARY KEY, name TEXT NOT NULL, "
        "version TEXT NOT NULL, config TEXT NOT NULL)"
    ),
    _ANSWERS.format(name="answers"),
    (
        "CREATE TABLE derived (namespace TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, "
        "created REAL NOT NULL, PRIMARY KEY (namespace, key)) WITHOUT ROWID"
    ),
)

#: Version 1 → 2: answers gain ``status`` and ``error``; every v1 answer is ``ok``.
_MIGRATE_1 = (
    _ANSWERS.format(name="answers_v2"),
    (
        "INSERT INTO answers_v2(moderator_key, text_sha256, status, analysis, error, created) "
        "SELECT moderator_key, text_sha256, 'ok', analysis, NULL, created FROM answers"
    ),
    "DROP TABLE answers",
    "ALTER TABLE answers_v2 RENAME TO answers",
    "UPDATE meta SET value = '2' WHERE key = 'schema_version'",
)

# An answer or a failure for a (moderator, text) that has none, or that failed
# before: a stored answer is never replaced, a failure always is.
_UPSERT = (
    "INSERT INTO answers(moderator_key, text_sha256, status, analysis, error, created) "
    "VALUES (?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (moderator_key, text_sha256) DO UPDATE SET status = excluded.status, "
    "analysis = excluded.analysis, error = excluded.error, created = excluded.created "
    "WHERE answers.status = 'failed'"
)


def analysis_to_json(analysis: Analysis) -> str:
    """The JSON text the store keeps for ``analysis``: ``to_dict()`` plus ``raw``."""
    record = analysis.to_dict()
    record["raw"] = jsonable(analysis.raw)
    return canonical_json(record)


def analysis_from_json(text: str) -> Analysis:
    """Rebuild the :class:`~tactful.Analysis` written by :func:`analysis_to_json`."""
    d = json.loads(text)
    return Analysis(
        flagged=d["flagged"],
        scores=d["scores"],
        spans=tuple(Span(s["start"], s["end"], s["label"], s["score"]) for s in d["spans"]),
        jailbreak=d["jailbreak"],
        delicate=d["delicate"],
        flags=d["flags"],
        raw=d.get("raw") or {},
    )


class ResultStore:
    """SQLite store of moderator answers, failed items and derived values.

    Parameters
    ----------
    path : str or path-like
        The database file; created (with its parent folder) when missing. A
        version-1 store is migrated in place (see :attr:`migrated_from`); a
        file of another version, or another SQLite database, is refused.
    timeout : float, default 30.0
        Seconds to wait for another process's write lock before giving up.

    Attributes
    ----------
    path : pathlib.Path
    migrated_from : int or None
        The schema version this store was migrated from when it was opened
        (``1``), else ``None``. Callers tell the user in one line.

    Notes
    -----
    The database runs in WAL mode, so readers never block the writer and a
    killed writer leaves every committed call's answers intact. The connection
    belongs to the thread that opened the store.

    Examples
    --------
    >>> store = ResultStore("out/store.sqlite")          # doctest: +SKIP
    >>> answers = store.analyze_cached(mod, texts)       # doctest: +SKIP
    """

    _parameter_constraints: ClassVar[Constraints] = {
        "timeout": Float(0, None, closed="neither"),
        "status": OneOf(["ok", "failed"]),
    }

    def __init__(self, path: str | PathLike[str], *, timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.timeout: float = validate_params(
            "ResultStore", self._parameter_constraints, timeout=timeout
        )["timeout"]
        self.migrated_from: int | None = None
        self._known_moderators: set[str] = set()
        if self.path.is_dir():
            raise ConfigError(f"The result store path {self.path} is a folder; give a file path.")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(
                f"Cannot create the folder of the result store {self.path}: {exc}."
            ) from None
        with self._translate():
            self._conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
            try:
                self._conn.execute("PRAGMA journal_mode=WAL")
                # NORMAL is durable against a killed process (not power loss) in WAL mode.
                self._conn.execute("PRAGMA synchronous=NORMAL")
                self._open_schema()
            except BaseException:
                self.close()
                raise

    def _open_schema(self) -> None:
        """Create the tables of a new store, migrate a v1 store, refuse anything else.

        The version is read first without a lock, so opening an up-to-date store
        never waits for a writer; creating or migrating takes the write lock and
        looks again (another process may have done it meanwhile).
        """
        if self._schema_version() == str(SCHEMA_VERSION):
            return
        with self._transaction():
            version = self._schema_version()
            if version is None:
                for sql in _TABLES:
                    self._conn.execute(sql)
                self._conn.execute(
                    "INSERT INTO meta(key, value) VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )
            elif version == "1":
                for sql in _MIGRATE_1:
                    self._conn.execute(sql)
                self.migrated_from = 1
            elif version != str(SCHEMA_VERSION):
                raise DataError(
                    f"The result store {self.path} has schema version {version}; this tactful "
                    f"reads version {SCHEMA_VERSION} (and migrates version 1). "
                    "Use another --store file."
                )

    def _schema_version(self) -> str | None:
        """The store's schema version; ``None`` for an empty database.

        Raises :class:`DataError` for an SQLite database that is not a store.
        """
        tables = {
            name
            for (name,) in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        if not tables:
            return None
        row = None
        if "meta" in tables:
            row = self._conn.execute(
                "SELECT value FROM meta WHERE key = 'schema_version'"
            ).fetchone()
        if row is None:
            raise DataError(
                f"The file {self.path} is an SQLite database but not a tactful result store; "
                "use another --store file."
            )
        return str(row[0])

    # -- plumbing -----------------------------------------------------------------

    @contextmanager
    def _translate(self) -> Iterator[None]:
        """Turn sqlite3 failures into one-line tactful errors."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            msg = str(exc)
            if "locked" in msg or "busy" in msg:
                raise DataError(
                    f"The result store {self.path} is locked by another process "
                    f"(waited {self.timeout:g} s); wait for it to finish or use another --store."
                ) from exc
            if isinstance(exc, sqlite3.OperationalError) and "unable to open" in msg:
                raise ConfigError(f"Cannot open the result store {self.path}: {msg}.") from exc
            raise DataError(
                f"The result store {self.path} is not a readable tactful SQLite database "
                f"({msg}); move it away or use another --store."
            ) from exc

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction, taken at once (``BEGIN IMMEDIATE``): all or nothing."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def close(self) -> None:
        """Close the connection (idempotent)."""
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn.close()
            self._conn = None  # type: ignore[assignment]

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResultStore({str(self.path)!r})"

    def _remember(self, moderator: Any) -> str:
        key = moderator_key(moderator)
        if key not in self._known_moderators:
            ident = moderator_identity(moderator)
            with self._translate():
                self._conn.execute(
                    "INSERT OR IGNORE INTO moderators(moderator_key, name, version, config) "
                    "VALUES (?, ?, ?, ?)",
                    (key, ident["name"], ident["version"], canonical_json(ident["config"])),
                )
            self._known_moderators.add(key)
        return key

    def _select_in(
        self, sql: str, fixed: tuple[Any, ...], values: Sequence[str]
    ) -> Iterator[tuple[Any, ...]]:
        """Rows of ``sql`` (with ``IN ({marks})``) for the distinct ``values``,
        in chunks that stay under SQLite's bound-parameter limit."""
        unique = list(set(values))
        with self._translate():
            for i in range(0, len(unique), _CHUNK):
                chunk = unique[i : i + _CHUNK]
                marks = ",".join("?" * len(chunk))
                yield from self._conn.execute(sql.format(marks=marks), (*fixed, *chunk))

    def _write(self, rows: Sequence[tuple[Any, ...]]) -> None:
        with self._translate(), self._transaction():
            self._conn.executemany(_UPSERT, rows)

    # -- answers ------------------------------------------------------------------

    def _by_hash(self, key: str, hashes: Sequence[str], *, failed: bool = False) -> dict[str, str]:
        """Stored answers (JSON) by text hash, or with ``failed`` the errors of failed texts."""
        column, status = ("error", "failed") if failed else ("analysis", "ok")
        return dict(
            self._select_in(
                f"SELECT text_sha256, {column} FROM answers WHERE moderator_key = ? "
                "AND status = ? AND text_sha256 IN ({marks})",
                (key, status),
                hashes,
            )
        )

    def _decoded(self, key: str, hashes: Sequence[str]) -> dict[str, Analysis]:
        return {h: self._decode(v) for h, v in self._by_hash(key, hashes).items()}

    def get_many(self, moderator: Any, texts: Sequence[str]) -> dict[int, Analysis]:
        """The stored answers of ``moderator`` for ``texts``.

        Returns
        -------
        dict of int to Analysis
            Index into ``texts`` → stored answer; texts never answered, and
            texts kept as failed, are absent.
        """
        hashes = [text_sha256(t) for t in texts]
        found = self._decoded(moderator_key(moderator), hashes)
        return {i: found[h] for i, h in enumerate(hashes) if h in found}

    def get_failed(self, moderator: Any, texts: Sequence[str]) -> dict[int, str]:
        """The texts of ``texts`` kept as failed for ``moderator``: index → error."""
        hashes = [text_sha256(t) for t in texts]
        found = self._by_hash(moderator_key(moderator), hashes, failed=True)
        return {i: found[h] for i, h in enumerate(hashes) if h in found}

    def _decode(self, text: str) -> Analysis:
        try:
            return analysis_from_json(text)
        except (ValueError, KeyError, TypeError) as exc:
            raise DataError(
                f"The result store {self.path} holds an unreadable answer ({exc}); "
                "move it away or use another --store."
            ) from None

    def put_many(self, moderator: Any, texts: Sequence[str], analyses: Sequence[Analysis]) -> None:
        """Store ``analyses[i]`` as the answer of ``moderator`` to ``texts[i]``, in one commit.

        An existing answer for the same (moderator, text) is kept: answers are
        written once. A text kept as failed gets the answer instead.
        """
        if len(texts) != len(analyses):
            raise ConfigError(
                f"put_many needs one analysis per text. Got {len(texts)} texts and "
                f"{len(analyses)} analyses."
            )
        self.put_outcomes(moderator, texts, list(analyses), [None] * len(texts))

    def put_failed(self, moderator: Any, texts: Sequence[str], errors: Sequence[str]) -> None:
        """Keep ``texts[i]`` as failed for ``moderator`` with ``errors[i]``, in one commit.

        A text that has an answer keeps it; a text already failed gets the new error.
        """
        if len(texts) != len(errors):
            raise ConfigError(
                f"put_failed needs one error per text. Got {len(texts)} texts and "
                f"{len(errors)} errors."
            )
        self.put_outcomes(moderator, texts, [None] * len(texts), [str(e) for e in errors])

    def put_outcomes(
        self,
        moderator: Any,
        texts: Sequence[str],
        analyses: Sequence[Analysis | None],
        errors: Sequence[str | None],
    ) -> None:
        """Store one call's outcome in one commit: ``analyses[i]``, or failed with ``errors[i]``.

        This is what an engine writes after each ``analyze`` call (the Ray
        engine's actors included): answers and failures of the call together.
        """
        if not len(texts) == len(analyses) == len(errors):
            raise ConfigError(
                f"put_outcomes needs one analysis or error per text. Got {len(texts)} texts, "
                f"{len(analyses)} analyses and {len(errors)} errors."
            )
        key = self._remember(moderator)
        now = time.time()
        rows: list[tuple[str, str, str, str | None, str | None, float]] = []
        for t, a, e in zip(texts, analyses, errors, strict=True):
            if a is not None:
                rows.append((key, text_sha256(t), "ok", analysis_to_json(a), None, now))
            else:
                rows.append((key, text_sha256(t), "failed", None, str(e), now))
        self._write(rows)

    def count(self, moderator: Any | None = None, *, status: str = "ok") -> int:
        """Number of stored answers (``status="failed"``: failed items), of ``moderator`` if given."""
        status = validate_params("ResultStore.count", self._parameter_constraints, status=status)[
            "status"
        ]
        with self._translate():
            if moderator is None:
                (n,) = self._conn.execute(
                    "SELECT COUNT(*) FROM answers WHERE status = ?", (status,)
                ).fetchone()
            else:
                (n,) = self._conn.execute(
                    "SELECT COUNT(*) FROM answers WHERE moderator_key = ? AND status = ?",
                    (moderator_key(moderator), status),
                ).fetchone()
        return int(n)

    def _stored_hashes(self, key: str, hashes: Sequence[str]) -> set[str]:
        return {
            h
            for (h,) in self._select_in(
                "SELECT text_sha256 FROM answers WHERE moderator_key = ? AND status = 'ok' "
                "AND text_sha256 IN ({marks})",
                (key,),
                hashes,
            )
        }

    def unanswered(self, moderator: Any, texts: Sequence[str]) -> list[str]:
        """The distinct texts of ``texts`` without a stored answer (failed ones included),
        in input order: what a run still has to ask."""
        hashes = [text_sha256(t) for t in texts]
        stored = self._stored_hashes(moderator_key(moderator), hashes)
        return list({h: t for h, t in zip(hashes, texts) if h not in stored}.values())

    def _ensure(
        self,
        moderator: Any,
        texts: Sequence[str],
        *,
        hints: Hints,
        progress: Callable[[int], None] | None = None,
        check_first: Callable[[Sequence[Analysis]], None] | None = None,
    ) -> tuple[dict[str, Analysis], dict[str, str]]:
        """Answers computed (hash → Analysis) and texts failed (hash → error) by this run."""
        key = self._remember(moderator)
        hashes = [text_sha256(t) for t in texts]
        stored = self._stored_hashes(key, hashes)
        # First occurrence of each missing text, in input order: deterministic batches.
        missing: dict[str, str] = {}
        occurrences: dict[str, int] = {}  # so that progress counts input texts, not unique ones
        for h, t in zip(hashes, texts):
            if h not in stored:
                missing.setdefault(h, t)
                occurrences[h] = occurrences.get(h, 0) + 1
        if progress is not None:
            progress(len(texts) - sum(occurrences.values()))
        computed: dict[str, Analysis] = {}
        failed: dict[str, str] = {}

        def commit(
            start: int,
            batch: Sequence[str],
            answers: list[Analysis | None],
            errors: list[str | None],
        ) -> None:
            self.put_outcomes(moderator, batch, answers, errors)
            for t, a, e in zip(batch, answers, errors, strict=True):
                h = text_sha256(t)
                if a is not None:
                    # Hand back what was stored (JSON round trip), so that a fresh answer and
                    # a stored one are equal objects (tuples in ``raw`` become lists either way).
                    computed[h] = analysis_from_json(analysis_to_json(a))
                else:
                    failed[h] = str(e)
            if progress is not None:
                progress(sum(occurrences[text_sha256(t)] for t in batch))

        run_batches(moderator, list(missing.values()), commit, hints=hints, check_first=check_first)
        return computed, failed

    def ensure(
        self,
        moderator: Any,
        texts: Sequence[str],
        batch_size: int | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> dict[str, Analysis]:
        """Make sure the store holds an answer of ``moderator`` for every text.

        Only texts without a stored answer go to the moderator (texts kept as
        failed are asked again), each unique text once, in batches in input
        order. Each ``analyze`` call's outcome is committed as soon as the call
        returns, so an interrupted run resumes where it stopped. With the
        moderator's ``concurrency`` > 1, that many calls run at once. Stored
        answers are not read back (see :meth:`get_many`).

        Parameters
        ----------
        moderator : Moderator
        texts : sequence of str
        batch_size : int, optional
            Texts per ``analyze`` call; default: the moderator's ``batch_size``
            attribute, else 64.
        progress : callable, optional
            Called with the number of input texts just completed (those already
            answered at once, then each call's texts).

        Returns
        -------
        dict of str to Analysis
            The answers computed by this call, by text hash, as stored.

        Raises
        ------
        FailedItemsError
            After every text was tried, when some failed even when asked alone;
            they are kept as failed and the next call asks only for them.
        BackendError
            When the moderator returns the wrong number of answers.
        """
        hints = Hints(moderator, batch_size=batch_size, owner="ResultStore.ensure")
        computed, failed = self._ensure(moderator, texts, hints=hints, progress=progress)
        if failed:
            raise self._failed_error(moderator, texts, failed)
        return computed

    def _failed_error(self, moderator: Any, texts: Sequence[str], failed: dict[str, str]) -> Any:
        hashes = [text_sha256(t) for t in texts]
        answers = self._decoded(moderator_key(moderator), hashes)
        return failed_items_error(moderator, hashes, answers, failed, self.path)

    def analyze_cached(
        self,
        moderator: Any,
        texts: Sequence[str],
        batch_size: int | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> list[Analysis]:
        """``moderator.analyze(texts)``, asking the moderator only for unanswered texts.

        Each text is sent at most once (duplicates in ``texts`` share one
        answer) and each call's answers are committed to the store as soon as
        it returns, so an interrupted call resumes where it stopped. See
        :meth:`ensure` for the parameters and errors.

        Returns
        -------
        list of Analysis
            One answer per input text, in order.
        """
        computed = self.ensure(moderator, texts, batch_size=batch_size, progress=progress)
        return self._read_back(moderator, texts, computed)

    def _read_back(
        self, moderator: Any, texts: Sequence[str], computed: Mapping[str, Analysis]
    ) -> list[Analysis]:
        hashes = [text_sha256(t) for t in texts]
        answers = dict(computed)
        answers.update(
            self._decoded(moderator_key(moderator), [h for h in hashes if h not in computed])
        )
        return [answers[h] for h in hashes]

    def flags_and_max_scores(self, moderator: Any, texts: Sequence[str]) -> tuple[Any, Any]:
        """``flagged`` and the largest category score of the stored answer to each text.

        Read in SQL from the stored JSON, without building :class:`~tactful.Analysis`
        objects: an audit of 100,000 texts needs only these two columns, and
        decoding every answer would cost seconds a re-run should not pay. The
        score is :func:`tactful.audit.metrics.max_category_score` of the answer:
        the maximum over all its categories, NaN when it has none.

        Returns
        -------
        flagged : numpy.ndarray of bool, shape (n,)
        max_score : numpy.ndarray of float, shape (n,)

        Raises
        ------
        DataError
            When a text has no stored answer (failed texts have none; call
            :meth:`ensure` first).
        """
        import numpy as np

        key = moderator_key(moderator)
        hashes = [text_sha256(t) for t in texts]
        unique = set(hashes)
        found: dict[str, tuple[int, float | None]] = {
            h: (f, m)
            for h, f, m in self._select_in(
                "SELECT text_sha256, json_extract(analysis, '$.flagged'), "
                "(SELECT max(value) FROM json_each(analysis, '$.scores')) "
                "FROM answers WHERE moderator_key = ? AND status = 'ok' "
                "AND text_sha256 IN ({marks})",
                (key,),
                hashes,
            )
        }
        absent = len(unique) - len(found)
        if absent:
            raise DataError(
                f"The result store {self.path} has no answer of moderator "
                f"{getattr(moderator, 'name', moderator)!r} for {absent} of the texts; "
                "run ensure() first."
            )
        values = [found[h] for h in hashes]
        flagged = np.array([v[0] for v in values], dtype=bool).reshape(len(values))
        # dtype=float turns the None of "no scores" into NaN.
        scores = np.array([v[1] for v in values], dtype=float).reshape(len(values))
        return flagged, scores

    # -- derived values -----------------------------------------------------------

    def get_derived(self, namespace: str, keys: Sequence[str]) -> dict[str, Any]:
        """Stored derived values of ``namespace`` for ``keys`` (absent keys left out)."""
        found: dict[str, Any] = {}
        rows = self._select_in(
            "SELECT key, value FROM derived WHERE namespace = ? AND key IN ({marks})",
            (namespace,),
            keys,
        )
        for k, v in rows:
            try:
                found[k] = json.loads(v)
            except ValueError as exc:
                raise DataError(
                    f"The result store {self.path} holds an unreadable derived value "
                    f"({exc}); move it away or use another --store."
                ) from None
        return found

    def put_derived(self, namespace: str, values: Mapping[str, Any]) -> None:
        """Store JSON-able ``values`` (key → value) under ``namespace`` in one commit."""
        self._put_derived_json(namespace, {k: canonical_json(v) for k, v in values.items()})

    def _put_derived_json(self, namespace: str, values: Mapping[str, str]) -> None:
        now = time.time()
        rows = [(namespace, k, v, now) for k, v in values.items()]
        with self._translate(), self._transaction():
            self._conn.executemany(
                "INSERT OR REPLACE INTO derived(namespace, key, value, created) VALUES (?, ?, ?, ?)",
                rows,
            )

    def memo(self, namespace: str, key_parts: Sequence[Any], compute: Callable[[], Any]) -> Any:
        """The value derived from ``key_parts``: stored, or computed once and stored.

        Parameters
        ----------
        namespace : str
            What the value is, with the fingerprint of the code that computes it
            (:func:`~tactful.store.code_fingerprint`), e.g.
            ``f"bootstrap/{code_fingerprint('tactful.audit.metrics')}"``.
        key_parts : sequence
            Everything the value depends on; keyed by :func:`~tactful.store.memo_key`.
        compute : callable
            Computes the JSON-able value when it is not stored.

        Returns
        -------
        object
            The value as JSON gives it back (tuples become lists, NaN ``None``),
            the same whether it was computed now or read from the store.
        """
        key = memo_key(*key_parts)
        hit = self.get_derived(namespace, [key])
        if key in hit:
            return hit[key]
        text = canonical_json(compute())
        self._put_derived_json(namespace, {key: text})
        return json.loads(text)


def memo(
    store: ResultStore | None,
    namespace: str,
    key_parts: Sequence[Any],
    compute: Callable[[], Any],
) -> Any:
    """:meth:`ResultStore.memo` when there is a store; else ``compute()`` as JSON gives it back.

    The value has the same shape with or without a store, so callers need no
    second code path.
    """
    if store is not None:
        return store.memo(namespace, key_parts, compute)
    return json.loads(canonical_json(compute()))
