"""Alignment as it is learned: replay training, validation point by point, for the curated examples."""
import streamlit as st

from models import charts
from models.views import prose
from models.views.prose import for_markdown
from pages._shared import cache, evidence, ui

st.title("Alignment as it is learned")
st.caption("Slide through training to watch the diagonal form and the adjective–noun swap appear.",
           help=prose.LEARNING)

settings, loaded = ui.model_or_fallback(ui.settings())
try:
    record = cache.replay(settings.key)
except ValueError as e:  # a record that cannot be read
    st.warning(f"This model's training record cannot be shown: {for_markdown(str(e))}")
    st.stop()
if record is None:
    st.info(prose.NO_REPLAY)
    st.stop()

reading = evidence.head_picker(loaded)
curve = record.curve(reading)
texts = record.examples
example = st.selectbox("Example", range(len(texts)), index=record.opening, format_func=lambda i: texts[i],
                       key="learning_example")
points = range(len(curve.epochs))
linked, notice = record.linked_point(ui.read_url().point)
if notice:
    st.toast(notice, icon=":material/warning:")
if "point" not in st.session_state or st.session_state.point not in points:
    st.session_state.point = linked
if len(points) > 1:
    point = st.select_slider("Moment of training", options=points, format_func=lambda i: curve.labels[i], key="point")
else:  # a slider needs two stops
    point = st.session_state.point
st.query_params["point"] = str(point + 1)

learned = record.at(example, point, reading)
left, right = st.columns([3, 2])
with left:
    st.markdown(f"At **{learned.label}**: {for_markdown(learned.translation) or '(nothing)'}")
    if learned.heatmap is None:
        st.info("This model has no attention, so there is no heatmap: only its translations change.")
    else:
        st.altair_chart(charts.heatmap(learned.heatmap, f"Attention at {learned.label} (subword pieces)"),
                        width="stretch", key="learned_heatmap")
with right:
    st.altair_chart(charts.learning_curve(curve, point), width="stretch", key="learning_curve")
    st.caption(prose.LEARNING_CURVE)
    if curve.entropy_bits:
        st.altair_chart(charts.attention_entropy(curve, point), width="stretch", key="attention_entropy")
        st.caption(prose.ENTROPY)
