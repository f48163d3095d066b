"""Matrices: attention (or attribution) heatmaps, a layer's heads side by side, people's links over them, the
difference of two, similarity, and AER by head — Vega-Lite.

A clickable heatmap carries the point selection ``cell`` on its row ``t``; the head grid the selection ``head``:
``st.altair_chart(…, on_select=…)`` reports ``selection.cell == [{"t": row}]`` or ``selection.head``.
"""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from models.analysis.heatmaps import Heatmap

from .base import FIT_WIDTH, ORANGE, ROW_PX, column_axis, marked, row_axis, title


def _cells(view: Heatmap, weights: np.ndarray | None = None) -> pd.DataFrame:
    """One record per cell: its row ``t``, column ``s``, a ``cell`` label, ``weight`` (and ``energy``)."""
    weights = view.weights if weights is None else weights
    T, S = weights.shape
    columns = marked(view.columns, view.unknown)
    frame = pd.DataFrame({"t": np.repeat(np.arange(T), S), "s": np.tile(np.arange(S), T),
                          "cell": [f"{view.rows[t]} ← {columns[s]}" for t in range(T) for s in range(S)],
                          "weight": weights.astype(float).ravel()})
    if view.energies is not None:  # word-level views have no single energy per cell
        frame["energy"] = view.energies.astype(float).ravel()
    return frame


def _rects(frame: pd.DataFrame, view: Heatmap, measure: str, scheme: str = "blues",
           domain: tuple[float, float] = (0, 1)) -> alt.Chart:
    tooltip = [alt.Tooltip("cell:N", title="cell"), alt.Tooltip("weight:Q", title=measure, format=".3f")]
    colour_bar = min(200, max(60, ROW_PX * len(view.rows) - 20))  # no longer than the plot it stands beside
    if "energy" in frame:
        tooltip.append(alt.Tooltip("energy:Q", title="energy e", format=".3f"))
    return alt.Chart(frame).mark_rect().encode(
        x=alt.X("s:O", axis=column_axis(marked(view.columns, view.unknown))),
        y=alt.Y("t:O", axis=row_axis(list(view.rows))),
        color=alt.Color("weight:Q", scale=alt.Scale(domain=list(domain), scheme=scheme),
                        legend=alt.Legend(title=measure, gradientLength=colour_bar)),
        tooltip=tooltip,
    ).properties(height=ROW_PX * len(view.rows))


def heatmap(view: Heatmap, text: str = "", clickable: bool = False, measure: str = "α") -> alt.Chart:
    """Attention (or an attribution, named ``measure``): rows = target tokens, columns = source tokens; the tooltip
    gives the weight (and the energy, per piece); ``clickable`` reports a clicked cell's row as ``cell``."""
    chart = _rects(_cells(view), view, measure)
    if clickable:
        chart = chart.add_params(alt.selection_point(name="cell", fields=["t"], on="click"))
    return chart.properties(title=title(text), autosize=FIT_WIDTH)


def head_grid(views: list[Heatmap], titles: list[str], selected: int | None,
              columns: int = 4, measure: str = "α") -> alt.FacetChart:
    """One small heatmap per head (a layer's heads, or every layer × head: bertviz's model view), ``columns`` a
    row, the ``selected`` one marked ▶; a click reports its index in ``views`` as ``head``."""
    labels = [("▶ " if h == selected else "") + t for h, t in enumerate(titles)]
    frame = pd.concat([_cells(v).assign(head=h, label=labels[h]) for h, v in enumerate(views)], ignore_index=True)
    frame["cell"] = frame["label"].str.lstrip("▶ ") + ": " + frame["cell"]
    small = _rects(frame, views[0], measure).encode(
        x=alt.X("s:O", axis=None),
        y=alt.Y("t:O", axis=None),
    ).properties(width=200, height=min(ROW_PX, 8) * len(views[0].rows))
    small = small.add_params(alt.selection_point(name="head", fields=["head"], on="click"))
    return small.facet(facet=alt.Facet("label:N", sort=labels, title=None), columns=columns).configure_legend(
        orient="bottom")  # below the grid: beside it, a wide grid's legend was cut at a laptop's edge


def gold_links(view: Heatmap, text: str, measure: str, sure: frozenset, possible: frozenset) -> alt.LayerChart:
    """A word heatmap (x = English word, y = French word) with people's links over it: Sure as open squares, links
    marked only Possible as small open circles."""
    T, S = view.weights.shape
    links = [{"s": i, "t": j, "link": name} for found, name in ((sure, "Sure (people)"),
                                                                (possible - sure, "Possible (people)"))
             for i, j in sorted(found) if i < S and j < T]
    people = alt.Chart(pd.DataFrame(links, columns=["s", "t", "link"])).mark_point(
        filled=False, strokeWidth=2, color=ORANGE).encode(
        x="s:O", y="t:O",
        shape=alt.Shape("link:N", scale=alt.Scale(domain=["Sure (people)", "Possible (people)"],
                                                  range=["square", "circle"]),
                        legend=alt.Legend(title=None, orient="bottom")),
        size=alt.condition(alt.datum.link == "Sure (people)", alt.value(380), alt.value(90)),
        tooltip=["link:N"],
    )
    return alt.layer(_rects(_cells(view), view, measure), people).properties(title=title(text), autosize=FIT_WIDTH)


def difference_heatmap(diff: np.ndarray, view: Heatmap, names: tuple[str, str]) -> alt.Chart:
    """``a − b`` per cell, red where ``a`` reads less, blue where more."""
    frame = _cells(Heatmap(view.rows, view.columns, view.unknown, diff, None))
    return _rects(frame, view, "Δα", scheme="redblue", domain=(-1, 1)).properties(
        title=title(f"{names[0]} minus {names[1]}"), autosize=FIT_WIDTH)


def similarity(matrix: np.ndarray, labels: list[str], text: str) -> alt.Chart:
    view = Heatmap(tuple(labels), tuple(labels), (False,) * len(labels), matrix, None)
    return _rects(_cells(view), view, "cos", scheme="viridis", domain=(-1, 1)).properties(title=title(text),
                                                                                          autosize=FIT_WIDTH)


def aer_grid(rows: list[str], columns: list[str], values: list[list[float | None]], text: str,
             measure: str = "AER %", lower_is_better: bool = True) -> alt.LayerChart:
    """A number per layer (rows) and head (columns): AER % by default (the layer's mean last; lower is better, so
    darker), or another ``measure`` such as a head's BLEU drop (higher: it matters more, darker)."""
    frame = pd.DataFrame([{"layer": r, "head": c, "value": v} for r, vs in zip(rows, values)
                          for c, v in zip(columns, vs) if v is not None])
    base = alt.Chart(frame).encode(x=alt.X("head:N", sort=columns, title=None, axis=alt.Axis(orient="top")),
                                   y=alt.Y("layer:N", sort=rows, title=None))
    cells = base.mark_rect().encode(color=alt.Color("value:Q", scale=alt.Scale(scheme="blues",
                                                                               reverse=lower_is_better),
                                                    legend=alt.Legend(title=measure)),
                                    tooltip=["layer", "head", alt.Tooltip("value:Q", title=measure, format=".1f")])
    numbers = base.mark_text().encode(text=alt.Text("value:Q", format=".1f"))
    return alt.layer(cells, numbers).properties(title=title(text), height=40 * len(rows), autosize=FIT_WIDTH)


def weight_grid(grid: tuple[list[str], list[str], list[list[float]]], aer: tuple | None, text: str, bound: float,
                legend: bool = False) -> alt.LayerChart:
    """A probe's weight per layer (rows) and head (columns; the layer's whole last), red where a head's weight
    makes a link likelier, blue where less, on one scale ±``bound`` shared by every grid of the probe (with
    ``legend``, its bar below); each head's own AER (``aer``, a grid of the same cells) in its tooltip."""
    rows, columns, values = grid
    own = aer[2] if aer and len(aer[2]) == len(values) and len(aer[1]) == len(columns) else None
    frame = pd.DataFrame([{"layer": r, "head": c, "value": v, "aer": own[i][j] if own else None}
                          for i, (r, vs) in enumerate(zip(rows, values)) for j, (c, v) in enumerate(zip(columns, vs))])
    base = alt.Chart(frame).encode(x=alt.X("head:N", sort=columns, title="head", axis=alt.Axis(orient="top",
                                                                                              labelAngle=0)),
                                   y=alt.Y("layer:N", sort=rows, title=None))
    cells = base.mark_rect().encode(
        color=alt.Color("value:Q", scale=alt.Scale(scheme="redblue", reverse=True, domain=[-bound, bound]),
                        legend=alt.Legend(title="weight", orient="bottom", gradientLength=120) if legend else None),
        tooltip=["layer", "head", alt.Tooltip("value:Q", title="weight", format="+.2f"),
                 alt.Tooltip("aer:Q", title="its own AER %", format=".1f")])
    numbers = base.transform_filter(alt.datum.value != 0).mark_text(fontSize=10).encode(
        text=alt.Text("value:Q", format="+.1f"))  # only the heads it weighs: most weights are zero (L1)
    return alt.layer(cells, numbers).properties(title=title(text), height=28 * len(rows), autosize=FIT_WIDTH)
