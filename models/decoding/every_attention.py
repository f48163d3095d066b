"""Every attention a Transformer has, for one decoded sentence: the encoder's self-attention, the decoder's masked
self-attention and the cross-attention — bertviz's three kinds of an encoder–decoder, each an
:class:`~.attention_map.AttentionMap` with its labels.

A trace keeps only the cross-attention (every step of every decoding, validation trace and timeline point holds
it). The two self-attentions are computed here on request, for the sentence shown: one teacher-forced pass over
the trace's own target, so they belong to the translation on screen. The longest accepted sentence (80 source
pieces, 170 target pieces) makes a 3-layer, 4-head decoder's self-attention 1.4 MB of float32.
"""
from __future__ import annotations

import torch

from ..network.tokenization import BOS
from ..network.translator import Translator
from ..nouns.attention_map import KINDS, AttentionMap, Kind
from .trace import Trace

__all__ = ["KINDS", "attention_kinds"]  # KINDS: what a page's kind switch offers


@torch.inference_mode()
def attention_kinds(model: Translator, trace: Trace) -> dict[Kind, AttentionMap] | None:
    """The three attentions of ``trace``'s sentence and translation, by kind; None for a model without
    self-attention (the RNNs read the source through one attention only). The cross-attention carries its value
    vectors (what it mixes)."""
    model.eval()
    src = torch.tensor([trace.source.ids], device=model.device)  # [1, S]
    tgt_in = torch.tensor([[model.specials.start, *trace.target_ids[:-1]]], device=model.device)  # [1, T]
    found = model.attention_kinds(src, src != model.specials.pad, tgt_in)
    if found is None:
        return None
    source, written, inputs = trace.source.pieces, trace.target_pieces, (BOS, *trace.target_pieces[:-1])

    def plain(x: torch.Tensor):
        return x[0].float().cpu().numpy()  # [L, heads, ·, ·] of the one sentence

    return {Kind.ENCODER: AttentionMap(Kind.ENCODER, plain(found.encoder), source, source),
            Kind.DECODER: AttentionMap(Kind.DECODER, plain(found.decoder), written, inputs),
            Kind.CROSS: AttentionMap(Kind.CROSS, plain(found.cross), written, source, plain(found.values))}

