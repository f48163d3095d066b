"""One teacher-forced training step — the same for the training CLI, the benchmark and the tests."""
from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn

from .tokenization import PAD_ID

Batch = tuple[Tensor, Tensor, Tensor, Tensor]  # src [B, S], src_mask [B, S], tgt_in [B, T], tgt_out [B, T]


def loss_function(label_smoothing: float = 0.0) -> nn.CrossEntropyLoss:
    """Cross-entropy over target pieces, padding ignored."""
    return nn.CrossEntropyLoss(ignore_index=PAD_ID, label_smoothing=label_smoothing)


def train_step(
    model: nn.Module,
    batch: Batch,
    optimizer: torch.optim.Optimizer,
    loss_fn: nn.Module,
    forward: Callable[[Tensor, Tensor, Tensor], Tensor] | None = None,
    max_grad_norm: float = 1.0,
) -> float:
    """Forward, loss, backward, clipped update; returns the batch loss.

    ``forward(src, mask, tgt_in) -> logits [B, T, V]`` defaults to the model's own
    (the benchmark passes a step-by-step reference instead).
    """
    src, mask, tgt_in, tgt_out = batch
    logits = (forward or model)(src, mask, tgt_in)  # [B, T, V]
    loss = loss_fn(logits.flatten(0, 1), tgt_out.flatten())  # over B·T pieces
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()
