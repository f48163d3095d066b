"""Is a heatmap an explanation? How far the written word's probability depends on the source words it points at.

At each step t of a translation, a matrix's row t ranks the source words (a word weighs what its pieces weigh
together). Masking the top k words (k = 1 … K) should hurt the written piece y_t if the matrix found what the model
used; keeping only them should not (DeYoung et al. 2020, ERASER):

    comprehensiveness_t = 1/K Σ_k [log p(y_t | y_<t, x) − log p(y_t | y_<t, x without its top k words)]   higher: better
    sufficiency_t       = 1/K Σ_k [log p(y_t | y_<t, x) − log p(y_t | y_<t, only its top k words)]       lower: better

(an area over the perturbation curve, AOPC, in nats). A word is masked the way integrated gradients' baseline is:
each of its pieces becomes the padding piece, whose embedding the model learnt to be nothing (zero for this
project's models and Marian's), at the same position, still attended. The prefix y_<t is the model's own
translation, teacher-forced, so only the source changes. End of sentence and language tags are never masked; a
step that writes a language tag is forced, not chosen, and is not scored. A random ranking is the floor any
explanation must beat.
"""
from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import torch

from ..decoding.trace import Trace
from ..network.tokenization import is_language_tag, is_marker, word_groups
from ..network.translator import Translator

Key = TypeVar("Key", bound=Hashable)  # whatever names a matrix scored: a Matrix, a row's name

#: Most words masked (or kept): k = 1 … K, fewer in a sentence of fewer words (one is always left to mask).
DELETIONS = 5
#: Rows (one masked copy of the sentence each) of one forward pass: bounds what a pass holds.
ROWS = 256
#: Masked rows a second on one CPU thread, in cells (rows × source × target pieces): the bundled Transformer did
#: 77,000 (4,620 rows of a 15 × 21-piece sentence in 18.8 s, beside another run); halved for a larger model.
CELLS_PER_SECOND = 40_000


@dataclass(frozen=True, eq=False)
class Faithfulness:
    """One matrix's scores on one sentence, a value per scored step (nats)."""

    comprehensiveness: np.ndarray  # [T']
    sufficiency: np.ndarray  # [T']


def source_words(trace: Trace) -> list[list[int]]:
    """The source pieces of each word, markers (EOS, a language tag) left out."""
    return [g for g in word_groups(trace.source.pieces) if not is_marker(trace.source.pieces[g[0]])]


def _masks(weights: np.ndarray, words: list[list[int]], steps: list[int], K: int, S: int) -> np.ndarray:
    """Which pieces each row masks, [steps · K · 2, S] bool: per step, per k, the top k words, then all others."""
    rows = []
    for t in steps:
        order = np.argsort(-np.array([weights[t, g].sum() for g in words]), kind="stable")  # words, weightiest first
        for k in range(1, K + 1):
            top = np.zeros(S, dtype=bool)
            top[[i for w in order[:k] for i in words[w]]] = True
            rest = np.zeros(S, dtype=bool)
            rest[[i for w in order[k:] for i in words[w]]] = True
            rows += [top, rest]
    return np.array(rows).reshape(len(steps) * K * 2, S)


@torch.inference_mode()
def _log_probs(model: Translator, trace: Trace, masks: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """log p(y_t | y_<t, x masked) [n] of each row's step ``steps`` [n], the pieces ``masks`` [n, S] padded."""
    model.eval()
    device, found = model.device, []
    ids = torch.tensor(trace.source.ids, device=device)
    targets = torch.tensor(trace.target_ids, device=device)
    tgt_in = torch.cat([torch.tensor([model.specials.start], device=device), targets[:-1]])  # [T]
    order = np.argsort(steps, kind="stable")  # a pass of early steps decodes a short prefix only
    for first in range(0, len(masks), ROWS):
        rows = order[first : first + ROWS]
        src = ids.expand(len(rows), -1).masked_fill(torch.tensor(masks[rows], device=device), model.specials.pad)
        found.append(model.own_step_log_probs(src, torch.ones_like(src, dtype=torch.bool),
                                              tgt_in.expand(len(rows), -1), targets.expand(len(rows), -1),
                                              torch.tensor(steps[rows], device=device)))  # [n]
    return torch.cat(found).float().cpu().numpy()[np.argsort(order)]  # rows back in the caller's order


def scored_steps(trace: Trace) -> list[int]:
    """The steps scored: all but those that write a forced language tag."""
    return [t for t, piece in enumerate(trace.target_pieces) if not is_language_tag(piece)]


def estimated_seconds(trace: Trace, matrices: int) -> float:
    """About how long :func:`faithfulness` of ``matrices`` matrices of ``trace`` takes on one CPU thread, before
    identical rows are merged (:data:`CELLS_PER_SECOND`)."""
    S, T = len(trace.source.ids), len(trace.target_ids)
    K = max(0, min(DELETIONS, len(source_words(trace)) - 1))
    return matrices * len(scored_steps(trace)) * K * 2 * S * T / CELLS_PER_SECOND


def faithfulness(model: Translator, trace: Trace, matrices: Mapping[Key, np.ndarray]) -> dict[Key, Faithfulness]:
    """Each matrix [T, S] of ``trace`` scored, in one batch of masked copies of the sentence; {} for a sentence of
    one word (nothing can be masked with a word left)."""
    words, steps, S = source_words(trace), scored_steps(trace), len(trace.source.ids)
    K = min(DELETIONS, len(words) - 1)
    if K < 1 or not steps:
        return {}
    masks = np.concatenate([_masks(w, words, steps, K, S) for w in matrices.values()])
    at = np.tile(np.repeat(steps, K * 2), len(matrices))  # each row's step
    rows, copies = np.unique(np.column_stack([at, masks]), axis=0, return_inverse=True)  # matrices often agree
    base = _log_probs(model, trace, np.zeros((len(steps), S), dtype=bool), np.array(steps))  # [T']
    masked = _log_probs(model, trace, rows[:, 1:].astype(bool), rows[:, 0])[copies.reshape(-1)]
    drop = np.repeat(base, K * 2)[None] - masked.reshape(len(matrices), -1)
    drop = drop.reshape(len(matrices), len(steps), K, 2)  # [matrix, step, k, (masked, kept)]
    return {name: Faithfulness(d[..., 0].mean(-1), d[..., 1].mean(-1)) for name, d in zip(matrices, drop)}


def random_matrix(trace: Trace, seed: int) -> np.ndarray:
    """The floor: weights drawn uniformly at random, each row a distribution (so drawn on the scale of every other
    reading; only its ranking counts for a deletion score), [T, S]."""
    w = np.random.default_rng(seed).random((len(trace.target_ids), len(trace.source.ids)))
    return w / w.sum(1, keepdims=True)
