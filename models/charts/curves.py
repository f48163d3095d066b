"""Lines: per-step series, training curves, BLEU by length and by minute, the softmax scaling playground —
Vega-Lite."""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from .base import BLUE, FIT_WIDTH, GREY, ORANGE, lookup, title


def lines(x, series: dict[str, np.ndarray], text: str, y_title: str, x_labels: list[str] | None = None) -> alt.Chart:
    """Named series over the same steps ``x`` (labelled by ``x_labels``); NaN points are left out."""
    frame = pd.DataFrame([{"x": int(i), "series": name, "value": float(v)} for name, values in series.items()
                          for i, v in zip(x, values) if np.isfinite(v)], columns=["x", "series", "value"])
    axis = alt.Axis(title=None, labelExpr=lookup(list(x_labels)), labelAngle=-45) if x_labels is not None else None
    return alt.Chart(frame).mark_line(point=True).encode(
        x=alt.X("x:O", axis=axis), y=alt.Y("value:Q", title=y_title),
        color=alt.Color("series:N", legend=alt.Legend(title=None, orient="bottom")),
        tooltip=["series:N", alt.Tooltip("value:Q", format=".3f")],
    ).properties(title=title(text), height=260, autosize=FIT_WIDTH)


def _over_training(curve, selected: int, field: str, values, y: alt.Y, colour: str, dash=None) -> alt.LayerChart:
    frame = pd.DataFrame({"epoch": list(curve.epochs), field: list(values), "point": list(curve.labels)})
    line = alt.Chart(frame).mark_line(point=True, color=colour, strokeDash=dash or []).encode(
        x=alt.X("epoch:Q", title="epochs of training"), y=y, tooltip=["point:N", alt.Tooltip(f"{field}:Q",
                                                                                              format=".2f")])
    now = alt.Chart(pd.DataFrame({"epoch": [curve.epochs[selected]]})).mark_rule(color=ORANGE, strokeWidth=2)
    return alt.layer(line, now.encode(x="epoch:Q"))


def learning_curve(curve, selected: int) -> alt.LayerChart:
    """Validation BLEU (left axis, blue) and loss (right axis, grey) against epochs done, the ``selected`` point
    (0-based) marked."""
    bleu = _over_training(curve, selected, "val BLEU", curve.val_bleu, alt.Y("val BLEU:Q", title="BLEU (blue)"),
                          BLUE)
    loss = _over_training(curve, selected, "val loss", curve.val_loss,
                          alt.Y("val loss:Q", title="loss (grey)", axis=alt.Axis(orient="right")), GREY, [4, 3])
    return alt.layer(bleu, loss).resolve_scale(y="independent").properties(height=300, autosize=FIT_WIDTH)


def attention_entropy(curve, selected: int) -> alt.LayerChart:
    """The curated examples' mean attention entropy (bits) against epochs done, the ``selected`` point marked."""
    return _over_training(curve, selected, "entropy", curve.entropy_bits,
                          alt.Y("entropy:Q", title="entropy, bits", scale=alt.Scale(zero=True)), BLUE
                          ).properties(height=220, autosize=FIT_WIDTH)


def bleu_by_length(points: pd.DataFrame, text: str) -> alt.Chart:
    """BLEU of each model by source-length bucket (``model``, ``source words``, ``first``, ``BLEU``,
    ``sentences``): Bahdanau et al.'s Figure 2."""
    return alt.Chart(points, title=title(text)).mark_line(point=True).encode(
        x=alt.X("source words:N", sort=alt.EncodingSortField("first"), title="source sentence length (words)"),
        y=alt.Y("BLEU:Q", title="BLEU (greedy)"), color="model:N",
        tooltip=["model", "source words", "sentences", alt.Tooltip("BLEU:Q", format=".1f")],
    ).properties(height=340, autosize=FIT_WIDTH)


def test_bleu(rows: pd.DataFrame, text: str) -> alt.Chart:
    """Each model's BLEU (``model``, ``test set``, ``BLEU``) on each test set: a row a model, a bar a set."""
    models, sets = list(dict.fromkeys(rows["model"])), list(dict.fromkeys(rows["test set"]))
    return alt.Chart(rows, title=title(text)).mark_bar().encode(
        y=alt.Y("model:N", sort=models, title=None, axis=alt.Axis(labelLimit=260)),
        yOffset=alt.YOffset("test set:N", sort=sets), x=alt.X("BLEU:Q", title="BLEU (greedy)"),
        color=alt.Color("test set:N", sort=sets, legend=alt.Legend(title=None, orient="bottom", columns=2)),
        tooltip=["model:N", "test set:N", alt.Tooltip("BLEU:Q", format=".1f")],
    ).properties(height=9 * len(sets) * len(models), autosize=FIT_WIDTH)


def quality_per_minute(curves: pd.DataFrame) -> alt.Chart:
    """Validation BLEU against training minutes, by model (colour) and validation set (dash)."""
    return alt.Chart(curves).mark_line(point=True).encode(
        x=alt.X("minutes:Q", title="training minutes"), y=alt.Y("BLEU:Q", title="validation BLEU"),
        color="model:N", strokeDash=alt.StrokeDash("validation set:N", title="validation set"),
        tooltip=["model", "validation set", "step", alt.Tooltip("minutes:Q", format=".0f"),
                 alt.Tooltip("BLEU:Q", format=".1f")],
    ).properties(height=340, autosize=FIT_WIDTH)


def scaling(points: pd.DataFrame, field: str, text: str) -> alt.Chart:
    """One measure of the scaling playground (``dim``, ``score``, ``field``) against the width d, log scale."""
    return alt.Chart(points, title=title(text)).mark_line(point=True).encode(
        x=alt.X("dim:Q", scale=alt.Scale(type="log", base=2), title="width d"),
        y=alt.Y(f"{field}:Q", title=None), color=alt.Color("score:N", title=None),
        tooltip=["score", "dim", alt.Tooltip(f"{field}:Q", format=".3f")],
    ).properties(height=260, autosize=FIT_WIDTH)
