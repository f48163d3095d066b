"""Word links from an attention matrix between whole words — the extraction rules ``python -m models.align``
compares (each tuned on the gold's trial set only).

The matrix [F, E] — attention α or an attribution (:mod:`.attribution`) — has one row per French (target) word and
one column per English (source) word, end of sentence left out. Links are 0-based ``(english, french)`` pairs, as in
the gold.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..decoding.greedy import forced
from ..network.seq2seq import Seq2Seq
from ..network.tokenization import EOS, TokenizerPair
from .alignment import word_view
from .attribution import ATTRIBUTIONS, attributed

Links = set[tuple[int, int]]


def rows_argmax(alpha: np.ndarray) -> Links:
    """Each French word to the English word it attends to most: one link per French word."""
    return {(int(alpha[j].argmax()), j) for j in range(alpha.shape[0])}


def columns_argmax(alpha: np.ndarray) -> Links:
    """Each English word to the French word that attends to it most: one link per English word."""
    return {(i, int(alpha[:, i].argmax())) for i in range(alpha.shape[1])}


def intersection(alpha: np.ndarray) -> Links:
    """Links both directions agree on: fewer, surer (as symmetrised statistical aligners begin)."""
    return rows_argmax(alpha) & columns_argmax(alpha)


def union(alpha: np.ndarray) -> Links:
    return rows_argmax(alpha) | columns_argmax(alpha)


def above(threshold: float) -> Callable[[np.ndarray], Links]:
    """Every pair whose weight reaches ``threshold`` (several English words per French word, or none)."""
    def links(alpha: np.ndarray) -> Links:
        return {(int(i), int(j)) for j, i in zip(*np.nonzero(alpha >= threshold))}
    return links


#: ``--method`` choices (``threshold`` takes ``--threshold``).
METHODS = {"argmax": rows_argmax, "intersection": intersection, "union": union}

#: What links can be read from: the attention, or an attribution.
MATRICES = ("attention", *ATTRIBUTIONS)

#: The least weight ``threshold`` links, per matrix: chosen on the gold's trial set (docs/results.md).
THRESHOLDS = {"attention": 0.2, "gradient×input": 0.2, "integrated gradients": 0.2}


def word_matrix(model: Seq2Seq, tokenizers: TokenizerPair, english: Sequence[str], french: Sequence[str],
                matrix: str = "attention") -> np.ndarray:
    """Weights [F, E] between given words under forced decoding of ``french`` (end of sentence left out; a
    sentence cut at the model's length limit has fewer columns than it has words).

    The words are joined by spaces, so each is one word of the app's word view (subwords joined by ``▁``).
    """
    trace = forced(model, tokenizers, " ".join(english), " ".join(french))
    if matrix != "attention":
        trace = attributed(model, trace, matrix)
    view = word_view(trace)
    columns = [s for s, word in enumerate(view.columns) if word != EOS][: len(english)]
    rows = [t for t, word in enumerate(view.rows) if word != EOS][: len(french)]
    return view.weights[rows][:, columns]
