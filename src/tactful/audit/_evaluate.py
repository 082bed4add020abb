"""Evaluation: a moderator's flags and scores on audit rows → the report's figures.

Every number comes from :mod:`tactful.audit.metrics` and
:mod:`tactful.audit.regression`; this module only feeds them and puts their
results in the report's shape (:mod:`tactful.audit._schema`). Each table and
regression is memoized in the result store under the hash of its exact inputs
and of the code that computes it, so a re-run recomputes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..errors import ConfigError
from ..store import ResultStore, code_fingerprint, memo_key
from ._schema import Evaluation, Fit, FlagTable, ScoreTable, StandardizedTable, clean

if TYPE_CHECKING:
    import pandas as pd

    from ._sets import AuditSet

__all__ = ["Evaluator", "frame_rows"]

#: The modules whose code the memoized figures depend on.
_CODE = ("tactful.audit.metrics", "tactful.audit.regression", __name__, "tactful.audit._schema")


def frame_rows(frame: pd.DataFrame, index_name: str | None = None) -> list[dict[str, Any]]:
    """A DataFrame as report rows (the index kept under ``index_name``), numbers cleaned."""
    if index_name is not None and index_name not in frame.columns:
        frame = frame.reset_index(names=index_name)
    # Nullable columns hold pd.NA; JSON gets None for it, as for NaN.
    frame = frame.astype(object).where(frame.notna(), None)
    rows: list[dict[str, Any]] = clean(frame.to_dict(orient="records"))
    return rows


def _table(frame: pd.DataFrame, column: str = "ratio") -> dict[str, Any]:
    """A suppression table as ``{"groups": rows, "worst": the group with the largest
    ``column``}``."""
    from .metrics import worst_group

    return {"groups": frame_rows(frame), "worst": clean(worst_group(frame, column))}


def _fit(table: pd.DataFrame) -> Fit:
    attrs = table.attrs
    return {
        "terms": cast(Any, frame_rows(table, "term")),
        "method": attrs["method"],
        "dropped": dict(sorted(attrs["dropped"].items())),
        "n": attrs["n"],
    }


def _guard(fit: Callable[[], Fit]) -> Fit:
    """A regression that cannot be fitted (too few rows, one class) becomes an error note."""
    try:
        return fit()
    except (ConfigError, ValueError, np.linalg.LinAlgError) as exc:
        return {
            "terms": None,
            "error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
        }


class Evaluator:
    """Computes (or reads back) the figures of one audit with fixed bootstrap settings.

    Parameters
    ----------
    store : ResultStore
        Where the figures are memoized.
    n_resamples, seed : int
        The bootstrap's resamples and seed.
    """

    def __init__(self, store: ResultStore, *, n_resamples: int, seed: int) -> None:
        self.store, self.n_resamples, self.seed = store, n_resamples, seed
        self._code = code_fingerprint(*_CODE)

    def _memo(self, kind: str, key_parts: Sequence[Any], compute: Callable[[], Any]) -> Any:
        return self.store.memo(f"audit-{kind}/{self._code}", key_parts, compute)

    def evaluate(
        self,
        y_true: np.ndarray,
        groups: Sequence[frozenset[str]],
        codes: np.ndarray,
        flags: np.ndarray,
        scores: np.ndarray | None,
    ) -> Evaluation:
        """FPR, per-group flag table and, with scores, per-group score table of some rows.

        ``codes`` are ``groups`` as bit masks: the memo's stand-in for them.
        """
        from . import metrics

        n, seed = self.n_resamples, self.seed
        flag: FlagTable = self._memo(
            "flag-table",
            (y_true, flags, codes, n, seed),
            lambda: _table(
                metrics.suppression_table(y_true, flags, groups, n_resamples=n, seed=seed)
            ),
        )
        score: ScoreTable | None = None
        if scores is not None:
            score = self._memo(
                "score-table",
                (y_true, scores, codes, n, seed),
                lambda: _table(
                    metrics.score_suppression_table(
                        y_true, scores, groups, n_resamples=n, seed=seed
                    )
                ),
            )
        return {
            "n": len(y_true),
            "n_negative": int((y_true == 0).sum()),
            "n_positive": int((y_true == 1).sum()),
            "fpr": clean(metrics.fpr(y_true, flags)),
            "flag": flag,
            "score": score,
        }

    def standardized(
        self,
        y_true: np.ndarray,
        groups: Sequence[frozenset[str]],
        codes: np.ndarray,
        flags: np.ndarray,
        strata: Sequence[str],
    ) -> StandardizedTable:
        """Per-group flag suppression within the sets of pooled rows (``strata``: each
        row's set), and the group with the largest standardized ratio."""
        from . import metrics

        n, seed = self.n_resamples, self.seed

        def compute() -> StandardizedTable:
            frame = metrics.standardized_suppression_table(
                y_true, flags, groups, strata, n_resamples=n, seed=seed
            )
            return cast(StandardizedTable, _table(frame, "standardized_ratio"))

        table: StandardizedTable = self._memo(
            "standardized-table", (y_true, flags, codes, list(strata), n, seed), compute
        )
        return table

    def regressions(
        self,
        sets: Sequence[AuditSet],
        flags: Mapping[str, np.ndarray],
        scores: Mapping[str, np.ndarray | None],
    ) -> tuple[list[str], int, Fit, Fit | None]:
        """Tables 15–16: flag logistic and score OLS over the pooled primary sets.

        Returns
        -------
        sets, n, flag, score
            The pooled set ids, their rows, the flag fit and the score fit (None
            when the moderator has no scores on one of the sets).
        """
        pooled = [s for s in sets if s.primary]
        texts = [t for s in pooled for t in s.texts]
        y_true = np.concatenate([s.y_true for s in pooled])
        groups = [g for s in pooled for g in s.groups]
        has_slur = np.concatenate([s.has_slur for s in pooled])
        genai = np.concatenate([np.full(len(s.texts), s.family == "genai") for s in pooled])
        y_pred = np.concatenate([flags[s.id] for s in pooled])
        codes = np.concatenate([s.group_codes for s in pooled])
        text_key = memo_key("".join(h for s in pooled for h in s.hashes).encode("ascii"))
        base = (text_key, y_true, codes, has_slur, genai)

        def frame() -> pd.DataFrame:
            from . import regression

            return regression.regression_frame(
                texts, y_true, groups, has_slur=has_slur, genai=genai
            )

        def flag_fit() -> Fit:
            from . import regression

            return _fit(regression.flag_regression(frame(), y_true, y_pred))

        flag = _guard(lambda: self._memo("regression-flag", (*base, y_pred), flag_fit))
        score = None
        pooled_scores = [scores[s.id] for s in pooled]
        if all(s is not None for s in pooled_scores):
            s_all = np.concatenate(cast(list[np.ndarray], pooled_scores))

            def score_fit() -> Fit:
                from . import regression

                return _fit(regression.score_regression(frame(), y_true, s_all))

            score = _guard(lambda: self._memo("regression-score", (*base, s_all), score_fit))
        return [s.id for s in pooled], len(texts), flag, score
