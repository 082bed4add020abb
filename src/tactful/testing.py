"""The conformance suite every moderator must pass.

:func:`check_moderator` runs every check on one moderator and raises
:class:`AssertionError` naming the moderator and the broken rule at the first
failure. For pytest, :func:`parametrize_with_checks` makes one test per
(moderator name, check) pair and :func:`run_check` runs one of them::

    from tactful.testing import parametrize_with_checks, run_check

    @parametrize_with_checks()
    def test_conformance(moderator_name, check):
        run_check(moderator_name, check, required=("lexicon", "random"))

The checks, in order (:data:`CHECKS`):

``attributes``
    ``name`` and ``version`` are non-empty str.
``config_round_trip``
    ``config()`` is a JSON-ready dict and ``tactful.load(name, **config)``
    builds a moderator with an equal config.
``shapes``
    ``analyze`` returns a list of :class:`~tactful.Analysis`, one per text, for
    0, 1 and many texts, and accepts a tuple as well as a list.
``edge_texts``
    Every Python str works: the empty string, whitespace only, a 20,000-character
    text, emoji, combining marks, CRLF, zero-width characters, non-Latin scripts,
    NUL and lone surrogates (``"\\ud800"`` is valid JSON); and a
    200,000-character text (:data:`HUGE_TEXT`, analyzed once) gets spans within
    its bounds.
``valid_results``
    Spans lie within ``[0, len(text)]``; scores, ``jailbreak`` and ``delicate``
    are in [0, 1] (or None); flags are bools and ``flags["toxicity"] == flagged``.
``deterministic``
    Two calls on the same texts give equal results.
``batch_invariant``
    Analyzing a batch gives the same results as analyzing its texts one by one
    (so the order is kept too).

Results are compared on :meth:`Analysis.to_dict` (``raw`` may hold timings or
request ids) with float tolerance ``atol``: batched neural inference pads inputs
and moves scores by rounding error. Span offsets, labels and flags must be equal.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ._registry import Moderator, available, load
from ._types import Analysis
from .errors import BackendError, ModelError, TactfulError
from .params import Constraints, Float, Nullable, StrList, validate_params

__all__ = [
    "CHECKS",
    "EDGE_TEXTS",
    "HUGE_TEXT",
    "check_moderator",
    "parametrize_with_checks",
    "run_check",
]

#: Texts every moderator must handle, chosen to break offset arithmetic and
#: tokenizers: empty, blank, emoji (astral code points), combining marks,
#: CRLF, zero-width characters, right-to-left and CJK scripts, NUL, lone
#: surrogates (a Python str and valid JSON, but not encodable as UTF-8), a
#: long text.
EDGE_TEXTS: tuple[str, ...] = (
    "",
    "   \t\n ",
    "you absolute idiot",
    "IDIOT!!",
    "\U0001f600\U0001f44d\U0001f3fd you idiot \U0001f525",
    "Cafe\u0301 n\u0303o ide\u0301a \u2014 stupid",
    "first line\r\nsecond line, you moron\r\n",
    "zero\u200bwidth\u200d join\ufeff idiot\u200c",
    "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645",
    "\u4f60\u597d\uff0c\u4e16\u754c\u3002\u3053\u3093\u306b\u3061\u306f",
    "\u041f\u0440\u0438\u0432\u0435\u0442, \u043a\u0430\u043a \u0434\u0435\u043b\u0430?",
    "What a lovely day for a walk in the park.",
    ("This is a long comment about many things, some of them stupid. " * 320)[:20_000],
    "nul\x00byte, you\x00idiot\x00",
    "\ud800",
    "lone \udc00 low and \ud83d high surrogate, idiot \udfff",
    "a pair of surrogates \ud83d\ude00 kept apart, stupid",
)


def _huge_text(n: int = 200_000) -> str:
    head = "A very long post, and some of it is stupid and idiotic. " * 40
    tail = " and finally, you absolute idiot"
    # Whitespace and zero-width spaces in between: the offsets of the tail lie past
    # 199,000 and through a normalization map of the whole text, at little model cost.
    filler = (" \t\n\u200b\r\n" * (n // 5))[: n - len(head) - len(tail)]
    return head + filler + tail


#: A 200,000-character text, analyzed once by the ``edge_texts`` check (the other
#: checks run every text several times): sentences, then whitespace and zero-width
#: spaces, then an insult in its last characters.
HUGE_TEXT: str = _huge_text()

#: Absolute tolerance for float comparisons between two analyses.
DEFAULT_ATOL = 1e-5


def _fail(mod: Any, message: str) -> AssertionError:
    name = getattr(mod, "name", type(mod).__name__)
    return AssertionError(f"check_moderator({name}): {message}")


def _analyze(mod: Moderator, texts: Sequence[str], what: str | None = None) -> list[Analysis]:
    try:
        results = mod.analyze(texts)
    except (ModelError, BackendError):
        raise  # unavailable model or endpoint: the caller decides to skip
    except Exception as exc:  # any crash on valid input is a failure
        if what is None:
            what = (
                f"text {texts[0][:40]!r}" if len(texts) == 1 else f"a batch of {len(texts)} texts"
            )
        raise _fail(mod, f"analyze() raised {type(exc).__name__} on {what}: {exc}") from exc
    if not isinstance(results, list):
        raise _fail(mod, f"analyze() must return a list, got {type(results).__name__}.")
    if len(results) != len(texts):
        raise _fail(mod, f"analyze() returned {len(results)} results for {len(texts)} texts.")
    for i, a in enumerate(results):
        if not isinstance(a, Analysis):
            raise _fail(mod, f"analyze() item {i} is a {type(a).__name__}, not an Analysis.")
    return results


def _close(a: Any, b: Any, atol: float) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=0.0, abs_tol=atol)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], atol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, atol) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _compare(
    mod: Any, what: str, texts: Sequence[str], xs: list[Analysis], ys: list[Analysis], atol: float
) -> None:
    for i, (x, y) in enumerate(zip(xs, ys)):
        dx, dy = x.to_dict(), y.to_dict()
        if not _close(dx, dy, atol):
            raise _fail(mod, f"{what} differ for text {i} ({texts[i][:40]!r}): {dx} != {dy}.")


def _check_attributes(mod: Moderator, texts: Sequence[str], atol: float) -> None:
    for attr in ("name", "version"):
        value = getattr(mod, attr, None)
        if not isinstance(value, str) or not value:
            raise _fail(mod, f"attribute {attr!r} must be a non-empty str, got {value!r}.")


def _check_config_round_trip(mod: Moderator, texts: Sequence[str], atol: float) -> None:
    config = mod.config()
    if not isinstance(config, dict):
        raise _fail(mod, f"config() must return a dict, got {type(config).__name__}.")
    try:
        json.dumps(config)
    except (TypeError, ValueError) as exc:
        raise _fail(mod, f"config() must be JSON-serializable (reports embed it): {exc}.") from None
    if mod.name not in available():
        raise _fail(mod, f"name {mod.name!r} is not registered; known: {', '.join(available())}.")
    try:
        rebuilt = load(mod.name, **config)
    except (ModelError, BackendError):
        raise
    except Exception as exc:  # a config that cannot rebuild is the failure
        detail = str(exc) if isinstance(exc, TactfulError) else f"{type(exc).__name__}: {exc}"
        raise _fail(mod, f"tactful.load({mod.name!r}, **{config!r}) failed: {detail}") from exc
    if rebuilt.config() != config:
        raise _fail(
            mod, f"config() does not round-trip: {config!r} rebuilt as {rebuilt.config()!r}."
        )


def _check_shapes(mod: Moderator, texts: Sequence[str], atol: float) -> None:
    _analyze(mod, [])
    _analyze(mod, [texts[0]])
    many = list(texts[:5])
    as_list = _analyze(mod, many)
    as_tuple = _analyze(mod, tuple(many))
    _compare(mod, "results for a list and a tuple of the same texts", many, as_list, as_tuple, atol)


def _check_edge_texts(mod: Moderator, texts: Sequence[str], atol: float) -> None:
    for i, text in enumerate(texts):
        [a] = _analyze(mod, [text], what=f"edge text {i} ({text[:40]!r})")
        if text == "" and a.spans:
            raise _fail(mod, f"the empty string has spans {a.spans}.")
    n = len(HUGE_TEXT)
    [a] = _analyze(mod, [HUGE_TEXT], what=f"a text of {n} characters")
    for s in a.spans:
        if not 0 <= s.start < s.end <= n:
            raise _fail(mod, f"span [{s.start}, {s.end}) is outside [0, {n}] for the huge text.")


def _check_valid_results(mod: Moderator, texts: Sequence[str], atol: float) -> None:
    for i, (text, a) in enumerate(zip(texts, _analyze(mod, texts))):
        where = f"text {i} ({text[:40]!r})"
        for s in a.spans:
            if not 0 <= s.start < s.end <= len(text):
                raise _fail(
                    mod, f"span [{s.start}, {s.end}) is outside [0, {len(text)}] for {where}."
                )
            if not 0.0 <= s.score <= 1.0:
                raise _fail(mod, f"span score {s.score} is outside [0, 1] for {where}.")
        for key, value in a.scores.items():
            if not isinstance(value, float) or not 0.0 <= value <= 1.0:
                raise _fail(
                    mod, f"scores[{key!r}] = {value!r} is not a float in [0, 1] for {where}."
                )
        for head in ("jailbreak", "delicate"):
            value = getattr(a, head)
            if value is not None and not 0.0 <= value <= 1.0:
                raise _fail(mod, f"{head} = {value!r} is outside [0, 1] for {where}.")
        if not isinstance(a.flagged, bool) or any(
            not isinstance(v, bool) for v in a.flags.values()
        ):
            raise _fail(mod, f"flagged and flags must be bools for {where}.")
        if a.flags.get("toxicity") != a.flagged:
            raise _fail(
                mod,
                f"flags['toxicity'] = {a.flags.get('toxicity')!r} but flagged = {a.flagged} for {where}.",
            )


def _check_deterministic(mod: Moderator, texts: Sequence[str], atol: float) -> None:
    _compare(
        mod, "two calls on the same texts", texts, _analyze(mod, texts), _analyze(mod, texts), atol
    )


def _check_batch_invariant(mod: Moderator, texts: Sequence[str], atol: float) -> None:
    batch = _analyze(mod, texts)
    single = [_analyze(mod, [t])[0] for t in texts]
    _compare(mod, "batch and one-by-one results", texts, batch, single, atol)


_CHECK_FUNCS: dict[str, Callable[[Moderator, Sequence[str], float], None]] = {
    "attributes": _check_attributes,
    "config_round_trip": _check_config_round_trip,
    "shapes": _check_shapes,
    "edge_texts": _check_edge_texts,
    "valid_results": _check_valid_results,
    "deterministic": _check_deterministic,
    "batch_invariant": _check_batch_invariant,
}

#: Names of the checks, in the order :func:`check_moderator` runs them.
CHECKS: tuple[str, ...] = tuple(_CHECK_FUNCS)

_CHECK_CONSTRAINTS: Constraints = {
    "texts": Nullable(StrList()),
    "checks": StrList(options=CHECKS),
    "atol": Float(0.0),
}


def check_moderator(
    moderator: Moderator,
    *,
    texts: Sequence[str] | None = None,
    checks: Sequence[str] | None = None,
    atol: float = DEFAULT_ATOL,
) -> None:
    """Run the conformance checks on ``moderator``.

    Parameters
    ----------
    moderator : Moderator
        The moderator to check. It must be registered (the config round trip
        rebuilds it with ``tactful.load(moderator.name, **moderator.config())``).
    texts : list or tuple of str, optional
        Texts checked in addition to :data:`EDGE_TEXTS`.
    checks : list or tuple of str, optional
        Names from :data:`CHECKS` to run; default all, in order.
    atol : float, default=1e-5
        Absolute tolerance when comparing scores of two analyses.

    Raises
    ------
    AssertionError
        At the first failed check, with the moderator name and what broke.
    ModelError, BackendError
        Passed through when the moderator's model file or remote endpoint is not
        available, so that callers can skip rather than fail.
    ConfigError
        If ``checks`` names an unknown check or ``atol`` is not a float >= 0
        (:data:`tactful.errors.PARAM_MESSAGE`).

    Examples
    --------
    >>> import tactful
    >>> from tactful.testing import check_moderator
    >>> check_moderator(tactful.load("random", seed=7))
    """
    p = validate_params(
        "check_moderator",
        _CHECK_CONSTRAINTS,
        texts=texts,
        checks=CHECKS if checks is None else checks,
        atol=atol,
    )
    names, atol = p["checks"], p["atol"]
    all_texts = [*EDGE_TEXTS, *(p["texts"] or ())]
    for name in names:
        _CHECK_FUNCS[name](moderator, all_texts, atol)


@functools.cache
def _cached_load(name: str) -> Moderator:
    return load(name)


def run_check(name: str, check: str, *, required: Iterable[str] = ()) -> None:
    """Run one conformance check on the default moderator registered as ``name``.

    Meant for tests made by :func:`parametrize_with_checks`. The moderator is
    built once per name and reused across checks.

    Parameters
    ----------
    name : str
        A registered moderator name.
    check : str
        A name from :data:`CHECKS`.
    required : iterable of str, default=()
        Names that must pass. Any other moderator whose model file or remote
        endpoint is unavailable (:class:`~tactful.errors.ModelError` or
        :class:`~tactful.errors.BackendError`, when built or used) is skipped
        with the error as the reason.
    """
    import pytest

    try:
        mod = _cached_load(name)
        check_moderator(mod, checks=[check])
    except (ModelError, BackendError) as exc:
        if name in set(required):
            raise
        pytest.skip(f"moderator {name!r} unavailable: {exc}")


def parametrize_with_checks(names: Iterable[str] | None = None) -> Any:
    """A ``pytest.mark.parametrize`` over (moderator name, check) pairs.

    Parameters
    ----------
    names : iterable of str, optional
        Moderator names; default every name in ``tactful.available()``.

    Returns
    -------
    pytest.MarkDecorator
        Parametrizes the arguments ``moderator_name`` and ``check``, with test
        ids such as ``lexicon-edge_texts``.
    """
    import pytest

    names = available() if names is None else list(names)
    return pytest.mark.parametrize(
        ("moderator_name", "check"),
        [pytest.param(n, c, id=f"{n}-{c}") for n in names for c in CHECKS],
    )
