"""Word links from an attention matrix between whole words — the extraction rules ``python -m models.align``
compares (each tuned on the gold's trial set only).

The matrix is α [F, E]: one row per French (target) word, one column per English (source) word, end of sentence
left out. Links are 0-based ``(english, french)`` pairs, as in the gold.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

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
