"""Pure metrics of tactful.assist on small hand-computed cases, edge cases included."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tactful.assist import metrics as M
from tactful.errors import PARAM_MESSAGE, ConfigError

# ------------------------------------------------------------------------- triage


def test_triage_curve_hand_computed():
    # sorted scores 0.1 0.2 0.3 0.9, labels 0 0 1 0
    curve = M.triage_curve([0, 0, 1, 0], [0.9, 0.1, 0.3, 0.2])
    assert curve["threshold"].tolist()[:4] == [0.1, 0.2, 0.3, 0.9]
    assert curve["threshold"].iloc[-1] == np.nextafter(0.9, 1.0)
    assert curve["n_auto"].tolist() == [0, 1, 2, 3, 4]
    assert curve["n_missed"].tolist() == [0, 0, 0, 1, 1]
    assert curve["share_auto"].tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert curve["toxic_rate"].tolist() == [0.0, 0.0, 0.0, 1 / 3, 1 / 4]


@pytest.mark.parametrize(
    ("safe_rate", "n_auto", "threshold"),
    [
        (0.0, 2, 0.3),  # the toxic row at 0.3 must stay with people
        (0.25, 4, float(np.nextafter(0.9, 1.0))),  # 1 toxic in 4 = 0.25 is within 0.25
        (0.3, 4, float(np.nextafter(0.9, 1.0))),
    ],
)
def test_triage_threshold_takes_the_largest_safe_share(safe_rate, n_auto, threshold):
    p = M.triage_threshold([0, 0, 1, 0], [0.1, 0.2, 0.3, 0.9], safe_rate=safe_rate)
    assert (p.n_auto, p.threshold, p.n, p.n_toxic) == (n_auto, threshold, 4, 1)
    assert p.share_auto == n_auto / 4


def test_triage_threshold_never_splits_tied_scores():
    # At 0.5 a toxic and a non-toxic row tie: either both go auto or neither.
    p = M.triage_threshold([0, 1, 0], [0.5, 0.5, 0.1], safe_rate=0.3)
    assert (p.threshold, p.n_auto, p.n_missed) == (0.5, 1, 0)
    p = M.triage_threshold([0, 1, 0], [0.5, 0.5, 0.1], safe_rate=0.34)
    assert (p.n_auto, p.n_missed, p.toxic_rate) == (3, 1, 1 / 3)
    assert p.miss_rate == 1.0


def test_triage_one_class_edge_cases():
    clean = M.triage_threshold([0, 0, 0], [0.2, 0.4, 0.4], safe_rate=0.0)
    assert (clean.n_auto, clean.share_auto, clean.toxic_rate, clean.miss_rate) == (3, 1.0, 0.0, 0.0)
    toxic = M.triage_threshold([1, 1], [0.2, 0.4], safe_rate=0.01)
    assert (toxic.threshold, toxic.n_auto, toxic.toxic_rate, toxic.miss_rate) == (0.2, 0, 0.0, 0.0)
    everything = M.triage_threshold([1, 1], [0.2, 0.4], safe_rate=1.0)
    assert (everything.n_auto, everything.miss_rate) == (2, 1.0)
    one = M.triage_threshold([0], [0.7])
    assert (one.n_auto, one.threshold > 0.7) == (1, True)


@pytest.mark.parametrize("fn", ["triage_curve", "triage_threshold"])
def test_triage_empty_input_is_one_clear_error(fn):
    with pytest.raises(ConfigError) as err:
        getattr(M, fn)([], [])
    assert str(err.value) == "[T010] " + M.EMPTY_MESSAGE.format(what=fn)


def test_triage_at_and_to_dict():
    p = M.triage_at([0, 1, 0, 1], [0.1, 0.2, 0.8, 0.9], 0.5)
    assert p.to_dict() == {
        "threshold": 0.5,
        "n": 4,
        "n_toxic": 2,
        "n_auto": 2,
        "n_missed": 1,
        "share_auto": 0.5,
        "toxic_rate": 0.5,
        "miss_rate": 0.5,
    }
    with pytest.raises(ConfigError, match="triage_at needs at least one row"):
        M.triage_at([], [], 0.5)


def test_triage_bad_parameters():
    with pytest.raises(ConfigError) as err:
        M.triage_threshold([0, 1], [0.1, 0.2], safe_rate=1.5)
    assert str(err.value) == "[T010] " + PARAM_MESSAGE.format(
        name="safe_rate", owner="triage_threshold", rule="a float in [0, 1]", value=1.5
    )
    with pytest.raises(ConfigError, match="same length"):
        M.triage_curve([0, 1], [0.1])
    with pytest.raises(ConfigError, match="only 0/1"):
        M.triage_curve([0, 2], [0.1, 0.2])
    with pytest.raises(ConfigError, match="finite"):
        M.triage_curve([0, 1], [0.1, math.nan])


# ------------------------------------------------------------------ toxic to civil


def test_detox_accuracy_hand_computed():
    # pair:          0      1      2      3
    # rewrite toxic  no     yes    no     no
    # source spans   yes    yes    yes    no
    # spans changed  yes    yes    no     (n/a)
    d = M.detox_accuracy([0, 1, 0, 0], [1, 1, 1, 0], [1, 1, 0, 1])
    assert (d.n, d.n_with_spans) == (4, 3)
    assert d.acc == 3 / 4
    assert d.acc2 == 2 / 3
    assert d.acc3 == 2 / 3
    assert d.acc4 == 1 / 3  # only pair 0 is changed and non-toxic
    assert d.to_dict()["acc4"] == 1 / 3


def test_detox_accuracy_edge_cases():
    empty = M.detox_accuracy([], [], [])
    assert (empty.n, empty.acc, empty.acc2, empty.acc3, empty.acc4) == (0, None, None, None, None)
    no_spans = M.detox_accuracy([0, 1], [0, 0], [0, 0])
    assert (no_spans.acc, no_spans.acc2, no_spans.acc3, no_spans.acc4) == (0.5, None, None, None)
    all_toxic = M.detox_accuracy([1, 1], [1, 1], [1, 1])
    assert (all_toxic.acc, all_toxic.acc2, all_toxic.acc3, all_toxic.acc4) == (0.0, 0.0, 1.0, 0.0)
    with pytest.raises(ConfigError, match="same length"):
        M.detox_accuracy([0], [0, 1], [0, 1])


@pytest.mark.parametrize(
    ("span", "rewrite", "kept"),
    [
        ("idiot", "you are an idiot.", True),
        ("IDIOT", "you are an Idiot", True),  # case is not a change
        ("stupid  idiot", "a stupid\nidiot", True),  # nor are whitespace runs
        ("idiot", "you are an idiots", False),  # changed, even if only partly
        ("ass", "first class", False),  # a whole piece of text, not inside a word
        ("ass", "what an ass!", True),
        ("f**k", "f**k off", True),  # punctuation inside the span is matched literally
        ("  ", "anything", False),  # a blank span has nothing to keep
        ("idiot", "", False),
    ],
)
def test_span_kept(span, rewrite, kept):
    assert M.span_kept(span, rewrite) is kept


def test_all_spans_changed():
    src = "you idiot, shut up"
    assert M.all_spans_changed(src, [(4, 9), (11, 18)], "you fool, be quiet") is True
    assert M.all_spans_changed(src, [(4, 9), (11, 18)], "you fool, shut up") is False
    assert M.all_spans_changed(src, [], "anything") is True
    with pytest.raises(ConfigError, match="len\\(source\\) = 18"):
        M.all_spans_changed(src, [(4, 40)], "x")


def test_cosine_similarity():
    sims = M.cosine_similarity([[1, 0], [1, 1], [3, 4]], [[2, 0], [-1, -1], [4, 3]])
    assert sims.tolist() == pytest.approx([1.0, -1.0, 24 / 25])
    assert M.cosine_similarity(np.zeros((0, 3)), np.zeros((0, 3))).shape == (0,)
    with pytest.raises(ConfigError, match="zero vector"):
        M.cosine_similarity([[0, 0]], [[1, 0]])
    with pytest.raises(ConfigError, match="same shape"):
        M.cosine_similarity([[1, 0]], [[1, 0, 0]])


# --------------------------------------------------------------------- bias probes


def test_flip_rate():
    assert M.flip_rate([1, 0, 0, 1], [1, 1, 0, 0]) == 0.5
    assert M.flip_rate([True], [True]) == 0.0
    assert M.flip_rate([], []) is None


# Rows: 0 g- 0.5 | 1 g+ 0.9 | 2 b- 0.1 | 3 b+ 0.4   (g = in group, b = background)
Y, S, G = [0, 1, 0, 1], [0.5, 0.9, 0.1, 0.4], [1, 1, 0, 0]


def test_bias_aucs_hand_computed():
    assert M.subgroup_auc(Y, S, G) == 1.0  # 0.9 > 0.5
    assert M.bpsn_auc(Y, S, G) == 0.0  # subgroup negative 0.5 above background positive 0.4
    assert M.bnsp_auc(Y, S, G) == 1.0  # subgroup positive 0.9 above background negative 0.1
    # Two negatives in the group against one background positive: one pair each way.
    assert M.bpsn_auc([0, 0, 1], [0.2, 0.6, 0.4], [1, 1, 0]) == 0.5
    # Ties count one half.
    assert M.subgroup_auc([0, 1], [0.3, 0.3], [1, 1]) == 0.5


def test_bias_aucs_one_class_is_none():
    assert M.subgroup_auc([0, 0, 1], [0.1, 0.2, 0.9], [1, 1, 0]) is None
    assert M.bpsn_auc([1, 1, 0], [0.1, 0.2, 0.9], [1, 1, 0]) is None  # no subgroup negative
    assert M.bnsp_auc([0, 0, 1], [0.1, 0.2, 0.9], [1, 1, 0]) is None  # no subgroup positive
    assert M.subgroup_auc([], [], []) is None


def test_bias_auc_table():
    y_pred = [1, 1, 0, 1]
    table = M.bias_auc_table(Y, S, y_pred, [["a"], ["a", "b"], [], []], ["a", "b", "c"])
    assert list(table.index) == ["a", "b", "c"]
    assert list(table.columns) == [
        "n",
        "n_positive",
        "subgroup_auc",
        "bpsn_auc",
        "bnsp_auc",
        "fpr",
        "fpr_ratio",
    ]
    a = table.loc["a"]
    assert (a["n"], a["n_positive"]) == (2, 1)
    assert (a["subgroup_auc"], a["bpsn_auc"], a["bnsp_auc"]) == (1.0, 0.0, 1.0)
    # overall FPR: negatives rows 0 and 2, row 0 flagged -> 1/2; group a: 1/1 -> ratio 2
    assert table.attrs["fpr"] == 0.5
    assert (a["fpr"], a["fpr_ratio"]) == (1.0, 2.0)
    # b holds one toxic row only: no AUC, no FPR; c has no row at all.
    assert table.loc["b", "n"] == 1
    assert table.loc["b", ["subgroup_auc", "bpsn_auc", "fpr", "fpr_ratio"]].isna().all()
    assert table.loc["b", "bnsp_auc"] == 1.0
    assert table.loc["c", "n"] == 0
    assert table.loc["c", ["subgroup_auc", "bpsn_auc", "bnsp_auc", "fpr"]].isna().all()
    assert str(table["bpsn_auc"].dtype) == "Float64"


def test_bias_auc_table_overall_fpr_zero_gives_no_ratio():
    table = M.bias_auc_table([0, 1], [0.1, 0.9], [0, 1], [["a"], []])
    assert table.attrs["fpr"] == 0.0
    assert table.loc["a", "fpr"] == 0.0
    assert pd.isna(table.loc["a", "fpr_ratio"])
    assert list(M.bias_auc_table([0], [0.1], [0], [[]]).index) == []


def test_generalized_mean():
    assert M.generalized_mean([0.5, 1.0, None], power=-1) == pytest.approx(2 / 3)
    assert M.generalized_mean([0.8, 0.8]) == pytest.approx(0.8)
    assert M.generalized_mean([None]) is None
    assert M.generalized_mean([0.0, 0.5]) is None
    with pytest.raises(ConfigError, match="non-zero float"):
        M.generalized_mean([0.5], power=0)
