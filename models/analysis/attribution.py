"""Gradient attribution: how much each source piece mattered to each written piece, attention or not.

Attention weights say where the decoder *read*; they need not say what *caused* a word (Jain & Wallace 2019,
"Attention is not Explanation"). Attribution asks the model itself: for the piece ``y_t`` written at step t after
the prefix ``y_<t``, how does ``log p(y_t | y_<t, x)`` depend on the embedding of each source piece ``x_s``?
Captum computes it on the source embedding layer (:class:`torch.nn.Embedding` output, [S, E]):

- ``gradient×input``: ``x_s · ∂ log p / ∂x_s`` (Shrikumar et al. 2017; one backward pass);
- ``integrated gradients``: the same integrand averaged along the straight path from an all-padding sentence
  (zero embeddings) to ``x`` (Sundararajan et al. 2017), so the shares add up to the change in log p.

Each step's E-dimensional attributions become one share per source piece, ``|Σ_E attr_ts|``, normalised to sum
to 1 over the sentence: a matrix [T, S] read exactly like α (the app's heatmap, the word view, the link rules of
:mod:`.word_links`). It works on the no-attention model too, where there is no α to read.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import torch

from ..decoding.greedy import Trace
from ..network.seq2seq import EncoderOutput, Seq2Seq
from ..network.tokenization import BOS_ID, PAD_ID

IG_STEPS = 64  # path points: gaps ≤ 5.4 % of the change on the bundled models, 16: ≤ 54 % (bench completeness)
MAX_CELLS = 2**16  # rows × steps × source pieces per backward pass: bounds what additive attention keeps (docs)


def _log_prob_of_own_step(model: Seq2Seq, src: torch.Tensor, mask: torch.Tensor, tgt_in: torch.Tensor,
                          tgt_out: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
    """``log p(y_t | y_<t, x)`` [B] of row b's own step ``t = steps[b]``, for B copies of one sentence pair.

    Teacher forcing as in :meth:`Seq2Seq.teacher_force`, but a row stops after its own step: rows are ordered by
    step, longest first, so the rows still running are always a prefix (a view, no copy) and the decoder does
    about half the work of running every row to the end.
    """
    order = torch.argsort(steps, descending=True, stable=True)  # [B]
    enc = model.encode(src, mask)  # in Captum's row order: its hook replaces the embeddings row by row
    enc = EncoderOutput(*(None if f is None else f[order] for f in
                          (enc.annotations, enc.proj_keys, enc.mask, enc.summary, enc.init_state)))
    embs, targets = model.tgt_embed(tgt_in[order]), tgt_out[order]  # [B, T, E], [B, T]
    last = int(steps.max())
    running = [int((steps >= t).sum()) for t in range(last + 2)]  # rows still decoding at step t
    state, picked = enc.init_state, []
    for t in range(last + 1):
        n, done = running[t], running[t + 1]  # rows [done:n] end at this step
        prefix = EncoderOutput(enc.annotations[:n], None if enc.proj_keys is None else enc.proj_keys[:n],
                               enc.mask[:n], enc.summary[:n], enc.init_state[:n])
        state, context, _, _ = model.advance(embs[:n, t], state[:n], prefix)  # [n, H], [n, 2He]
        logits = model.read_out(state[done:], context[done:], embs[done:n, t])  # [n - done, V]
        picked.append(logits.log_softmax(-1).gather(1, targets[done:n, t, None]).squeeze(1))
    return torch.cat(picked[::-1])[torch.argsort(order)]  # [B]: rows back in Captum's order


# Captum is imported when an attribution is asked for: it loads matplotlib (~0.5 s), which the app's first page
# would otherwise pay on every cold open.
def _gradient_x_input(model: Seq2Seq, forward: Callable, inputs: torch.Tensor, args: tuple) -> torch.Tensor:
    from captum.attr import LayerGradientXActivation

    return LayerGradientXActivation(forward, model.src_embed).attribute(inputs, additional_forward_args=args)


def _path_integral(model: Seq2Seq, forward: Callable, inputs: torch.Tensor, args: tuple, path_points: int,
                   with_gap: bool):
    """Captum's integrated gradients [n, S, E] from the all-padding sentence; with ``with_gap``, also its
    convergence delta [n]: Σ attributions − (log p at the sentence − log p at the all-padding one), zero for the
    exact path integral."""
    from captum.attr import LayerIntegratedGradients

    explainer = LayerIntegratedGradients(forward, model.src_embed)
    return explainer.attribute(inputs, baselines=torch.full_like(inputs, PAD_ID), additional_forward_args=args,
                               n_steps=path_points, internal_batch_size=path_points * inputs.shape[0],
                               return_convergence_delta=with_gap)


def _integrated_gradients(model: Seq2Seq, forward: Callable, inputs: torch.Tensor, args: tuple) -> torch.Tensor:
    return _path_integral(model, forward, inputs, args, IG_STEPS, with_gap=False)


#: What the app's toggle and ``python -m models.align --matrix`` offer besides attention.
ATTRIBUTIONS = {"gradient×input": _gradient_x_input, "integrated gradients": _integrated_gradients}


def _step_rows(model: Seq2Seq, trace: Trace, path_points: int):
    """Captum's inputs for groups of written pieces: each step to explain is one copy of the sentence (a row),
    at most :data:`MAX_CELLS` rows × path points × source pieces a group, so a long sentence costs time, not
    memory. Yields ``(forward, src [n, S], args)``."""
    T, S, device = len(trace.target_ids), len(trace.source.ids), model.device
    targets = torch.tensor(trace.target_ids, device=device)
    tgt_in = torch.cat([torch.tensor([BOS_ID], device=device), targets[:-1]])  # [T]
    per_pass = max(1, MAX_CELLS // (path_points * T * S))

    def forward(src_ids, mask, tgt_in, tgt_out, steps):
        return _log_prob_of_own_step(model, src_ids, mask, tgt_in, tgt_out, steps)

    for first in range(0, T, per_pass):
        steps = torch.arange(first, min(first + per_pass, T), device=device)  # [n]
        n = len(steps)
        src = torch.tensor(trace.source.ids, device=device).expand(n, -1)  # [n, S]
        yield forward, src, (torch.ones_like(src, dtype=torch.bool), tgt_in.expand(n, -1), targets.expand(n, -1),
                             steps)


def raw_attribution(model: Seq2Seq, trace: Trace, method: str) -> torch.Tensor:
    """Captum's attributions [T, S, E] of each written piece's log-probability to the source embeddings."""
    if method not in ATTRIBUTIONS:
        raise ValueError(f"unknown attribution {method!r}; expected one of {tuple(ATTRIBUTIONS)}")
    points = IG_STEPS if method == "integrated gradients" else 1
    model.eval()
    with torch.enable_grad(), torch.backends.cudnn.flags(enabled=False):  # cuDNN's GRU: no backward in eval mode
        parts = [ATTRIBUTIONS[method](model, forward, src, args).detach()  # [n, S, E]
                 for forward, src, args in _step_rows(model, trace, points)]
    return torch.cat(parts)  # [T, S, E]


def completeness(model: Seq2Seq, trace: Trace, path_points: int) -> tuple[np.ndarray, np.ndarray]:
    """How far integrated gradients with ``path_points`` points are from adding up (Sundararajan et al. 2017,
    completeness). Per written piece, nats: the gap |Σ attributions − change| [T] and the change in log p from the
    all-padding sentence to this one [T], which exact attributions sum to."""
    model.eval()
    gaps, changes = [], []
    with torch.enable_grad(), torch.backends.cudnn.flags(enabled=False):  # as in raw_attribution
        for forward, src, args in _step_rows(model, trace, path_points):
            attributions, delta = _path_integral(model, forward, src, args, path_points, with_gap=True)
            total = attributions.detach().sum((1, 2))  # [n]
            gaps.append(delta.detach().abs())  # [n]
            changes.append(total - delta.detach())  # [n]: Captum's delta is Σ attributions − change
    return torch.cat(gaps).float().cpu().numpy(), torch.cat(changes).float().cpu().numpy()  # [T], [T]


def attribution_matrix(model: Seq2Seq, trace: Trace, method: str) -> np.ndarray:
    """Shares [T, S] (rows sum to 1) of the source pieces in each written piece of ``trace``."""
    shares = raw_attribution(model, trace, method).sum(-1).abs().float().cpu().numpy()  # [T, S]
    return shares / np.maximum(shares.sum(axis=1, keepdims=True), 1e-12)


def attributed(model: Seq2Seq, trace: Trace, method: str) -> Trace:
    """``trace`` with its attention replaced by attribution shares, for every view that reads α (energies
    dropped: attribution has none)."""
    return dataclasses.replace(trace, attention=attribution_matrix(model, trace, method), energies=None)
