"""Regressions of moderation errors (the paper's Tables 15-16) on synthetic data with known effects."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tactful.audit.regression import (
    GROUP_COLUMNS,
    REGRESSION_COLUMNS,
    flag_regression,
    regression_frame,
    score_regression,
)
from tactful.errors import ConfigError, UnknownNameError
from tactful.identity import GROUPS

RESULT_COLUMNS = ["coef", "std_err", "z", "p_value", "ci_low", "ci_high"]


def test_regression_frame_columns_and_values():
    frame = regression_frame(
        ["gay dads  here", "Hi", ""],
        [0, 1, 0],
        [{"lgbt", "men"}, {"non-white", "lgbt-related"}, set()],
        has_slur=[True, False, False],
        genai=True,
    )
    assert list(frame.columns) == list(REGRESSION_COLUMNS)
    assert GROUP_COLUMNS == (
        "men",
        "women",
        "white",
        "non_white",
        "christian",
        "non_christian",
        "lgbt",
        "straight",
        "disability",
    )
    assert frame.to_dict("records")[0] == {
        **dict.fromkeys(GROUP_COLUMNS, 0),
        "men": 1,
        "lgbt": 1,
        "has_slur": 1,
        "genai": 1,
        "word_length": 3,
    }
    assert frame.loc[1, ["non_white", "lgbt", "word_length"]].tolist() == [1, 1, 1]
    assert frame.loc[2].tolist() == [0] * 10 + [1, 0]
    assert (frame.dtypes == np.int64).all()


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"y_true": [0]},
            ConfigError,
            "'y_true' parameter must have 2 values, one per text. Got 1",
        ),
        ({"groups": [set()]}, ConfigError, "'groups' parameter must have 2 entries"),
        ({"groups": ["men", "women"]}, ConfigError, "got the str 'men'"),
        ({"groups": [{"martians"}, set()]}, UnknownNameError, "Unknown identity group 'martians'"),
        (
            {"has_slur": [1, 2]},
            ConfigError,
            "'has_slur' parameter must hold only 0/1 or booleans. Got 2",
        ),
        ({"genai": [True]}, ConfigError, "'genai' parameter must have 2 values"),
        ({"texts": "ab"}, ConfigError, "not a single str"),
    ],
)
def test_regression_frame_bad_input(kwargs, error, message):
    args = {
        "texts": ["a", "b"],
        "y_true": [0, 1],
        "groups": [set(), set()],
        "has_slur": False,
        "genai": False,
    }
    args |= kwargs
    with pytest.raises(error, match=message):
        regression_frame(args.pop("texts"), args.pop("y_true"), args.pop("groups"), **args)


def synthetic(n=4000, seed=0):
    """Acceptable texts about women are flagged 40% of the time (others 10%), and
    their scores are 0.2 higher; a slur adds 0.1 to the score. Other terms: no effect."""
    rng = np.random.default_rng(seed)
    groups = [frozenset(g for g in GROUPS if rng.random() < 0.2) for _ in range(n)]
    women = np.array(["women" in g for g in groups])
    slur = rng.random(n) < 0.1
    texts = [" ".join(["w"] * int(rng.integers(1, 40))) for _ in range(n)]
    y_true = (rng.random(n) < 0.3).astype(int)
    flagged_tn = rng.random(n) < np.where(women, 0.4, 0.1)
    y_pred = np.where(y_true == 1, rng.random(n) < 0.8, flagged_tn).astype(int)
    scores = np.clip(rng.normal(0.2 + 0.2 * women + 0.1 * slur, 0.1), 0, 1)
    frame = regression_frame(texts, y_true, groups, has_slur=slur, genai=rng.random(n) < 0.5)
    return frame, y_true, y_pred, scores


def test_flag_regression_recovers_the_sign_of_a_known_effect():
    frame, y_true, y_pred, _ = synthetic()
    table = flag_regression(frame, y_true, y_pred)
    assert list(table.columns) == RESULT_COLUMNS
    assert table.index.name == "term"
    assert table.index.tolist() == ["const", *REGRESSION_COLUMNS]
    assert table.attrs == {"method": "logit", "dropped": {}, "n": 4000}
    women = table.loc["women"]
    # wrongly flagged more often -> the flag matches the ground truth less often
    assert women.coef < -1.0 and women.p_value < 1e-6 and women.ci_high < 0
    assert women.ci_low < women.coef < women.ci_high
    assert women.z == pytest.approx(women.coef / women.std_err)
    # terms without an effect are not significant at 0.1 %
    assert (table.drop(index=["const", "women"])["p_value"] > 0.001).all()


def test_score_regression_recovers_known_effects_on_true_negatives_only():
    frame, y_true, _, scores = synthetic()
    table = score_regression(frame, y_true, scores)
    assert list(table.columns) == ["coef", "std_err", "stat", "p_value", "ci_low", "ci_high"]
    assert table.attrs == {"method": "ols", "dropped": {}, "n": int((y_true == 0).sum())}
    assert table.loc["women", "coef"] == pytest.approx(0.2, abs=0.02)
    assert table.loc["has_slur", "coef"] == pytest.approx(0.1, abs=0.02)
    assert table.loc["women", "ci_low"] > 0 and table.loc["women", "p_value"] < 1e-6
    # violating texts do not enter the fit
    changed = np.where(y_true == 1, 1.0 - scores, scores)
    pd.testing.assert_frame_equal(score_regression(frame, y_true, changed), table)


def test_score_regression_leaves_out_unscored_rows():
    frame, y_true, _, scores = synthetic(n=600, seed=1)
    gappy = scores.copy()
    gappy[:50] = np.nan
    table = score_regression(frame, y_true, gappy)
    assert table.attrs["n"] == int(((y_true == 0) & ~np.isnan(gappy)).sum())
    expected = score_regression(frame.iloc[50:], y_true[50:], scores[50:])
    pd.testing.assert_frame_equal(table, expected)


def test_constant_and_collinear_columns_are_dropped_and_reported():
    frame, y_true, y_pred, scores = synthetic(n=1500, seed=2)
    frame["genai"] = 0  # one data set: no genai contrast
    frame["straight"] = frame["men"]  # a column that repeats an earlier one
    flags = flag_regression(frame, y_true, y_pred)
    assert flags.attrs["dropped"] == {
        "straight": "a linear combination of earlier columns",
        "genai": "constant on the rows used",
    }
    assert "genai" not in flags.index and "straight" not in flags.index and "men" in flags.index
    assert flags.attrs["method"] == "logit"
    ols = score_regression(frame, y_true, scores)
    assert ols.attrs["dropped"] == flags.attrs["dropped"]


def test_separation_falls_back_to_firth_which_matches_the_2x2_closed_form():
    # x = 1 rows are always moderated correctly: the ML estimate of x runs to infinity.
    # Firth's estimate for a 2x2 table adds 1/2 to each cell (Heinze & Schemper 2002).
    a, b, c, d = 7, 0, 5, 3  # x=1: a right, b wrong; x=0: c right, d wrong
    frame = pd.DataFrame({"x": [1] * (a + b) + [0] * (c + d)})
    outcome = [1] * a + [0] * b + [1] * c + [0] * d
    table = flag_regression(frame, [1] * len(outcome), outcome)  # flag == truth where outcome is 1
    assert table.attrs["method"] == "firth-logit"
    assert table.loc["const", "coef"] == pytest.approx(math.log((c + 0.5) / (d + 0.5)), abs=1e-6)
    expected_x = math.log((a + 0.5) / (b + 0.5)) - math.log((c + 0.5) / (d + 0.5))
    assert table.loc["x", "coef"] == pytest.approx(expected_x, abs=1e-6)
    assert table[RESULT_COLUMNS].notna().all(axis=None)


def test_every_flag_right_is_not_an_error():
    # intercept only, all 10 right: Firth gives logit(10.5 / 11) = log(21)
    table = flag_regression(pd.DataFrame({"x": [0] * 10}), [1] * 10, [1] * 10)
    assert table.index.tolist() == ["const"]
    assert table.attrs["dropped"] == {"x": "constant on the rows used"}
    assert table.loc["const", "coef"] == pytest.approx(math.log(21), abs=1e-6)


def test_a_sparse_group_predicted_perfectly_keeps_the_others_estimable():
    frame, y_true, y_pred, _ = synthetic(n=3000, seed=4)
    frame["straight"] = 0
    frame.loc[0, "straight"] = 1
    y_pred = y_pred.copy()
    y_pred[0] = y_true[0]  # the only straight text is moderated correctly
    table = flag_regression(frame, y_true, y_pred)
    assert table.attrs["method"] == "firth-logit"
    assert table.loc["women", "coef"] < -1.0 and table.loc["women", "ci_high"] < 0
    assert (
        table.loc["straight", "ci_low"] < 0 < table.loc["straight", "ci_high"]
    )  # one text: uninformative


@pytest.mark.parametrize(
    ("frame", "y_true", "message"),
    [
        (pd.DataFrame({"x": [0.0, np.nan]}), [0, 1], "must not hold NaN or infinite values"),
        (pd.DataFrame({"x": ["a", "b"]}), [0, 1], "must hold only numeric columns"),
        (pd.DataFrame({"x": [0, 1, 1]}), [0, 1], "has 3 rows but the outcome has 2 values"),
        (pd.DataFrame({"const": [1, 1]}), [0, 1], "must not have a 'const' column"),
        ([[0], [1]], [0, 1], "must be a pandas.DataFrame"),
    ],
)
def test_flag_regression_bad_input(frame, y_true, message):
    with pytest.raises(ConfigError, match=message):
        flag_regression(frame, y_true, [0, 1])


def test_score_regression_needs_more_rows_than_terms():
    frame = pd.DataFrame({"x": [0, 1, 0, 1], "z": [1, 0, 0, 1]})
    with pytest.raises(ConfigError, match="3 scored true negatives for 3 terms"):
        score_regression(frame, [0, 0, 0, 1], [0.1, 0.2, 0.3, 0.4])


PAPER_WORD_LENGTHS = {
    # datasets_table.csv "Avg Word Length" (len(text.split()) averaged over the set)
    "Jigsaw Bias (Dixon et al. 2018)": ("jigsaw_bias_with_identities.csv", "phrase"),
    "Stormfront (De Gibert et al. 2018)": ("stormfront_with_identities.csv", "Sentence"),
    "OpenAI (Markov et al. 2023)": ("openai_moderation_with_identities.csv", "prompt"),
}


@pytest.mark.parametrize("dataset", sorted(PAPER_WORD_LENGTHS))
def test_word_length_reproduces_the_papers_averages(data_dir, dataset):
    bold = "\\textbf{{{}}}".format
    table = pd.read_csv(
        data_dir / "speech_suppression" / "reference_results" / "datasets_table.csv"
    )
    expected = table.set_index(bold("Dataset")).loc[dataset, bold("Avg Word Length")]
    file, column = PAPER_WORD_LENGTHS[dataset]
    data = pd.read_csv(data_dir / "speech_suppression" / file, keep_default_na=False)
    texts = data[column].astype(str).tolist()
    frame = regression_frame(
        texts, [0] * len(texts), [set()] * len(texts), has_slur=False, genai=False
    )
    assert round(frame["word_length"].mean(), 2) == expected
