"""Attention scores: one interface, five ways of comparing a query with a key.

Dimension names used everywhere in this package:
    B batch, T queries (target steps), S keys (source positions),
    Dq / Dk / Dv query / key / value widths, A attention (common-space) width.

Every scorer turns energies ``e[b, t, s]`` into weights and a context::

    α[b, t, :] = softmax_s(e[b, t, :])   (masked positions get weight exactly 0)
    c[b, t]    = Σ_s α[b, t, s] · v[b, s]

and differs only in the score (Bahdanau et al. 2015, §3.1 and appendix A.1.2;
Luong et al. 2015, §3.1):

    additive   e = vᵀ tanh(W_q q + W_k k)            Bahdanau "concat"
    dot        e = (W_q q)·(W_k k) / √A              same projections as additive,
                                                      only the combination differs
    general    e = qᵀ W k                            Luong "general"
    plain_dot  e = qᵀ k                              Luong "dot", needs Dq == Dk

``W_q`` and ``W_k`` carry biases: for ``additive`` the pair of biases is one
bias of the hidden layer that the score is (a one-hidden-layer MLP on
``[q; k]``); for ``dot`` they let each side shift into the common space.

Keys are projected once per source sentence with :meth:`project_keys`; the
result is returned to the caller and passed back on every decoding step, so a
module never holds per-sentence state.
"""
from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass

import torch
from torch import Tensor, nn

#: Upper bound on elements of the additive [B, T, S, A] broadcast held at once.
ADDITIVE_CHUNK_ELEMENTS = 1 << 22


def masked_softmax(energies: Tensor, mask: Tensor | None) -> Tensor:
    """Softmax over the last axis; ``mask`` [B, S] is True on real tokens."""
    if mask is not None:
        energies = energies.masked_fill(~mask[:, None, :], float("-inf"))
    return torch.softmax(energies, dim=-1)


@dataclass(frozen=True)
class ScoreName:
    label: str  # short, for the UI
    description: str  # with its equation, for model cards and the Models page


#: Every score a model can be built with — the one table of names and labels.
SCORES = {
    "additive": ScoreName("Additive (Bahdanau)", "additive (Bahdanau) attention, e = vᵀ tanh(W_q q + W_k k)"),
    "dot": ScoreName("Dot-product (scaled)",
                     "scaled dot-product attention over the same projections, e = (W_q q)·(W_k k)/√A"),
    "general": ScoreName("General (Luong)", "Luong 'general' attention, e = qᵀ W k"),
    "plain_dot": ScoreName("Plain dot (Luong)", "plain dot-product attention, e = qᵀ k"),
    "none": ScoreName("No attention (baseline)",
                      "no attention (the RNNencdec baseline: a fixed summary of the source)"),
}


class Attention(nn.Module, ABC):
    """A score of the RNN's attention: each defines its projections, its energy and the terms that add up to it."""

    @abstractmethod
    def project_query(self, query: Tensor) -> Tensor:
        """Query projection, [B, T, Dq] -> [B, T, *]."""

    @abstractmethod
    def project_keys(self, keys: Tensor) -> Tensor:
        """Per-sentence key projection, [B, S, Dk] -> [B, S, *]."""

    @abstractmethod
    def terms(self, query: Tensor, proj_keys: Tensor) -> Tensor:
        """The A terms whose sum is each energy, [B, T, S, A] (for looking inside one score; memory grows with A)."""

    @abstractmethod
    def score(self, query: Tensor, proj_keys: Tensor) -> Tensor:
        """Energies [B, T, S] for queries [B, T, Dq] against projected keys: the sum of :meth:`terms`, computed
        without the [B, T, S, A] tensor."""

    def energies(self, query: Tensor, keys: Tensor, proj_keys: Tensor | None = None) -> Tensor:
        """Raw energies before the softmax, [B, T, S]."""
        if proj_keys is None:
            proj_keys = self.project_keys(keys)
        return self.score(query, proj_keys)

    def forward(
        self,
        query: Tensor,  # [B, T, Dq]
        keys: Tensor,  # [B, S, Dk]
        values: Tensor | None = None,  # [B, S, Dv], defaults to keys
        mask: Tensor | None = None,  # [B, S] bool, True = real token
        proj_keys: Tensor | None = None,
        override: Tensor | None = None,  # [B, T, S] weights to use instead (what-if exploration)
    ) -> tuple[Tensor, Tensor, Tensor]:
        """Return ``(context [B, T, Dv], weights [B, T, S], energies [B, T, S])``."""
        energies = self.energies(query, keys, proj_keys)
        weights = masked_softmax(energies, mask) if override is None else override
        values = keys if values is None else values
        return weights @ values, weights, energies  # [B, T, Dv], [B, T, S], [B, T, S]


class AdditiveAttention(Attention):
    """Bahdanau's score ``e = vᵀ tanh(W_q q + W_k k)`` (2015, appendix A.1.2)."""

    def __init__(self, query_dim: int, key_dim: int, attn_dim: int):
        super().__init__()
        self.W_q = nn.Linear(query_dim, attn_dim)
        self.W_k = nn.Linear(key_dim, attn_dim)
        self.v = nn.Linear(attn_dim, 1, bias=False)

    def project_query(self, query: Tensor) -> Tensor:
        return self.W_q(query)  # [B, T, A]

    def project_keys(self, keys: Tensor) -> Tensor:
        return self.W_k(keys)  # [B, S, A]

    def terms(self, query: Tensor, proj_keys: Tensor) -> Tensor:
        """``v_k · tanh(u_k)`` with ``u = W_q q + W_k k``: the hidden units' contributions."""
        hidden = torch.tanh(self.W_q(query)[:, :, None, :] + proj_keys[:, None, :, :])  # [B, T, S, A]
        return hidden * self.v.weight[0]  # [B, T, S, A]

    def score(self, query: Tensor, proj_keys: Tensor) -> Tensor:
        q = self.W_q(query)  # [B, T, A]
        B, T, A = q.shape
        S = proj_keys.shape[1]
        # The broadcast below is [B, t, S, A]; chunk over T so long inputs stay bounded. Each chunk's
        # energies go straight into one preallocated output: kept as a list of small tensors, they
        # would land inside the freed chunk buffers, fragment the heap and make every chunk take
        # fresh memory (`python -m bench attention` measures the peak in a plain process).
        step = max(1, ADDITIVE_CHUNK_ELEMENTS // max(1, B * S * A))
        if step >= T:
            return self.v(torch.tanh(q[:, :, None, :] + proj_keys[:, None, :, :])).squeeze(-1)  # [B, T, S]
        energies = q.new_empty(B, T, S)
        for i in range(0, T, step):
            hidden = torch.tanh(q[:, i : i + step, None, :] + proj_keys[:, None, :, :])  # [B, t, S, A]
            energies[:, i : i + step] = self.v(hidden).squeeze(-1)  # [B, t, S]
            del hidden  # free before the next chunk is allocated
        return energies  # [B, T, S]


class DotProductAttention(Attention):
    """``e = (W_q q)·(W_k k) / √A`` — the additive projections, multiplied instead."""

    def __init__(self, query_dim: int, key_dim: int, attn_dim: int, scaled: bool = True):
        super().__init__()
        self.W_q = nn.Linear(query_dim, attn_dim)
        self.W_k = nn.Linear(key_dim, attn_dim)
        self.scale = 1 / math.sqrt(attn_dim) if scaled else 1.0

    def project_query(self, query: Tensor) -> Tensor:
        return self.W_q(query)  # [B, T, A]

    def project_keys(self, keys: Tensor) -> Tensor:
        return self.W_k(keys)  # [B, S, A]

    def terms(self, query: Tensor, proj_keys: Tensor) -> Tensor:
        """``(W_q q)_k (W_k k)_k / √A``: one product per dimension."""
        return self.W_q(query)[:, :, None, :] * proj_keys[:, None, :, :] * self.scale  # [B, T, S, A]

    def score(self, query: Tensor, proj_keys: Tensor) -> Tensor:
        return (self.W_q(query) @ proj_keys.transpose(1, 2)) * self.scale  # [B, T, S]


class GeneralAttention(Attention):
    """Luong's "general" score ``e = qᵀ W k``; W maps keys into the query space."""

    def __init__(self, query_dim: int, key_dim: int):
        super().__init__()
        self.W = nn.Linear(key_dim, query_dim, bias=False)

    def project_query(self, query: Tensor) -> Tensor:
        return query  # [B, T, Dq]

    def project_keys(self, keys: Tensor) -> Tensor:
        return self.W(keys)  # [B, S, Dq]

    def terms(self, query: Tensor, proj_keys: Tensor) -> Tensor:
        return query[:, :, None, :] * proj_keys[:, None, :, :]  # [B, T, S, Dq]

    def score(self, query: Tensor, proj_keys: Tensor) -> Tensor:
        return query @ proj_keys.transpose(1, 2)  # [B, T, S]


class PlainDotAttention(Attention):
    """Luong's "dot" score ``e = qᵀ k``: no parameters, so Dq must equal Dk."""

    def __init__(self, query_dim: int, key_dim: int):
        super().__init__()
        if query_dim != key_dim:
            raise ValueError(
                f"plain_dot attention needs equal query and key sizes, got {query_dim} and "
                f"{key_dim}; use 'general' or 'dot', which project them first"
            )

    def project_query(self, query: Tensor) -> Tensor:
        return query  # [B, T, Dq]

    def project_keys(self, keys: Tensor) -> Tensor:
        return keys  # [B, S, Dk]

    def terms(self, query: Tensor, proj_keys: Tensor) -> Tensor:
        return query[:, :, None, :] * proj_keys[:, None, :, :]  # [B, T, S, Dk]

    def score(self, query: Tensor, proj_keys: Tensor) -> Tensor:
        return query @ proj_keys.transpose(1, 2)  # [B, T, S]


def build_attention(score: str, query_dim: int, key_dim: int, attn_dim: int) -> Attention:
    """The scorer named ``score`` (a key of :data:`SCORES` other than "none")."""
    if score == "additive":
        return AdditiveAttention(query_dim, key_dim, attn_dim)
    if score == "dot":
        return DotProductAttention(query_dim, key_dim, attn_dim, scaled=True)
    if score == "general":
        return GeneralAttention(query_dim, key_dim)
    if score == "plain_dot":
        return PlainDotAttention(query_dim, key_dim)
    raise ValueError(f"unknown attention score {score!r}; expected one of {tuple(SCORES)}")
