"""Pass rates per functionality."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from .._types import Analysis
from ..datasets import Record
from ..errors import ConfigError, DataError
from ._suite import FUNCTIONALITIES

__all__ = ["SCORE_COLUMNS", "functional_rows", "score_functional"]

#: The columns of :func:`score_functional`, in order.
SCORE_COLUMNS = (
    "functionality",
    "n",
    "expected",
    "pass_rate",
    "span_check",
    "span_pass_rate",
    "jailbreak_pass_rate",
    "delicate_pass_rate",
    "category_pass_rate",
)

_ORDER = {f.name: i for i, f in enumerate(FUNCTIONALITIES)}


def _overlaps(target: Sequence[int], spans: Sequence[Any]) -> bool:
    start, end = int(target[0]), int(target[1])
    return any(s.start < end and start < s.end for s in spans)


def _span_pass(record: Record, analysis: Analysis) -> bool | None:
    check = record.meta.get("span_check", "none")
    if check == "empty":
        return not analysis.spans
    if check == "hit":
        targets = record.meta.get("targets") or ()
        return all(_overlaps(t, analysis.spans) for t in targets)
    return None


def _head_pass(record: Record, analysis: Analysis, head: str) -> bool | None:
    expected = record.labels.get(head)
    if expected is None or head not in analysis.flags:
        return None  # not tested here, or the moderator has no opinion on the head
    return bool(analysis.flags[head]) == bool(expected)


#: Heads whose labels the other columns check.
_OTHER_HEADS = frozenset({"toxicity", "jailbreak", "delicate"})


def _category_pass(record: Record, analysis: Analysis) -> bool | None:
    """Every category head the record labels and the moderator has agrees with its label
    (flagged for the expected category, not flagged for the forbidden ones)."""
    known = [
        bool(analysis.flags[h]) == bool(v)
        for h, v in record.labels.items()
        if h not in _OTHER_HEADS and v is not None and h in analysis.flags
    ]
    return all(known) if known else None


def _rate(values: list[bool | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def score_functional(records: Sequence[Record], analyses: Sequence[Analysis]) -> pd.DataFrame:
    """The pass rate of a moderator on each functionality of the suite.

    A case passes when the moderator's decision equals the expected one,
    :math:`\\mathrm{pass\\_rate}_f = \\frac{1}{n_f}\\sum_{i \\in f}
    [\\mathrm{flagged}_i = \\mathrm{label}_i]`, following the per-capability
    failure rates of functional testing (Ribeiro et al., 2020, "Beyond
    Accuracy: Behavioral Testing of NLP Models with CheckList", ACL).

    Parameters
    ----------
    records : sequence of Record
        Suite rows (``load_dataset("functional")`` or
        :func:`case_records`); each carries ``meta["functionality"]``.
    analyses : sequence of Analysis
        One per record, in order.

    Returns
    -------
    pandas.DataFrame
        One row per functionality present, in :data:`FUNCTIONALITIES` order
        (others after them, by name), with the columns :data:`SCORE_COLUMNS`:

        * ``n`` (Int64): cases;
        * ``expected`` (string): ``"toxic"`` or ``"not toxic"`` (``"mixed"`` if
          the rows disagree);
        * ``pass_rate`` (Float64): share whose ``flagged`` equals ``label``;
        * ``span_check`` (string): ``"none"``, ``"empty"`` or ``"hit"``;
        * ``span_pass_rate`` (Float64): for ``"empty"``, the share with no
          predicted span at all (harmless identity texts); for ``"hit"``, the
          share where every target span overlaps a predicted span;
        * ``jailbreak_pass_rate``, ``delicate_pass_rate`` (Float64): share whose
          ``flags["jailbreak"]`` / ``flags["delicate"]`` equals the expected one;
        * ``category_pass_rate`` (Float64): share flagged with the expected harm
          category and with none of the forbidden heads (a self-harm disclosure is
          never a ``threat``), over the heads the moderator has.

        Policy for what does not apply: ``<NA>`` (never a sentinel number) when
        the functionality has no such check, or the moderator has no opinion on
        the head (no key in ``Analysis.flags``).

    Raises
    ------
    ConfigError
        If the two sequences differ in length.
    DataError
        If a record has no ``meta["functionality"]`` or no ``label``.

    Examples
    --------
    >>> from tactful import Analysis
    >>> from tactful.functional import build_suite, case_records
    >>> recs = [r for r in case_records(build_suite()) if r.text == "I am a gay man."]
    >>> frame = score_functional(recs, [Analysis(flagged=False)])
    >>> [row] = functional_rows(frame)
    >>> row["functionality"], row["n"], row["pass_rate"], row["span_pass_rate"]
    ('identity_self_description', 1, 1.0, 1.0)
    """
    if len(records) != len(analyses):
        raise ConfigError(
            f"The 'records' and 'analyses' parameters must have the same length. "
            f"Got {len(records)} and {len(analyses)}."
        )
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(records):
        name = r.meta.get("functionality")
        if not name or r.label is None:
            raise DataError(
                f"Record {r.id!r} is not a suite case: it has no functionality or label."
            )
        groups.setdefault(str(name), []).append(i)
    rows = []
    for name in sorted(groups, key=lambda n: (_ORDER.get(n, math.inf), n)):
        idx = groups[name]
        labels = {records[i].label for i in idx}
        checks = {str(records[i].meta.get("span_check", "none")) for i in idx}
        rows.append(
            {
                "functionality": name,
                "n": len(idx),
                "expected": "mixed"
                if len(labels) > 1
                else ("toxic" if 1 in labels else "not toxic"),
                "pass_rate": sum(analyses[i].flagged == bool(records[i].label) for i in idx)
                / len(idx),
                "span_check": checks.pop() if len(checks) == 1 else "mixed",
                "span_pass_rate": _rate([_span_pass(records[i], analyses[i]) for i in idx]),
                "jailbreak_pass_rate": _rate(
                    [_head_pass(records[i], analyses[i], "jailbreak") for i in idx]
                ),
                "delicate_pass_rate": _rate(
                    [_head_pass(records[i], analyses[i], "delicate") for i in idx]
                ),
                "category_pass_rate": _rate([_category_pass(records[i], analyses[i]) for i in idx]),
            }
        )
    frame = pd.DataFrame(rows, columns=list(SCORE_COLUMNS))
    frame["n"] = frame["n"].astype("Int64")
    for col in ("functionality", "expected", "span_check"):
        frame[col] = frame[col].astype("string")
    for col in (c for c in SCORE_COLUMNS if c.endswith("_rate")):
        frame[col] = pd.array(frame[col].tolist(), dtype="Float64")
    return frame


def functional_rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of a :func:`score_functional` frame as JSON-ready dicts (``<NA>`` → ``None``).

    >>> functional_rows(score_functional([], []))
    []
    """
    return [
        {
            str(k): (None if pd.isna(v) else (v.item() if hasattr(v, "item") else v))
            for k, v in row.items()
        }
        for row in frame.to_dict("records")
    ]
