"""The result store: every (moderator, text) answer kept once, in SQLite.

A moderator's answer is written to the store, and committed, before the caller
sees it. A crash, a ``Ctrl-C`` or a ``SIGKILL`` therefore loses at most the
batch in flight, and a re-run asks the moderator only for texts it has never
answered. This matters most for remote moderators, where an answer costs money
and time.

Answers are keyed by ``(moderator_key, text_sha256)``:

- ``moderator_key`` is the SHA-256 of the canonical JSON of the moderator's
  ``{"name", "version", "config"}``, so a moderator with another threshold,
  model file or version gets its own answers;
- ``text_sha256`` is the SHA-256 of the UTF-8 text, so the store never needs to
  hold the text itself (the stored answer may still quote it in ``raw``).

The store also keeps *derived* values (identity tags, bootstrap tables,
figures) under a namespace and a key of the caller's choice, so that a second
identical audit recomputes nothing expensive.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from os import PathLike
from pathlib import Path
from typing import Any, Self

from .._types import Analysis, Span
from ..errors import BackendError, ConfigError, DataError

__all__ = [
    "ResultStore",
    "analysis_from_json",
    "analysis_to_json",
    "canonical_json",
    "jsonable",
    "moderator_key",
    "text_sha256",
]

#: Bumped when the tables change shape; an older or newer store is refused.
SCHEMA_VERSION = 1

# SQLite caps the number of ``?`` parameters per statement (32,766 since 3.32,
# 999 before); 900 keeps every build happy.
_CHUNK = 900

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS moderators (
    moderator_key TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    version TEXT NOT NULL,
    config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS answers (
    moderator_key TEXT NOT NULL,
    text_sha256 TEXT NOT NULL,
    analysis TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (moderator_key, text_sha256)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS derived (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (namespace, key)
) WITHOUT ROWID;
"""


def canonical_json(value: Any) -> str:
    # Sorted keys and fixed separators: equal values give equal bytes, hence equal keys.
    return json.dumps(
        jsonable(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def jsonable(value: Any) -> Any:
    """``value`` made of JSON types only (mappings → dict, sequences → list, paths → str)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        # JSON has no NaN/inf; None is the only honest stand-in.
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [jsonable(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, PathLike):
        return str(value)
    if hasattr(value, "item"):  # numpy scalars
        return jsonable(value.item())
    return str(value)


@functools.lru_cache(maxsize=1 << 18)
def text_sha256(text: str) -> str:
    """Hex SHA-256 of the UTF-8 bytes of ``text``.

    Memoized: an audit looks up the same 100,000 texts for every moderator and
    every derived value, and a dict lookup costs far less than a digest.
    """
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def moderator_key(moderator: Any) -> str:
    """Hex SHA-256 of the canonical JSON of ``{name, version, config}`` of ``moderator``."""
    return hashlib.sha256(canonical_json(_identity(moderator)).encode("utf-8")).hexdigest()


def _identity(moderator: Any) -> dict[str, Any]:
    try:
        return {
            "name": str(moderator.name),
            "version": str(moderator.version),
            "config": jsonable(moderator.config()),
        }
    except AttributeError as exc:
        raise ConfigError(
            f"{moderator!r} is not a Moderator: it needs .name, .version and .config() ({exc})."
        ) from None


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
    """SQLite store of moderator answers and derived values.

    Parameters
    ----------
    path : str or path-like
        The database file; created (with its parent folder) when missing.
    timeout : float, default 30.0
        Seconds to wait for another process's write lock before giving up.

    Notes
    -----
    The database runs in WAL mode, so readers never block the writer and a
    killed writer leaves every committed batch intact. Each :meth:`put_many`
    is one transaction.

    Examples
    --------
    >>> store = ResultStore("out/store.sqlite")          # doctest: +SKIP
    >>> answers = store.analyze_cached(mod, texts)       # doctest: +SKIP
    """

    def __init__(self, path: str | PathLike[str], *, timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self._known_moderators: set[str] = set()
        if self.path.exists() and self.path.is_dir():
            raise ConfigError(f"The result store path {self.path} is a folder; give a file path.")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(
                f"Cannot create the folder of the result store {self.path}: {exc}."
            ) from None
        with self._translate():
            self._conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
            self._conn.execute("PRAGMA journal_mode=WAL")
            # NORMAL is durable against a killed process (not against power loss) in WAL mode.
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.executescript(_SCHEMA)
            row = self._conn.execute(
                "SELECT value FROM meta WHERE key = 'schema_version'"
            ).fetchone()
            if row is None:
                self._conn.execute(
                    "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )
            elif row[0] != str(SCHEMA_VERSION):
                raise DataError(
                    f"The result store {self.path} has schema version {row[0]}; this tactful "
                    f"reads version {SCHEMA_VERSION}. Use another --store file."
                )

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
            ident = _identity(moderator)
            with self._translate():
                self._conn.execute(
                    "INSERT OR IGNORE INTO moderators(moderator_key, name, version, config) "
                    "VALUES (?, ?, ?, ?)",
                    (key, ident["name"], ident["version"], canonical_json(ident["config"])),
                )
            self._known_moderators.add(key)
        return key

    def _select_in(self, sql: str, fixed: tuple[Any, ...], values: Sequence[str]) -> Iterator[tuple[Any, ...]]:
        """Rows of ``sql`` (ending in ``IN ({marks})``) for the distinct ``values``,
        in chunks that stay under SQLite's bound-parameter limit."""
        unique = list(set(values))
        with self._translate():
            for i in range(0, len(unique), _CHUNK):
                chunk = unique[i : i + _CHUNK]
                yield from self._conn.execute(sql.format(marks=",".join("?" * len(chunk))), (*fixed, *chunk))

    # -- answers ------------------------------------------------------------------

    def _get_by_hash(self, key: str, hashes: Sequence[str]) -> dict[str, str]:
        return dict(
            self._select_in(
                "SELECT text_sha256, analysis FROM answers WHERE moderator_key = ? AND text_sha256 IN ({marks})",
                (key,),
                hashes,
            )
        )

    def get_many(self, moderator: Any, texts: Sequence[str]) -> dict[int, Analysis]:
        """The stored answers of ``moderator`` for ``texts``.

        Returns
        -------
        dict of int to Analysis
            Index into ``texts`` → stored answer; texts never answered are absent.
        """
        key = moderator_key(moderator)
        hashes = [text_sha256(t) for t in texts]
        found = self._get_by_hash(key, hashes)
        decoded: dict[str, Analysis] = {}
        out: dict[int, Analysis] = {}
        for i, h in enumerate(hashes):
            if h in found:
                if h not in decoded:
                    decoded[h] = self._decode(found[h])
                out[i] = decoded[h]
        return out

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
        written once.
        """
        if len(texts) != len(analyses):
            raise ConfigError(
                f"put_many needs one analysis per text. Got {len(texts)} texts and "
                f"{len(analyses)} analyses."
            )
        key = self._remember(moderator)
        now = time.time()
        rows = [(key, text_sha256(t), analysis_to_json(a), now) for t, a in zip(texts, analyses)]
        with self._translate():
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.executemany(
                    "INSERT OR IGNORE INTO answers(moderator_key, text_sha256, analysis, created) "
                    "VALUES (?, ?, ?, ?)",
                    rows,
                )
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def count(self, moderator: Any | None = None) -> int:
        """Number of stored answers (of ``moderator`` only, when given)."""
        with self._translate():
            if moderator is None:
                (n,) = self._conn.execute("SELECT COUNT(*) FROM answers").fetchone()
            else:
                (n,) = self._conn.execute(
                    "SELECT COUNT(*) FROM answers WHERE moderator_key = ?",
                    (moderator_key(moderator),),
                ).fetchone()
        return int(n)

    def _stored_hashes(self, key: str, hashes: Sequence[str]) -> set[str]:
        return {
            h
            for (h,) in self._select_in(
                "SELECT text_sha256 FROM answers WHERE moderator_key = ? AND text_sha256 IN ({marks})",
                (key,),
                hashes,
            )
        }

    def ensure(
        self,
        moderator: Any,
        texts: Sequence[str],
        batch_size: int = 64,
        progress: Callable[[int], None] | None = None,
    ) -> dict[str, Analysis]:
        """Make sure the store holds an answer of ``moderator`` for every text.

        Only texts without a stored answer go to the moderator, each unique text
        once, in batches of ``batch_size`` in input order; each batch is committed
        before the next one starts, so an interrupted call resumes where it
        stopped. Stored answers are not read back (see :meth:`get_many`).

        Parameters
        ----------
        moderator : Moderator
        texts : sequence of str
        batch_size : int, default 64
            Texts per ``analyze`` call and per commit.
        progress : callable, optional
            Called with the number of input texts just completed (those already
            answered at once, then each computed batch).

        Returns
        -------
        dict of str to Analysis
            The answers computed by this call, by text hash, as stored.

        Raises
        ------
        BackendError
            When the moderator returns the wrong number of answers.
        """
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(
                f"The 'batch_size' parameter must be an int >= 1. Got {batch_size!r} instead."
            )
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
        todo = list(missing.items())
        computed: dict[str, Analysis] = {}
        for i in range(0, len(todo), batch_size):
            batch = todo[i : i + batch_size]
            batch_texts = [t for _, t in batch]
            result = list(moderator.analyze(batch_texts))
            if len(result) != len(batch_texts):
                raise BackendError(
                    f"Moderator {getattr(moderator, 'name', moderator)!r} returned {len(result)} "
                    f"answers for {len(batch_texts)} texts."
                )
            self.put_many(moderator, batch_texts, result)
            # Hand back what was stored (JSON round trip), so that a fresh answer and a
            # cached one are equal objects (tuples in ``raw`` become lists either way).
            for (h, _), a in zip(batch, result):
                computed[h] = analysis_from_json(analysis_to_json(a))
            if progress is not None:
                progress(sum(occurrences[h] for h, _ in batch))
        return computed

    def analyze_cached(
        self,
        moderator: Any,
        texts: Sequence[str],
        batch_size: int = 64,
        progress: Callable[[int], None] | None = None,
    ) -> list[Analysis]:
        """``moderator.analyze(texts)``, asking the moderator only for unanswered texts.

        Each text is sent at most once (duplicates in ``texts`` share one
        answer) and each batch is committed to the store before the next one
        starts, so an interrupted call resumes where it stopped. See
        :meth:`ensure` for the parameters.

        Returns
        -------
        list of Analysis
            One answer per input text, in order.
        """
        computed = self.ensure(moderator, texts, batch_size=batch_size, progress=progress)
        hashes = [text_sha256(t) for t in texts]
        found = self._get_by_hash(
            moderator_key(moderator), [h for h in hashes if h not in computed]
        )
        answers = dict(computed)
        for h, v in found.items():
            answers[h] = self._decode(v)
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
            When a text has no stored answer (call :meth:`ensure` first).
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
                "FROM answers WHERE moderator_key = ? AND text_sha256 IN ({marks})",
                (key,),
                hashes,
            )
        }
        absent = len(unique) - len(found)
        if absent:
            raise DataError(
                f"The result store {self.path} has no answer of moderator "
                f"{getattr(moderator, 'name', moderator)!r} for {absent} of the texts; run ensure() first."
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
        with self._translate():
            rows = self._select_in(
                "SELECT key, value FROM derived WHERE namespace = ? AND key IN ({marks})", (namespace,), keys
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
        now = time.time()
        rows = [(namespace, k, canonical_json(v), now) for k, v in values.items()]
        with self._translate():
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.executemany(
                    "INSERT OR REPLACE INTO derived(namespace, key, value, created) VALUES (?, ?, ?, ?)",
                    rows,
                )
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
