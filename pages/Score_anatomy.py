"""Score anatomy: one attention energy taken apart, and why unscaled dot products saturate."""
from dataclasses import replace

import pandas as pd
import streamlit as st

from models import charts
from models.views import inside, naming, prose
from models.views.prose import plain
from pages._shared import cache, ui

st.title("Score anatomy")
st.caption("One attention energy of the additive and the dot-product model, taken apart term by term.")

settings = ui.settings()  # the view always takes apart the bundled additive and dot-product models
additive, dot = naming.paired()
ui.in_direction((additive, dot))
text = ui.sentence_input()
if text is None:
    st.stop()
settings, loaded = ui.model_or_fallback(replace(settings.for_model(additive), beam=1), additive)
trace = ui.trace_or_stop(settings, text)
ui.say_notices(loaded, trace, text)
dot_settings, dot_loaded = ui.model_or_fallback(settings.for_model(dot), dot)

target = charts.piece_text(trace.target_pieces)
source = charts.source_text(trace)
step_at, token_at = st.columns(2)
t = step_at.select_slider("Decoding step (additive model's output)", range(len(target)),
                          format_func=lambda i: plain(target[i]), key="anatomy_step")
s = token_at.select_slider("Source token", range(len(source)), format_func=lambda i: plain(source[i]),
                           value=inside.looked_at(trace, t))
dot_trace = ui.or_stop(cache.cached_forced(dot_settings.key, text, trace.target_ids))

left, right = st.columns(2)
for column, model, tr in ((left, loaded.model, trace), (right, dot_loaded.model, dot_trace)):
    parts = inside.energy_view(model, tr, t, s)
    with column:
        st.markdown(f"**{parts.label}**: e = **{parts.energy:.3f}**, α = **{parts.weight:.3f}** "
                    f"(the model's own energy: {parts.own_energy:.3f})")
        st.altair_chart(charts.bars(list(parts.units), parts.terms, None,
                                    "Each hidden unit's contribution, largest first", "unit k"),
                        width="stretch", key=f"contrib_{parts.score}")
        st.dataframe(pd.DataFrame(parts.table), height=240, key=f"terms_{parts.score}")

with st.expander("How to read this"):
    st.markdown(prose.ANATOMY)

st.header("Scaling playground")
st.caption(prose.SCALING)
max_dim = st.select_slider("Largest width d", [2**k for k in range(3, 13)], value=1024)
points = pd.DataFrame(cache.cached_scaling(max_dim))
for column, field, title in zip(st.columns(3), ("max_weight", "entropy_bits", "gradient"),
                                ("Largest weight", "Entropy (bits)", "Softmax gradient ‖∂α/∂e‖")):
    column.altair_chart(charts.scaling(points, field, title), width="stretch", key=f"scaling_{field}")
