"""One decoding step at a time: bars over the source, the next-piece choices, links, and the beam's search tree."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from models.analysis.alignment import AttentionView

from .base import BLUE, GREY, ORANGE, _esc, _view_labels, piece_text


def bars(labels: list[str], values, highlight: int | None = None, title: str = "", x_title: str = "") -> go.Figure:
    labels = _esc(labels)
    colours = [ORANGE if i == highlight else BLUE for i in range(len(values))]
    fig = go.Figure(go.Bar(x=list(range(len(values))), y=list(values), marker_color=colours,
                           hovertemplate="%{customdata}: %{y:.3f}<extra></extra>", customdata=labels))
    if len(labels) <= 40:  # beyond that tick text is unreadable; hover still names each bar
        fig.update_xaxes(tickvals=list(range(len(labels))), ticktext=labels)
    fig.update_xaxes(title=x_title)
    fig.update_layout(title=title, height=280, margin=dict(l=10, r=10, t=40, b=10))
    return fig


def top_k(choices: tuple[tuple[str, float], ...], chosen: str) -> go.Figure:
    """The step's most likely next pieces, the one written in orange."""
    pieces = [p for p, _ in choices]
    return bars(piece_text(pieces), [q for _, q in choices],
                pieces.index(chosen) if chosen in pieces else None, "Most likely next subwords (written: orange)")


def links(view: AttentionView, step: int, min_weight: float = 0.05, measure: str = "α") -> go.Figure:
    """Source tokens above, target tokens below; a line per link, width ∝ weight (α or ``measure``), step ``step``
    in colour."""
    cols, rows = _view_labels(view)
    S, T = len(cols), len(rows)
    xs, xt = np.linspace(0, 1, S), np.linspace(0, 1, T)
    fig = go.Figure()
    for t in range(T):
        for s in np.flatnonzero(view.weights[t] >= min_weight):
            w = float(view.weights[t, s])
            fig.add_trace(go.Scatter(
                x=[xs[s], xt[t]], y=[1, 0], mode="lines", hoverinfo="text",
                text=f"{rows[t]} ← {cols[s]}: {measure} = {w:.2f}", opacity=0.9 if t == step else 0.25,
                line=dict(width=1 + 9 * w, color=ORANGE if t == step else GREY), showlegend=False,
            ))
    fig.add_trace(go.Scatter(x=xs, y=[1] * S, mode="text", text=cols, textposition="top center", hoverinfo="skip",
                             showlegend=False))
    fig.add_trace(go.Scatter(x=xt, y=[0] * T, mode="text", text=rows, textposition="bottom center",
                             hoverinfo="skip", showlegend=False))
    fig.update_xaxes(visible=False, range=[-0.05, 1.05])
    fig.update_yaxes(visible=False, range=[-0.3, 1.3])
    fig.update_layout(height=260, margin=dict(l=10, r=10, t=10, b=10))
    return fig


def beam_tree(nodes, ends: tuple[int, ...], chosen: int) -> go.Figure:
    """The search, step by step: kept pieces (blue), the best pruned (grey), the chosen hypothesis (orange)."""
    rank: dict[int, int] = {}
    for step in sorted({n.step for n in nodes}):
        here = sorted((i for i, n in enumerate(nodes) if n.step == step), key=lambda i: -nodes[i].score)
        rank |= {i: r for r, i in enumerate(here)}
    path, node = set(), ends[chosen]
    while node is not None:
        path.add(node)
        node = nodes[node].parent
    groups = {"chosen": (ORANGE, "solid", 3), "kept": (BLUE, "solid", 1.5), "pruned": (GREY, "dot", 1)}
    fig = go.Figure()
    for name, (colour, dash, width) in groups.items():
        members = [i for i, n in enumerate(nodes)
                   if name == ("chosen" if i in path else "kept" if n.kept else "pruned")]
        xs, ys = [], []
        for i in members:
            if nodes[i].parent is not None:
                xs += [nodes[i].step - 1, nodes[i].step, None]
                ys += [-rank[nodes[i].parent], -rank[i], None]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=colour, dash=dash, width=width),
                                 hoverinfo="skip", showlegend=False))
        fig.add_trace(go.Scatter(
            x=[nodes[i].step for i in members], y=[-rank[i] for i in members], mode="markers+text", name=name,
            text=_esc(piece_text([nodes[i].piece for i in members])), textposition="top center",
            marker=dict(color=colour, size=9, symbol=["square" if nodes[i].finished else "circle" for i in members]),
            customdata=[nodes[i].score for i in members],
            hovertemplate="%{text}: log p = %{customdata:.2f}<extra></extra>",
        ))
    fig.update_xaxes(title="decoding step", dtick=1)
    fig.update_yaxes(visible=False)
    fig.update_layout(height=320, margin=dict(l=10, r=10, t=30, b=10), legend=dict(orientation="h"))
    return fig
