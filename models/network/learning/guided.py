"""Guided alignment (Garg et al. 2019, "Jointly Learning to Align and Translate with Transformer Models"): one
cross-attention head is trained toward a statistical aligner's word links, beside the translation loss.

    L = L_translation + λ · L_align,   L_align = (1/|T'|) Σ_{t ∈ T'} Σ_s p_{t,s} (log p_{t,s} − log α_{t,s})

α [T, S] is the chosen head's attention at the step that *writes* target piece t, p [T, S] the links of that piece
normalised to sum to 1 over the source pieces, and T' the target pieces that have a link (the others are skipped:
nothing says where they should look). Garg et al. write the cross-entropy −Σ p log α; this is it less p's own
entropy, a constant: the same gradient, and 0 exactly when the head attends as the links say. λ = 0.05 in Garg et
al.; Marian's ``transformer-align`` (OPUS-MT) trains the first head of the last decoder layer the same way, the
default here too.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

#: Garg et al.'s weight of the alignment loss.
DEFAULT_WEIGHT = 0.05


@dataclass(frozen=True)
class GuidedAlignment:
    """Which cross-attention head is guided (0-based), where, and the weight λ of its loss. ``shifted``: piece t's
    links are given to the step that reads it as its input, one step later (SHIFT-ATT's reading, Chen et al. 2020),
    instead of the step that writes it. ``full_context``: the head is read in a pass with the decoder's future mask
    lifted, every position seeing the whole translation (Garg et al.'s "full context"), the translation loss's pass
    unchanged."""

    layer: int
    head: int
    weight: float = DEFAULT_WEIGHT
    shifted: bool = False
    full_context: bool = False

    def loss(self, attention: Tensor, links: Tensor) -> Tensor:
        """``L_align`` of the guided layer's ``attention`` [B, heads, T, S] against ``links`` [B, T, S] (each
        linked row sums to 1, the others are 0): KL(p ‖ α) averaged over linked rows, 0 without any."""
        alpha = attention[:, self.head].float()  # [B, T, S]
        if self.shifted:  # row t + 1 reads piece t; the last row (after EOS was written) has no piece to read
            alpha, links = alpha[:, 1:], links[:, :-1]  # [B, T − 1, S]
        linked = links.sum(-1) > 0  # [B, T]
        # α is 0 on padding, where p is 0 too: clamping keeps 0 · log 0 at 0 and the gradient finite
        divergence = (links * (links.clamp_min(1e-9).log() - alpha.clamp_min(1e-9).log())).sum(-1)  # [B, T]
        return divergence[linked].sum() / linked.sum().clamp_min(1)


def link_targets(links: Sequence[np.ndarray], T: int, S: int, device: torch.device | str = "cpu") -> Tensor:
    """Each pair's piece links (rows ``(source piece, target piece)``) as the loss's ``p`` [B, T, S]: row t spread
    evenly over the source pieces target piece t is linked to; a row without links stays 0."""
    p = torch.zeros(len(links), T, S)
    for b, pairs in enumerate(links):
        if len(pairs):
            p[b, torch.from_numpy(pairs[:, 1]), torch.from_numpy(pairs[:, 0])] = 1.0
    rows = p.sum(-1, keepdim=True)
    return (p / rows.clamp_min(1)).to(device)  # [B, T, S]
