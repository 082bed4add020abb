"""What every remote moderator shares: parameters, the key, the client, blank texts."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar, TypeVar

import httpx

from ..._types import Analysis
from ...errors import RemoteResponseError
from ...params import Check, Constraints, Float, Int, Nullable, Str, validate_params
from .._texts import check_texts
from ._http import MissingKeyError, RemoteHTTP

__all__ = ["RUNTIME_OPTIONS", "RemoteModerator", "is_url", "unit_score"]

T = TypeVar("T")
R = TypeVar("R")

#: Config keys that change how a moderator asks, never what it answers: the
#: result store leaves them out of its key, so a new timeout reuses stored answers.
RUNTIME_OPTIONS: frozenset[str] = frozenset(
    {"api_key_env", "batch_size", "concurrency", "max_retries", "qps", "retry_backoff", "timeout"}
)

#: Keywords that hand a moderator an object (tests inject an HTTP client), not options.
INJECTED: tuple[str, ...] = ("client", "transport")

#: What ``raw`` says for a text that was not sent.
BLANK_RAW: Mapping[str, str] = {"skipped": "blank text: not sent"}


def is_url(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(("http://", "https://")) and len(value) > 8


def unit_score(value: Any, what: str, provider: str) -> float:
    """``value`` as a float in [0, 1], or a :class:`RemoteResponseError` naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise RemoteResponseError(
            f"{provider} answered {what} = {value!r}, not a number in [0, 1]; the answer is "
            "malformed and was not used."
        )
    return float(value)


class RemoteModerator:
    """Base of the remote moderators: shared parameters, the key and the HTTP client.

    Subclasses set :attr:`name`, :attr:`version`, their own
    ``_parameter_constraints`` (extending :attr:`COMMON_CONSTRAINTS`), their
    options' defaults in :attr:`DEFAULTS`, the key's
    header in :meth:`_auth_headers`, the category names in :meth:`score_keys`,
    and either :meth:`_analyze_one` (one request per text) or
    :meth:`_analyze_sent` (their own batching).

    The API key is read from the environment variable named by ``api_key_env``
    when the moderator is built (so a missing key is one clear error before any
    text is sent, and a Ray actor reads it on its own node); it is never part of
    :meth:`config`, a store key, a message or a report.

    Texts that are empty or only whitespace are not sent: they get
    ``flagged=False``, every score 0.0 and ``raw = {"skipped": ...}``.

    Hints read by :func:`tactful.store.analyze_all`: :attr:`batch_size` (texts
    per ``analyze`` call), :attr:`concurrency` (calls in flight) and
    :attr:`runtime_options` (config keys left out of the store key).
    """

    name: str
    version: str
    runtime_options: ClassVar[frozenset[str]] = RUNTIME_OPTIONS

    COMMON_CONSTRAINTS: ClassVar[Constraints] = {
        "base_url": Check("an http:// or https:// URL", is_url),
        "model": Str(nonempty=True),
        "api_key_env": Nullable(Str(nonempty=True)),
        "timeout": Float(0, closed="neither"),
        "max_retries": Int(0, 20),
        "retry_backoff": Float(0),
        "qps": Nullable(Float(0, closed="neither")),
        "concurrency": Int(1, 256),
        "batch_size": Int(1),
    }
    _parameter_constraints: ClassVar[Constraints] = COMMON_CONSTRAINTS

    #: Option -> default, in the order of the constructor's keyword-only signature.
    #: Each adapter sets its own; the class's ``__signature__`` is made from it (plus
    #: ``client`` and ``transport``), so ``tactful.load`` lists and checks the options.
    DEFAULTS: ClassVar[Mapping[str, Any]] = {}
    __signature__: ClassVar[inspect.Signature]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.__signature__ = inspect.Signature(
            [
                inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default)
                for name, default in [*cls.DEFAULTS.items(), *dict.fromkeys(INJECTED).items()]
            ]
        )

    def __init__(
        self,
        *,
        client: httpx.Client | None = None,
        transport: httpx.BaseTransport | None = None,
        **options: Any,
    ) -> None:
        for option in options:
            if option not in self.DEFAULTS:
                raise TypeError(
                    f"{type(self).__name__}() got an unexpected keyword argument {option!r}"
                )
        params = {name: options.get(name, default) for name, default in self.DEFAULTS.items()}
        checked = validate_params(type(self).__name__, self._parameter_constraints, **params)
        missing = set(self._parameter_constraints) - set(checked)
        if missing:  # a subclass's DEFAULTS lack one of its parameters: a bug, not a user error
            raise TypeError(f"{type(self).__name__} did not set {sorted(missing)}.")
        for param, value in checked.items():
            setattr(self, param, value)
        self._config = {k: list(v) if isinstance(v, tuple) else v for k, v in checked.items()}
        key = self._read_key()
        self._http = RemoteHTTP(
            provider=self.name,
            base_url=self.base_url,
            headers=self._auth_headers(key) if key is not None else {},
            timeout=self.timeout,
            max_retries=self.max_retries,
            retry_backoff=self.retry_backoff,
            qps=self.qps,
            concurrency=self.concurrency,
            key_env=self.api_key_env,
            client=client,
            transport=transport,
        )

    # The shared parameters, set from ``params`` by __init__ (declared for type checkers).
    base_url: str
    model: str
    api_key_env: str | None
    timeout: float
    max_retries: int
    retry_backoff: float
    qps: float | None
    concurrency: int
    batch_size: int

    def _read_key(self) -> str | None:
        if self.api_key_env is None:
            return None
        key = os.environ.get(self.api_key_env, "").strip()
        if not key:
            raise MissingKeyError(
                f"Moderator {self.name!r} needs an API key in the environment variable "
                f"${self.api_key_env}, which is not set. Set it, or name another variable "
                f"with -O api_key_env=NAME."
            )
        return key

    def _auth_headers(self, key: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {key}"}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._config.items())
        return f"{type(self).__name__}({args})"

    def config(self) -> dict[str, Any]:
        """Keyword arguments that rebuild this moderator with ``tactful.load(name, **cfg)``.

        Holds the *name* of the key's environment variable, never the key.
        """
        return dict(self._config)

    def close(self) -> None:
        """Close the HTTP client made by this moderator."""
        self._http.close()

    # -- what subclasses provide ----------------------------------------------------------

    def score_keys(self) -> tuple[str, ...]:
        """The score names every answer has (blank texts get 0.0 for each)."""
        raise NotImplementedError

    def _analyze_one(self, text: str) -> Analysis:
        raise NotImplementedError

    def _analyze_sent(self, texts: list[str]) -> list[Analysis]:
        """Answers for non-blank ``texts``; default: one request per text."""
        return self._map(self._analyze_one, texts)

    # -- shared machinery -----------------------------------------------------------------

    def _map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """``fn`` over ``items`` in order, ``concurrency`` at a time."""
        if self.concurrency == 1 or len(items) < 2:
            return [fn(item) for item in items]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(items))) as pool:
            return list(pool.map(fn, items))

    def _post(self, path: str, body: Any) -> Any:
        return self._http.post_json(path, body)

    def _blank(self) -> Analysis:
        return Analysis(
            flagged=False, scores=dict.fromkeys(self.score_keys(), 0.0), raw=dict(BLANK_RAW)
        )

    def analyze(self, texts: Sequence[str]) -> list[Analysis]:
        """One :class:`~tactful.Analysis` per text, in order.

        Raises
        ------
        ConfigError
            If ``texts`` is a str or holds a non-str, or the key was refused (401/403).
        BackendError
            A subclass of it when the provider still fails after the retries, or
            answers something malformed: never a made-up "not flagged".
        """
        texts = check_texts(texts)
        sent = [i for i, t in enumerate(texts) if t.strip()]
        answers = self._analyze_sent([texts[i] for i in sent]) if sent else []
        if len(answers) != len(sent):
            raise RemoteResponseError(
                f"{self.name} answered {len(answers)} results for {len(sent)} texts."
            )
        out = [self._blank() if not t.strip() else None for t in texts]
        for i, a in zip(sent, answers):
            out[i] = a
        return out  # type: ignore[return-value]  # every slot is filled above
