"""tactful's ``builtin-large`` model: the files of ``tactful.load("builtin-large")``.

tactful finds this package through its ``tactful.models`` entry point
``builtin-large``, which names :func:`model_dir`.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["model_dir"]


def model_dir() -> Path:
    """The folder of the model files (``card.json``, ``model.onnx``, ``tokenizer.json``,
    ``trained_texts.bin``)."""
    return Path(__file__).resolve().parent / "model"
