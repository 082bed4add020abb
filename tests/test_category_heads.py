"""A model with harm-category heads: the runtime reads its heads from the card, reports
each category, flags a text any category flags, and /v1/moderations answers each OpenAI
category with the model's own head. The model is a tiny random ONNX graph built here."""

from __future__ import annotations

import json
import shutil

import pytest

from tactful._heads import SEQ_HEADS
from tactful.errors import ModelError
from tactful.moderators.builtin import BuiltinModerator, default_model_dir
from tactful.taxonomy import CATEGORIES

pytest.importorskip("onnx", reason="onnx is in the dev and train extras")

from test_export_invariance import _tiny_model

HEADS = (*SEQ_HEADS, *CATEGORIES)


def _folder(tmp_path, heads, n_outputs, thresholds):
    from tokenizers import Tokenizer

    src = default_model_dir()
    folder = tmp_path / "m"
    folder.mkdir(exist_ok=True)
    shutil.copy(src / "tokenizer.json", folder / "tokenizer.json")
    vocab = Tokenizer.from_file(str(src / "tokenizer.json")).get_vocab_size()
    _tiny_model(folder / "model.onnx", vocab, n_outputs)
    card = {"name": "tiny", "version": "0", "heads": list(heads), "thresholds": thresholds}
    (folder / "card.json").write_text(json.dumps(card))
    return folder


def test_category_heads_are_scored_and_flag_the_text(tmp_path):
    # Every head at 1.0 (never) but self-harm at 0.0 (always): only the category flags.
    points = dict.fromkeys(HEADS, 1.0) | {"self-harm": 0.0, "span": 1.0}
    mod = BuiltinModerator(model_dir=str(_folder(tmp_path, HEADS, len(HEADS), points)))
    assert mod.heads == HEADS
    got, blank = mod.analyze(["I feel so alone tonight", ""])
    assert set(got.scores) == {*HEADS} - {"jailbreak", "delicate"}
    assert got.flags["self-harm"] is True and got.flags["sexual"] is False
    assert got.flagged is True and got.flags["toxicity"] is True
    assert blank.flagged is False and blank.scores["violence/graphic"] == 0.0

    from tactful.service._schemas import moderation_result

    result = moderation_result(got)
    for cat in CATEGORIES:  # its own head, not the insult/threat/identity-attack stand-ins
        assert result["category_scores"][cat] == got.scores[cat]
        assert result["categories"][cat] is got.flags[cat]
        assert result["category_applied_input_types"][cat] == ["text"]
    assert result["category_scores"]["harassment"] != got.scores["insult"]


def test_the_card_and_the_model_must_agree_on_the_heads(tmp_path):
    points = dict.fromkeys(HEADS, 0.5)
    wrong_count = BuiltinModerator(
        model_dir=str(_folder(tmp_path, (*SEQ_HEADS, "self-harm"), len(HEADS), points))
    )
    with pytest.raises(ModelError, match=r"gives 21 sequence scores; its card lists 9 heads\.$"):
        wrong_count.analyze(["hello"])
    unknown = BuiltinModerator(
        model_dir=str(_folder(tmp_path, (*SEQ_HEADS, "gore"), len(SEQ_HEADS) + 1, points))
    )
    with pytest.raises(ModelError, match=r"lists heads .*, gore: a model's heads are toxicity"):
        unknown.analyze(["hello"])


def test_a_model_without_category_heads_keeps_the_three_stand_ins(tmp_path):
    from tactful.service._schemas import moderation_result

    points = dict.fromkeys(SEQ_HEADS, 0.5)
    mod = BuiltinModerator(model_dir=str(_folder(tmp_path, SEQ_HEADS, len(SEQ_HEADS), points)))
    assert mod.heads == SEQ_HEADS
    (got,) = mod.analyze(["I will kill you"])
    assert not set(CATEGORIES) & set(got.scores)
    result = moderation_result(got)
    assert result["category_scores"]["harassment/threatening"] == got.scores["threat"]
    assert "self-harm" not in result["category_scores"]
