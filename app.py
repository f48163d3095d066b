"""Attention Atlas — home page: translate a sentence and see where the model looks.

Run with ``streamlit run app.py``; the other views live in ``pages/``.
"""
from dataclasses import replace

import streamlit as st

from models.alignment import focus_on_word, source_word_weights
from models.tokenization import word_index
from pages._shared import charts, exports, ui

st.set_page_config(page_title="Attention Atlas", page_icon="🧭", layout="wide")
st.title("Attention Atlas")
st.caption("An English→French RNN translator (Bahdanau, Cho & Bengio 2015) and, at every word it writes, "
           "where its attention looks.")

settings = ui.sidebar()
settings, loaded = ui.model_or_fallback(settings)
text = ui.sentence_input()
if text is None:
    st.stop()
trace = ui.trace_or_stop(settings, text)
ui.source_notices(trace)

st.subheader("Translation")
st.code(trace.translation or "(empty)", language=None, wrap_lines=True)
if trace.attention is None:
    st.info("This model has no attention: the decoder sees one fixed summary of the sentence at every step, "
            "so there is no heatmap to draw. Pick an attention model in the sidebar.")
    st.stop()

view = ui.view_of(trace, settings.words)
heatmap = charts.heatmap(view, "Attention α — one row per output token, one column per source token")
st.plotly_chart(heatmap, width="stretch", key="heatmap")

st.subheader("Step explorer")
written = charts.piece_labels(trace.target_pieces)
step = st.slider("Decoding step", 1, len(written), 1, key="step", help="Each step writes one subword.") - 1
st.markdown(f"Step **{step + 1}** wrote **{written[step]}**.")
source_words, by_word = source_word_weights(trace)
if settings.words:
    source_labels, weights = charts.token_labels(source_words), by_word[step]
else:
    source_labels = charts.source_labels(trace)
    weights = trace.attention[step]
left, right = st.columns(2)
left.plotly_chart(charts.bars(source_labels, weights, int(weights.argmax()), "Attention over the source"),
                  width="stretch")
right.plotly_chart(charts.top_k(trace.top_k[step], trace.target_pieces[step]), width="stretch")
row = word_index(trace.target_pieces)[step] if settings.words else step
st.plotly_chart(charts.links(view, row), width="stretch")

st.subheader("What if…")
st.caption("Force the attention at the chosen step onto one source word and let the decoder carry on from there "
           "(greedy decoding, whatever the sidebar says).")
base = trace if settings.beam == 1 else ui.trace_or_stop(replace(settings, beam=1), text)
step = min(step, len(base.target_ids) - 1)
focus = st.selectbox(f"At step {step + 1}, look only at", range(len(source_words)),
                     format_func=lambda i: ui.safe(source_words[i]), key="focus")
what_if = ui.trace_or_stop(settings, text, overrides=((step, tuple(focus_on_word(trace, focus).tolist())),))
before, after = st.columns(2)
before.markdown("**As decoded**")
before.code(base.translation, language=None, wrap_lines=True)
before.plotly_chart(charts.top_k(base.top_k[step], base.target_pieces[step]), width="stretch", key="wi_before")
after.markdown(f"**Looking only at “{ui.safe(source_words[focus])}” at step {step + 1}**")
after.code(what_if.translation, language=None, wrap_lines=True)
after.plotly_chart(charts.top_k(what_if.top_k[step], what_if.target_pieces[step]), width="stretch", key="wi_after")

st.subheader("Downloads")
exports.download_buttons(view, heatmap, stem="attention")
