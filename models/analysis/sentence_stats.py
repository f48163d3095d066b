"""One number per sentence about its attention, so that a whole corpus fits in one table.

Each is read from a word view (:func:`.heatmaps.word_heatmap`: rows the target words, columns the source words, each
row a distribution over the source). The end-of-sentence row and column are no words: rows written as ``</s>`` are
left out of every statistic, and the ``</s>`` column counts as a place to look (a row's mass stays whole) but not as
a word to cover. Entropies and divergences are in bits, as in :mod:`.compare`. NaN where a sentence has too few
words for the statistic (an empty translation, a one-word one for monotonicity).

- **entropy**: the mean over target words of their row's entropy — how spread the attention is.
- **coverage**: the share of source words covered, each counting up to once: mean over source words of
  min(1, Σ_t α_ts). 1 when every word received at least one step's worth of attention in total (Tu et al. 2016
  keep the same per-word sum, Σ_t α_ts, as their coverage vector).
- **monotonicity**: the share of consecutive target words whose most-attended source word lies strictly to the
  right of the previous one's — 1 for a word-by-word left-to-right reading, lower with reordering or stalls.
- Between two models on one forced target (:func:`agreement`): the Jensen–Shannon divergence per word, averaged,
  and the share of words whose most-attended source word is the same.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..network.tokenization import is_marker
from .heatmaps import Heatmap
from .compare import entropy, js_divergence


@dataclass(frozen=True)
class AttentionStats:
    entropy: float  # bits
    coverage: float  # [0, 1]
    monotonicity: float  # [0, 1]


def _word_rows(view: Heatmap) -> np.ndarray:
    """The rows of target words, end of sentence left out: [T', S]."""
    return view.weights[[t for t, row in enumerate(view.rows) if not is_marker(row)]]


def attention_stats(view: Heatmap) -> AttentionStats:
    """Entropy, coverage and monotonicity of one sentence's word view."""
    rows = _word_rows(view)  # [T', S]
    if not len(rows):
        return AttentionStats(np.nan, np.nan, np.nan)
    words = [s for s, column in enumerate(view.columns) if not is_marker(column)]
    coverage = np.minimum(rows[:, words].sum(axis=0), 1.0).mean() if words else np.nan
    looked = rows.argmax(axis=1)  # [T']
    forward = (np.diff(looked) > 0).mean() if len(looked) > 1 else np.nan
    return AttentionStats(float(entropy(rows).mean()), float(coverage), float(forward))


def agreement(a: Heatmap, b: Heatmap) -> tuple[float, float]:
    """Mean Jensen–Shannon divergence (bits) and argmax agreement (share) of two views of one target, over its
    words; NaN, NaN when the two do not share their words (no common cells) or have none."""
    if a.columns != b.columns or [r for r in a.rows if not is_marker(r)] != [r for r in b.rows if not is_marker(r)]:
        return np.nan, np.nan
    p, q = _word_rows(a), _word_rows(b)
    if not len(p):
        return np.nan, np.nan
    return float(js_divergence(p, q).mean()), float((p.argmax(1) == q.argmax(1)).mean())
