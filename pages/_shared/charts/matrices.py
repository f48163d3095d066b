"""Matrices: attention (or attribution) heatmaps, a layer's heads side by side, people's links over them, the
difference of two, and similarity."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from models.analysis.alignment import AttentionView

from ..labels import for_plotly
from .base import ORANGE, _axes, _esc, _view_labels


def heatmap(view: AttentionView, title: str = "", clickable: bool = False, measure: str = "α") -> go.Figure:
    """Attention (or an attribution, named ``measure``): rows = target tokens, columns = source tokens; hover gives
    the weight (and the energy, per piece).

    ``clickable`` lays an invisible marker on every cell, which carries the hover and reports clicks as
    selected points (plotly heatmaps report none to ``st.plotly_chart(on_select=…)``): ``y`` is the row.
    """
    cols, rows = _view_labels(view)
    T, S = view.weights.shape
    labels = np.array([[f"{rows[t]} ← {cols[s]}" for s in range(S)] for t in range(T)], dtype=object)
    parts = [labels, view.weights.astype(object)]
    template = "%{customdata[0]}<br>" + measure + " = %{customdata[1]:.3f}"
    if view.energies is not None:  # word-level views have no single energy per cell
        parts.append(view.energies.astype(object))
        template += "<br>energy e = %{customdata[2]:.3f}"
    custom = np.dstack(parts)  # [T, S, 2 or 3]
    fig = go.Figure(go.Heatmap(z=view.weights, customdata=custom, colorscale="Blues", zmin=0, zmax=1,
                               colorbar=dict(title=measure), hovertemplate=template + "<extra></extra>"))
    if clickable:
        rows_at, cols_at = np.mgrid[0:T, 0:S]
        fig.data[0].update(hoverinfo="skip", hovertemplate=None)
        fig.add_trace(go.Scatter(x=cols_at.ravel(), y=rows_at.ravel(), mode="markers", showlegend=False,
                                 marker=dict(size=18, opacity=0), customdata=custom.reshape(T * S, -1),
                                 hovertemplate=template + "<extra></extra>"))
        fig.update_layout(clickmode="event+select", dragmode=False)
    fig.update_layout(title=for_plotly(title))
    return _axes(fig, cols, rows)


def head_grid(views: list[AttentionView], titles: list[str], selected: int | None) -> go.Figure:
    """One small heatmap per head of a layer (bertviz's small multiples), on shared rows; an invisible marker on
    every cell reports a click with its head (``customdata[0]``), like :func:`heatmap`'s cells."""
    from plotly.subplots import make_subplots  # only a multi-head model's page needs it

    per_row = min(len(views), 4)
    grid_rows = -(-len(views) // per_row)
    names = [("▶ " if h == selected else "") + t for h, t in enumerate(_esc(titles))]
    fig = make_subplots(grid_rows, per_row, subplot_titles=names, horizontal_spacing=0.02, vertical_spacing=0.06)
    cols, rows = _view_labels(views[0])
    T, S = views[0].weights.shape
    rows_at, cols_at = np.mgrid[0:T, 0:S]
    for h, view in enumerate(views):
        at = dict(row=h // per_row + 1, col=h % per_row + 1)
        fig.add_trace(go.Heatmap(z=view.weights, colorscale="Blues", zmin=0, zmax=1, showscale=False,
                                 hoverinfo="skip"), **at)
        custom = [[h, f"{names[h].lstrip('▶ ')}: {rows[t]} ← {cols[s]}", float(view.weights[t, s])]
                  for t, s in zip(rows_at.ravel(), cols_at.ravel())]
        fig.add_trace(go.Scatter(x=cols_at.ravel(), y=rows_at.ravel(), mode="markers", showlegend=False,
                                 marker=dict(size=9, opacity=0), customdata=custom,
                                 hovertemplate="%{customdata[1]}<br>α = %{customdata[2]:.3f}<extra></extra>"), **at)
    fig.update_xaxes(showticklabels=False, showgrid=False)
    fig.update_yaxes(autorange="reversed", showticklabels=False, showgrid=False)
    fig.update_yaxes(tickvals=list(range(T)), ticktext=rows, showticklabels=True, col=1)
    fig.update_layout(height=grid_rows * max(160, 16 * T + 40), margin=dict(l=10, r=10, t=40, b=10),
                      clickmode="event+select", dragmode=False)
    return fig


def gold_links(fig: go.Figure, sure: frozenset, possible: frozenset) -> go.Figure:
    """People's links over a word heatmap (x = English word, y = French word): Sure as open squares, links they
    marked only Possible as small open circles."""
    for links, name, symbol, size in ((sure, "Sure (people)", "square-open", 22),
                                      (possible - sure, "Possible (people)", "circle-open", 11)):
        links = sorted(links)
        fig.add_trace(go.Scatter(x=[i for i, _ in links], y=[j for _, j in links], mode="markers", name=name,
                                 marker=dict(symbol=symbol, size=size, color=ORANGE, line=dict(width=2)),
                                 hoverinfo="skip"))
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.02, x=0))
    return fig


def difference_heatmap(diff: np.ndarray, view: AttentionView, names: tuple[str, str]) -> go.Figure:
    cols, rows = _view_labels(view)
    a, b = _esc(names)
    fig = go.Figure(
        go.Heatmap(z=diff, colorscale="RdBu", zmid=0, zmin=-1, zmax=1, colorbar=dict(title="Δα"),
                   hovertemplate=f"{a} − {b} = %{{z:.3f}}<extra></extra>")
    )
    fig.update_layout(title=f"{a} minus {b}")
    return _axes(fig, cols, rows)


def similarity(matrix: np.ndarray, labels: list[str], title: str) -> go.Figure:
    fig = go.Figure(go.Heatmap(z=matrix, colorscale="Viridis", zmin=-1, zmax=1, colorbar=dict(title="cos"),
                               hovertemplate="cos = %{z:.3f}<extra></extra>"))
    fig.update_layout(title=title)
    return _axes(fig, _esc(labels), _esc(labels))


def aer_grid(rows: list[str], columns: list[str], values: list[list[float | None]], title: str) -> go.Figure:
    """AER % per layer (rows) and head (columns, the layer's mean last); lower is better, so darker is better."""
    z = np.array([[np.nan if v is None else v for v in row] for row in values], dtype=float)
    text = [["" if v is None else f"{v:.1f}" for v in row] for row in values]
    fig = go.Figure(go.Heatmap(z=z, x=_esc(columns), y=_esc(rows), text=text, texttemplate="%{text}",
                               colorscale="Blues_r", colorbar=dict(title="AER %"),
                               hovertemplate="%{y}, %{x}: AER %{z:.1f} %<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(title=for_plotly(title), height=60 * len(rows) + 110, margin=dict(l=10, r=10, t=40, b=10))
    return fig

