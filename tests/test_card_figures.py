"""``tactful train card-figures``: figures read from the JSON of the commands that measured
them, each stored with its command, into a copy of a card."""

from __future__ import annotations

import json

import pytest

from tactful.errors import ConfigError
from tactful.train import _figures


@pytest.fixture
def card(tmp_path, monkeypatch):
    (tmp_path / "card.json").write_text(json.dumps({"name": "builtin", "figures": []}))
    monkeypatch.setattr(_figures, "default_model_dir", lambda model: tmp_path)
    return tmp_path / "card.json"


def _eval(tmp_path, dataset, **metrics):
    path = tmp_path / f"{dataset}.json"
    path.write_text(
        json.dumps({"dataset": dataset, "split": "test", "moderator": "builtin", **metrics})
    )
    return path


def test_harm_sets_and_their_categories_enter_the_card(card, tmp_path):
    requests = _eval(
        tmp_path,
        "harm_requests",
        n=296,
        recall=0.9527,
        categories={
            "self-harm": {"n": 296, "n_positive": 12, "roc_auc": 0.97, "f1": 0.81234},
            "sexual/minors": {"n": 296, "n_positive": 0, "roc_auc": None},
        },
    )
    benign = _eval(tmp_path, "harm_benign", n=184, flag_rate=0.0326)
    got = _figures.write_card_figures("builtin", evals=[requests, benign])
    cmd = "tactful eval harm_requests --split test --moderator builtin --json"
    assert got == [
        {"name": "harm_requests test recall (n=296)", "value": 0.9527, "command": cmd},
        {
            "name": "harm_requests test category self-harm (n=296, 12 in it) AUC",
            "value": 0.97,
            "command": cmd,
        },
        {
            "name": "harm_requests test category self-harm (n=296, 12 in it) F1 at the card's point",
            "value": 0.8123,
            "command": cmd,
        },
        {
            "name": "harm_benign test flag_rate (n=184)",
            "value": 0.0326,
            "command": "tactful eval harm_benign --split test --moderator builtin --json",
        },
    ]
    written = json.loads(card.read_text())
    assert written["figures"] == got
    # and the machine they were measured on: the int8 graph scores a little by the CPU
    assert written["figures_measured_on"] == _figures.measured_on()


def test_the_machine_is_named_with_its_8_bit_dot_product():
    import onnxruntime

    intel = "processor\t: 0\nmodel name\t: Intel Xeon Gold\nflags\t\t: sse avx2 avx512_vnni\n"
    assert _figures.measured_on(intel) == {
        "cpu": "Intel Xeon Gold",
        "int8_dot_product": ["avx512_vnni"],
        "onnxruntime": onnxruntime.__version__,
    }
    amd = "model name\t: AMD EPYC\nflags\t\t: sse avx avx2 fma\n"
    assert _figures.measured_on(amd)["int8_dot_product"] == []
    arm = "Features\t: fp asimd asimddp\n"
    assert _figures.measured_on(arm)["int8_dot_product"] == ["asimddp"]


def test_an_evaluation_of_another_model_is_refused(card, tmp_path):
    path = _eval(tmp_path, "harm_benign", n=184, flag_rate=0.1)
    path.write_text(path.read_text().replace('"builtin"', '"openai"'))
    with pytest.raises(ConfigError, match="not a builtin evaluation of toxicchat"):
        _figures.write_card_figures("builtin", evals=[path])
    assert json.loads(card.read_text())["figures"] == []
