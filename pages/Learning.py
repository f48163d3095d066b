"""Alignment as it is learned: replay training, validation point by point, for the curated examples."""
import streamlit as st

from pages._shared import cache, charts, evidence, ui
from pages._shared.labels import for_markdown

st.title("Alignment as it is learned")
st.caption("Slide through training to watch the diagonal form and the adjective–noun swap appear.",
           help="At every validation point the training command decodes the curated examples and keeps their "
                "attention. In “a red car” → “une voiture rouge”, *voiture* looks at *car* before *rouge* looks at "
                "*red*.")

settings, loaded = ui.model_or_fallback(ui.settings())
try:
    record = cache.replay(settings.key)
except ValueError as e:  # a record that cannot be read
    st.warning(f"This model's training record cannot be shown: {for_markdown(str(e))}")
    st.stop()
if record is None:
    st.info("This model kept no replay of its training: it was trained elsewhere, or its run did not decode example "
            "sentences of its source language as it learned. The project's training command keeps one for every "
            "language it has example sentences in.")
    st.stop()

reading = evidence.head_picker(loaded)
curve = record.curve(reading)
texts = record.examples
example = st.selectbox("Example", range(len(texts)), format_func=lambda i: texts[i], key="learning_example")
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
    if learned.view is None:
        st.info("This model has no attention, so there is no heatmap: only its translations change.")
    else:
        st.altair_chart(charts.heatmap(learned.view, f"Attention at {learned.label} (subword pieces)"),
                        width="stretch", key="learned_heatmap")
with right:
    st.altair_chart(charts.learning_curve(curve, point), width="stretch", key="learning_curve")
    st.caption("Validation BLEU (greedy, mean over the validation corpora) and loss at each validation point; "
               "the orange line is the moment shown.")
    if curve.entropy_bits:
        st.altair_chart(charts.attention_entropy(curve, point), width="stretch", key="attention_entropy")
        st.caption("How spread the attention is: the examples' mean entropy per written piece, in bits (0: all "
                   "weight on one source piece). A score that keeps growing drives it towards 0 — the bundled "
                   "dot-product model's does, the additive one's settles (docs/results.md).")
