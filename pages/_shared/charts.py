"""Plotly figures shared by the pages.

Pages pass raw text; every label, title and hover text is escaped here, once,
for plotly (:func:`.labels.for_plotly`). Axes are numeric with text ticks, so
repeated tokens ("the … the") stay separate rows and columns.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from models.analysis.alignment import AttentionView, piece_label
from models.decoding.greedy import Trace

from .labels import for_plotly

BLUE, GREY, ORANGE = "#3b5bdb", "#adb5bd", "#f08c00"


def marked(tokens, unknown) -> list[str]:
    """Raw labels, unknown ones prefixed with ⁇."""
    return [("⁇" if u else "") + t for t, u in zip(tokens, unknown)]


def piece_text(pieces) -> list[str]:
    """Target pieces as text, without the ▁ word marker (raw)."""
    return [piece_label(p) for p in pieces]


def source_text(trace: Trace) -> list[str]:
    """A trace's source pieces as typed, unknown ones marked ⁇ (raw)."""
    return marked(trace.source.surfaces, trace.source.unknown)


def _esc(labels) -> list[str]:
    return [for_plotly(t) for t in labels]


def _view_labels(view: AttentionView) -> tuple[list[str], list[str]]:
    return _esc(marked(view.columns, view.unknown)), _esc(view.rows)


TICK_PX, CHAR_PX, TITLE_PX = 12, 7.5, 34  # tick font size, a generous character advance at it, the title's band
MAX_COLUMN_LABELS = 40  # beyond this every k-th column is labelled (hover still names each cell)


def _column_ticks(columns: list[str]) -> tuple[list[int], list[str], int, float]:
    """Which columns get a label, the labels, their angle, and how far they rise above the plot (px).

    Neighbouring labels at −45° sit ``dx · sin 45°`` apart, at −90° ``dx`` apart: past 24 columns they stand
    upright, past 40 only every k-th is written, so on any width ≥ 600 px they keep at least a line apart.
    """
    step = -(-len(columns) // MAX_COLUMN_LABELS)  # ceil
    shown = list(range(0, len(columns), step))
    angle = -45 if len(shown) <= 24 else -90
    longest = max((len(columns[i]) for i in shown), default=1)
    rise = (CHAR_PX * longest + TICK_PX) * (0.71 if angle == -45 else 1.0)
    return shown, [columns[i] for i in shown], angle, rise


def _axes(fig: go.Figure, columns: list[str], rows: list[str]) -> go.Figure:
    """Text ticks on numeric axes: columns above the matrix, rows down its side; the title gets its own band
    above the column labels, however long they are, so neither runs into the other."""
    shown, labels, angle, rise = _column_ticks(columns)
    fig.update_xaxes(tickvals=shown, ticktext=labels, side="top", tickangle=angle, tickfont=dict(size=TICK_PX))
    fig.update_yaxes(tickvals=list(range(len(rows))), ticktext=rows, autorange="reversed")
    top = TITLE_PX + rise + 12
    fig.update_layout(height=max(260, 28 * len(rows) + 50 + top), margin=dict(l=10, r=10, t=top, b=10),
                      title=dict(y=1, yref="container", yanchor="top", pad=dict(t=10)))
    return fig


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


def similarity(matrix: np.ndarray, labels: list[str], title: str) -> go.Figure:
    fig = go.Figure(go.Heatmap(z=matrix, colorscale="Viridis", zmin=-1, zmax=1, colorbar=dict(title="cos"),
                               hovertemplate="cos = %{z:.3f}<extra></extra>"))
    fig.update_layout(title=title)
    return _axes(fig, _esc(labels), _esc(labels))


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
