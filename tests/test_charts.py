"""models/charts/: titles stay whole, crowded column labels stand upright and then thin out, labels reach
Vega-Lite as typed, and a heatmap renders to PNG and SVG on the server without a browser."""
import html
import json
import re

import numpy as np

from models import charts
from models.analysis.heatmaps import Heatmap
from models.charts import base
from pages._shared import cache

HOSTILE = ['"Go"', "&", "<b>run</b>", "</script>", "a\\b", "⁇😀"]


def view(columns: list[str], rows: int = 3) -> Heatmap:
    S = len(columns)
    return Heatmap(rows=tuple(f"r{t}" for t in range(rows)), columns=tuple(columns), unknown=(False,) * S,
                         weights=np.full((rows, S), 1 / S, dtype=np.float32), energies=None)


def test_a_long_title_is_wrapped_whole():
    text = " ".join(["Integrated-gradients attribution: each source token's share in each output token"] * 3)
    lines = base.title(text).text
    assert len(lines) > 1 and all(len(line) <= base.TITLE_CHARS for line in lines) and " ".join(lines) == text


def test_crowded_columns_stand_upright_then_thin_out():
    assert base.column_axis(["w"] * 24).labelAngle == -45
    upright = base.column_axis([f"w{i}" for i in range(30)])
    assert upright.labelAngle == -90 and "%" not in upright.labelExpr  # every column still labelled
    thinned = base.column_axis([f"w{i}" for i in range(80)])
    assert thinned.labelExpr.startswith("datum.value % 2 == 0 ? ")  # 80 columns: every second, ≤ 40 labels


def test_labels_reach_vega_lite_as_typed():
    expression = base.lookup(HOSTILE)
    assert json.loads(expression.removesuffix("[datum.value]")) == HOSTILE


def test_a_heatmap_renders_to_png_and_svg_without_a_browser():
    chart = charts.heatmap(view(HOSTILE), "Attention α — one row per output token")
    png, svg = cache.images(chart.properties(width=400).to_json())
    assert png.startswith(b"\x89PNG")
    text = svg.decode()
    assert "<svg" in text[:500] and "Attention α" in text
    shown = {re.sub("&(amp|lt|gt|quot);", lambda m: {"amp": "&", "lt": "<", "gt": ">", "quot": '"'}[m[1]], t)
             for t in re.findall(r"<text[^>]*>([^<]*)</text>", text)}
    assert {'"Go"', "&", "<b>run</b>", "</script>"} <= shown  # drawn as text, escaped once for SVG


def test_the_longest_sentences_heatmap_keeps_its_title_and_labels_whole():
    """80 source pieces × 170 written ones, the largest heatmap the app draws (in the browser on a canvas, so
    rendered here to SVG): every title line and every second column label is written out in full (Vega places the
    title outside the axes' bounds)."""
    columns = [f"Économique{i}" for i in range(80)]
    text = "Integrated-gradients attribution: each source token's share in each output token — one row per output " \
           "token, one column per source token"
    chart = charts.heatmap(view(columns, rows=170), text, clickable=True, measure="share")
    svg = cache.images(chart.properties(width=700).to_json())[1].decode()
    lines = re.findall(r"<tspan[^>]*>([^<]*)</tspan>", svg[svg.index("role-title-text"):])[:2]
    assert [html.unescape(line) for line in lines] == base.title(text).text  # no line cut short
    written = [html.unescape(w) for w in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    assert [w for w in written if w.startswith("Économique")] == columns[::2]
