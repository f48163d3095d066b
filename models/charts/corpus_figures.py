"""A corpus at a glance: one statistic's distribution per model, and any two columns against each other."""
from __future__ import annotations

import altair as alt
import pandas as pd

from .base import FIT_WIDTH, title


def distribution(values: dict[str, pd.Series], text: str) -> alt.Chart:
    """Histograms of one statistic, a model a colour, overlaid (``values``: model → its column; NaN left out)."""
    frame = pd.DataFrame([{"model": name, "value": float(v)} for name, column in values.items()
                          for v in column.dropna()], columns=["model", "value"])
    return alt.Chart(frame, title=title(text)).mark_bar(opacity=0.55, binSpacing=0).encode(
        x=alt.X("value:Q", bin=alt.Bin(maxbins=30), title=None),
        y=alt.Y("count():Q", stack=None, title="sentences"),
        color=alt.Color("model:N", legend=alt.Legend(title=None, orient="bottom")),
        tooltip=["model:N", alt.Tooltip("count():Q", title="sentences")],
    ).properties(height=240, autosize=FIT_WIDTH)


def scatter(rows: pd.DataFrame, x: str, y: str) -> alt.Chart:
    """Column ``y`` against column ``x``, a point a sentence (hover: its number and source)."""
    frame = rows[["#", "source", x, y]].dropna().rename(columns={x: "x", y: "y"})
    return alt.Chart(frame, title=title(f"{y} against {x}")).mark_circle(size=40, opacity=0.6).encode(
        x=alt.X("x:Q", title=x), y=alt.Y("y:Q", title=y),
        tooltip=["#:Q", "source:N", alt.Tooltip("x:Q", title=x, format=".3f"),
                 alt.Tooltip("y:Q", title=y, format=".3f")],
    ).properties(height=320, autosize=FIT_WIDTH)
