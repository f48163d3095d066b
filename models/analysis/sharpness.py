"""How peaked a model's attention is over many sentences: a symptom of scores that grew without bound.

A softmax over energies whose spread (largest minus smallest, per row) is tens of nats puts nearly all its weight
on one source piece: the context is a hard selection, and the softmax's Jacobian, ``diag(α) − ααᵀ``, is nearly
zero, so the score gets almost no gradient back (the "attention entropy collapse" of Zhai et al. 2023, and the
logit growth of Dehghani et al. 2023). A bilinear score, ``(W_q q)·(W_k k)/√A``, grows with the product of its two
projections' norms, which Adam lengthens step after step at a high rate; the additive score saturates in its
inputs (each term ``v_k · tanh(u_k)`` stays within ±|v_k|), so only ``v`` can widen it. Measured on validation
sentences by ``python -m bench sharpness --model NAME``, and over training by the Learning page (the
entropy at each point of the training record, :func:`models.views.learning.learning_curve`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .compare import entropy


@dataclass(frozen=True)
class Sharpness:
    """Means over every attention row (one written piece of one sentence)."""

    rows: int
    max_weight: float  # the largest weight of a row
    entropy_bits: float  # the row's entropy
    uniform_bits: float  # log2 S: the entropy of reading every source piece equally, the upper bound
    energy_spread: float | None  # max − min energy of a row, nats: log-odds of the most read piece over the least


def sharpness(weights: Sequence[np.ndarray | None], energies: Sequence[np.ndarray] | None = None) -> Sharpness:
    """Mean sharpness of attention ``weights``, one [T, S] matrix per sentence, and of their ``energies`` (the
    same shapes) when they are known (a training record keeps only weights)."""
    if any(w is None for w in weights):
        raise ValueError("a model without attention has no weights to measure")
    weights = [np.asarray(w, dtype=np.float64) for w in weights]
    rows = sum(len(w) for w in weights)
    if rows == 0:
        raise ValueError("no attention rows to measure")
    spread = None if energies is None else np.concatenate([e.max(axis=1) - e.min(axis=1) for e in energies])
    return Sharpness(
        rows=rows,
        max_weight=float(np.concatenate([w.max(axis=1) for w in weights]).mean()),
        entropy_bits=float(np.concatenate([entropy(w) for w in weights]).mean()),
        uniform_bits=float(np.concatenate([np.full(len(w), np.log2(w.shape[1])) for w in weights]).mean()),
        energy_spread=None if spread is None else float(spread.mean()),
    )
