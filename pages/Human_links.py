"""Human links: a sentence pair people aligned word by word, over the model's attention or attribution."""
import streamlit as st

from models import charts
from models.views import prose
from models.views.prose import for_markdown
from models.views.matrix_views import fitted_heads, unavailable, unavailable_said
from pages._shared import cache, evidence, matrix_panels, ui

st.title("Attention against human links")
st.caption("Where the model looked, under the links people drew (squares) between the words of a sentence pair.")

settings, loaded = ui.model_or_fallback(ui.settings())
found = evidence.gold_source(loaded)
if found is None:
    st.stop()
spec, splits = found
set_at, pair_at = st.columns(2, vertical_alignment="bottom")
split = set_at.radio("Set", splits, horizontal=True,
                     help="trial: the pairs any choice is tuned on; test: the pairs scored, never tuned on")
try:
    pairs = evidence.gold_pairs(spec, loaded.languages, split)
except (OSError, ValueError) as e:
    if not unavailable(e):
        st.error(f"The human links of `{spec}` cannot be read: {for_markdown(str(e))}")
        st.stop()
    st.info(for_markdown(unavailable_said(spec, e)))  # not to be had here (offline, say): no fault of the page's
    if heads := fitted_heads(loaded):  # the model's own files still say which heads people's links single out
        matrix_panels.fitted_heads(heads, columns=2)
    st.stop()
number = pair_at.number_input(f"Sentence pair (1–{len(pairs)})", 1, len(pairs),
                              min(ui.read_url().pair, len(pairs)))
st.query_params["pair"] = str(number)
pair = pairs[number - 1]
show_at, head_at = st.columns(2, vertical_alignment="bottom")
with show_at:
    matrix = evidence.matrix_picker(loaded, key="gold_matrix")
with head_at:
    reading = evidence.head_picker(loaded, shifted=True, matrix=matrix)

forced = ui.or_stop(cache.cached_forced(settings.key, " ".join(pair.source), " ".join(pair.target)))
if not evidence.affordable(loaded, forced, matrix):
    st.stop()
gold = cache.cached_gold_view(settings.key, pair, matrix, reading)
shown = matrix
heads = fitted_heads(loaded)  # which heads a probe fit to people weighs, beside the heatmap; None without one
chart_at, heads_at = st.columns([3, 1]) if heads else (st.container(), None)
chart_at.altair_chart(charts.gold_links(gold.heatmap, shown.title, shown.unit, pair.sure, pair.possible),
                      width="stretch", key="gold_heatmap")
if heads:
    with heads_at:
        matrix_panels.fitted_heads(heads)

with st.expander("How to read this"):
    st.markdown(prose.HUMAN_LINKS + (f"\n\n{prose.STEP_NOTE}" if reading is not None else ""))

st.dataframe(list(gold.scores), hide_index=True, key="pair_scores")
st.caption(prose.PAIR_SCORES)
