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
from captum.attr import LayerGradientXActivation, LayerIntegratedGradients

from ..decoding.greedy import Trace
from ..network.seq2seq import EncoderOutput, Seq2Seq
from ..network.tokenization import BOS_ID, PAD_ID

IG_STEPS = 16  # path points; more changed trial-set AER by < 0.5 (docs/results.md)


def _log_prob_of_own_step(model: Seq2Seq, src: torch.Tensor, mask: torch.Tensor, tgt_in: torch.Tensor,
                          tgt_out: torch.Tensor) -> torch.Tensor:
    """Row b explains step ``t_b = b mod T``: ``log p(y_t | y_<t, x)`` [B] for B = k·T copies of one sentence.

    Teacher forcing as in :meth:`Seq2Seq.teacher_force`, but a row stops after its own step: rows are ordered by
    step, longest first, so the rows still running are always a prefix (a view, no copy) and the decoder does
    about half the work of running every row to the end.
    """
    B, T = tgt_in.shape
    own = torch.arange(B, device=src.device) % T  # [B]
    order = torch.argsort(own, descending=True, stable=True)  # [B]
    enc = model.encode(src, mask)  # in Captum's row order: its hook replaces the embeddings row by row
    enc = EncoderOutput(*(None if f is None else f[order] for f in
                          (enc.annotations, enc.proj_keys, enc.mask, enc.summary, enc.init_state)))
    embs, targets = model.tgt_embed(tgt_in[order]), tgt_out[order]  # [B, T, E], [B, T]
    running = [int((own >= t).sum()) for t in range(T + 1)]  # rows still decoding at step t
    state, picked = enc.init_state, []
    for t in range(T):
        n, done = running[t], running[t + 1]  # rows [done:n] end at this step
        prefix = EncoderOutput(enc.annotations[:n], None if enc.proj_keys is None else enc.proj_keys[:n],
                               enc.mask[:n], enc.summary[:n], enc.init_state[:n])
        state, context, _, _ = model.advance(embs[:n, t], state[:n], prefix)  # [n, H], [n, 2He]
        logits = model.read_out(state[done:], context[done:], embs[done:n, t])  # [n - done, V]
        picked.append(logits.log_softmax(-1).gather(1, targets[done:n, t, None]).squeeze(1))
    return torch.cat(picked[::-1])[torch.argsort(order)]  # [B]: rows back in Captum's order


def _gradient_x_input(model: Seq2Seq, forward: Callable, inputs: torch.Tensor, args: tuple) -> torch.Tensor:
    return LayerGradientXActivation(forward, model.src_embed).attribute(inputs, additional_forward_args=args)


def _integrated_gradients(model: Seq2Seq, forward: Callable, inputs: torch.Tensor, args: tuple) -> torch.Tensor:
    explainer = LayerIntegratedGradients(forward, model.src_embed)
    return explainer.attribute(inputs, baselines=torch.full_like(inputs, PAD_ID), additional_forward_args=args,
                               n_steps=IG_STEPS, internal_batch_size=IG_STEPS * inputs.shape[0])


#: What the app's toggle and ``python -m models.align --matrix`` offer besides attention.
ATTRIBUTIONS = {"gradient×input": _gradient_x_input, "integrated gradients": _integrated_gradients}


def raw_attribution(model: Seq2Seq, trace: Trace, method: str) -> torch.Tensor:
    """Captum's attributions [T, S, E] of each written piece's log-probability to the source embeddings."""
    if method not in ATTRIBUTIONS:
        raise ValueError(f"unknown attribution {method!r}; expected one of {tuple(ATTRIBUTIONS)}")
    T, device = len(trace.target_ids), model.device
    src = torch.tensor(trace.source.ids, device=device).expand(T, -1)  # [T, S]: a copy per step to explain
    mask = torch.ones_like(src, dtype=torch.bool)  # [T, S]
    tgt_out = torch.tensor(trace.target_ids, device=device).expand(T, -1)  # [T, T]
    tgt_in = torch.cat([torch.full((T, 1), BOS_ID, device=device), tgt_out[:, :-1]], dim=1)  # [T, T]

    def forward(src_ids, mask, tgt_in, tgt_out):
        return _log_prob_of_own_step(model, src_ids, mask, tgt_in, tgt_out)

    model.eval()
    # cuDNN's GRU has no backward pass in eval mode; the native kernels do (and match it).
    with torch.enable_grad(), torch.backends.cudnn.flags(enabled=False):
        return ATTRIBUTIONS[method](model, forward, src, (mask, tgt_in, tgt_out)).detach()  # [T, S, E]


def attribution_matrix(model: Seq2Seq, trace: Trace, method: str) -> np.ndarray:
    """Shares [T, S] (rows sum to 1) of the source pieces in each written piece of ``trace``."""
    shares = raw_attribution(model, trace, method).sum(-1).abs().float().cpu().numpy()  # [T, S]
    return shares / np.maximum(shares.sum(axis=1, keepdims=True), 1e-12)


def attributed(model: Seq2Seq, trace: Trace, method: str) -> Trace:
    """``trace`` with its attention replaced by attribution shares, for every view that reads α (energies
    dropped: attribution has none)."""
    return dataclasses.replace(trace, attention=attribution_matrix(model, trace, method), energies=None)
