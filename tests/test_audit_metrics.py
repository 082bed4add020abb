"""Speech-suppression metrics: hand-computed cases, bootstrap behaviour, the paper's tables."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from tactful import Analysis, audit
from tactful.audit import metrics
from tactful.audit.metrics import (
    OPENAI_FLAG_THRESHOLDS,
    STANDARDIZED_COLUMNS,
    WORST_FLAG_FIELDS,
    WORST_SCORE_FIELDS,
    fpr,
    max_category_score,
    normalize_by_thresholds,
    score_suppression_table,
    standardized_suppression_table,
    suppression_table,
    worst_group,
)
from tactful.errors import PARAM_MESSAGE, ConfigError, UnknownNameError
from tactful.identity import GROUPS, parse_paper_groups

NAMES = ["women", "men", "lgbt", "straight"]

# Ten texts. Rows 0-7 are not violating (true negatives), rows 8-9 are violating.
#   women: rows 0,1,2,3 (+ violating row 8); flagged 0,1        -> 4 TN, 2 FP
#   men:   rows 3,4,5,6;                     flagged 4          -> 4 TN, exactly 1 FP
#   lgbt:  only the violating row 9                             -> no true negatives
#   straight: no text at all
# Overall: 8 TN, flagged 0,1,4 -> FPR = 3/8.
Y_TRUE = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1]
Y_PRED = [1, 1, 0, 0, 1, 0, 0, 0, 1, 0]
GROUPS_OF = [
    {"women"},
    {"women"},
    {"women"},
    {"women", "men"},
    {"men"},
    {"men"},
    {"men"},
    set(),
    {"women"},
    {"lgbt"},
]


# --------------------------------------------------------------------------- fpr


def test_fpr_hand_cases():
    assert fpr([0, 0, 0, 0, 1], [1, 0, 0, 0, 0]) == 0.25
    assert fpr([False, False], [False, False]) == 0.0
    assert fpr(np.array(Y_TRUE), np.array(Y_PRED)) == 3 / 8
    assert fpr([1, 1, 1], [1, 0, 1]) is None  # no true negatives: undefined, not 0


@pytest.mark.parametrize(
    ("y_true", "y_pred", "message"),
    [
        ([0, 1], [0], r"same length\. Got y_true=2, y_pred=1"),
        ([0, 2], [0, 1], r"'y_true' parameter must hold only 0/1 or booleans\. Got 2 instead"),
        ([[0, 1]], [[0, 1]], r"'y_true' parameter must be a 1-d array"),
        ([0, 1], ["a", "b"], r"'y_pred' parameter must hold only 0/1"),
    ],
)
def test_fpr_bad_input(y_true, y_pred, message):
    with pytest.raises(ConfigError, match=message):
        fpr(y_true, y_pred)


# --------------------------------------------------------------------------- flag table


def test_suppression_table_hand_computed():
    table = suppression_table(Y_TRUE, Y_PRED, GROUPS_OF, group_names=NAMES, n_resamples=0)
    assert list(table.columns) == [
        "group",
        "n",
        "n_tn",
        "n_fp",
        "i_fpr",
        "fpr",
        "ratio",
        "ratio_low",
        "ratio_high",
    ]
    assert table["group"].tolist() == NAMES
    assert table["n"].tolist() == [5, 4, 1, 0]
    assert table["n_tn"].tolist() == [4, 4, 0, 0]
    assert table["n_fp"].tolist() == [2, 1, 0, 0]
    women, men, lgbt, straight = (table.iloc[i] for i in range(4))
    assert women.i_fpr == 0.5 and women.ratio == pytest.approx(0.5 / 0.375)
    # one false positive among four true negatives
    assert men.i_fpr == 0.25 and men.ratio == pytest.approx(0.25 / 0.375)
    assert (table["fpr"] == 0.375).all()
    # no true negatives: NA, not a number standing in for "undefined"
    for row in (lgbt, straight):
        assert (
            pd.isna(row.i_fpr)
            and pd.isna(row.ratio)
            and pd.isna(row.ratio_low)
            and pd.isna(row.ratio_high)
        )
    # no bootstrap asked for: no interval
    assert table["ratio_low"].isna().all() and table["ratio_high"].isna().all()
    assert str(table["n"].dtype) == "Int64" and str(table["ratio"].dtype) == "Float64"


def test_suppression_table_default_rows_are_the_nine_groups_in_order():
    table = suppression_table([0, 0], [1, 0], [{"women"}, set()], n_resamples=0)
    assert table["group"].tolist() == list(GROUPS)
    assert table.set_index("group").loc["women", "ratio"] == 2.0
    assert table.set_index("group").loc["men", "n"] == 0


def test_zero_overall_fpr_gives_no_ratio():
    table = suppression_table(
        [0, 0, 1], [0, 0, 1], [{"women"}, set(), set()], group_names=["women"], n_resamples=50
    )
    row = table.iloc[0]
    assert row.fpr == 0.0 and row.i_fpr == 0.0
    assert pd.isna(row.ratio) and pd.isna(row.ratio_low) and pd.isna(row.ratio_high)


def test_no_true_negatives_at_all():
    table = suppression_table(
        [1, 1], [1, 0], [{"women"}, set()], group_names=["women"], n_resamples=10
    )
    assert table.iloc[0].n_tn == 0
    assert table[["i_fpr", "fpr", "ratio", "ratio_low", "ratio_high"]].isna().all(axis=None)


def clear_case(n=2000, seed=3):
    """Women's acceptable texts are flagged 40% of the time, others' 10%."""
    rng = np.random.default_rng(seed)
    women = rng.random(n) < 0.3
    y_true = (rng.random(n) < 0.2).astype(int)
    flag_p = np.where(women, 0.4, 0.1)
    y_pred = np.where(y_true == 1, 1, (rng.random(n) < flag_p).astype(int))
    groups = [{"women"} if w else set() for w in women]
    return y_true, y_pred, groups


def test_bootstrap_is_seeded_and_covers_the_estimate():
    y_true, y_pred, groups = clear_case()
    a = suppression_table(y_true, y_pred, groups, group_names=["women"], n_resamples=500, seed=7)
    b = suppression_table(y_true, y_pred, groups, group_names=["women"], n_resamples=500, seed=7)
    c = suppression_table(y_true, y_pred, groups, group_names=["women"], n_resamples=500, seed=8)
    pd.testing.assert_frame_equal(a, b)
    assert (a.loc[0, "ratio_low"], a.loc[0, "ratio_high"]) != (
        c.loc[0, "ratio_low"],
        c.loc[0, "ratio_high"],
    )
    row = a.iloc[0]
    assert row.ratio_low < row.ratio < row.ratio_high
    assert row.ratio_low > 1.5  # a clear case is clearly above 1
    assert row.ratio_high - row.ratio_low < 1.0


def test_bootstrap_matches_naive_row_resampling():
    """The pattern-multinomial shortcut has the distribution of resampling rows."""
    y_true, y_pred, groups = clear_case(n=600, seed=11)
    table = suppression_table(
        y_true, y_pred, groups, group_names=["women"], n_resamples=4000, seed=1
    )
    rng = np.random.default_rng(2)
    women = np.array(["women" in g for g in groups])
    neg = y_true == 0
    ratios = []
    for _ in range(4000):
        i = rng.integers(0, len(y_true), len(y_true))
        n_, w_, p_ = neg[i], women[i], y_pred[i] == 1
        ratios.append(((n_ & w_ & p_).sum() / (n_ & w_).sum()) / ((n_ & p_).sum() / n_.sum()))
    low, high = np.percentile(ratios, [2.5, 97.5])
    assert table.loc[0, "ratio_low"] == pytest.approx(low, abs=0.06)
    assert table.loc[0, "ratio_high"] == pytest.approx(high, abs=0.06)


def test_interval_ignores_resamples_where_a_tiny_group_vanishes():
    # one true negative in the group: many resamples miss it, those are left out
    y_true = [0] * 50
    y_pred = [1] + [0] * 40 + [1] * 9
    groups = [{"women"}] + [set()] * 49
    table = suppression_table(y_true, y_pred, groups, group_names=["women"], n_resamples=300)
    row = table.iloc[0]
    assert row.ratio == pytest.approx(1 / (10 / 50))
    assert not pd.isna(row.ratio_low) and row.ratio_low <= row.ratio <= row.ratio_high


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"groups": [{"martians"}, set()]}, UnknownNameError, "Unknown identity group 'martians'"),
        ({"groups": ["women", "men"]}, ConfigError, "got the str 'women' at position 0"),
        ({"groups": [set()]}, ConfigError, r"same length\. Got y_true=2, y_pred=2, groups=1"),
        (
            {"n_resamples": -1},
            ConfigError,
            re.escape(
                PARAM_MESSAGE.format(
                    name="n_resamples", owner="suppression_table", rule="an int >= 0", value=-1
                )
            ),
        ),
        (
            {"confidence": 1.5},
            ConfigError,
            re.escape(
                PARAM_MESSAGE.format(
                    name="confidence",
                    owner="suppression_table",
                    rule="a float in (0, 1)",
                    value=1.5,
                )
            ),
        ),
        ({"group_names": ["women", "women"]}, ConfigError, "duplicates"),
    ],
)
def test_suppression_table_bad_input(kwargs, error, message):
    args = {"groups": [{"women"}, set()], "group_names": ["women"]} | kwargs
    with pytest.raises(error, match=message):
        suppression_table([0, 0], [1, 0], args.pop("groups"), **args)


# --------------------------------------------------------------------------- standardized

# Fourteen texts from four data sets. Rows 4 and 13 are violating (never counted).
#   A: TN rows 0-3, flagged 0 and 3               -> FPR_A = 2/4 = 1/2
#      women: TN 0,1,2 (FP 0)                      -> 3 TN, 1 FP
#   B: TN rows 5-10, flagged 6                    -> FPR_B = 1/6
#      women: TN 5; men: TN 6,7 (FP 6)
#   C: TN rows 11-12, none flagged                -> FPR_C = 0; straight: TN 11
#   D: only the violating row 13 (lgbt)           -> no FPR, expects nothing
# Pooled: 12 TN, 3 FP -> FPR = 1/4.
#   women:    E = 3/2 + 1/6 = 5/3, standardized = 1/(5/3) = 3/5,
#             composition = (5/3)/(4 * 1/4) = 5/3, pooled ratio (1/4)/(1/4) = 1
#   men:      E = 2/6 = 1/3, standardized = 1/(1/3) = 3,
#             composition = (1/3)/(2 * 1/4) = 2/3, pooled ratio (1/2)/(1/4) = 2
#   straight: E = 0 -> standardized NA; composition = 0/(1/4) = 0
#   lgbt:     no true negatives -> NA
D_TRUE = [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1]
D_PRED = [1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1]
D_GROUPS = [
    {"women"},
    {"women"},
    {"women"},
    set(),
    {"women"},
    {"women"},
    {"men"},
    {"men"},
    set(),
    set(),
    set(),
    {"straight"},
    set(),
    {"lgbt"},
]
D_STRATA = ["A"] * 5 + ["B"] * 6 + ["C"] * 2 + ["D"]


def test_standardized_table_hand_computed():
    table = standardized_suppression_table(
        D_TRUE, D_PRED, D_GROUPS, D_STRATA, group_names=NAMES, n_resamples=0
    )
    assert (
        tuple(table.columns)
        == STANDARDIZED_COLUMNS
        == (
            "group",
            "n",
            "n_tn",
            "n_fp",
            "expected_fp",
            "standardized_ratio",
            "standardized_ratio_low",
            "standardized_ratio_high",
            "composition_ratio",
        )
    )
    assert table["group"].tolist() == NAMES
    assert table["n"].tolist() == [5, 2, 1, 1]
    assert table["n_tn"].tolist() == [4, 2, 0, 1]
    assert table["n_fp"].tolist() == [1, 1, 0, 0]
    women, men, lgbt, straight = (table.iloc[i] for i in range(4))
    assert women.expected_fp == pytest.approx(5 / 3)
    assert women.standardized_ratio == pytest.approx(3 / 5)
    assert women.composition_ratio == pytest.approx(5 / 3)
    assert men.expected_fp == pytest.approx(1 / 3)
    assert men.standardized_ratio == pytest.approx(3.0)
    assert men.composition_ratio == pytest.approx(2 / 3)
    # a group only in an FPR-0 data set expects no false positive: no standardized ratio
    assert straight.expected_fp == 0.0 and straight.composition_ratio == 0.0
    assert pd.isna(straight.standardized_ratio)
    # no true negatives: nothing is defined
    assert lgbt.expected_fp == 0.0
    assert pd.isna(lgbt.standardized_ratio) and pd.isna(lgbt.composition_ratio)
    assert table["standardized_ratio_low"].isna().all()
    assert table["standardized_ratio_high"].isna().all()
    for column in ("n", "n_tn", "n_fp"):
        assert str(table[column].dtype) == "Int64"
    for column in STANDARDIZED_COLUMNS[4:]:
        assert str(table[column].dtype) == "Float64"
    pooled = suppression_table(D_TRUE, D_PRED, D_GROUPS, group_names=NAMES, n_resamples=0)
    assert pooled["ratio"].tolist()[:2] == pytest.approx([1.0, 2.0])
    # The worst group of a standardized table is its whole row, by standardized ratio.
    worst = worst_group(table, "standardized_ratio")
    assert worst is not None and list(worst) == list(STANDARDIZED_COLUMNS)
    assert (worst["group"], worst["n_fp"], worst["standardized_ratio_low"]) == ("men", 1, None)
    assert worst["standardized_ratio"] == pytest.approx(3.0)


def test_standardized_ratio_removes_the_composition_effect():
    # A: 4 TN all women, 2 flagged (FPR 1/2). B: 20 TN, 2 flagged (FPR 1/10); women
    # have 10 of them with 1 flagged, men the other 10 with 1 flagged. Inside each data
    # set every group is flagged at the data set's rate, yet pooled (FPR 4/24 = 1/6)
    # women's ratio is (3/14)/(1/6) = 9/7 and men's (1/10)/(1/6) = 3/5.
    y_true = [0] * 24
    y_pred = [1, 1, 0, 0] + [1] + [0] * 9 + [1] + [0] * 9
    groups = [{"women"}] * 14 + [{"men"}] * 10
    strata = ["A"] * 4 + ["B"] * 20
    table = standardized_suppression_table(
        y_true, y_pred, groups, strata, group_names=["women", "men"], n_resamples=0
    )
    pooled = suppression_table(y_true, y_pred, groups, group_names=["women", "men"], n_resamples=0)
    assert table["standardized_ratio"].tolist() == [1.0, 1.0]
    assert table["expected_fp"].tolist() == [3.0, 1.0]
    assert pooled["ratio"].tolist() == pytest.approx([9 / 7, 3 / 5])
    assert pooled.loc[0, "ratio"] > 1
    assert table["composition_ratio"].tolist() == pytest.approx([9 / 7, 3 / 5])


def stratified_case(n=3000, seed=4):
    """Three data sets with FPRs 0.05/0.2/0.5, groups spread unevenly over them."""
    rng = np.random.default_rng(seed)
    codes = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    strata = np.array(["jigsaw", "stormfront", "openai"])[codes]
    y_true = (rng.random(n) < 0.2).astype(int)
    flag_p = np.array([0.05, 0.2, 0.5])[codes]
    y_pred = np.where(y_true == 1, 1, (rng.random(n) < flag_p).astype(int))
    # women mostly in the high-FPR set, men mostly in the low one
    share = {
        "women": np.array([0.1, 0.2, 0.6]),
        "men": np.array([0.4, 0.1, 0.05]),
        "lgbt": np.array([0.1, 0.1, 0.1]),
        "straight": np.array([0.05, 0.3, 0.01]),
    }
    groups = [frozenset(g for g, s in share.items() if rng.random() < s[c]) for c in codes]
    return y_true, y_pred, groups, list(strata)


def test_pooled_ratio_is_standardized_times_composition():
    y_true, y_pred, groups, strata = stratified_case()
    table = standardized_suppression_table(
        y_true, y_pred, groups, strata, group_names=NAMES, n_resamples=0
    )
    pooled = suppression_table(y_true, y_pred, groups, group_names=NAMES, n_resamples=0)
    product = table["standardized_ratio"] * table["composition_ratio"]
    assert product.notna().all()
    assert product.to_numpy(dtype=float) == pytest.approx(pooled["ratio"].to_numpy(dtype=float))
    # the counts are the pooled table's
    for column in ("n", "n_tn", "n_fp"):
        assert table[column].tolist() == pooled[column].tolist()
    # the composition effect is visible: women come from the high-FPR set
    assert table.loc[0, "composition_ratio"] > 1.5 and table.loc[1, "composition_ratio"] < 0.8


def test_single_stratum_is_the_pooled_table():
    table = standardized_suppression_table(
        Y_TRUE, Y_PRED, GROUPS_OF, ["only"] * 10, group_names=NAMES, n_resamples=0
    )
    pooled = suppression_table(Y_TRUE, Y_PRED, GROUPS_OF, group_names=NAMES, n_resamples=0)
    assert table["standardized_ratio"].tolist()[:2] == pytest.approx(pooled["ratio"].tolist()[:2])
    assert table["composition_ratio"].tolist()[:2] == pytest.approx([1.0, 1.0])
    assert table["expected_fp"].tolist() == pytest.approx([4 * 3 / 8, 4 * 3 / 8, 0.0, 0.0])
    for column in ("standardized_ratio", "composition_ratio"):
        assert table[column].isna().tolist() == [False, False, True, True]


def test_standardized_na_policy():
    # no flags at all: every FPR is 0, nothing is expected, no ratio and no interval
    table = standardized_suppression_table(
        [0, 0, 0, 1],
        [0, 0, 0, 0],
        [{"women"}, set(), {"women"}, set()],
        ["a", "a", "b", "b"],
        group_names=["women"],
        n_resamples=50,
    )
    row = table.iloc[0]
    assert row.n_tn == 2 and row.n_fp == 0 and row.expected_fp == 0.0
    assert table[list(STANDARDIZED_COLUMNS[5:])].isna().all(axis=None)
    # no true negatives at all
    table = standardized_suppression_table(
        [1, 1], [1, 0], [{"women"}, set()], ["a", "b"], group_names=["women"], n_resamples=10
    )
    assert table.loc[0, "n_tn"] == 0 and table.loc[0, "expected_fp"] == 0.0
    assert table[list(STANDARDIZED_COLUMNS[5:])].isna().all(axis=None)


def test_standardized_bootstrap_is_seeded_and_covers_the_estimate():
    y_true, y_pred, groups, strata = stratified_case()
    kwargs = {"group_names": NAMES, "n_resamples": 500}
    a = standardized_suppression_table(y_true, y_pred, groups, strata, seed=7, **kwargs)
    b = standardized_suppression_table(y_true, y_pred, groups, strata, seed=7, **kwargs)
    c = standardized_suppression_table(y_true, y_pred, groups, strata, seed=8, **kwargs)
    pd.testing.assert_frame_equal(a, b)
    assert a["standardized_ratio_low"].tolist() != c["standardized_ratio_low"].tolist()
    assert (a["standardized_ratio_low"] < a["standardized_ratio"]).all()
    assert (a["standardized_ratio"] < a["standardized_ratio_high"]).all()
    # women and men are flagged at their data sets' rates: their intervals hold 1 and
    # not the pooled ratio, which is their data sets' mix (women's high, men's low)
    pooled = suppression_table(y_true, y_pred, groups, group_names=NAMES, n_resamples=0)
    women, men = a.iloc[0], a.iloc[1]
    assert women.standardized_ratio_low < 1 < women.standardized_ratio_high < pooled.ratio[0]
    assert pooled.ratio[1] < men.standardized_ratio_low < 1 < men.standardized_ratio_high
    none = standardized_suppression_table(
        y_true, y_pred, groups, strata, group_names=NAMES, n_resamples=0
    )
    assert none["standardized_ratio_low"].isna().all()
    assert none["standardized_ratio_high"].isna().all()
    pd.testing.assert_frame_equal(
        none.drop(columns=["standardized_ratio_low", "standardized_ratio_high"]),
        a.drop(columns=["standardized_ratio_low", "standardized_ratio_high"]),
    )


def test_standardized_bootstrap_matches_naive_row_resampling():
    """The pattern-multinomial shortcut, with the data set in the pattern, resamples rows."""
    y_true, y_pred, groups, strata = stratified_case(n=800, seed=12)
    table = standardized_suppression_table(
        y_true, y_pred, groups, strata, group_names=NAMES, n_resamples=4000, seed=1
    )
    rng = np.random.default_rng(2)
    women = np.array(["women" in g for g in groups])
    neg = np.asarray(y_true) == 0
    flagged = np.asarray(y_pred) == 1
    sets = np.array(strata)
    ratios = []
    for _ in range(4000):
        i = rng.integers(0, len(y_true), len(y_true))
        n_, w_, p_, s_ = neg[i], women[i], flagged[i], sets[i]
        expected = 0.0
        for d in np.unique(s_):
            tn_d = (n_ & (s_ == d)).sum()
            if tn_d:
                expected += (n_ & w_ & (s_ == d)).sum() * (n_ & p_ & (s_ == d)).sum() / tn_d
        ratios.append((n_ & w_ & p_).sum() / expected)
    low, high = np.percentile(ratios, [2.5, 97.5])
    assert table.loc[0, "standardized_ratio_low"] == pytest.approx(low, abs=0.03)
    assert table.loc[0, "standardized_ratio_high"] == pytest.approx(high, abs=0.03)


@pytest.mark.parametrize(
    ("strata", "message"),
    [
        (
            "ab",
            re.escape("The 'strata' parameter must be a sequence of data-set names, not a str."),
        ),
        (["a"], r"same length\. Got y_true=2, y_pred=2, groups=2, strata=1\.$"),
        (
            ["a", 3],
            r"'strata' parameter must hold data-set names \(str\)\. Got int at position 1\.$",
        ),
        (["a", None], r"Got NoneType at position 1\.$"),
    ],
)
def test_standardized_table_bad_strata(strata, message):
    with pytest.raises(ConfigError, match=message):
        standardized_suppression_table(
            [0, 0], [1, 0], [{"women"}, set()], strata, group_names=["women"]
        )


def test_standardized_table_checks_the_shared_inputs():
    with pytest.raises(ConfigError, match=r"same length\. Got y_true=2, y_pred=2, groups=1"):
        standardized_suppression_table([0, 0], [1, 0], [set()], ["a", "a"])
    with pytest.raises(
        ConfigError,
        match=re.escape(
            PARAM_MESSAGE.format(
                name="n_resamples",
                owner="standardized_suppression_table",
                rule="an int >= 0",
                value=-1,
            )
        ),
    ):
        standardized_suppression_table([0, 0], [1, 0], [set(), set()], ["a", "a"], n_resamples=-1)


def test_metrics_public_surface():
    assert metrics.__all__ == sorted(metrics.__all__)
    assert "standardized_suppression_table" in metrics.__all__
    assert "STANDARDIZED_COLUMNS" in metrics.__all__
    for name in metrics.__all__:
        assert getattr(metrics, name) is not None


# --------------------------------------------------------------------------- scores


def test_max_category_score_from_mappings_and_analyses():
    rows = [
        {"hate": 0.2, "sexual": 0.7},
        Analysis(flagged=False, scores={"hate": 0.4}),
        {},
        Analysis(flagged=True),
    ]
    assert max_category_score(rows).tolist()[:2] == [0.7, 0.4]
    assert np.isnan(max_category_score(rows)[2:]).all()
    assert max_category_score(rows, categories=["hate"]).tolist()[:2] == [0.2, 0.4]
    assert np.isnan(max_category_score([{"sexual": 0.9}], categories=["hate"])[0])
    with pytest.raises(ConfigError, match="Got int at position 1"):
        max_category_score([{"a": 0.1}, 3])
    with pytest.raises(ConfigError, match="one mapping per text"):
        max_category_score({"a": 0.1})


def test_normalize_by_thresholds():
    out = normalize_by_thresholds(
        {"hate": 0.2, "sexual": 0.6}, {"hate": 0.4, "sexual": 0.5, "violence": 0.5}
    )
    assert out == {"hate": 0.5, "sexual": pytest.approx(1.2)}
    assert list(out) == ["hate", "sexual"]
    with pytest.raises(ConfigError, match="No threshold for the categories 'violence'"):
        normalize_by_thresholds({"violence": 0.9}, {"hate": 0.4})
    with pytest.raises(ConfigError, match=r"threshold of 'hate' must be a float > 0\. Got 0"):
        normalize_by_thresholds({"hate": 0.9}, {"hate": 0})
    # the paper's OpenAI bounds: a score at the threshold normalizes to 1
    assert normalize_by_thresholds(
        {"hate": OPENAI_FLAG_THRESHOLDS["hate"]}, OPENAI_FLAG_THRESHOLDS
    ) == {"hate": 1.0}


def test_openai_thresholds_are_the_papers_lower_bounds(data_dir):
    bounds = pd.read_csv(
        data_dir / "speech_suppression" / "reference_results" / "OpenAI_flagging_bounds.csv"
    )
    assert dict(zip(bounds["Categories"], bounds["lower_bound"])) == OPENAI_FLAG_THRESHOLDS


# Scores of twelve texts. True negatives are rows 0-8.
#   women TN: rows 0-3, scores 0.2 0.4 0.6 0.8  -> even count: median (0.4+0.6)/2 = 0.5
#   men TN:   rows 4-6, scores 0.3 0.3 0.9      -> a tie in the middle: median 0.3
#   rows 7-8: no group, scores 0.1 and NaN (no score: left out)
#   rows 9-11 violate: their scores (1.0, 1.0, 0.0) never count
#   all scored TN: 0.1 0.2 0.3 0.3 0.4 0.6 0.8 0.9 -> median (0.3+0.4)/2 = 0.35
S_TRUE = [0] * 9 + [1] * 3
S_SCORES = [0.2, 0.4, 0.6, 0.8, 0.3, 0.3, 0.9, 0.1, math.nan, 1.0, 1.0, 0.0]
S_GROUPS = [{"women"}] * 4 + [{"men"}] * 3 + [set(), {"men"}] + [{"women"}, {"lgbt"}, set()]


def test_score_suppression_table_hand_computed():
    table = score_suppression_table(S_TRUE, S_SCORES, S_GROUPS, group_names=NAMES, n_resamples=0)
    assert list(table.columns) == [
        "group",
        "n",
        "n_tn",
        "i_median",
        "median",
        "ratio",
        "ratio_low",
        "ratio_high",
    ]
    assert table["n"].tolist() == [5, 4, 1, 0]
    assert table["n_tn"].tolist() == [4, 3, 0, 0]  # men's unscored row 8 is left out
    women, men, lgbt, straight = (table.iloc[i] for i in range(4))
    assert women.i_median == pytest.approx(0.5) and men.i_median == pytest.approx(0.3)
    assert table["median"].tolist() == pytest.approx([0.35] * 4)
    assert women.ratio == pytest.approx(0.5 / 0.35) and men.ratio == pytest.approx(0.3 / 0.35)
    for row in (lgbt, straight):
        assert pd.isna(row.i_median) and pd.isna(row.ratio) and pd.isna(row.ratio_low)


def test_zero_overall_median_gives_no_ratio():
    table = score_suppression_table(
        [0, 0, 0], [0.0, 0.0, 0.5], [{"women"}, set(), set()], group_names=["women"]
    )
    assert table.loc[0, "median"] == 0.0 and table.loc[0, "i_median"] == 0.0
    assert pd.isna(table.iloc[0].ratio) and pd.isna(table.iloc[0].ratio_high)


def test_score_bootstrap_is_seeded_and_covers_the_estimate():
    rng = np.random.default_rng(5)
    n = 3000
    women = rng.random(n) < 0.3
    y_true = (rng.random(n) < 0.2).astype(int)
    scores = np.clip(rng.normal(np.where(women, 0.5, 0.3), 0.1), 0, 1)
    groups = [{"women"} if w else set() for w in women]
    a = score_suppression_table(
        y_true, scores, groups, group_names=["women"], n_resamples=300, seed=4
    )
    b = score_suppression_table(
        y_true, scores, groups, group_names=["women"], n_resamples=300, seed=4
    )
    c = score_suppression_table(
        y_true, scores, groups, group_names=["women"], n_resamples=300, seed=5
    )
    pd.testing.assert_frame_equal(a, b)
    assert a.loc[0, "ratio_low"] != c.loc[0, "ratio_low"]
    row = a.iloc[0]
    assert 1.3 < row.ratio_low < row.ratio < row.ratio_high < 2.0


def test_bootstrap_medians_equal_numpy_median_of_the_resample():
    from tactful.audit.metrics import _weighted_medians

    rng = np.random.default_rng(0)
    values = np.sort(rng.random(9))
    weights = rng.integers(0, 4, size=(200, 9)).astype(np.int32)
    weights[0] = 0
    got = _weighted_medians(values, weights)
    want = [np.median(np.repeat(values, w)) if w.sum() else np.nan for w in weights]
    np.testing.assert_allclose(got, want)


def test_score_table_bad_input():
    with pytest.raises(ConfigError, match="must not hold infinite values"):
        score_suppression_table([0], [math.inf], [set()])
    with pytest.raises(ConfigError, match=r"same length\. Got y_true=2, scores=1"):
        score_suppression_table([0, 0], [0.1], [set(), set()])


# --------------------------------------------------------------------------- worst group


def test_worst_group_flags_scores_ties_and_empty():
    table = suppression_table(Y_TRUE, Y_PRED, GROUPS_OF, group_names=NAMES, n_resamples=0)
    assert worst_group(table) == {
        "group": "women",
        "ratio": pytest.approx(4 / 3),
        "ratio_low": None,
        "ratio_high": None,
        "n_tn": 4,
        "n_fp": 2,
        "i_fpr": 0.5,
    }
    assert tuple(worst_group(table)) == WORST_FLAG_FIELDS
    assert worst_group(table, "i_fpr")["group"] == "women"
    tie = suppression_table(
        [0, 0, 0, 0],
        [1, 0, 1, 0],
        [{"men"}, {"men"}, {"women"}, {"women"}],
        group_names=["women", "men"],
        n_resamples=0,
    )
    assert worst_group(tie)["group"] == "women"  # equal ratios: first row wins
    scores = score_suppression_table(S_TRUE, S_SCORES, S_GROUPS, group_names=NAMES, n_resamples=0)
    assert worst_group(scores) == {
        "group": "women",
        "ratio": pytest.approx(0.5 / 0.35),
        "ratio_low": None,
        "ratio_high": None,
        "n_tn": 4,
        "i_median": 0.5,
    }
    assert tuple(worst_group(scores)) == WORST_SCORE_FIELDS
    empty = suppression_table([1], [1], [set()], group_names=["women"], n_resamples=0)
    assert worst_group(empty) is None  # no group has a ratio: there is no worst group
    with pytest.raises(ConfigError, match="no 'nope' column"):
        worst_group(table, "nope")


def test_worst_group_carries_the_interval():
    y_true = [0] * 40 + [1] * 10
    y_pred = [1, 0, 0, 0] * 10 + [1] * 10
    groups = [{"women"} if i % 2 else set() for i in range(50)]
    table = suppression_table(y_true, y_pred, groups, group_names=["women"], n_resamples=200)
    worst = worst_group(table)
    row = table.iloc[0]
    assert worst is not None
    assert (worst["ratio_low"], worst["ratio_high"]) == (row.ratio_low, row.ratio_high)
    assert isinstance(worst["n_tn"], int) and isinstance(worst["ratio_low"], float)


def test_public_surface():
    assert sorted(audit.__all__) == audit.__all__
    for name in (
        "fpr",
        "suppression_table",
        "score_suppression_table",
        "worst_group",
        "max_category_score",
        "normalize_by_thresholds",
        "regression_frame",
        "flag_regression",
        "score_regression",
    ):
        assert callable(getattr(audit, name))


# --------------------------------------------------------------------------- speed


def test_bootstrap_of_60k_rows():
    # Speed is measured by bench scripts, not asserted here: this checks that a table
    # of the audit's size has an interval for every group.
    rng = np.random.default_rng(0)
    n = 60_560
    y_true = (rng.random(n) < 0.1).astype(int)
    y_pred = (rng.random(n) < 0.2).astype(int)
    scores = rng.random(n)
    groups = [frozenset(g for g in GROUPS if rng.random() < 0.15) for _ in range(n)]
    flags = suppression_table(y_true, y_pred, groups, n_resamples=200)
    medians = score_suppression_table(y_true, scores, groups, n_resamples=200)
    assert flags["ratio_low"].notna().all() and medians["ratio_low"].notna().all()
    assert (flags["ratio_low"] <= flags["ratio_high"]).all()


# --------------------------------------------------------------------------- the paper's tables


PAPER_SETS = {
    # datasets_table_identity.csv row name -> (file, text column)
    "Jigsaw Bias (Dixon et al. 2018)": ("jigsaw_bias_with_identities.csv", "phrase"),
    "Stormfront (De Gibert et al. 2018)": ("stormfront_with_identities.csv", "Sentence"),
    "OpenAI (Markov et al. 2023)": ("openai_moderation_with_identities.csv", "prompt"),
}
PAPER_COLUMNS = {
    "Non-white": "non-white",
    "White": "white",
    "Men": "men",
    "Women": "women",
    "Christian": "christian",
    "Non-christian": "non-christian",
    "LGBT": "lgbt",
    "Straight": "straight",
    "Disability": "disability",
}


def _bold(name: str) -> str:
    return "\\textbf{" + name + "}"


@pytest.mark.parametrize("dataset", sorted(PAPER_SETS))
def test_group_counts_reproduce_the_papers_dataset_table(data_dir, dataset):
    ref_dir = data_dir / "speech_suppression" / "reference_results"
    identity_table = pd.read_csv(ref_dir / "datasets_table_identity.csv").set_index(
        _bold("Dataset")
    )
    totals = pd.read_csv(ref_dir / "datasets_table.csv").set_index(_bold("Dataset"))
    file, _ = PAPER_SETS[dataset]
    frame = pd.read_csv(data_dir / "speech_suppression" / file, keep_default_na=False)
    groups = [parse_paper_groups(v) for v in frame["Big_identity"]]
    zeros = np.zeros(len(frame), dtype=int)
    table = suppression_table(zeros, zeros, groups, n_resamples=0).set_index("group")
    assert len(frame) == totals.loc[dataset, _bold("Total (items)")]
    expected = identity_table.loc[dataset]
    for paper_name, group in PAPER_COLUMNS.items():
        assert table.loc[group, "n"] == expected[_bold(paper_name)], group
