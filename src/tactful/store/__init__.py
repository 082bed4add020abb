"""The result store: every (moderator, text) answer kept once, and the one way to ask.

:func:`analyze_all` is how every face (``check``, ``eval``, ``audit``, the
service's batch jobs) runs a moderator over texts. With a store, each
(moderator config, text) answer is committed to SQLite as soon as the call that
produced it returns, so a re-run never asks the moderator twice and a killed run
resumes where it stopped. A text whose backend failed even when asked alone is
kept as *failed*, never as an answer, and a re-run asks only for it
(:class:`~tactful.errors.FailedItemsError`).

Derived values (identity tags, bootstrap tables, figures) go through one memo
mechanism: :func:`memo` / :meth:`ResultStore.memo`, keyed by :func:`memo_key`
under a namespace that names the code computing them (:func:`code_fingerprint`).
"""

from ._analyze import ENGINES, RAY_EXTRA_MESSAGE, analyze_all
from ._keys import (
    canonical_json,
    code_fingerprint,
    jsonable,
    memo_key,
    moderator_identity,
    moderator_key,
    runtime_options,
    text_sha256,
)
from ._sqlite import SCHEMA_VERSION, ResultStore, analysis_from_json, analysis_to_json, memo

__all__ = [
    "ENGINES",
    "RAY_EXTRA_MESSAGE",
    "SCHEMA_VERSION",
    "ResultStore",
    "analysis_from_json",
    "analysis_to_json",
    "analyze_all",
    "canonical_json",
    "code_fingerprint",
    "jsonable",
    "memo",
    "memo_key",
    "moderator_identity",
    "moderator_key",
    "runtime_options",
    "text_sha256",
]
