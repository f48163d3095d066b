"""Download buttons for an attention matrix: CSV, JSON, Pharaoh links, PNG and SVG."""
from __future__ import annotations

import csv
import io
import json

import plotly.graph_objects as go
import streamlit as st

from models.analysis.alignment import AttentionView, hard_alignments, pharaoh


def matrix_csv(view: AttentionView) -> str:
    """One row per target token, one column per source token (the csv module: no pandas import on the first page)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["", *view.columns])
    writer.writerows([row, *map(repr, weights)] for row, weights in zip(view.rows, view.weights.tolist()))
    return out.getvalue()


def matrix_json(view: AttentionView, name: str = "attention") -> str:
    """The matrix under ``name`` (``attention``, or the attribution shown in its place), with its labels."""
    data = {"target": view.rows, "source": view.columns, name: view.weights.round(6).tolist()}
    if view.energies is not None:
        data["energies"] = view.energies.round(6).tolist()
    return json.dumps(data, ensure_ascii=False, indent=1)


def browser_path() -> str | None:
    """The Chromium kaleido would drive to render images on the server, or None."""
    try:
        from choreographer.browsers.chromium import Chromium  # kaleido's browser finder

        return Chromium.find_browser(skip_local=False)
    except Exception:  # a kaleido without choreographer, or a finder that changed: treat as "no browser"
        return None


@st.cache_data(max_entries=16, show_spinner="Rendering the images…")
def _images(fig_json: str) -> tuple[bytes, bytes]:
    fig = go.Figure(json.loads(fig_json))
    return fig.to_image(format="png", scale=2), fig.to_image(format="svg")


def download_buttons(view: AttentionView, fig: go.Figure, stem: str) -> None:
    cols = st.columns(5)
    cols[0].download_button("Matrix (CSV)", matrix_csv(view), f"{stem}.csv", "text/csv")
    cols[1].download_button("Matrix (JSON)", matrix_json(view, stem), f"{stem}.json", "application/json")
    cols[2].download_button("Alignments (Pharaoh)", pharaoh(hard_alignments(view)) + "\n", f"{stem}.pharaoh.txt",
                            "text/plain", help="source-target index pairs, 0-based, EOS left out")
    if browser_path() is None:
        cols[3].caption("PNG / SVG need a Chromium on the server (`packages.txt`). The camera icon on the heatmap "
                        "saves a PNG from your browser.")
        return
    if cols[3].button("Heatmap as PNG / SVG", help="renders the figure on the server with Chromium"):
        st.session_state[f"{stem}_images"] = True
    if st.session_state.get(f"{stem}_images"):
        try:
            png, svg = _images(fig.to_json())
        except Exception as e:  # kaleido raises several types when no browser is available
            st.warning(f"Could not render images here ({type(e).__name__}). The camera icon on the heatmap "
                       "saves a PNG from your browser.")
            return
        cols[3].download_button("PNG", png, f"{stem}.png", "image/png")
        cols[4].download_button("SVG", svg, f"{stem}.svg", "image/svg+xml")
