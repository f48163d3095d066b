"""How peaked a model's attention is over many sentences: a symptom of scores that grew without bound.

A softmax over energies whose spread (largest minus smallest, per row) is tens of nats puts nearly all its weight
on one source piece: the context is a hard selection, and the softmax's Jacobian, ``diag(α) − ααᵀ``, is nearly
zero, so the score gets almost no gradient back (the "attention entropy collapse" of Zhai et al. 2023, and the
logit growth of Dehghani et al. 2023). An unbounded bilinear score, ``(W_q q)·(W_k k)/√A``, can grow so under a
constant learning rate; the additive score cannot push a single term past ``|v_k|`` because of its tanh.
Measured with ``python -m models.bench sharpness --model NAME``.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..decoding.greedy import Trace
from .compare import entropy


@dataclass(frozen=True)
class Sharpness:
    """Means over every attention row (one written piece of one sentence)."""

    rows: int
    max_weight: float  # the largest weight of a row
    entropy_bits: float  # the row's entropy
    uniform_bits: float  # log2 S: the entropy of reading every source piece equally, the upper bound
    energy_spread: float  # max − min energy of a row, nats: log-odds of the most read piece over the least


def sharpness(traces: Sequence[Trace]) -> Sharpness:
    """Mean sharpness of the attention rows of ``traces`` (models with attention only)."""
    if any(t.attention is None for t in traces):
        raise ValueError("a model without attention has no weights to measure")
    weights = [t.attention for t in traces]  # each [T, S]
    energies = [t.energies for t in traces]  # each [T, S]
    rows = sum(len(w) for w in weights)
    if rows == 0:
        raise ValueError("no attention rows to measure")
    return Sharpness(
        rows=rows,
        max_weight=float(np.concatenate([w.max(axis=1) for w in weights]).mean()),
        entropy_bits=float(np.concatenate([entropy(w) for w in weights]).mean()),
        uniform_bits=float(np.concatenate([np.full(len(w), np.log2(w.shape[1])) for w in weights]).mean()),
        energy_spread=float(np.concatenate([e.max(axis=1) - e.min(axis=1) for e in energies]).mean()),
    )
