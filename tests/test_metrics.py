"""tactful.metrics against hand-computed cases and scikit-learn."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn import metrics as skm

from tactful.errors import ConfigError
from tactful.metrics import (
    BootstrapCI,
    average_precision,
    bootstrap_ci,
    jailbreak_recall,
    precision_recall_f1,
    roc_auc,
    span_f1,
    span_f1_per_post,
)

# ------------------------------------------------------------ precision/recall/F1


def test_prf_hand_computed():
    # TP = 2 (rows 0, 1), FP = 1 (row 3), FN = 1 (row 2), TN = 1 (row 4)
    got = precision_recall_f1([1, 1, 1, 0, 0], [1, 1, 0, 1, 0])
    assert got == {"precision": 2 / 3, "recall": 2 / 3, "f1": 4 / 6}


def test_prf_accepts_booleans():
    assert precision_recall_f1([True, False], [True, True]) == {
        "precision": 0.5,
        "recall": 1.0,
        "f1": 2 / 3,
    }


def test_prf_no_predicted_positive_uses_zero_division_for_precision_only():
    # Precision is 0/0; recall is 0/2 = 0; F1 = 0/(0+0+2) = 0 (defined).
    assert precision_recall_f1([1, 1, 0], [0, 0, 0]) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    got = precision_recall_f1([1, 1, 0], [0, 0, 0], zero_division=1.0)
    assert got == {"precision": 1.0, "recall": 0.0, "f1": 0.0}


def test_prf_all_negative_everything_undefined():
    assert precision_recall_f1([0, 0, 0], [0, 0, 0], zero_division=1.0) == {
        "precision": 1.0,
        "recall": 1.0,
        "f1": 1.0,
    }
    got = precision_recall_f1([0, 0], [0, 0], zero_division=math.nan)
    assert all(math.isnan(v) for v in got.values())


def test_prf_empty_input():
    assert precision_recall_f1([], []) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


@pytest.mark.parametrize("zero_division", [0.0, 1.0])
@pytest.mark.parametrize("seed", range(12))
def test_prf_matches_sklearn(seed, zero_division):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    # Low positive rates make the zero-division branches come up too.
    t = rng.random(n) < rng.uniform(0, 0.5)
    p = rng.random(n) < rng.uniform(0, 0.5)
    got = precision_recall_f1(t, p, zero_division=zero_division)
    kw = {"zero_division": zero_division}
    assert got["precision"] == pytest.approx(skm.precision_score(t, p, **kw))
    assert got["recall"] == pytest.approx(skm.recall_score(t, p, **kw))
    assert got["f1"] == pytest.approx(skm.f1_score(t, p, **kw))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"y_true": [0, 2], "y_pred": [0, 1]},
            "The 'y_true' parameter must hold only 0/1 or booleans. Got",
        ),
        (
            {"y_true": [0, 1], "y_pred": [0, 1, 1]},
            "Inputs must have the same length. Got y_true=2, y_pred=3.",
        ),
        (
            {"y_true": [0, None], "y_pred": [0, 1]},
            "The 'y_true' parameter must hold only 0/1 or booleans.",
        ),
        (
            {"y_true": [0], "y_pred": [0], "zero_division": 0.5},
            "The 'zero_division' parameter must be 0.0, 1.0 or nan. Got 0.5 instead.",
        ),
    ],
)
def test_prf_bad_input(kwargs, message):
    with pytest.raises(ConfigError) as info:
        precision_recall_f1(**kwargs)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


# ------------------------------------------------------------------------ ROC-AUC


def test_roc_auc_hand_computed():
    # Pairs (pos, neg): (0.35, 0.1) ok, (0.35, 0.4) wrong, (0.8, *) ok -> 3/4.
    assert roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == 0.75


def test_roc_auc_ties_count_half():
    # One positive, one negative, same score: the single pair is a tie.
    assert roc_auc([1, 0], [0.5, 0.5]) == 0.5
    # pos 0.5 vs negs {0.5 tie, 0.2 win} -> 1.5 / 2
    assert roc_auc([1, 0, 0], [0.5, 0.5, 0.2]) == 0.75


def test_roc_auc_perfect_and_inverted():
    assert roc_auc([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8]) == 1.0
    assert roc_auc([0, 1, 0, 1], [0.9, 0.1, 0.8, 0.2]) == 0.0


@pytest.mark.parametrize("y", [[1, 1, 1], [0, 0], []])
def test_roc_auc_one_class_is_none(y):
    assert roc_auc(y, [0.5] * len(y)) is None


def test_roc_auc_rejects_nan_scores():
    with pytest.raises(ConfigError, match="must be an array of finite floats"):
        roc_auc([0, 1], [0.1, float("nan")])


@pytest.mark.parametrize("seed", range(12))
def test_roc_auc_and_ap_match_sklearn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    t = rng.random(n) < 0.4
    t[0], t[1] = True, False  # both classes present
    # Rounded scores create ties, which is where implementations differ.
    s = np.round(rng.random(n) + 0.3 * t, 1)
    assert roc_auc(t, s) == pytest.approx(skm.roc_auc_score(t, s))
    assert average_precision(t, s) == pytest.approx(skm.average_precision_score(t, s))


# ---------------------------------------------------------------- average precision


def test_average_precision_hand_computed():
    # Thresholds 0.8: P=1, R=.5; 0.4: P=.5, R=.5; 0.35: P=2/3, R=1; 0.1: R stays 1.
    # AP = .5 * 1 + 0 * .5 + .5 * 2/3 + 0 = 5/6
    assert average_precision([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == pytest.approx(5 / 6)


def test_average_precision_tied_scores_form_one_threshold():
    # All tied: one threshold, P = 1/4, R = 1 -> AP = 0.25 (not an order-dependent value).
    assert average_precision([1, 0, 0, 0], [0.3, 0.3, 0.3, 0.3]) == 0.25
    assert average_precision([0, 0, 0, 1], [0.3, 0.3, 0.3, 0.3]) == 0.25


def test_average_precision_without_positives_is_none():
    assert average_precision([0, 0, 0], [0.1, 0.2, 0.3]) is None


# ---------------------------------------------------------------- jailbreak recall


def test_jailbreak_recall_hand_computed():
    # Jailbreak rows are 0, 1, 4; predicted toxic among them: 0 and 4 -> 2/3.
    assert jailbreak_recall([1, 0, 1, 1, 1], [1, 1, 0, 0, 1]) == 2 / 3


def test_jailbreak_recall_without_jailbreak_rows():
    assert jailbreak_recall([1, 0], [0, 0]) == 0.0
    assert jailbreak_recall([1, 0], [0, 0], zero_division=1.0) == 1.0


# ----------------------------------------------------------------------- span F1

# The example post of the SemEval-2021 Task 5 data description.
SEMEVAL_TEXT = "This is a stupid example, so thank you for nothing a!@#!@."
STUPID = list(range(10, 16))
A_BANG = list(range(51, 57))


def test_semeval_example_offsets():
    assert SEMEVAL_TEXT[10:16] == "stupid"
    assert SEMEVAL_TEXT[51:57] == "a!@#!@"


def test_span_f1_semeval_example_cases():
    gold = STUPID + A_BANG  # 12 offsets
    # Exact match.
    assert span_f1([gold], [gold]) == 1.0
    # Only "stupid": P = 6/6, R = 6/12, F1 = 2 * 1 * .5 / 1.5 = 2/3.
    assert span_f1([gold], [STUPID]) == pytest.approx(2 / 3)
    # "stupid example" (10..23, 14 offsets): |G & P| = 6, P = 6/14, R = 6/12 -> 12/26.
    assert span_f1([gold], [range(10, 24)]) == pytest.approx(12 / 26)
    # Disjoint prediction scores 0.
    assert span_f1([gold], [range(4)]) == 0.0
    # Nothing predicted on a toxic post scores 0.
    assert span_f1([gold], [[]]) == 0.0


def test_span_f1_empty_gold_rule():
    assert span_f1_per_post([[], []], [[], [3]]).tolist() == [1.0, 0.0]


def test_span_f1_all_empty_is_perfect():
    assert span_f1([[], [], []], [[], [], []]) == 1.0


def test_span_f1_means_over_posts():
    gold = [STUPID + A_BANG, [], [1, 2], []]
    pred = [STUPID, [], [], [5]]
    per_post = span_f1_per_post(gold, pred)
    assert per_post == pytest.approx([2 / 3, 1.0, 0.0, 0.0])
    assert span_f1(gold, pred) == pytest.approx((2 / 3 + 1.0) / 4)


def test_span_f1_offsets_are_sets():
    # Duplicate and unordered offsets count once.
    assert span_f1([[3, 1, 2]], [frozenset({1, 2, 3})]) == 1.0
    assert span_f1([[1, 1, 2]], [[1, 2, 2, 2]]) == 1.0


def test_span_f1_errors():
    with pytest.raises(ConfigError, match=r"^\[T010\] span_f1 needs at least one post. Got 0.$"):
        span_f1([], [])
    with pytest.raises(ConfigError, match="Inputs must have the same length. Got gold=1, pred=2."):
        span_f1([[1]], [[1], [2]])
    with pytest.raises(
        ConfigError, match=r"pred\[0\] must be an iterable of int character offsets"
    ):
        span_f1([[1]], [None])


# --------------------------------------------------------------------- bootstrap


def _mean(x):
    return float(np.mean(x))


def test_bootstrap_is_deterministic_for_a_seed():
    rng = np.random.default_rng(7)
    x = rng.random(50)
    a = bootstrap_ci(_mean, x, n_resamples=200, seed=3)
    b = bootstrap_ci(_mean, x, n_resamples=200, seed=3)
    c = bootstrap_ci(_mean, x, n_resamples=200, seed=4)
    assert a == b
    assert a != c
    assert a.point == c.point == pytest.approx(x.mean())


def test_bootstrap_matches_a_hand_rolled_percentile_bootstrap():
    x = np.arange(20, dtype=float)
    ci = bootstrap_ci(_mean, x, n_resamples=500, confidence=0.9, seed=11)
    rng = np.random.default_rng(11)
    stats = [x[rng.integers(0, 20, size=20)].mean() for _ in range(500)]
    low, high = np.quantile(stats, [0.05, 0.95])
    assert isinstance(ci, BootstrapCI)
    assert ci == (9.5, pytest.approx(low), pytest.approx(high))


def test_bootstrap_interval_contains_point_and_narrows_with_confidence():
    y = np.array([1, 0] * 30)
    p = np.array([1, 0, 0, 0] * 15)  # recall 0.5
    recall = lambda t, q: precision_recall_f1(t, q)["recall"]
    wide = bootstrap_ci(recall, y, p, confidence=0.99, seed=0)
    narrow = bootstrap_ci(recall, y, p, confidence=0.5, seed=0)
    assert wide.point == 0.5
    assert wide.low < 0.5 < wide.high
    assert wide.low <= narrow.low <= narrow.high <= wide.high


def test_bootstrap_constant_data_has_zero_width():
    assert bootstrap_ci(_mean, [2.0, 2.0, 2.0], n_resamples=50) == (2.0, 2.0, 2.0)


def test_bootstrap_over_spans_keeps_posts_paired():
    # Ragged offset lists: every resample of a perfect prediction scores 1.
    gold = [[1, 2, 3], [], [7], [10, 11]]
    assert bootstrap_ci(span_f1, gold, gold, n_resamples=100) == (1.0, 1.0, 1.0)


def test_bootstrap_skips_undefined_resamples():
    # With 1 positive in 6 rows, many resamples have one class (AUC undefined).
    t = [1, 0, 0, 0, 0, 0]
    s = [0.9, 0.1, 0.2, 0.3, 0.4, 0.5]
    ci = bootstrap_ci(roc_auc, t, s, n_resamples=200, seed=0)
    assert ci == (1.0, 1.0, 1.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_resamples": 0}, "The 'n_resamples' parameter must be an int >= 1. Got 0 instead."),
        (
            {"confidence": 1.0},
            "The 'confidence' parameter must be a float in (0, 1). Got 1.0 instead.",
        ),
    ],
)
def test_bootstrap_bad_parameters(kwargs, message):
    with pytest.raises(ConfigError) as info:
        bootstrap_ci(_mean, [1.0, 2.0], **kwargs)
    assert message in str(info.value)


def test_bootstrap_undefined_point_and_bad_arrays():
    with pytest.raises(ConfigError, match="undefined on the full data"):
        bootstrap_ci(roc_auc, [1, 1], [0.2, 0.3])
    with pytest.raises(ConfigError, match="needs at least one row"):
        bootstrap_ci(_mean, [])
    with pytest.raises(ConfigError, match="Inputs must have the same length"):
        bootstrap_ci(roc_auc, [1, 0], [0.2])
