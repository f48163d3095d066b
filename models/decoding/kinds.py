"""Every attention a Transformer has, for one decoded sentence: the encoder's self-attention, the decoder's masked
self-attention and the cross-attention — bertviz's three kinds of an encoder–decoder, as plain layer-first arrays.

A trace keeps only the cross-attention (every step of every decoding, validation trace and timeline point holds
it). The two self-attentions are computed here on request, for the sentence shown: one teacher-forced pass over
the trace's own target, so they belong to the translation on screen. The longest accepted sentence (80 source
pieces, 170 target pieces) makes a 3-layer, 4-head decoder's self-attention 1.4 MB of float32.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..network.contract import KINDS, Kind
from ..network.tokenization import BOS
from ..network.translator import Translator
from .trace import Trace

__all__ = ["KINDS", "AttentionKinds", "attention_kinds"]  # KINDS: what a page's kind switch offers


@dataclass(frozen=True, eq=False)
class AttentionKinds:
    """The three attentions of one sentence, float32, layer-first; rows read columns."""

    encoder: np.ndarray  # [L_enc, heads, S, S]  source piece reads source piece
    decoder: np.ndarray  # [L_dec, heads, T, T]  step t reads the decoder inputs ≤ t (causal)
    cross: np.ndarray  # [L_dec, heads, T, S]  step t reads the source
    values: np.ndarray  # [L_dec, heads, S, d_k]  what the cross-attention mixes: each head's W_v h_s
    source_pieces: tuple[str, ...]  # [S], EOS included
    decoder_inputs: tuple[str, ...]  # [T]: <s>, then every written piece but the last
    target_pieces: tuple[str, ...]  # [T]: what each step wrote

    def of(self, kind: Kind) -> np.ndarray:
        """``[L, heads, rows, columns]`` of ``kind`` (one of :data:`KINDS`)."""
        return getattr(self, kind)

    def first(self, T: int) -> AttentionKinds:
        """The first ``T`` decoding steps only (what a step reads never depends on later ones)."""
        return AttentionKinds(self.encoder, self.decoder[..., :T, :T], self.cross[..., :T, :], self.values,
                              self.source_pieces, self.decoder_inputs[:T], self.target_pieces[:T])

    def head_outputs(self, layer: int, head: int) -> np.ndarray:
        """Cross-attention head ``head`` of ``layer`` at every step, before W^O: Σ_s α_ts (W_v h_s)_head, [T, d_k]
        — a convex combination of the head's value vectors, as an RNN's c_t is of the annotations."""
        return self.cross[layer, head] @ self.values[layer, head]  # [T, S] @ [S, d_k]

    def labels(self, kind: Kind) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Row and column labels of ``kind``: what reads, and what is read."""
        return {Kind.CROSS: (self.target_pieces, self.source_pieces),
                "encoder": (self.source_pieces, self.source_pieces),
                "decoder": (self.target_pieces, self.decoder_inputs)}[kind]


@torch.inference_mode()
def attention_kinds(model: Translator, trace: Trace) -> AttentionKinds | None:
    """The three attentions of ``trace``'s sentence and translation; None for a model without self-attention
    (the RNNs read the source through one attention only)."""
    model.eval()
    src = torch.tensor([trace.source.ids], device=model.device)  # [1, S]
    tgt_in = torch.tensor([[model.specials.start, *trace.target_ids[:-1]]], device=model.device)  # [1, T]
    found = model.attention_kinds(src, src != model.specials.pad, tgt_in)
    if found is None:
        return None
    inputs = (BOS, *trace.target_pieces[:-1])
    return AttentionKinds(*(k[0].float().cpu().numpy() for k in (found.encoder, found.decoder, found.cross,
                                                                   found.values)),
                          source_pieces=trace.source.pieces, decoder_inputs=inputs,
                          target_pieces=trace.target_pieces)
