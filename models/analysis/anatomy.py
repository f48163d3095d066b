"""The score, taken apart; and why dot products need 1/√d.

For step t and source position s of a trace, the additive energy is a
one-hidden-layer network on (s_{t−1}, h_s):

    u = W_q s_{t−1} + W_k h_s        (A hidden pre-activations)
    e = Σ_k v_k · tanh(u_k)           (A contributions that add up to e)

and the dot-product energy is a sum of A per-dimension products
``(W_q s)_k (W_k h)_k / √A``. :func:`scaling_curves` shows, on random
vectors, how the softmax saturates as the width d grows when scores are not
scaled (Vaswani et al. 2017, §3.2.1), and that 1/√d or additive scoring avoid it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..decoding.trace import Trace
from ..network.seq2seq import Seq2Seq
from ..network.translator import Translator
from .sharpness import sharpness


@dataclass(frozen=True, eq=False)
class ScoreAnatomy:
    score: str  # "additive" or "dot"
    query_part: np.ndarray  # [A]  W_q s_{t−1} (+ bias)
    key_part: np.ndarray  # [A]  W_k h_s (+ bias)
    pre_activation: np.ndarray  # [A]  u = query_part + key_part (additive); empty for dot
    hidden: np.ndarray  # [A]  tanh(query_part + key_part) (additive); empty for dot
    contributions: np.ndarray  # [A]  the terms that add up to the energy
    energy: float


@torch.inference_mode()
def score_anatomy(model: Translator, trace: Trace, t: int, s: int) -> ScoreAnatomy:
    """The energy e[t, s] of ``trace`` rebuilt from the scorer's own projections and terms."""
    score = model.config.score if isinstance(model, Seq2Seq) else model.architecture
    if score not in ("additive", "dot") or trace.rnn is None:
        raise ValueError(f"score anatomy covers the RNN's additive and dot-product attention, not {score!r}")
    att = model.attention
    query = torch.as_tensor(trace.rnn.queries[t], device=model.device)[None, None, :]  # [1, 1, H]
    key = torch.as_tensor(trace.rnn.annotations[s], device=model.device)[None, None, :]  # [1, 1, 2He]
    q, k = att.project_query(query)[0, 0], att.project_keys(key)  # [A], [1, 1, A]
    terms = att.terms(query, k)[0, 0, 0]  # [A]
    if score == "additive":
        pre = q + k[0, 0]  # u = W_q s + W_k h
        hidden = torch.tanh(pre)
    else:
        pre = hidden = torch.empty(0)
    return ScoreAnatomy(
        score=score,
        query_part=q.cpu().numpy(),
        key_part=k[0, 0].cpu().numpy(),
        pre_activation=pre.cpu().numpy(),
        hidden=hidden.cpu().numpy(),
        contributions=terms.cpu().numpy(),
        energy=float(terms.sum()),
    )


@dataclass(frozen=True)
class ScalingPoint:
    dim: int
    score: str  # the attention score, as its curve is labelled: "dot (unscaled)", "dot / √d" or "additive"
    max_weight: float  # mean over trials of the largest softmax weight
    entropy_bits: float  # mean entropy of the weights
    gradient: float  # mean Frobenius norm of the softmax Jacobian ∂α/∂e


def _softmax_stats(energies: torch.Tensor) -> tuple[float, float, float]:
    """Mean max weight, entropy (bits) and Jacobian norm over rows of ``energies`` [N, S]."""
    a = torch.softmax(energies, dim=-1)
    jac = torch.diag_embed(a) - a[:, :, None] * a[:, None, :]  # [N, S, S]
    s = sharpness([a.numpy()])
    return s.max_weight, s.entropy_bits, jac.flatten(1).norm(dim=1).mean().item()


@torch.inference_mode()
def scaling_curves(dims: list[int], keys: int = 10, trials: int = 200, seed: int = 0) -> list[ScalingPoint]:
    """Softmax behaviour of each score on random N(0, 1) queries and keys of width d."""
    gen = torch.Generator().manual_seed(seed)
    points = []
    for d in dims:
        q = torch.randn(trials, 1, d, generator=gen)
        k = torch.randn(trials, keys, d, generator=gen)
        dot = (q @ k.transpose(1, 2)).squeeze(1)  # [N, S]
        # additive with the usual init: W ~ U(±1/√d) maps to width d, v ~ U(±1/√d)
        bound = 1 / np.sqrt(d)
        w_q, w_k = (torch.rand(d, d, generator=gen) * 2 - 1) * bound, (torch.rand(d, d, generator=gen) * 2 - 1) * bound
        v = (torch.rand(d, generator=gen) * 2 - 1) * bound
        additive = torch.tanh(q @ w_q.T + k @ w_k.T) @ v  # [N, S]
        for score, energies in (("dot (unscaled)", dot), ("dot / √d", dot / np.sqrt(d)), ("additive", additive)):
            points.append(ScalingPoint(d, score, *_softmax_stats(energies)))
    return points
