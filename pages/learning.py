"""Alignment as it is learned: replay training, epoch by epoch, for the curated examples."""
import streamlit as st

from models.analysis.learning import alignment_at, learning_curve
from models.storage.timeline import TimelineError
from pages._shared import charts, ui
from pages._shared.labels import for_markdown

st.title("Alignment as it is learned")
st.caption("After every epoch the training command decodes the curated examples and keeps their attention. "
           "Slide through the epochs to watch the diagonal form, and the adjective–noun swap appear "
           "(“a red car” → “une voiture rouge”: *voiture* looks at *car* before *rouge* looks at *red*).")

settings, loaded = ui.model_or_fallback(ui.settings())
try:
    record = ui.timeline(settings.model, settings.revision)
except TimelineError as e:
    st.warning(f"This model's training record cannot be shown: {for_markdown(str(e))}")
    st.stop()
if record is None or not record["epochs"]:
    st.info("This model has no record of its training: it was trained before the training command kept one, or "
            "elsewhere. Models trained with `python -m models.train` keep `alignment_timeline.json` beside the "
            "checkpoint.")
    st.stop()

curve = learning_curve(record)
texts = [e["text"] for e in record["examples"]]
example = st.selectbox("Example", range(len(texts)), format_func=lambda i: texts[i], key="learning_example")
wanted = ui.read_url().epoch
if wanted is not None and wanted not in curve.epochs:
    st.toast(f"Epoch {wanted} is not in this model's record (epochs {curve.epochs[0]}–{curve.epochs[-1]}); "
             "showing the last.", icon="⚠️")
if "epoch" not in st.session_state or st.session_state.epoch not in curve.epochs:
    st.session_state.epoch = wanted if wanted in curve.epochs else curve.epochs[-1]
if len(curve.epochs) > 1:
    epoch = st.select_slider("Epoch", options=curve.epochs, key="epoch")
else:  # a slider needs two stops
    epoch = st.session_state.epoch
st.query_params["epoch"] = str(epoch)

learned = alignment_at(record, example, epoch)
left, right = st.columns([3, 2])
with left:
    st.markdown(f"After epoch **{epoch}**: {for_markdown(learned.translation) or '(nothing)'}")
    if learned.view is None:
        st.info("This model has no attention, so there is no heatmap: only its translations change.")
    else:
        st.plotly_chart(charts.heatmap(learned.view, f"Attention after epoch {epoch} (subword pieces)"),
                        width="stretch", key="learned_heatmap")
with right:
    st.plotly_chart(charts.learning_curve(curve, epoch), width="stretch", key="learning_curve")
    st.caption("Validation BLEU (greedy, mean over the validation corpora) and loss after each epoch; "
               "the orange line is the epoch shown.")
