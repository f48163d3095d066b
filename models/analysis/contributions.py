"""Readings of a step beyond the attention weights: how much each source piece *adds* to what a layer writes.

α_ts says how strongly step t weighs source piece s, not how much s changes anything: a large weight on a value
vector near zero moves nothing. Each matrix here reads one decoded sentence's cross-attention sub-layers
(:class:`models.network.parts.Sublayer`, whose output is ``y_t = r_t + Σ_s z_ts + b``, ``z_ts = Σ_h α^h_ts v^h_s
W^O_h``, post-norm Marian then normalised):

- **attention norm** (Kobayashi et al. 2020, "Attention is Not Only a Weight"): ‖α^h_ts v^h_s W^O_h‖ for a head,
  ‖z_ts‖ for a layer (the heads summed, then measured). On the attentional RNN, ‖α_ts h_s W‖ with W every map the
  context enters: the size of what annotation s adds to step t.
- **ALTI** (Ferrando et al. 2022): each term's contribution to the layer's real output y_t, ``max(0, ‖y_t‖₁ −
  ‖y_t − z_ts‖₁)``, the residual r_t (what the decoder already wrote: the *target prefix*) a term of its own. A
  post-norm's layer norm is split over the terms with the output's own σ, so the terms still add up to y_t.
- **value zeroing** (Mohebbi et al. 2023): zero source piece s's value vectors in one layer's cross-attention,
  rerun, and measure the cosine distance of that whole decoder layer's output at each step: one pass a piece.

Every matrix is a :class:`Layered`: layer by layer (and head by head where a head has its own), rows normalised
over the source, the prefix's share beside it where the method sees one. The rollouts are in :mod:`.rollout`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import torch
from torch import Tensor

from ..decoding.trace import Trace
from ..network.parts import AttentionParts, Sublayer, Zeroed
from ..network.translator import Fitted, Translator
from ..nouns.attention_map import AttentionMap, Kind, Reading
from ..nouns.matrix import Matrix

#: Rows of one value-zeroing pass (each row one (layer, source piece) zeroed): bounds what a pass holds.
ZEROING_ROWS = 64


@dataclass(frozen=True, eq=False)
class Layered:
    """One matrix of one sentence, layer by layer: what each source piece gives each step."""

    layers: np.ndarray  # [L, T, S]  each layer as a whole; rows sum to 1 over the source (less where a chat model
    # read its translation so far)
    heads: AttentionMap | None = None  # [L, heads, T, S]  head by head; None where only a layer is defined
    prefix: np.ndarray | None = None  # [L, T]  the target prefix's share of the whole (source + prefix = 1)

    def read(self, reading: Reading) -> np.ndarray:
        """``reading``'s matrix [T, S] ([T − 1, S] shifted): a head (its map's), or the layer as a whole (which for
        some matrices is not its heads' mean: the norm of their sum)."""
        if reading.head is not None or reading.whole != "mean" and self.heads is not None:
            return self.heads.read(reading)  # a head, or the heads read as one another way than the matrix's own
        return reading.rows(self.layers[reading.layer])


def row_shares(x: Tensor) -> np.ndarray:
    """Rows (the last axis) scaled to sum to 1, as float32 numpy; an all-zero row stays zero."""
    return (x / x.sum(-1, keepdim=True).clamp(min=1e-12)).float().cpu().numpy()


@torch.inference_mode()
def sentence_parts(model: Translator, trace: Trace, zeroed: Zeroed | None = None,
                   copies: int = 1) -> AttentionParts | None:
    """The parts of one teacher-forced pass over ``trace``'s own translation, ``copies`` rows of it."""
    model.eval()
    src = torch.tensor([trace.source.ids], device=model.device).expand(copies, -1)  # [B, S]
    tgt_in = torch.tensor([[model.specials.start, *trace.target_ids[:-1]]], device=model.device)  # [1, T]
    return model.attention_parts(src, src != model.specials.pad, tgt_in.expand(copies, -1), zeroed)


@dataclass(frozen=True, eq=False)
class Sentence:
    """One translation to read: the model, its trace, and the hooked pass over its own translation, recorded once
    however many matrices read it (“Which matrix to believe?” reads every one); each matrix read of it is kept in
    ``found`` (:func:`.recipes.of`), so a page that redraws it at another head computes nothing."""

    model: Translator
    trace: Trace
    found: dict[Matrix, Layered] = field(default_factory=dict, repr=False)  # by matrix
    fitted: Fitted = Fitted()  # what was fit to people's links beside the model: none, unless the loader found some

    @cached_property
    def parts(self) -> AttentionParts:
        """The sub-layers' parts of the one teacher-forced pass (:func:`sentence_parts`)."""
        return sentence_parts(self.model, self.trace)


def attention(sentence: Sentence) -> Layered:
    """The weights themselves: each head, and a layer's mean of its heads
    (:class:`~..decoding.attention_map.Reading`)."""
    if sentence.trace.attention is None:
        raise ValueError("this model has no attention")
    return Layered(sentence.trace.attention.weights.mean(1), sentence.trace.attention)  # [L, T, S], the map


@torch.inference_mode()
def full_context_attention(sentence: Sentence) -> Layered:
    """The weights of one teacher-forced pass over the finished translation with the decoder's future mask lifted
    (Garg et al. 2019's full context): each head, and a layer's mean of its heads."""
    model, trace = sentence.model, sentence.trace
    model.eval()
    src = torch.tensor([trace.source.ids], device=model.device)  # [1, S]
    tgt_in = torch.tensor([[model.specials.start, *trace.target_ids[:-1]]], device=model.device)  # [1, T]
    cross = model.full_context_attention(src, src != model.specials.pad, tgt_in)[0].float().cpu().numpy()
    return Layered(cross.mean(1), _cross_map(trace, cross))  # [L, T, S], [L, heads, T, S]


@torch.inference_mode()
def attention_norm(sentence: Sentence) -> Layered:
    """‖α^h_ts v^h_s W^O_h‖ per head [L, heads, T, S], and ‖Σ_h …‖ per layer: shares of all a row reads, a chat
    model's written tokens too (M = S + T), kept at the source's S columns."""
    heads, layers, S = [], [], len(sentence.trace.source.ids)
    for sub in sentence.parts.cross:
        moved = torch.einsum("hsk,hkd->hsd", sub.values[0], sub.out_weight).norm(dim=-1)  # [heads, M]
        heads.append(row_shares(sub.weights[0] * moved[:, None, :])[..., :S])  # [heads, T, S]
        layers.append(row_shares(sub.terms()[0].norm(dim=-1))[..., :S])  # [T, S]
    return Layered(np.stack(layers), _cross_map(sentence.trace, np.stack(heads)))


def _cross_map(trace: Trace, heads: np.ndarray) -> AttentionMap:
    """``heads`` [L, heads, T, S], read of ``trace``'s steps over its source, as a map labelled like its own."""
    return AttentionMap(Kind.CROSS, heads, trace.target_pieces, trace.source.pieces)


def normalised_terms(sub: Sublayer, terms: Tensor) -> tuple[Tensor, Tensor]:
    """``terms`` [N, K, d] that sum with the bias to the sub-layer's output, and that bias [N, d]: as they are
    for a pre-norm model; for a post-norm one each mapped through the norm's linear part, γ(z − mean z)/σ, with the
    σ of the whole sum (what the norm divides by), the norm's β joining the bias."""
    bias = sub.out_bias.expand(terms.shape[0], -1)  # [N, d]
    if sub.norm is None:
        return terms, bias
    total = terms.sum(1) + bias  # [N, d]: r + a, what the norm reads
    sigma = (total.var(-1, unbiased=False) + sub.norm.eps).sqrt()[:, None]  # [N, 1]

    def linear(x: Tensor, scale: Tensor) -> Tensor:
        return sub.norm.weight * (x - x.mean(-1, keepdim=True)) / scale

    return linear(terms, sigma[:, None]), linear(bias, sigma) + sub.norm.bias


def alti_terms(sub: Sublayer, self_attention: bool) -> Tensor:
    """ALTI's contributions of one sub-layer of a one-row batch, rows summing to 1: [N, M] for a self-attention
    (the residual joins the query's own position), [N, M + 1] for the cross-attention (the residual last)."""
    z, r = sub.terms()[0], sub.residual[0]  # [N, M, d], [N, d]
    if self_attention:
        z = z + torch.diag_embed(torch.ones(len(r), device=r.device))[..., None] * r[:, None, :]
    else:
        z = torch.cat([z, r[:, None, :]], 1)  # [N, M + 1, d]
    z, bias = normalised_terms(sub, z)
    y = z.sum(1) + bias  # [N, d]: the sub-layer's output, as the model computed it (tested)
    c = (y.abs().sum(-1, keepdim=True) - (y[:, None, :] - z).abs().sum(-1)).clamp(min=0)  # [N, K]
    return c / c.sum(-1, keepdim=True).clamp(min=1e-12)


@torch.inference_mode()
def alti(sentence: Sentence) -> Layered:
    """Each cross-attention layer's ALTI contributions: the source's [L, T, S] and the target prefix's [L, T] — the
    residual's, and a chat model's written tokens' (its columns after the prompt's S)."""
    S = len(sentence.trace.source.ids)
    found = torch.stack([alti_terms(sub, False) for sub in sentence.parts.cross])  # [L, T, M + 1], the residual last
    return Layered(row_shares(found[..., :S]), prefix=found[..., S:].sum(-1).float().cpu().numpy())


@torch.inference_mode()
def value_zeroing(sentence: Sentence, progress: Callable[[float], None] | None = None) -> Layered:
    """For each cross-attention layer and source piece s: zero s's value vectors there, and take 1 − cos between
    the decoder layer's output with and without them at each step, [L, T, S]; rows of passes at most
    :data:`ZEROING_ROWS`; ``progress`` hears the share done."""
    model, trace = sentence.model, sentence.trace
    if not model.sublayer_sites():
        raise ValueError("value zeroing compares a Transformer layer's output; this model has no such layers")
    reference = sentence.parts.decoder_layers  # L × [1, T, d]
    L, S = len(reference), len(trace.source.ids)
    jobs = torch.tensor([(n, s) for n in range(L) for s in range(S)], device=model.device)  # [L·S, 2]
    distance = torch.zeros(L, S, len(trace.target_ids), device=model.device)  # [L, S, T]
    for first in range(0, len(jobs), ZEROING_ROWS):
        batch = jobs[first : first + ZEROING_ROWS]
        layers = sentence_parts(model, trace, Zeroed(batch[:, 0], batch[:, 1]), copies=len(batch)).decoder_layers
        for row, (n, s) in enumerate(batch.tolist()):
            distance[n, s] = 1 - torch.cosine_similarity(layers[n][row], reference[n][0], dim=-1)  # [T]
        if progress is not None:
            progress(min(1.0, (first + len(batch)) / len(jobs)))
    return Layered(row_shares(distance.transpose(1, 2).clamp(min=0)))
