"""A shipped model folder as the distillation teacher (no torch, no training run)."""

from __future__ import annotations

import numpy as np
import pytest

from tactful._heads import SEQ_HEADS
from tactful.errors import ConfigError
from tactful.moderators.builtin import BuiltinModerator, default_model_dir
from tactful.taxonomy import CATEGORIES, EXTRA_CATEGORIES
from tactful.train import distill, is_model_folder, teacher_logits


def _logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(p.astype(np.float64), 1e-6, 1 - 1e-6)
    return np.log(q / (1 - q))


def test_a_model_folder_is_a_teacher(tmp_path):
    folder = default_model_dir("builtin")
    assert is_model_folder(folder)
    assert not is_model_folder(tmp_path)
    texts = ["you are an 1d1ot", "have a nice day", "  hi"]
    seq, chars = teacher_logits(folder, texts, tmp_path / "cache")
    mod = BuiltinModerator(model_dir=str(folder))
    # one column per head the card lists: the eight, the 13 harm categories, tactful's own
    assert mod.heads == (*SEQ_HEADS, *CATEGORIES, *EXTRA_CATEGORIES)
    assert seq.shape == (3, len(mod.heads)) and seq.dtype == np.float32
    assert [len(c) for c in chars] == [len(t) for t in texts]

    probs, tox, _typ, _norms, _offsets = mod.predict_arrays(texts)
    assert np.allclose(seq, _logit(probs), atol=1e-4)
    # "1d1ot" (offsets 11-16 of the original text) is read as "idiot" by the
    # normalizer: one token, whose log-odds cover the five original characters
    word = chars[0][11:16]
    assert np.isfinite(word).all() and len(set(word.tolist())) == 1
    assert word[0] == pytest.approx(float(_logit(tox[0]).max()), abs=1e-2)  # float16 cache
    # spaces belong to no token: no target
    assert np.isnan(chars[0][3]) and np.isnan(chars[2][:2]).all()
    assert np.isfinite(chars[2][2:]).all()
    assert (tmp_path / "cache" / "part-0000.npz").is_file()


def test_distill_names_what_a_teacher_must_be(tmp_path):
    with pytest.raises(ConfigError, match="holds neither a model.pt nor a model folder"):
        distill(tmp_path, tmp_path / "student")


def test_the_student_records_which_teacher_it_had(tmp_path):
    """A student's card must name its teacher after the teacher's folder changes
    (builtin-large moved on from 2.0.0): name, version and the graph's sha256."""
    import hashlib
    import json
    import shutil

    from tactful.train import teacher_identity

    folder = tmp_path / "large"
    shutil.copytree(default_model_dir("builtin"), folder)
    card = json.loads((folder / "card.json").read_text())
    digest = hashlib.sha256((folder / "model.onnx").read_bytes()).hexdigest()
    assert teacher_identity(folder) == {
        "path": str(folder),
        "name": "builtin",
        "version": card["version"],
        "model.onnx sha256": digest,
    }
    run = tmp_path / "run"
    run.mkdir()
    (run / "model.pt").write_bytes(b"weights")
    assert teacher_identity(run) == {
        "path": str(run),
        "model.pt sha256": hashlib.sha256(b"weights").hexdigest(),
    }
