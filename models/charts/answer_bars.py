"""The answer at a glance: each model's AER against people, matrix by matrix, beside the floor and the statistical
aligners; and each matrix's deletion score against a random ranking's — Vega-Lite, one row a model, one bar a
matrix, each chart as wide as its column (side by side on a laptop, one above the other on a phone)."""
from __future__ import annotations

import altair as alt
import pandas as pd

from .base import FIT_WIDTH, GREY, title

WHICH = ["raw attention", "best other matrix", "fit to human links"]  # a bar's matrix, by what it is
COLOURS = ["#3b5bdb", "#74c0fc", "#f08c00"]
ROW_PX = 40  # one model's row: its three bars


def _y(order: list[str]) -> alt.Y:
    """The models' rows, labelled on both charts: side by side on a laptop, one above the other on a phone."""
    return alt.Y("bar:N", sort=order, title=None, scale=alt.Scale(domain=order),  # every row, scored or not
                 axis=alt.Axis(labelLimit=260, labelFontSize=12, domain=False))


def _colour() -> alt.Color:
    """Which matrix a bar is; the page's caption names the colours (a legend would be cut on a laptop's column)."""
    return alt.Color("which:N", scale=alt.Scale(domain=WHICH, range=COLOURS), legend=None)


def alignment_chart(bars: pd.DataFrame, references: pd.DataFrame, text: str) -> alt.LayerChart:
    """Bars of test AER (lower is better), a clickable point a bar; the references as labelled rules."""
    order = list(dict.fromkeys(bars["bar"]))
    pick = alt.selection_point(name="bar", fields=["model", "matrix"])
    base = alt.Chart(bars).encode(y=_y(order), yOffset=alt.YOffset("which:N", sort=WHICH))
    x = alt.X("AER:Q", title="AER % against people (lower is better)", scale=alt.Scale(domain=[0, 60]))
    drawn = base.mark_bar(cursor="pointer").encode(
        x=x, color=_colour(), opacity=alt.condition(pick, alt.value(1.0), alt.value(0.45)),
        tooltip=["bar:N", alt.Tooltip("which:N", title="which matrix"), "matrix:N", "at:N",
                 alt.Tooltip("AER:Q", format=".1f")]).add_params(pick)
    values = base.mark_text(align="left", dx=3, fontSize=11).encode(x="AER:Q", text=alt.Text("AER:Q", format=".1f"))
    rules = alt.Chart(references).mark_rule(strokeDash=[4, 3], color=GREY).encode(
        x="AER:Q", tooltip=["what:N", alt.Tooltip("AER:Q", format=".1f")])
    named = references[references["label"] != ""]
    names = [alt.Chart(named[named["line"] == line]).mark_text(  # a line each above the plot: they never overlap;
        align="left" if line else "right", baseline="bottom", dx=3 if line else -3, dy=-2 - 14 * line, y=0,
        fontSize=11, color="#495057").encode(x="AER:Q", text="label:N")  # the floor's leftwards, it stands right
        for line in sorted(set(named["line"]))]
    return alt.layer(drawn, values, rules, *names).properties(title=title(text), height=ROW_PX * len(order),
                                                            autosize=FIT_WIDTH)


def deletion_chart(bars: pd.DataFrame, random: pd.DataFrame, text: str) -> alt.LayerChart:
    """Each matrix's comprehensiveness (nats, higher is better), a clickable point a bar as on the AER chart, its
    model's random ranking as a black tick; its rows labelled too (on a phone it stands below the other)."""
    order = list(dict.fromkeys(bars["bar"]))
    scored = bars[bars["comprehensiveness"].notna()].astype({"comprehensiveness": float})
    pick = alt.selection_point(name="bar", fields=["model", "matrix"])
    drawn = alt.Chart(scored).mark_bar(cursor="pointer").encode(
        y=_y(order), yOffset=alt.YOffset("which:N", sort=WHICH),
        x=alt.X("comprehensiveness:Q", title="nats (higher is better)"), color=_colour(),
        opacity=alt.condition(pick, alt.value(1.0), alt.value(0.45)),
        tooltip=["bar:N", alt.Tooltip("which:N", title="which matrix"), "matrix:N",
                 alt.Tooltip("comprehensiveness:Q", format=".2f")]).add_params(pick)
    floor = alt.Chart(random).mark_tick(color="black", thickness=2, size=ROW_PX - 6).encode(
        y=_y(order), x="comprehensiveness:Q",
        tooltip=["bar:N", alt.Tooltip("comprehensiveness:Q", format=".2f", title="random ranking")])
    return alt.layer(drawn, floor).properties(title=title(text), height=ROW_PX * len(order), autosize=FIT_WIDTH)
