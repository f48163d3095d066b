"""Download buttons for an attention matrix: CSV, JSON, Pharaoh links (:mod:`models.analysis.heatmaps` writes
them), PNG and SVG."""
from __future__ import annotations

import altair as alt
import streamlit as st

from models.analysis.heatmaps import Heatmap, hard_alignments, matrix_csv, matrix_json, pharaoh

from . import cache

IMAGE_COLUMN_PX = 28  # an exported heatmap's width per source token (a file has no page to stretch to)


def download_buttons(view: Heatmap, chart: alt.TopLevelMixin, stem: str) -> None:
    cols = st.columns(5)
    cols[0].download_button("Matrix (CSV)", matrix_csv(view), f"{stem}.csv", "text/csv")
    cols[1].download_button("Matrix (JSON)", matrix_json(view, stem), f"{stem}.json", "application/json")
    cols[2].download_button("Alignments (Pharaoh)", pharaoh(hard_alignments(view)) + "\n", f"{stem}.pharaoh.txt",
                            "text/plain", help="source-target index pairs, 0-based, EOS left out")
    if cols[3].button("Heatmap as PNG / SVG", help="renders the chart on the server"):
        st.session_state[f"{stem}_images"] = True
    if st.session_state.get(f"{stem}_images"):
        png, svg = cache.images(chart.properties(width=max(320, IMAGE_COLUMN_PX * len(view.columns))).to_json())
        cols[3].download_button("PNG", png, f"{stem}.png", "image/png")
        cols[4].download_button("SVG", svg, f"{stem}.svg", "image/svg+xml")
