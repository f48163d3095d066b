"""The context vectors' path among the annotations, and who makes up each context — Vega-Lite."""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from .base import BLUE, FIT_WIDTH, GREY, ORANGE, lookup, title


def context_path(geo, source: list[str], target: list[str], text: str,
                 names: tuple[str, str] = ("annotations h_s", "contexts c_t")) -> alt.LayerChart:
    """What is mixed as labelled points (an RNN's annotations h_s, or a head's value vectors), their convex hull
    (dotted), and the path of the mixtures at steps 1 … T (orange); ``names`` says which in the legend."""
    hull = np.vstack([geo.hull, geo.hull[:1]]) if len(geo.hull) else np.zeros((0, 2))
    x, y = alt.X("x:Q", title="PC 1"), alt.Y("y:Q", title="PC 2")
    outline = alt.Chart(pd.DataFrame({"x": hull[:, 0], "y": hull[:, 1], "order": range(len(hull))})).mark_line(
        color=GREY, strokeDash=[3, 3]).encode(x=x, y=y, order="order:Q")
    h = pd.DataFrame({"x": geo.points_2d[:, 0], "y": geo.points_2d[:, 1], "word": list(source), "what": names[0]})
    c = pd.DataFrame({"x": geo.path_2d[:, 0], "y": geo.path_2d[:, 1], "order": range(len(target)),
                      "word": [f"step {t + 1} → {w}" for t, w in enumerate(target)], "what": names[1]})
    colour = alt.Color("what:N", scale=alt.Scale(domain=list(names), range=[BLUE, ORANGE]),
                       legend=alt.Legend(title=None, orient="bottom"))
    points = alt.Chart(h).mark_point(filled=True, size=80).encode(x=x, y=y, color=colour, tooltip=["word:N"])
    words = alt.Chart(h).mark_text(dy=-10).encode(x=x, y=y, text="word:N")
    path = alt.Chart(c).mark_line(point=alt.OverlayMarkDef(shape="diamond", size=70)).encode(
        x=x, y=y, order="order:Q", color=colour, tooltip=["word:N"])
    share = 100 * geo.explained.sum()
    return alt.layer(outline, points, words, path).properties(
        title=title(f"{text}: PCA plane, {share:.0f}% of variance"), height=420, autosize=FIT_WIDTH)


def shares(weights: np.ndarray, source: list[str], target: list[str]) -> alt.Chart:
    """Stacked bars: each source word's share α of every context c_t."""
    frame = pd.DataFrame([{"t": t, "word": source[s], "s": s, "share": float(weights[t, s])}
                          for t in range(len(target)) for s in range(len(source))])
    return alt.Chart(frame).mark_bar().encode(
        x=alt.X("t:O", axis=alt.Axis(title=None, labelExpr=lookup(list(target)), labelAngle=-45)),
        y=alt.Y("share:Q", title="share α", stack="zero"), order="s:Q",
        color=alt.Color("word:N", sort=list(dict.fromkeys(source)), legend=alt.Legend(title=None)),
        tooltip=["word:N", alt.Tooltip("share:Q", format=".2f")],
    ).properties(title=title("Who makes up c_t"), height=300, autosize=FIT_WIDTH)
