"""Compare scoring: two models' attention on the same sentence, then on the same target — additive, dot-product,
or one head (or layer mean) of the Transformer."""
import streamlit as st

from models import charts
from models.analysis.heatmaps import reading_heatmap
from models.storage.languages import language_name
from models.views import naming, prose
from models.views.prose import for_markdown
from models.views.matrix_views import compared
from pages._shared import cache, evidence, ui

st.title("Comparing attention")
st.caption("Two models' attention on one sentence: each on its own translation, then on a common one.",
           help=prose.COMPARE)


settings, url = ui.settings(), ui.read_url()
default_a, default_b = naming.paired(ui.picked_direction())
with st.sidebar:
    st.subheader("Compared here")
    ref_a, rev_a = ui.model_picker("Left model", url.left or default_a, "left", url.left_rev)
    ref_b, rev_b = ui.model_picker("Right model", url.right or default_b, "right", url.right_rev)
left, loaded_a = ui.model_or_fallback(settings.for_model(ref_a, rev_a), default_a)
right, loaded_b = ui.model_or_fallback(settings.for_model(ref_b, rev_b), default_b)
if not (loaded_a.model.has_attention and loaded_b.model.has_attention):
    st.warning("Pick two models with attention: the no-attention baseline has no weights to compare.")
    st.stop()
with st.sidebar:
    readings = (evidence.head_picker(loaded_a, "left_head", "Left model's head"),
                evidence.head_picker(loaded_b, "right_head", "Right model's head"))
names = naming.two_sides(*(naming.model_reading(s.model, m.model, r)
                            for s, r, m in ((left, readings[0], loaded_a), (right, readings[1], loaded_b))))

text = ui.sentence_input(loaded_a.languages[0])
if text is None:
    st.stop()

st.subheader("Each model's own translation")
traces = [ui.trace_or_stop(s, text) for s in (left, right)]
ui.say_notices(loaded_a, traces[0], text)
for column, side, name, trace, reading in zip(st.columns(2), ("left", "right"), names, traces, readings):
    column.markdown(f"**{for_markdown(name)}**")
    ui.show_translation(trace.translation, column)
    column.altair_chart(charts.heatmap(reading_heatmap(trace, reading, settings.words)), width="stretch",
                        key=f"own_{side}")

st.subheader("Same target, two attentions")
target_language = language_name(loaded_a.languages[1], "target-language")
st.caption(f"Forced decoding feeds both models one common {target_language} sentence, so the two matrices have the "
           "same rows.")
choices = {"left": "Left model's output", "right": "Right model's output", "mine": "My reference"}
source = st.radio("Common target", list(choices), format_func=choices.get, horizontal=True, key="common")
if source == "mine":
    target = st.text_input(f"Reference translation ({target_language})", value=traces[0].translation, max_chars=500,
                           key="reference")
else:
    target = traces[0 if source == "left" else 1].translation
if not target.strip():
    st.info(f"Type the {target_language} sentence both models should be forced to produce.")
    st.stop()
forced = tuple(ui.or_stop(cache.cached_forced(s.key, text, target)) for s in (left, right))
found = compared(forced, readings, settings.words, names)
views, comparison = found.views, found.comparison
if found.by_words and not settings.words:
    st.caption("The two models cut these sentences into different subword pieces, so they are compared word by word.")
if comparison is None:
    st.warning(prose.NOT_COMPARABLE)
    st.stop()
st.success(for_markdown(comparison.summary))
for column, side, name, shown in zip(st.columns(2), ("left", "right"), names, views):
    column.altair_chart(charts.heatmap(shown, name), width="stretch", key=f"forced_{side}")
st.altair_chart(charts.difference_heatmap(comparison.difference, views[0], names), width="stretch", key="difference")

steps = range(len(views[0].rows))
row_labels = list(views[0].rows)
a, b = st.columns(2)
a.altair_chart(charts.lines(steps, {names[0]: comparison.entropy_a, names[1]: comparison.entropy_b},
                            "Attention entropy per step", "bits", row_labels), width="stretch", key="entropy")
b.altair_chart(charts.lines(steps, {"Jensen–Shannon": comparison.js}, "Divergence between the two per step",
                            "bits (0 = identical, 1 = disjoint)", row_labels), width="stretch", key="divergence")
st.markdown(f"Most-attended source token agrees at **{comparison.argmax_agree.sum()} of {len(steps)}** steps: "
            + " ".join("✓" if ok else "✗" for ok in comparison.argmax_agree))
