"""The exceptions tactful raises.

Every error carries a short stable ``code`` (``"T0xx"``) so that callers, logs and
tests can tell errors apart without parsing messages. The CLI turns any
:class:`TactfulError` into one line on stderr and an exit code; nothing prints a
traceback at a user for a user's mistake.

Exception tree::

    TactfulError
    ├── ConfigError                 bad argument, option or setting   (exit 2)
    │   ├── UnknownNameError        unknown moderator / data set / split name
    │   ├── MissingKeyError         a remote's API-key variable is unset (also a BackendError)
    │   └── KeyRejectedError        a remote answered 401 or 403
    ├── DataError                   a data set is missing or malformed (exit 2)
    │   └── MissingDataError        a file a data set needs is not there
    ├── ModelError                  model files missing, corrupt or wrong hash
    └── BackendError                a moderator backend failed at run time
        ├── RateLimitedError        remote answered 429
        ├── RemoteTimeoutError      remote did not answer in time
        ├── RemoteResponseError     remote answered 5xx or a malformed body
        └── FailedItemsError        some texts failed even when asked alone
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = [
    "FAILED_ITEMS_MESSAGE",
    "FAILED_ITEMS_STORED",
    "FAILED_ITEMS_UNSTORED",
    "PARAM_MESSAGE",
    "UNKNOWN_OPTION_MESSAGE",
    "BackendError",
    "ConfigError",
    "DataError",
    "FailedItemsError",
    "KeyRejectedError",
    "MissingDataError",
    "MissingKeyError",
    "ModelError",
    "RateLimitedError",
    "RemoteResponseError",
    "RemoteTimeoutError",
    "TactfulError",
    "UnknownNameError",
]


#: The one message shape of a rejected parameter (``tactful.params`` formats it).
PARAM_MESSAGE = "The {name!r} parameter of {owner} must be {rule}. Got {value!r} instead."

#: An option (``-O KEY=VALUE``, or a keyword of ``tactful.load``) the moderator does not take.
UNKNOWN_OPTION_MESSAGE = "Moderator {name!r} takes no option {key!r}. Its options: {known}."

#: The message of :class:`FailedItemsError`; ``{where}`` is one of the two below.
FAILED_ITEMS_MESSAGE = "{k} of {n} texts failed with moderator {name!r} (first: {error}); {where}"
FAILED_ITEMS_STORED = "they are kept as failed in the store {path} and a re-run asks only for them."
FAILED_ITEMS_UNSTORED = "nothing was stored."


class TactfulError(Exception):
    """Base class of every error tactful raises on purpose."""

    code = "T000"
    exit_code = 1

    def __str__(self) -> str:
        return f"[{self.code}] {super().__str__()}"


class ConfigError(TactfulError, ValueError):
    code = "T010"
    exit_code = 2


class UnknownNameError(ConfigError, KeyError):
    """A name that is not registered; the message lists the known names."""

    code = "T011"

    def __init__(self, kind: str, name: str, known: Iterable[str]) -> None:
        self.kind, self.name, self.known = kind, name, sorted(known)
        super().__init__(
            f"Unknown {kind} {name!r}. Known {kind}s: {', '.join(self.known) or '(none)'}."
        )

    def __str__(self) -> str:  # KeyError would repr() the message
        return f"[{self.code}] {self.args[0]}"


class DataError(TactfulError):
    code = "T020"
    exit_code = 2


class MissingDataError(DataError, FileNotFoundError):
    """A data file is missing; the message names the folder and the file."""

    code = "T021"


class ModelError(TactfulError):
    code = "T030"
    exit_code = 3


class BackendError(TactfulError):
    code = "T040"
    exit_code = 4


class RateLimitedError(BackendError):
    code = "T041"


class RemoteTimeoutError(BackendError):
    code = "T042"


class RemoteResponseError(BackendError):
    code = "T043"


class FailedItemsError(BackendError):
    """Some texts failed even when asked alone; every other text was answered.

    Attributes
    ----------
    failed : dict of int to str
        Index into the input texts → the error of its last attempt.
    analyses : list of Analysis or None
        One per input text: its answer, or ``None`` where it failed.
    report : dict or None
        Set by a runner (``evaluate``, the audit) that scored the answered texts
        before raising: the report over those, with its ``failed`` count.
    """

    code = "T044"

    def __init__(self, message: str, failed: dict[int, str], analyses: list[Any]) -> None:
        super().__init__(message, failed, analyses)
        self.failed = failed
        self.analyses = analyses
        self.report: dict[str, Any] | None = None

    def __str__(self) -> str:
        return f"[{self.code}] {self.args[0]}"


class MissingKeyError(ConfigError, BackendError):
    """The environment variable that should hold the API key is unset or empty.

    A configuration mistake for the user (exit code 2), and also a
    :class:`~tactful.errors.BackendError` so that a conformance run over every
    registered moderator skips this one as unavailable instead of failing.
    """

    code = "T045"
    exit_code = 2


class KeyRejectedError(ConfigError):
    """The provider answered 401 or 403: the key is wrong, expired or lacks access.

    Not a :class:`~tactful.errors.BackendError`: retrying each text alone would
    only send every text again to be refused.
    """

    code = "T046"
