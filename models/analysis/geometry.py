"""Where the context vectors go: c_t = Σ_s α_ts h_s in a 2-D PCA of the annotations.

PCA is fitted on the S encoder annotations h_s of one sentence only. Because
c_t is a convex combination of the h_s and the projection is affine, every
projected c_t lies inside the convex hull of the projected h_s — the page
draws that hull, and :attr:`ContextGeometry.inside_hull` checks it.

A Transformer has one such path per cross-attention head: head h's output at
step t is Σ_s α_ts (W_v h_s)_h, a convex combination of that head's value
vectors (:func:`head_geometry`), so the same picture and the same check hold
with the values in place of the annotations.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..decoding.trace import Trace
from ..nouns.attention_map import AttentionMap


@dataclass(frozen=True, eq=False)
class ContextGeometry:
    """What is mixed (an RNN's annotations, or a head's value vectors) and the path of the mixtures, in 2-D."""

    points_2d: np.ndarray  # [S, 2] the annotations h_s, or a head's value vectors
    path_2d: np.ndarray  # [T, 2] the contexts c_t, or the head's outputs
    hull: np.ndarray  # [K, 2] hull corners of points_2d, counter-clockwise
    explained: np.ndarray  # [2] share of the points' variance the plane keeps
    step_distance: np.ndarray  # [T] ‖c_t − c_{t−1}‖ (NaN at t = 0)
    step_cosine: np.ndarray  # [T] cos(c_t, c_{t−1}) (NaN at t = 0)
    cosine: np.ndarray  # [T, T] cosine similarity of every pair of contexts
    inside_hull: np.ndarray  # [T] bool


def pca_2d(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean [D], components [2, D] and explained-variance shares [2] of ``points`` [N, D]."""
    x = torch.as_tensor(points, dtype=torch.float64)
    mean = x.mean(0)
    _, sv, vh = torch.linalg.svd(x - mean, full_matrices=False)
    var = sv**2
    comps = torch.zeros(2, x.shape[1], dtype=torch.float64)
    k = min(2, vh.shape[0])
    comps[:k] = vh[:k]
    shares = torch.zeros(2, dtype=torch.float64)
    shares[:k] = var[:k] / var.sum().clamp_min(1e-12)
    return mean.numpy(), comps.numpy(), shares.numpy()


def convex_hull(points: np.ndarray) -> np.ndarray:
    """Counter-clockwise hull corners of 2-D ``points`` (Andrew's monotone chain)."""
    pts = sorted(map(tuple, np.round(points, 12)))
    if len(pts) <= 2:
        return np.array(pts)

    def half(seq):
        out: list = []
        for p in seq:
            while len(out) >= 2 and _cross(out[-2], out[-1], p) <= 0:
                out.pop()
            out.append(p)
        return out[:-1]

    return np.array(half(pts) + half(reversed(pts)))


def _cross(o, a, b) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def inside(hull: np.ndarray, points: np.ndarray, tol: float = 1e-6) -> np.ndarray:
    """Whether each point lies in the convex polygon ``hull`` (or on its edge)."""
    if len(hull) < 3:
        return np.ones(len(points), dtype=bool)
    scale = tol * max(1.0, float(np.abs(hull).max()))
    edges = [(hull[i], hull[(i + 1) % len(hull)]) for i in range(len(hull))]
    return np.array([all(_cross(a, b, p) >= -scale for a, b in edges) for p in points])


def _cosine(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    nx = np.linalg.norm(x, axis=-1, keepdims=True).clip(1e-12)
    ny = np.linalg.norm(y, axis=-1, keepdims=True).clip(1e-12)
    return (x / nx) @ (y / ny).T


def context_geometry(trace: Trace) -> ContextGeometry:
    """The RNN's contexts c_t among its annotations h_s."""
    if trace.rnn is None:
        raise ValueError("context vectors as convex combinations of the annotations are the attentional RNN's: a "
                         "Transformer head mixes its value vectors W_v h_s (head_geometry)")
    if trace.attention is None:
        raise ValueError("this model has no attention: its context is the same at every step")
    return path_geometry(trace.rnn.annotations, trace.rnn.contexts)


def head_geometry(cross: AttentionMap, layer: int, head: int) -> ContextGeometry:
    """A Transformer cross-attention head's outputs among its value vectors (0-based ``layer`` and ``head``;
    ``cross`` read with its values)."""
    return path_geometry(cross.values[layer, head], cross.head_outputs(layer, head))


def path_geometry(points: np.ndarray, path: np.ndarray) -> ContextGeometry:
    """``points`` [S, D] and the ``path`` [T, D] of their mixtures in the points' own PCA plane."""
    mean, comps, shares = pca_2d(points)
    points_2d = (points - mean) @ comps.T  # [S, 2]
    path_2d = (path - mean) @ comps.T  # [T, 2]
    hull = convex_hull(points_2d)
    cos = _cosine(path, path)  # [T, T]
    nan = np.array([np.nan])
    return ContextGeometry(
        points_2d=points_2d,
        path_2d=path_2d,
        hull=hull,
        explained=shares,
        step_distance=np.concatenate([nan, np.linalg.norm(np.diff(path, axis=0), axis=1)]),
        step_cosine=np.concatenate([nan, np.diagonal(cos, offset=1)]),
        cosine=cos,
        inside_hull=inside(hull, path_2d),
    )
