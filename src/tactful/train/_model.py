"""The multi-task network: one pretrained encoder, a sequence head and a token head."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import torch
from torch import nn

from .._heads import SEQ_HEADS, SPAN_TYPES, check_heads
from ._encoders import encoder_dir

__all__ = ["ExportWrapper", "MultiTaskModel"]


class MultiTaskModel(nn.Module):
    """Encoder + mean pooling + two linear heads.

    ``encoder`` names the pretrained encoder (:data:`~tactful.train.ENCODERS`);
    ``encoder_path`` overrides its folder; ``layers`` keeps only the encoder's
    first layers (a shallower, faster student; ``None``: all of them). The heads'
    width is the encoder's ``hidden_size`` (384 for MiniLM, 768 for mpnet).
    ``heads`` names the sequence outputs: :data:`SEQ_HEADS`, then any harm categories
    (:data:`~tactful._heads.CATEGORY_HEADS` for all 13).

    ``forward`` returns logits: ``seq`` of shape (batch, len(heads)) and
    ``tok`` of shape (batch, tokens, 1 + len(SPAN_TYPES)) where column 0 is
    "this token is toxic" and the rest are the span type.
    """

    def __init__(
        self,
        encoder: str = "minilm",
        *,
        encoder_path: str | Path | None = None,
        dropout: float = 0.1,
        layers: int | None = None,
        heads: Sequence[str] = SEQ_HEADS,
    ) -> None:
        super().__init__()
        self.heads = check_heads(heads)
        from transformers import AutoConfig, AutoModel

        path = str(encoder_path or encoder_dir(encoder))
        self.encoder_name = encoder
        self.encoder_path = Path(path)
        config = AutoConfig.from_pretrained(path)
        if layers is not None:
            if not 1 <= layers <= config.num_hidden_layers:
                raise ValueError(f"layers must be in [1, {config.num_hidden_layers}], not {layers}")
            config.num_hidden_layers = layers
        self.layers = config.num_hidden_layers
        self.encoder = AutoModel.from_pretrained(path, config=config, add_pooling_layer=False)
        hidden = self.encoder.config.hidden_size
        self.dropout = nn.Dropout(dropout)
        self.seq_head = nn.Linear(hidden, len(self.heads))
        self.tok_head = nn.Linear(hidden, 1 + len(SPAN_TYPES))

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        m = attention_mask.unsqueeze(-1).to(h.dtype)
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        return self.seq_head(self.dropout(pooled)), self.tok_head(self.dropout(h))


class ExportWrapper(nn.Module):
    """What is exported to ONNX: probabilities, not logits."""

    def __init__(self, model: MultiTaskModel) -> None:
        super().__init__()
        self.model = model

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        seq, tok = self.model(input_ids, attention_mask)
        return torch.sigmoid(seq), torch.sigmoid(tok[..., 0]), torch.softmax(tok[..., 1:], dim=-1)
