"""The result store: every (moderator, text) answer kept once, and the one way to ask.

:func:`analyze_all` is how every face (``check``, ``eval``, ``audit``, the
service's batch jobs) runs a moderator over texts. With a store, each
(moderator config, text) answer is committed to SQLite before it is used, so a
re-run never asks the moderator twice and a killed run resumes where it stopped.
"""

from ._analyze import analyze_all
from ._sqlite import (
    ResultStore,
    analysis_from_json,
    analysis_to_json,
    canonical_json,
    jsonable,
    moderator_key,
    text_sha256,
)

__all__ = [
    "ResultStore",
    "analysis_from_json",
    "analysis_to_json",
    "analyze_all",
    "canonical_json",
    "jsonable",
    "moderator_key",
    "text_sha256",
]
