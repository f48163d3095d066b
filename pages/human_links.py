"""Human links: a sentence pair people aligned word by word, over the model's attention or attribution."""
import streamlit as st

from models.analysis.alignment import AttentionView
from models.analysis.word_links import pair_scores
from models.storage.gold import trial_best
from models.storage.languages import EN_FR, may_translate
from pages._shared import cache, charts, evidence, ui

st.title("Attention against human links")
st.caption("Sentences of the Canadian Hansards aligned word by word by people (Och & Ney 2000). The French side is "
           "forced through the translator; the heatmap shows where it looked (or what each word depended on), the "
           "squares where people drew a link. Heatmaps are often read as alignments: here they are checked.")

settings, loaded = ui.model_or_fallback(ui.settings())
if not may_translate(loaded.languages, EN_FR):
    st.info(f"People's links here join English and French words; this model translates {ui.direction(loaded)}, so "
            "there is nothing of its to lay over them.")
    st.stop()
folder = evidence.gold_folder()
if folder is None:
    st.stop()
split = st.radio("Set", [s for s in ("test", "trial") if (folder / f"{s}.gold").exists()], horizontal=True,
                 help="trial: 37 pairs for tuning any choice; test: 447 pairs, scored only")
try:
    pairs = evidence.cached_gold(str(folder), split)
except (OSError, ValueError) as e:
    st.error(f"The gold set at `{folder}` cannot be read: {e}")
    st.stop()
number = st.number_input(f"Sentence pair (1–{len(pairs)})", 1, len(pairs), min(ui.read_url().pair, len(pairs)))
st.query_params["pair"] = str(number)
pair = pairs[number - 1]
matrix = evidence.matrix_picker(loaded, key="gold_reading")
reading = evidence.head_picker(loaded, shifted=True) if matrix == "attention" else None
if reading is not None:
    st.caption(evidence.STEP_NOTE)

forced = cache.cached_forced(settings.model, settings.revision, " ".join(pair.english), " ".join(pair.french))
if not evidence.affordable(forced, matrix):
    st.stop()
weights = evidence.cached_word_matrix(settings.model, settings.revision, pair.english, pair.french, matrix, reading)
F, E = weights.shape
view = AttentionView(rows=pair.french[:F], columns=pair.english[:E], unknown=(False,) * E, weights=weights,
                     energies=None)
title, measure = evidence.TITLES[matrix]
st.altair_chart(charts.gold_links(view, title, measure, pair.sure, pair.possible), width="stretch",
                key="gold_heatmap")

best = trial_best(loaded.path, loaded.model.attention_shape) if matrix == "attention" else None
st.dataframe(pair_scores(weights, pair.sure, pair.possible, matrix, best and best["method"]), hide_index=True,
             key="pair_scores")
st.caption("AER (alignment error rate, Och & Ney 2003; lower is better), precision and recall of this one pair. "
           "The whole set's figures are on the Models & results page.")
