"""Context vectors: how c_t = Σ_s α_ts h_s moves among the source annotations, and a Transformer head's output
Σ_s α_ts (W_v h_s) among its value vectors."""
import streamlit as st

from models import charts
from models.decoding.trace import Trace
from models.views import inside, naming, prose
from models.views.prose import for_markdown
from pages._shared import cache, evidence, ui

st.title("Context vectors")
st.caption("How the context c_t moves among the encoder's annotations h_s, step by step (a 2-D PCA).",
           help=prose.HULL)


def draw_path(trace: Trace, path: inside.PathView, name: str, key: str) -> None:
    """The path in its PCA plane, how far and how sharply it moves each step, and who makes up each point."""
    target, geo = charts.piece_text(trace.target_pieces), path.geometry
    st.altair_chart(charts.context_path(geo, charts.source_text(trace), target, name, path.points), width="stretch",
                    key=f"path_{key}")
    if path.left_hull:
        st.error("A point of the path left the hull: this would mean the weights were not a distribution.")
    steps = range(len(target))
    st.altair_chart(charts.lines(steps, {"‖c_t − c_t−1‖": geo.step_distance}, "How far the path moves each step",
                                 "distance", target), width="stretch", key=f"dist_{key}")
    st.altair_chart(charts.lines(steps, {"cos(c_t, c_t−1)": geo.step_cosine}, "How much the path turns each step",
                                 "cosine", target), width="stretch", key=f"cos_{key}")
    st.altair_chart(charts.shares(path.by_word, list(path.words), target), width="stretch", key=f"share_{key}")
    st.altair_chart(charts.similarity(geo.cosine, target, "Cosine similarity of the path's points"),
                    width="stretch", key=f"sim_{key}")


def rnn_column(settings: ui.Settings, model: str, text: str) -> None:
    """An RNN's contexts among its annotations."""
    settings, loaded = ui.model_or_fallback(settings.for_model(model), model)
    trace = ui.trace_or_stop(settings, text)
    ui.say_notices(loaded, trace, text)
    st.markdown(f"**{naming.model_name(model)}** — {for_markdown(trace.translation)}")
    draw_path(trace, inside.rnn_path(trace), naming.model_name(model), model)


def head_column(settings: ui.Settings, model: str, text: str) -> None:
    """One cross-attention head of a bundled Transformer: its outputs among its value vectors."""
    settings, loaded = ui.model_or_fallback(settings.for_model(model), model)
    reading = evidence.head_picker(loaded, label="Transformer head")
    if reading is None or reading.head is None:
        st.info(inside.ONE_HEAD)
        return
    trace = ui.trace_or_stop(settings, text)
    ui.say_notices(loaded, trace, text)
    kinds = ui.or_stop(cache.cached_kinds(settings.key, text, trace.target_ids))
    name = f"{naming.model_name(settings.model)}, {reading.label}"
    st.markdown(f"**{for_markdown(name)}** — {for_markdown(trace.translation)}")
    draw_path(trace, inside.head_path(trace, kinds, reading), name, "head")


settings = ui.settings()  # the view always shows bundled models: the additive RNN, and the dot RNN or a head
additive = naming.paired()[0]
ui.in_direction((additive,))
text = ui.sentence_input()
if text is None:
    st.stop()
wanted = ui.read_url().beside
beside = st.segmented_control("Beside the additive RNN", list(naming.BESIDE), default=wanted,
                              format_func=lambda key: naming.BESIDE[key].label,
                              key="beside") or wanted  # an emptied control keeps the last one
st.query_params["beside"] = beside
left, right = st.columns(2)
with left:
    rnn_column(settings, additive, text)
with right:
    shown = naming.BESIDE[beside]
    (head_column if shown.heads else rnn_column)(settings, naming.bundled_of(shown.variant), text)
