"""Rollouts: what each written piece is made of, followed through every layer back to the input words — the
source's pieces and the target prefix the decoder was fed.

One layer mixes positions; a rollout multiplies the mixing matrices of all layers so far (Abnar & Zuidema 2020):

    R_enc = C_enc^L … C_enc^1                               [S, S]   each encoder output as a mix of source pieces
    R^0   = [0 | I_T]                                        [T, S+T] the decoder's inputs are the prefix itself
    R     ← C_self^l R                                       masked self-attention mixes the steps
    R_t   ← C_cross^l[t, :S] [R_enc | 0] + C_cross^l[t, S] R_t   the cross-attention adds source, keeps the residual

- **attention rollout**: each mixing matrix is half the layer's mean weights and half the residual
  (½ mean_h α + ½ I, the cross-attention's residual ½), as Abnar & Zuidema write it;
- **ALTI+ rollout** (Ferrando et al. 2022, "Towards Opening the Black Box of Neural Machine Translation"): each is
  the sub-layer's ALTI contributions (:func:`.contributions.alti_terms`), the residual among them.

A decoder-only model (a chat model) has one stack: every position's input is its own token, the prompt's S
then the T written, and each layer mixes them causally, so its attention rollout is R = Π_l (½ mean_h α^l + ½ I)
over [S + T, S + T] (``α^l``: the prompt over itself, and the written tokens over both: the three kinds stitched),
read at the written rows; its prefix is what they have written. (Its ALTI terms are taken at the written rows
only, so ALTI+ is not rolled out through the prompt's.)

Rows stay distributions, so each written piece splits into the source's share and the prefix's. The feed-forward
blocks are left out, as both methods do: they mix nothing across positions. Read up to layer l, a rollout says
what drives the word so far, not which word it translates; that difference is measured (``models.align``).
"""
from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

from ..decoding.every_attention import attention_kinds
from ..network.parts import AttentionParts, Sublayer
from ..nouns.attention_map import AttentionMap, Kind
from .contributions import Layered, Sentence, alti_terms, row_shares


def rolled(encoder: list[Tensor], decoder: list[Tensor], cross: list[Tensor]) -> Tensor:
    """Each decoder layer's rollout [L, T, S + T] from the mixing matrices: ``encoder`` L_enc × [S, S],
    ``decoder`` L × [T, T], ``cross`` L × [T, S + 1] (the residual last)."""
    S, T = cross[0].shape[1] - 1, decoder[0].shape[0]
    source = torch.eye(S, dtype=cross[0].dtype, device=cross[0].device)
    for mixing in encoder:
        source = mixing @ source  # [S, S]
    source = torch.cat([source, source.new_zeros(S, T)], 1)  # [S, S + T]
    R = torch.cat([source.new_zeros(T, S), torch.eye(T, dtype=source.dtype, device=source.device)], 1)  # [T, S+T]
    found = []
    for self_mixing, cross_mixing in zip(decoder, cross, strict=True):
        R = self_mixing @ R
        R = cross_mixing[:, :S] @ source + cross_mixing[:, S:] * R
        found.append(R)
    return torch.stack(found)  # [L, T, S + T]


def stack_rolled(mixing: list[Tensor], S: int) -> Tensor:
    """Each layer's rollout [L, T, S + T] of one stack from its mixing matrices L × [S + T, S + T], read at the T
    written rows (after the S prompt ones)."""
    R = torch.eye(len(mixing[0]), dtype=mixing[0].dtype, device=mixing[0].device)
    found = []
    for m in mixing:
        R = m @ R
        found.append(R[S:])
    return torch.stack(found)  # [L, T, S + T]


def _stacked_halves(kinds: dict[Kind, AttentionMap]) -> list[Tensor]:
    """Abnar & Zuidema's mixing of each layer of one stack, ½ its heads' mean weights and ½ the residual, from the
    kinds read off it: the prompt over itself (``encoder``), the written tokens over both (``cross``, ``decoder``)."""
    encoders, crosses, decoders = (kinds[k].weights for k in (Kind.ENCODER, Kind.CROSS, Kind.DECODER))
    S, T = encoders.shape[-1], decoders.shape[-1]
    found = []
    for encoder, cross, decoder in zip(encoders, crosses, decoders, strict=True):  # [heads, ·, ·]
        weights = np.block([[encoder.mean(0), np.zeros((S, T), dtype=encoder.dtype)],
                            [cross.mean(0), decoder.mean(0)]])  # [S + T, S + T], causal
        found.append(0.5 * torch.from_numpy(weights) + 0.5 * torch.eye(S + T))
    return found


def _layered(R: Tensor, S: int) -> Layered:
    """A rollout [L, T, S + T] as the source's normalised share and the prefix's share."""
    return Layered(row_shares(R[..., :S]), prefix=R[..., S:].sum(-1).float().cpu().numpy())


def _half(sub: Sublayer, self_attention: bool) -> Tensor:
    """Abnar & Zuidema's mixing of one sub-layer: ½ its heads' mean weights, ½ the residual."""
    mean = sub.weights[0].mean(0)  # [N, M]
    if self_attention:
        return 0.5 * mean + 0.5 * torch.eye(len(mean), dtype=mean.dtype, device=mean.device)
    return torch.cat([0.5 * mean, mean.new_full((len(mean), 1), 0.5)], 1)  # [T, S + 1]


def _rollout(parts: AttentionParts, mixing) -> Tensor:
    return rolled([mixing(s, True) for s in parts.encoder], [mixing(s, True) for s in parts.decoder],
                  [mixing(s, False) for s in parts.cross])


@torch.inference_mode()
def attention_rollout(sentence: Sentence) -> Layered:
    """Abnar & Zuidema's rollout of the raw weights, read at each decoder layer (a decoder-only model's: at each
    layer of its one stack)."""
    S = len(sentence.trace.source.ids)
    if sentence.model.continues_prompt:
        return _layered(stack_rolled(_stacked_halves(attention_kinds(sentence.model, sentence.trace)), S), S)
    return _layered(_rollout(sentence.parts, _half), S)


@torch.inference_mode()
def alti_rollout(sentence: Sentence) -> Layered:
    """ALTI+: the rollout of every sub-layer's ALTI contributions, read at each decoder layer."""
    return _layered(_rollout(sentence.parts, alti_terms), len(sentence.trace.source.ids))
