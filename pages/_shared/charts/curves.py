"""Lines and paths: per-step series, training curves, and the context vectors' path."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..labels import for_plotly
from .base import BLUE, GREY, ORANGE, _esc


def lines(x, series: dict[str, np.ndarray], title: str, y_title: str, x_labels: list[str] | None = None) -> go.Figure:
    fig = go.Figure([go.Scatter(x=list(x), y=list(v), mode="lines+markers", name=for_plotly(k))
                     for k, v in series.items()])
    if x_labels is not None:
        fig.update_xaxes(tickvals=list(x), ticktext=_esc(x_labels))
    fig.update_layout(title=title, yaxis_title=y_title, height=300, margin=dict(l=10, r=10, t=40, b=10))
    return fig


def learning_curve(curve, selected: int) -> go.Figure:
    """Validation BLEU (left axis) and loss (right axis) against epochs done, the ``selected`` point (0-based)
    marked."""
    fig = go.Figure([
        go.Scatter(x=list(curve.epochs), y=list(curve.val_bleu), mode="lines+markers", name="val BLEU",
                   line=dict(color=BLUE)),
        go.Scatter(x=list(curve.epochs), y=list(curve.val_loss), mode="lines+markers", name="val loss",
                   line=dict(color=GREY, dash="dot"), yaxis="y2"),
    ])
    fig.add_vline(x=curve.epochs[selected], line=dict(color=ORANGE, width=2))
    fig.update_layout(xaxis=dict(title="epochs of training"), yaxis=dict(title="BLEU"),
                      yaxis2=dict(title="loss", overlaying="y", side="right"), height=320,
                      legend=dict(orientation="h", y=-0.25), margin=dict(l=10, r=10, t=30, b=10))
    return fig


def attention_entropy(curve, selected: int) -> go.Figure:
    """The curated examples' mean attention entropy (bits) against epochs done, the ``selected`` point marked."""
    fig = go.Figure(go.Scatter(x=list(curve.epochs), y=list(curve.entropy_bits), mode="lines+markers",
                               name="attention entropy", line=dict(color=BLUE)))
    fig.add_vline(x=curve.epochs[selected], line=dict(color=ORANGE, width=2))
    fig.update_layout(xaxis=dict(title="epochs of training"), yaxis=dict(title="entropy, bits", rangemode="tozero"),
                      height=240, margin=dict(l=10, r=10, t=30, b=10))
    return fig


def context_path(geo, source: list[str], target: list[str], title: str) -> go.Figure:
    """Annotations h_s as labelled points, their convex hull, and the path of c_1 … c_T."""
    source, target = _esc(source), _esc(target)
    hull = np.vstack([geo.hull, geo.hull[:1]]) if len(geo.hull) else geo.hull
    fig = go.Figure([
        go.Scatter(x=hull[:, 0], y=hull[:, 1], fill="toself", mode="lines", name="hull of the h_s",
                   line=dict(color=GREY, dash="dot"), fillcolor="rgba(173,181,189,0.15)", hoverinfo="skip"),
        go.Scatter(x=geo.annotations_2d[:, 0], y=geo.annotations_2d[:, 1], mode="markers+text", text=source,
                   textposition="top center", name="annotations h_s", marker=dict(size=9, color=BLUE),
                   hovertemplate="h: %{text}<extra></extra>"),
        go.Scatter(x=geo.contexts_2d[:, 0], y=geo.contexts_2d[:, 1], mode="lines+markers", name="contexts c_t",
                   marker=dict(size=8, color=ORANGE, symbol="diamond"), line=dict(color=ORANGE),
                   customdata=[f"c{t + 1} → {w}" for t, w in enumerate(target)],
                   hovertemplate="%{customdata}<extra></extra>"),
    ])
    share = 100 * geo.explained.sum()
    fig.update_layout(title=f"{for_plotly(title)}: PCA plane, {share:.0f}% of variance", height=460,
                      margin=dict(l=10, r=10, t=50, b=10), xaxis_title="PC 1", yaxis_title="PC 2")
    return fig


def shares(weights: np.ndarray, source: list[str], target: list[str]) -> go.Figure:
    """Stacked bars: each source word's share α of every context c_t."""
    source, target = _esc(source), _esc(target)
    fig = go.Figure([go.Bar(x=list(range(len(target))), y=weights[:, s], name=source[s],
                            hovertemplate=f"{source[s]}: %{{y:.2f}}<extra></extra>") for s in range(len(source))])
    fig.update_xaxes(tickvals=list(range(len(target))), ticktext=target)
    fig.update_layout(barmode="stack", title="Who makes up c_t", yaxis_title="share α", height=320,
                      margin=dict(l=10, r=10, t=40, b=10))
    return fig
