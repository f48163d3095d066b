"""Gradient attribution: how much each source piece mattered to each written piece, attention or not.

Attention weights say where the decoder *read*; they need not say what *caused* a word (Jain & Wallace 2019,
"Attention is not Explanation"). Attribution asks the model itself: for the piece ``y_t`` written at step t after
the prefix ``y_<t``, how does ``log p(y_t | y_<t, x)`` depend on the embedding of each source piece ``x_s``?
Captum computes it on the source embedding layer (:class:`torch.nn.Embedding` output, [S, E]):

- ``gradient×input``: ``x_s · ∂ log p / ∂x_s`` (Shrikumar et al. 2017; one backward pass);
- ``integrated gradients``: the same integrand averaged along the straight path from an all-padding sentence
  (zero embeddings) to ``x`` (Sundararajan et al. 2017), so the shares add up to the change in log p.

Each step's E-dimensional attributions become one share per source piece, ``|Σ_E attr_ts|``, normalised to sum
to 1 over the sentence: a matrix [T, S] of its own, read exactly like one reading of the attention (the app's
heatmap, the word view, the link rules of :mod:`.word_links`). It works on every architecture, and on the
no-attention model too, where there is no α to read.
"""
from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from ..decoding.trace import Trace
from ..network.translator import Translator
from ..nouns.matrix import GRADIENT_X_INPUT, IG_STEPS, INTEGRATED_GRADIENTS, Matrix

#: Rows × steps × source pieces per backward pass: bounds what a pass keeps. 2¹⁶ → 2¹⁴ took the 20-word sentence's
#: peak from 777 to 593 MiB (a Transformer) and 657 to 499 MiB (additive) for 12 % and 3 % more time (docs).
MAX_CELLS = 2**14
#: Work done a second on one CPU thread, in cells (:func:`work`), by the slowest model measured, rounded down: what
#: a request's time is estimated from before it starts (`python -m bench attribution`, docs/performance.md).
CELLS_PER_SECOND = 40_000
#: A chat model's cell costs this many of an encoder–decoder's: the bundled decoder-only's integrated gradients of a
#: 12-word sentence (29 pieces with its prompt, 12 written) took 12.1 s against 3.6 s estimated by cells alone (one
#: thread, a training run on the other core).
PROMPT_CELL_COST = 3.3


# Captum is imported when an attribution is asked for: it loads matplotlib (~0.5 s), which the app's first page
# would otherwise pay on every cold open.
def _gradient_x_input(model: Translator, forward: Callable, inputs: torch.Tensor, args: tuple) -> torch.Tensor:
    from captum.attr import LayerGradientXActivation

    return LayerGradientXActivation(forward, model.source_embedding).attribute(inputs, additional_forward_args=args)


def _path_integral(model: Translator, forward: Callable, inputs: torch.Tensor, args: tuple, path_points: int,
                   with_gap: bool):
    """Captum's integrated gradients [n, S, E] from the all-padding sentence; with ``with_gap``, also its
    convergence delta [n]: Σ attributions − (log p at the sentence − log p at the all-padding one), zero for the
    exact path integral."""
    from captum.attr import LayerIntegratedGradients

    explainer = LayerIntegratedGradients(forward, model.source_embedding)
    return explainer.attribute(inputs, baselines=torch.full_like(inputs, model.specials.pad), additional_forward_args=args,
                               n_steps=path_points, internal_batch_size=path_points * inputs.shape[0],
                               return_convergence_delta=with_gap)


def _integrated_gradients(model: Translator, forward: Callable, inputs: torch.Tensor, args: tuple) -> torch.Tensor:
    return _path_integral(model, forward, inputs, args, IG_STEPS, with_gap=False)


@dataclass(frozen=True)
class Method:
    """How an attribution matrix is asked of the model: Captum's call, and the path points each row costs."""

    attribute: Callable[[Translator, Callable, torch.Tensor, tuple], torch.Tensor]  # [n, S, E]
    points: int


#: Each attribution matrix's method (inseq's registered methods): what the app's Show, ``python -m models.align
#: --matrix`` and the contrast offer besides attention.
ATTRIBUTIONS: dict[Matrix, Method] = {GRADIENT_X_INPUT: Method(_gradient_x_input, 1),
                                      INTEGRATED_GRADIENTS: Method(_integrated_gradients, IG_STEPS)}


def _own_copy(model: Translator) -> Translator:
    """A copy of ``model`` for Captum alone. Captum hooks the embedding layer it explains and feeds it the path's
    inputs; on the caller's model, a translation running beside it (another visitor of the same server) would read
    them and write nonsense (seen: `python -m bench load --with-attribution`). A copy costs ~40 MB and ~0.1 s."""
    return copy.deepcopy(model).eval()


def _forward(model: Translator) -> Callable:
    def forward(src_ids, mask, tgt_in, tgt_out, steps):
        return model.own_step_log_probs(src_ids, mask, tgt_in, tgt_out, steps)  # [n]
    return forward


def _decoder_inputs(model: Translator, trace: Trace) -> tuple[torch.Tensor, torch.Tensor]:
    """The written pieces [T] and the decoder's inputs [T] (start, then every piece but the last)."""
    targets = torch.tensor(trace.target_ids, device=model.device)
    return targets, torch.cat([torch.tensor([model.specials.start], device=model.device), targets[:-1]])


def _step_rows(model: Translator, trace: Trace, path_points: int):
    """Captum's inputs for groups of written pieces: each step to explain is one copy of the sentence (a row),
    at most :data:`MAX_CELLS` rows × path points × source pieces a group, so a long sentence costs time, not
    memory. Yields ``(forward, src [n, S], args)``."""
    T, S, device = len(trace.target_ids), len(trace.source.ids), model.device
    (targets, tgt_in), forward = _decoder_inputs(model, trace), _forward(model)  # [T] each
    per_pass = max(1, MAX_CELLS // (path_points * T * S))
    for first in range(0, T, per_pass):
        steps = torch.arange(first, min(first + per_pass, T), device=device)  # [n]
        n = len(steps)
        src = torch.tensor(trace.source.ids, device=device).expand(n, -1)  # [n, S]
        yield forward, src, (torch.ones_like(src, dtype=torch.bool), tgt_in.expand(n, -1), targets.expand(n, -1),
                             steps)


def _method(matrix: Matrix) -> Method:
    if matrix not in ATTRIBUTIONS:
        raise ValueError(f"{matrix.name} is no attribution; expected one of {[m.name for m in ATTRIBUTIONS]}")
    return ATTRIBUTIONS[matrix]


def work(trace: Trace, matrix: Matrix) -> int:
    """What an attribution of ``trace`` costs, in cells: path points × source pieces × the decoding steps of all
    rows (the row of written piece t decodes t + 1 steps). Time grows with it: S × T² × points."""
    T, S = len(trace.target_ids), len(trace.source.ids)
    return _method(matrix).points * S * T * (T + 1) // 2


def estimated_seconds(trace: Trace, matrix: Matrix, model: Translator | None = None) -> float:
    """About how long :func:`attribution_matrix` takes on one CPU thread (:data:`CELLS_PER_SECOND`); a model that
    reads its sentence inside a prompt re-reads the prompt at every path point (:data:`PROMPT_CELL_COST`)."""
    return work(trace, matrix) / CELLS_PER_SECOND * (PROMPT_CELL_COST if model and model.continues_prompt else 1)


def contrast_seconds(trace: Trace, matrix: Matrix, step: int) -> float:
    """About how long :func:`contrastive` at ``step`` takes on one CPU thread: two rows, each decoding
    ``step + 1`` steps, at every path point."""
    return _method(matrix).points * len(trace.source.ids) * 2 * (step + 1) / CELLS_PER_SECOND


def raw_attribution(model: Translator, trace: Trace, matrix: Matrix,
                    progress: Callable[[float], None] | None = None) -> torch.Tensor:
    """Captum's attributions [T, S, E] of each written piece's log-probability to the source embeddings;
    ``progress`` hears the share of written pieces done after each group of them."""
    method, parts, T = _method(matrix), [], len(trace.target_ids)
    model = _own_copy(model)
    with torch.enable_grad(), torch.backends.cudnn.flags(enabled=False):  # cuDNN's GRU: no backward in eval mode
        for forward, src, args in _step_rows(model, trace, method.points):
            parts.append(method.attribute(model, forward, src, args).detach())  # [n, S, E]
            if progress is not None:
                progress(sum(len(p) for p in parts) / T)
    return torch.cat(parts)  # [T, S, E]


def completeness(model: Translator, trace: Trace, path_points: int) -> tuple[np.ndarray, np.ndarray]:
    """How far integrated gradients with ``path_points`` points are from adding up (Sundararajan et al. 2017,
    completeness). Per written piece, nats: the gap |Σ attributions − change| [T] and the change in log p from the
    all-padding sentence to this one [T], which exact attributions sum to."""
    model = _own_copy(model)
    gaps, changes = [], []
    with torch.enable_grad(), torch.backends.cudnn.flags(enabled=False):  # as in raw_attribution
        for forward, src, args in _step_rows(model, trace, path_points):
            attributions, delta = _path_integral(model, forward, src, args, path_points, with_gap=True)
            total = attributions.detach().sum((1, 2))  # [n]
            gaps.append(delta.detach().abs())  # [n]
            changes.append(total - delta.detach())  # [n]: Captum's delta is Σ attributions − change
    return torch.cat(gaps).float().cpu().numpy(), torch.cat(changes).float().cpu().numpy()  # [T], [T]


def attribution_matrix(model: Translator, trace: Trace, matrix: Matrix,
                       progress: Callable[[float], None] | None = None) -> np.ndarray:
    """Shares [T, S] (rows sum to 1) of the source pieces in each written piece of ``trace``."""
    shares = raw_attribution(model, trace, matrix, progress).sum(-1).abs().float().cpu().numpy()  # [T, S]
    return shares / np.maximum(shares.sum(axis=1, keepdims=True), 1e-12)


def contrastive(model: Translator, trace: Trace, matrix: Matrix, step: int, foil: int) -> np.ndarray:
    """Why step ``step`` wrote its piece and not the piece ``foil`` (Yin & Neubig 2022): ``matrix`` of
    log p(y_t) − log p(foil) at that step, shares [S] of the source pieces. Both attributions are linear in what
    they explain, so it is the written piece's attribution minus the foil's, each one row of the same sentence."""
    model = _own_copy(model)
    targets, tgt_in = _decoder_inputs(model, trace)
    foiled = targets.clone()
    foiled[step] = foil
    src = torch.tensor(trace.source.ids, device=model.device).expand(2, -1)  # [2, S]
    args = (torch.ones_like(src, dtype=torch.bool), tgt_in.expand(2, -1), torch.stack([targets, foiled]),
            torch.tensor([step, step], device=model.device))
    with torch.enable_grad(), torch.backends.cudnn.flags(enabled=False):  # as in raw_attribution
        found = _method(matrix).attribute(model, _forward(model), src, args).detach()  # [2, S, E]
    shares = (found[0] - found[1]).sum(-1).abs().float().cpu().numpy()  # [S]
    return shares / max(shares.sum(), 1e-12)
