"""What every chart shares: colours, labels escaped once for plotly, and matrix axes with text ticks.

Pages pass raw text; every label, title and hover text is escaped in this package, once, for plotly
(:func:`..labels.for_plotly`). Axes are numeric with text ticks, so repeated tokens ("the … the") stay separate rows
and columns.
"""
from __future__ import annotations

import plotly.graph_objects as go

from models.analysis.alignment import AttentionView, piece_label
from models.decoding.trace import Trace

from ..labels import for_plotly

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
