"""Human links: a sentence pair people aligned word by word, over the model's attention or attribution."""
import streamlit as st

from models.analysis.alignment import AttentionView
from models.analysis.link_rules import LinkRule
from models.analysis.matrices import ATTENTION, MATRICES
from models.analysis.word_links import pair_scores
from models.storage.alignment_record import trial_best
from models.datasets.gold_sets import GoldSetError
from pages._shared import cache, charts, evidence, ui
from pages._shared.labels import for_markdown

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
except GoldSetError as e:  # not to be had here (offline, say): no fault of the page's
    st.info(for_markdown(str(e)))
    st.stop()
except (OSError, ValueError) as e:
    st.error(f"The human links of `{spec}` cannot be read: {for_markdown(str(e))}")
    st.stop()
number = pair_at.number_input(f"Sentence pair (1–{len(pairs)})", 1, len(pairs),
                              min(ui.read_url().pair, len(pairs)))
st.query_params["pair"] = str(number)
pair = pairs[number - 1]
show_at, head_at = st.columns(2, vertical_alignment="bottom")
with show_at:
    matrix = evidence.matrix_picker(loaded, key="gold_reading")
with head_at:
    reading = evidence.head_picker(loaded, shifted=True, matrix=matrix)

model = (settings.model, settings.revision, settings.languages)
forced = cache.cached_forced(*model, " ".join(pair.source), " ".join(pair.target))
if not evidence.affordable(loaded, forced, matrix):
    st.stop()
weights = evidence.cached_word_matrix(*model, pair.source, pair.target, matrix, reading)
F, E = weights.shape
view = AttentionView(rows=pair.target[:F], columns=pair.source[:E], unknown=(False,) * E, weights=weights,
                     energies=None)
st.altair_chart(charts.gold_links(view, MATRICES[matrix].title, MATRICES[matrix].unit, pair.sure, pair.possible),
                width="stretch",
                key="gold_heatmap")

with st.expander("How to read this"):
    st.markdown("Sentences aligned word by word by people (English–French: the Canadian Hansards, Och & Ney 2000). "
                "The target side is forced through the translator; the heatmap shows where it looked (or what each "
                "word depended on), the squares where people drew a link. Heatmaps are often read as alignments: "
                "here they are checked." + (f"\n\n{evidence.STEP_NOTE}" if reading is not None else ""))

best = trial_best(loaded.path, loaded.model.attention_shape) if matrix == ATTENTION else None
st.dataframe(pair_scores(weights, pair.sure, pair.possible, matrix, best and LinkRule.parse(best.method)),
             hide_index=True,
             key="pair_scores")
st.caption("AER (alignment error rate, Och & Ney 2003; lower is better), precision and recall of this one pair. "
           "The whole set's figures are on the Models & results page.")
