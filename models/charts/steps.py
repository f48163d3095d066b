"""One decoding step at a time: bars over the source, the next-piece choices, links, and the beam's search tree —
Vega-Lite."""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from models.analysis.heatmaps import Heatmap

from .base import BLUE, FIT_WIDTH, GREY, ORANGE, lookup, marked, piece_text, title


def bars(labels: list[str], values, highlight: int | None = None, text: str = "", x_title: str = "") -> alt.Chart:
    """One bar per label, the ``highlight``-ed one orange; past 40 bars the axis stays unlabelled (the tooltip names
    each)."""
    frame = pd.DataFrame({"i": np.arange(len(values)), "label": list(labels), "value": np.asarray(values, float),
                          "shown": ["yes" if i == highlight else "no" for i in range(len(values))]})
    axis = alt.Axis(labelExpr=lookup(list(labels)), labelAngle=-45, labelOverlap=False, title=x_title or None)
    return alt.Chart(frame).mark_bar().encode(
        x=alt.X("i:O", axis=axis if len(labels) <= 40 else alt.Axis(labels=False, title=x_title or None)),
        y=alt.Y("value:Q", title=None),
        color=alt.Color("shown:N", scale=alt.Scale(domain=["no", "yes"], range=[BLUE, ORANGE]), legend=None),
        tooltip=[alt.Tooltip("label:N", title="token"), alt.Tooltip("value:Q", format=".3f")],
    ).properties(title=title(text), height=240, autosize=FIT_WIDTH)


def top_k(choices: tuple[tuple[str, float], ...], chosen: str) -> alt.Chart:
    """The step's most likely next pieces, the one written in orange."""
    pieces = [p for p, _ in choices]
    return bars(piece_text(pieces), [q for _, q in choices],
                pieces.index(chosen) if chosen in pieces else None, "Most likely next subwords (written: orange)")


def links(view: Heatmap, step: int, min_weight: float = 0.05, measure: str = "α") -> alt.LayerChart:
    """Source tokens above, target tokens below; a line per link, width ∝ weight (α or ``measure``), step ``step``
    in colour."""
    columns, rows = marked(view.columns, view.unknown), list(view.rows)
    xs, xt = np.linspace(0, 1, len(columns)), np.linspace(0, 1, len(rows))
    found = [{"x": xs[s], "x2": xt[t], "y": 1.0, "y2": 0.0, "weight": float(view.weights[t, s]),
              "now": "yes" if t == step else "no", "link": f"{rows[t]} ← {columns[s]}"}
             for t in range(len(rows)) for s in np.flatnonzero(view.weights[t] >= min_weight)]
    frame = pd.DataFrame(found, columns=["x", "x2", "y", "y2", "weight", "now", "link"])
    scale = alt.Scale(domain=[-0.05, 1.05])
    # Channels as objects and the step's emphasis as scales: Altair validates a shorthand string or a condition
    # dict against the whole Vega-Lite schema, which made this chart most of a new visitor's script run
    # (``python -m bench open``: the server's CPU then delays the chart scripts it serves).
    lines = alt.Chart(frame).mark_rule().encode(
        x=alt.X("x:Q", scale=scale, axis=None), x2=alt.X2("x2"),
        y=alt.Y("y:Q", scale=alt.Scale(domain=[-0.35, 1.35]), axis=None), y2=alt.Y2("y2"),
        strokeWidth=alt.StrokeWidth("weight:Q", scale=alt.Scale(domain=[0, 1], range=[1, 10]), legend=None),
        color=alt.Color("now:N", scale=alt.Scale(domain=["no", "yes"], range=[GREY, ORANGE]), legend=None),
        opacity=alt.Opacity("now:O", scale=alt.Scale(domain=["no", "yes"], range=[0.25, 0.9]), legend=None),
        tooltip=[alt.Tooltip("link:N"), alt.Tooltip("weight:Q", title=measure, format=".2f")],
    )
    words = pd.DataFrame({"x": [*xs, *xt], "y": [1.0] * len(columns) + [0.0] * len(rows), "word": [*columns, *rows]})
    text = {"x": alt.X("x:Q"), "y": alt.Y("y:Q"), "text": alt.Text("word:N")}
    above = alt.Chart(words.iloc[:len(columns)]).mark_text(dy=-10).encode(**text)
    below = alt.Chart(words.iloc[len(columns):]).mark_text(dy=12).encode(**text)
    return alt.layer(lines, above, below).properties(height=220, autosize=FIT_WIDTH)


def beam_tree(tree: tuple[list[dict], list[dict]]) -> alt.LayerChart:
    """The search laid out (:meth:`models.views.translation.BeamView.tree`), step by step: kept pieces (blue), the
    best pruned (grey), the chosen hypothesis (orange); higher is better, squares end with </s>."""
    points = pd.DataFrame(tree[0])
    edges = pd.DataFrame(tree[1], columns=["step", "step2", "y", "y2", "group"])
    colour = alt.Color("group:N", scale=alt.Scale(domain=["chosen", "kept", "pruned"], range=[ORANGE, BLUE, GREY]),
                       legend=alt.Legend(title=None, orient="bottom"))
    x, y = alt.X("step:Q", title="decoding step", axis=alt.Axis(tickMinStep=1)), alt.Y("y:Q", axis=None)
    lines = alt.Chart(edges).mark_rule().encode(x=x, x2="step2", y=y, y2="y2", color=colour)
    marks = alt.Chart(points).mark_point(filled=True, size=70).encode(
        x=x, y=y, color=colour, shape=alt.Shape("end:N", scale=alt.Scale(domain=["piece", "</s>"],
                                                                         range=["circle", "square"]), legend=None),
        tooltip=["piece:N", alt.Tooltip("log p:Q", format=".2f")])
    labels = alt.Chart(points).mark_text(dy=-10).encode(x=x, y=y, text="piece:N")
    return alt.layer(lines, marks, labels).properties(height=300, autosize=FIT_WIDTH)
