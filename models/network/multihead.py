"""Multi-head attention (Vaswani et al. 2017, §3.2), with two ways to compute it.

    Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V                                        (§3.2.1, eq. 1)
    MultiHead(Q, K, V) = Concat(head_1, …, head_h) W^O,  head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)   (§3.2.2)

"We suspect that for large values of d_k, the dot products grow large in magnitude, pushing the softmax function
into regions where it has extremely small gradients. To counteract this effect, we scale the dot products by
1/√d_k." — the same scaled dot product as :class:`~.attention.DotProductAttention`, h times in parallel over
d_k = d_model / h wide slices.

- :meth:`MultiHeadAttention.forward` is the fast path for training and the encoder: PyTorch's fused
  ``scaled_dot_product_attention``, which never materialises the weights.
- :meth:`MultiHeadAttention.read` writes the softmax out, for decoding steps whose every head's weights and
  energies the app draws, and lets a what-if replace the weights.

Keys and values are projected by the caller once (:meth:`project_kv`): the encoder's output once per sentence for
cross-attention, each new target position once for the decoder's self-attention cache.
Shapes: B batch, N queries, S keys, heads, d_k = d_model / heads.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class MultiHeadAttention(nn.Module):
    """No dropout inside: the paper drops out each sub-layer's output (§5.4), and on CPU a dropout on the weights
    sends ``scaled_dot_product_attention`` from its fused kernel to the written-out one (10 % of a training step)."""

    def __init__(self, d_model: int, heads: int):
        super().__init__()
        if d_model % heads:
            raise ValueError(f"d_model {d_model} is not divisible into {heads} heads")
        self.heads, self.d_k = heads, d_model // heads
        #: Heads switched off (0-based): their output is zeroed before W^O, as Michel et al. (2019) remove a head.
        #: Set only on a copy of a model (:func:`models.analysis.head_removal.without_heads`), never on a shared one.
        self.removed: frozenset[int] = frozenset()
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)

    def _split(self, x: Tensor) -> Tensor:
        B, N, _ = x.shape
        return x.view(B, N, self.heads, self.d_k).transpose(1, 2)  # [B, heads, N, d_k]

    def _merge(self, x: Tensor) -> Tensor:
        B, _, N, _ = x.shape  # x: [B, heads, N, d_k]
        if self.removed:
            keep = torch.ones(self.heads, device=x.device, dtype=x.dtype)
            keep[list(self.removed)] = 0
            x = x * keep[:, None, None]
        return self.W_o(x.transpose(1, 2).reshape(B, N, self.heads * self.d_k))  # [B, N, d_model]

    def project_kv(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """Keys and values of ``x`` [B, S, d_model], each [B, heads, S, d_k]."""
        return self._split(self.W_k(x)), self._split(self.W_v(x))

    def forward(self, x: Tensor, keys: Tensor, values: Tensor, mask: Tensor | None = None,
                causal: bool = False) -> Tensor:
        """Queries ``x`` [B, N, d_model] over projected ``keys``/``values`` [B, heads, S, d_k] → [B, N, d_model].

        ``mask`` [B, S] is True on keys that may be read; ``causal`` lets query n read keys ≤ n only.
        """
        attn_mask = None if mask is None else mask[:, None, None, :]  # [B, 1, 1, S]
        out = F.scaled_dot_product_attention(self._split(self.W_q(x)), keys, values, attn_mask=attn_mask,
                                             is_causal=causal)
        return self._merge(out)  # [B, N, d_model]

    def read(self, x: Tensor, keys: Tensor, values: Tensor, mask: Tensor | None = None,
             override: Tensor | None = None, causal: bool = False) -> tuple[Tensor, Tensor, Tensor]:
        """As :meth:`forward`, returning ``(output [B, N, d_model], weights [B, heads, N, S], energies [B, heads,
        N, S])`` (a decoding step needs no ``causal`` mask: it reads everything before it).

        ``override`` [B, S] replaces every head's weights (a what-if); the energies stay the model's own.
        """
        energies = self._split(self.W_q(x)) @ keys.transpose(-1, -2) / math.sqrt(self.d_k)  # [B, heads, N, S]
        masked = energies if mask is None else energies.masked_fill(~mask[:, None, None, :], float("-inf"))
        if causal:  # query n reads keys ≤ n
            N, S = energies.shape[-2:]
            masked = masked.masked_fill(torch.ones(N, S, dtype=torch.bool, device=x.device).triu(1), float("-inf"))
        weights = torch.softmax(masked, dim=-1)
        if override is not None:
            weights = override[:, None, None, :].expand_as(weights)
        return self._merge(weights @ values), weights, energies
