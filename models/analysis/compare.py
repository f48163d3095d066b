"""Comparing two attention matrices over the same rows and columns.

Used with forced decoding of one common target, so that additive and
dot-product attention are compared step for step on identical tokens.
Entropies and the Jensen–Shannon divergence are in bits (JS ∈ [0, 1]).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .heatmaps import Heatmap

EPS = 1e-12


def entropy(weights: np.ndarray) -> np.ndarray:
    """Entropy in bits of each row of ``weights`` [T, S] -> [T]."""
    p = np.clip(weights, EPS, 1)
    return -(weights * np.log2(p)).sum(axis=-1)


def js_divergence(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Jensen–Shannon divergence in bits between matching rows of ``p`` and ``q`` [T, S] -> [T]."""
    m = (p + q) / 2
    return np.clip(entropy(m) - (entropy(p) + entropy(q)) / 2, 0.0, 1.0)


@dataclass(frozen=True, eq=False)
class Comparison:
    names: tuple[str, str]
    difference: np.ndarray  # [T, S]  a − b
    entropy_a: np.ndarray  # [T]
    entropy_b: np.ndarray  # [T]
    js: np.ndarray  # [T]
    argmax_agree: np.ndarray  # [T] bool
    summary: str


def same_cells(a: Heatmap, b: Heatmap) -> bool:
    """Whether two views share their rows and columns (models with different tokenizers may not, per piece)."""
    return a.rows == b.rows and a.columns == b.columns


def compare_views(a: Heatmap, b: Heatmap, names: tuple[str, str]) -> Comparison:
    """Step-by-step comparison; ``a`` and ``b`` must share rows and columns."""
    if not same_cells(a, b):
        raise ValueError("the two attention matrices must have the same target and source tokens")
    js = js_divergence(a.weights, b.weights)
    agree = a.weights.argmax(1) == b.weights.argmax(1)
    return Comparison(
        names=names,
        difference=a.weights - b.weights,
        entropy_a=entropy(a.weights),
        entropy_b=entropy(b.weights),
        js=js,
        argmax_agree=agree,
        summary=_summary(a, b, names, js, agree),
    )


def _summary(a: Heatmap, b: Heatmap, names, js, agree) -> str:
    """One plain-language sentence on where the two models disagree most."""
    head = f"{names[0]} and {names[1]} look hardest at the same source token at {agree.sum()} of {len(agree)} steps"
    if agree.all():
        widest = a.rows[int(js.argmax())]
        return f"{head}; their largest difference in spread is at “{widest}” (JS {js.max():.2f} bits)."
    worst = int(np.where(agree, -1, js).argmax())
    return (
        f"{head}; they disagree most when producing “{a.rows[worst]}”: {names[0]} looks at "
        f"“{a.columns[int(a.weights[worst].argmax())]}”, {names[1]} at “{b.columns[int(b.weights[worst].argmax())]}” "
        f"(JS {js[worst]:.2f} bits)."
    )
