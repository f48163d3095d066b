"""Compare scoring: additive and dot-product attention on the same sentence, then on the same target."""
from dataclasses import replace

import streamlit as st

from models.analysis.compare import compare_views, same_cells
from pages._shared import charts, ui
from pages._shared.labels import for_markdown

st.title("Additive vs dot-product scoring")
st.caption("Both models share sizes, data, tokens and seed; only the score differs: "
           "additive e = vᵀ tanh(W_q q + W_k k), dot-product e = (W_q q)·(W_k k)/√A.")

settings, url = ui.settings(), ui.read_url()
with st.sidebar:
    st.subheader("Compared here")
    ref_a, rev_a = ui.model_picker("Left model", url.left or "additive", "left", url.left_rev)
    ref_b, rev_b = ui.model_picker("Right model", url.right or "dot", "right", url.right_rev)
left, loaded_a = ui.model_or_fallback(replace(settings, model=ref_a, revision=rev_a), "additive")
right, loaded_b = ui.model_or_fallback(replace(settings, model=ref_b, revision=rev_b), "dot")
names = (ui.model_name(left.model), ui.model_name(right.model))
if names[0] == names[1]:  # the same model on both sides still needs two names
    names = (f"{names[0]} (left)", f"{names[1]} (right)")
if loaded_a.score == "none" or loaded_b.score == "none":
    st.warning("Pick two models with attention: the no-attention baseline has no weights to compare.")
    st.stop()

text = ui.sentence_input()
if text is None:
    st.stop()

st.subheader("Each model's own translation")
traces = [ui.trace_or_stop(s, text) for s in (left, right)]
ui.source_notices(traces[0])
for column, side, name, trace in zip(st.columns(2), ("left", "right"), names, traces):
    column.markdown(f"**{for_markdown(name)}**")
    ui.show_translation(trace.translation, column)
    column.plotly_chart(charts.heatmap(ui.view_of(trace, settings.words)), width="stretch", key=f"own_{side}")

st.subheader("Same target, two attentions")
st.caption("Forced decoding feeds both models one common French sentence, so the two matrices have the same rows.")
choices = {"left": "Left model's output", "right": "Right model's output", "mine": "My reference"}
source = st.radio("Common target", list(choices), format_func=choices.get, horizontal=True, key="common")
if source == "mine":
    target = st.text_input("Reference translation (French)", value=traces[0].translation, max_chars=500)
else:
    target = traces[0 if source == "left" else 1].translation
if not target.strip():
    st.info("Type the French sentence both models should be forced to produce.")
    st.stop()
forced = [ui.cached_forced(s.model, s.revision, text, target) for s in (left, right)]
views = [ui.view_of(f, settings.words) for f in forced]
if not settings.words and not same_cells(*views):  # e.g. a Hub model with tokenizers of its own
    st.caption("The two models cut these sentences into different subword pieces, so they are compared word by word.")
    views = [ui.view_of(f, True) for f in forced]
if not same_cells(*views):
    st.warning("The two models split these sentences into different words, so their attention cannot be compared "
               "cell by cell.")
    st.stop()
comparison = compare_views(*views, names=names)
st.success(for_markdown(comparison.summary))
for column, side, name, view in zip(st.columns(2), ("left", "right"), names, views):
    column.plotly_chart(charts.heatmap(view, name), width="stretch", key=f"forced_{side}")
st.plotly_chart(charts.difference_heatmap(comparison.difference, views[0], names), width="stretch", key="difference")

steps = range(len(views[0].rows))
row_labels = list(views[0].rows)
a, b = st.columns(2)
a.plotly_chart(charts.lines(steps, {names[0]: comparison.entropy_a, names[1]: comparison.entropy_b},
                            "Attention entropy per step", "bits", row_labels), width="stretch", key="entropy")
b.plotly_chart(charts.lines(steps, {"Jensen–Shannon": comparison.js}, "Divergence between the two per step",
                            "bits (0 = identical, 1 = disjoint)", row_labels), width="stretch", key="divergence")
st.markdown(f"Most-attended source token agrees at **{comparison.argmax_agree.sum()} of {len(steps)}** steps: "
            + " ".join("✓" if ok else "✗" for ok in comparison.argmax_agree))
