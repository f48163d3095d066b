"""The one translator interface: what every architecture gives decoding, analysis, storage and the app.

An architecture (the attentional RNN of :mod:`.seq2seq`, the Transformer of :mod:`.transformer`) is an
``nn.Module`` that implements four things:

    memory        = model.encode(src, mask)               the source, once per batch
    cache         = model.start(memory)                   the decoder before its first step
    step, cache   = model.decode_step(prev, cache, memory, focus)   one target piece for every row
    cache         = model.reorder(cache, index)           rows picked (beam search keeps its best)

plus teacher forcing, ``model(src, mask, tgt_in, keep)`` → logits, for training and validation, and
``model.own_step_log_probs(...)`` for attribution. A :class:`Step` reports the step's cross-attention as
``[B, L, heads, S]`` — every decoder layer's every head reading the source; the RNN has one layer of one head —
so greedy and beam search, the what-if, attribution, evaluation, alignment and the app never ask which
architecture they hold. Memory and cache are frozen dataclasses of batch-first tensors (or tuples of them), so
picking rows is one generic function, :func:`select_rows`.

Dimension names: B batch, S source pieces, T target steps, V target vocabulary, H decoder state width,
L decoder layers with cross-attention, heads per layer.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass

import torch
from torch import Tensor, nn

#: Bumped whenever the meaning of a saved config or weight changes.
FORMAT_VERSION = 1


def check_identity(config, architecture: str) -> None:
    """What every config checks first: that it describes ``architecture`` in the format this code reads."""
    if config.architecture != architecture:
        raise ValueError(f"a {architecture} config cannot describe architecture {config.architecture!r}")
    if config.format_version != FORMAT_VERSION:
        raise ValueError(f"checkpoint format {config.format_version} is not supported (this code reads "
                         f"{FORMAT_VERSION})")


@dataclass(frozen=True)
class RNNStep:
    """What only the attentional RNN has at a step: the query it asked and the context it read (2015, §3.1)."""

    query: Tensor  # [B, H]  s_{t-1}, the attention query of this step
    context: Tensor  # [B, Dv]  c_t = Σ_s α_ts h_s


@dataclass(frozen=True)
class Step:
    """One decoding step for a batch, the same for every architecture."""

    logits: Tensor  # [B, V]
    attention: Tensor | None  # [B, L, heads, S]  each layer's heads' weights over the source; None without
    energies: Tensor | None  # [B, L, heads, S]  the scores before the softmax
    state: Tensor  # [B, H]  the decoder's output that writes this piece (RNN: s_t; Transformer: its last layer)
    rnn: RNNStep | None = None  # the RNN's query and context; None for other architectures


@dataclass(frozen=True)
class Focus:
    """A what-if: the weights one layer's heads must use at a step instead of their own."""

    layer: int  # 0-based decoder layer; every head of it reads the same weights
    weights: Tensor  # [B, S], rows sum to 1


def select_rows(x, index: Tensor):
    """Rows ``index`` of a batch-first tensor, or of every tensor inside a (frozen) dataclass or tuple; other
    values (None, ints) pass through unchanged."""
    if isinstance(x, Tensor):
        return x.index_select(0, index)
    if isinstance(x, tuple):
        return tuple(select_rows(v, index) for v in x)
    if is_dataclass(x):
        return type(x)(**{f.name: select_rows(getattr(x, f.name), index) for f in fields(x)})
    return x


class Translator(nn.Module):
    """Base class of every architecture: the shared properties and the generic cache reordering."""

    config: object  # the architecture's frozen config dataclass (saved as config.json)

    #: How the architecture is named in ``config.json`` and on the command line.
    architecture: str = ""

    def reorder(self, cache, index: Tensor):
        """The cache of rows ``index`` [B'] (beam search's surviving hypotheses, or a sentence copied B' times)."""
        return select_rows(cache, index)

    @property
    def kind(self) -> str:
        """A short name people know it by: the RNN's score (``additive``, ``dot``, ``none`` …) or the architecture."""
        return self.architecture

    @property
    def has_attention(self) -> bool:
        """Whether decoding reads the source through attention weights (False: the paper's RNNencdec baseline)."""
        return self.attention_shape != (0, 0)

    @property
    def attention_shape(self) -> tuple[int, int]:
        """``(L, heads)``: the cross-attention layers and heads per layer a step reports; (0, 0) without."""
        raise NotImplementedError

    @property
    def state_size(self) -> int:
        """H, the width of :attr:`Step.state` (what the nearest-state index holds)."""
        raise NotImplementedError

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device
