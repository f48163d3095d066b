"""A corpus at a time: every sentence of a test set (or of your own lines) in one sortable table, one or two models
side by side, and where their attention disagrees."""
import pandas as pd
import streamlit as st

from models import charts
from models.views import corpus, naming, prose
from models.views.prose import for_markdown
from pages._shared import cache, corpus_table, evidence, ui

st.title("A corpus at a time")
st.caption("Every sentence in one table, one or two models: sort, filter, and pick a row to open it.",
           help=prose.CORPUS)

settings, url = ui.settings(), ui.read_url()
settings, loaded = ui.model_or_fallback(settings)
with st.sidebar:
    st.subheader("Set beside it")
    two = st.toggle("A second model", value=True, key="corpus_two")
    if two:
        ref_b, rev_b = ui.model_picker("Right model", url.right or naming.paired(ui.picked_direction())[1], "right",
                                       url.right_rev)
second = settings.for_model(ref_b, rev_b) if two else None  # at its own pair
chosen = [(settings, loaded)] + ([ui.model_or_fallback(second, naming.paired(ui.picked_direction())[1])]
                                 if two else [])
with st.sidebar:
    readings = [evidence.head_picker(m, key, f"{place} model's attention", shifted=True)
                for (_, m), key, place in zip(chosen, ("left_head", "right_head"), ("First", "Second"))]
models = tuple(cache.TableModel(s.key, r and r.key, naming.model_reading(s.model, m.model, r))
               for (s, m), r in zip(chosen, readings))
models = corpus_table.of_one_pair(models)

sentences = corpus_table.pick_sentences(loaded.languages)
if sentences is None:
    st.stop()
if sentences.skipped:
    st.caption(sentences.skipped)
if reason := corpus_table.refusal(models, sentences):
    st.info(for_markdown(reason))
    st.stop()
sentences = corpus_table.within_limit(sentences)
job, rows = corpus_table.table(models, sentences)
if not rows:
    st.stop()
figures = cache.cached_figures(job, len(rows), models, sentences, rows)
frame, names = pd.DataFrame(rows), [m.name for m in models]

st.subheader(f"{for_markdown(sentences.name)}: {len(rows):,} sentences")
st.dataframe(figures.by_model().style.format(precision=3, na_rep="—"), hide_index=True,  # a model without
             key="corpus_summary")  # attention has no entropy: a dash, not None
st.markdown(figures.pair_line())

st.subheader("Sentence by sentence")
shown = corpus_table.sorted_and_filtered(frame, models)
picked = st.dataframe(shown, hide_index=True, key="corpus_table", on_select="rerun", selection_mode="single-row",
                      column_config=corpus_table.column_help(frame, models),
                      column_order=figures.columns(names))
st.caption("Click a column's header to sort by it too; tick a row to open its sentence.")
if picked.selection.rows and picked.selection.rows[0] < len(shown):  # a filter may have shortened the table
    corpus_table.open_row(shown.iloc[picked.selection.rows[0]], models)
left, right = st.columns(2)
left.download_button("Table (CSV)", figures.csv(), "corpus.csv", "text/csv", key="corpus_csv")
right.download_button("Table and figures (JSON)", figures.json(), "corpus.json", "application/json",
                      key="corpus_json")

st.subheader("Across the corpus")
numeric = corpus.numeric(frame)
offered = corpus.statistics(numeric, names)  # BLEU first where the sentences have references
stat = st.selectbox("Distribution of", offered, key=f"corpus_stat:{'|'.join(offered)}")  # new sentences: anew
columns = {name: frame[c] for name, c in corpus.statistic_columns(stat, list(frame.columns), names).items()}
st.altair_chart(charts.distribution(columns, f"{stat} per sentence"), width="stretch", key="corpus_hist")
x, y = st.columns(2)
x_col = x.selectbox("Scatter: across", numeric, index=numeric.index("words"), key="corpus_x")
y_col = y.selectbox("against", numeric, index=numeric.index(corpus.first_y(numeric, names)), key="corpus_y")
st.altair_chart(charts.scatter(frame, x_col, y_col), width="stretch", key="corpus_scatter")
lengths = pd.DataFrame(figures.by_length())
if len(lengths):
    st.altair_chart(charts.bleu_by_length(lengths, "BLEU by source length in this corpus (the paper's Figure 2)"),
                    width="stretch", key="corpus_lengths")
else:
    st.caption("BLEU by length needs references: paste or upload source TAB reference lines.")
