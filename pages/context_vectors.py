"""Context vectors: how c_t = Σ_s α_ts h_s moves through the space of the source annotations."""
from dataclasses import replace

import streamlit as st

from models.analysis.alignment import source_word_weights
from models.analysis.geometry import context_geometry
from models.decoding.trace import RNN_READING
from pages._shared import charts, ui
from pages._shared.labels import for_markdown

st.title("Context vectors")
st.caption("Each context c_t is a weighted average of the encoder annotations h_s. A 2-D PCA of this sentence's "
           "annotations shows where each c_t sits: always inside the grey hull, because a weighted average with "
           "weights ≥ 0 summing to 1 cannot leave it, and PCA is linear. This is the RNN's view: a Transformer "
           "head's output mixes its value vectors W_v h_s, not the annotations h_s, so it has no such path.")

settings = ui.settings()  # the view always shows the bundled additive and dot-product models
text = ui.sentence_input()
if text is None:
    st.stop()

models = ("additive", "dot")
traces = [ui.trace_or_stop(ui.model_or_fallback(replace(settings, model=m), m)[0], text) for m in models]
ui.source_notices(traces[0])

for column, model, trace in zip(st.columns(2), models, traces):
    geo = context_geometry(trace)
    source = charts.source_text(trace)
    target = charts.piece_text(trace.target_pieces)
    name = ui.model_name(model)
    with column:
        st.markdown(f"**{name}** — {for_markdown(trace.translation)}")
        st.altair_chart(charts.context_path(geo, source, target, name), width="stretch", key=f"path_{model}")
        if not geo.inside_hull.all():
            st.error("A context left the hull: this would mean the weights were not a distribution.")
        steps = range(len(target))
        st.altair_chart(charts.lines(steps, {"‖c_t − c_t−1‖": geo.step_distance}, "How far c_t moves each step",
                                     "distance", target), width="stretch", key=f"dist_{model}")
        st.altair_chart(charts.lines(steps, {"cos(c_t, c_t−1)": geo.step_cosine}, "How much c_t turns each step",
                                     "cosine", target), width="stretch", key=f"cos_{model}")
        words, by_word = source_word_weights(trace, trace.read(RNN_READING))
        st.altair_chart(charts.shares(by_word, list(words), target), width="stretch",
                        key=f"share_{model}")
        st.altair_chart(charts.similarity(geo.cosine, target, "Cosine similarity of the contexts"),
                        width="stretch", key=f"sim_{model}")
