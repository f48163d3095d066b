"""What every chart shares: colours, raw labels, and the axes of a matrix.

Charts are Vega-Lite (Altair), which Streamlit draws natively: no chart library is fetched by a visitor's browser
beyond Streamlit's own. Vega-Lite draws labels as SVG text and its tooltips as text, so pages pass raw text and
nothing is escaped here. Axes are ordinal positions (0, 1, …) labelled through a lookup, so repeated tokens
("the … the") stay separate rows and columns.
"""
from __future__ import annotations

import json
import textwrap

import altair as alt

from models.analysis.heatmaps import piece_label
from models.decoding.trace import Trace

# Altair refuses inline data over 5,000 rows; the longest sentence's heatmap has 80 × 170 cells (13,600 records,
# a few hundred kB), which a chart of the app draws without trouble.
alt.data_transformers.disable_max_rows()

BLUE, GREY, ORANGE = "#3b5bdb", "#adb5bd", "#f08c00"
#: The chart fills the page's width; its height is its plot's (plus axes and title), not squeezed into a total.
FIT_WIDTH = alt.AutoSizeParams(type="fit-x", contains="padding")
MAX_COLUMN_LABELS = 40  # beyond this every k-th column is labelled (the tooltip still names each cell)
TITLE_CHARS = 90  # a longer title is wrapped onto several lines, never cut
ROW_PX = 22  # height of one heatmap row


def marked(tokens, unknown) -> list[str]:
    """Raw labels, unknown ones prefixed with ⁇."""
    return [("⁇" if u else "") + t for t, u in zip(tokens, unknown)]


def piece_text(pieces) -> list[str]:
    """Target pieces as text, without the ▁ word marker (raw)."""
    return [piece_label(p) for p in pieces]


def source_text(trace: Trace) -> list[str]:
    """A trace's source pieces as typed, unknown ones marked ⁇ (raw)."""
    return marked(trace.source.surfaces, trace.source.unknown)


def title(text: str) -> alt.TitleParams:
    """A chart title kept whole: wrapped onto lines of at most :data:`TITLE_CHARS`, left-aligned."""
    return alt.TitleParams(textwrap.wrap(text, TITLE_CHARS) or [""], anchor="start", fontSize=14)


def lookup(labels: list[str], every: int = 1) -> str:
    """A Vega expression naming position ``datum.value`` by its label (every ``every``-th, the rest blank)."""
    names = json.dumps(list(labels), ensure_ascii=False)
    if every == 1:
        return f"{names}[datum.value]"
    return f"datum.value % {every} == 0 ? {names}[datum.value] : ''"


def column_axis(columns: list[str]) -> alt.Axis:
    """Source tokens along the top, slanted; past :data:`MAX_COLUMN_LABELS` only every k-th is written."""
    every = -(-len(columns) // MAX_COLUMN_LABELS)  # ceil
    return alt.Axis(orient="top", title=None, labelAngle=-45 if len(columns) <= 24 else -90, labelOverlap=False,
                    labelExpr=lookup(columns, every), labelLimit=160, ticks=False, domain=False)


def row_axis(rows: list[str]) -> alt.Axis:
    return alt.Axis(title=None, labelExpr=lookup(rows), labelOverlap=False, labelLimit=160, ticks=False,
                    domain=False)
