"""Models & results: the model in use when it is not bundled (a Hub translator, a folder), the bundled translators,
their measured scores, BLEU against sentence length."""
import pandas as pd
import streamlit as st

from models import charts
from models.views import prose, results as measured
from models.views.prose import for_markdown
from pages._shared import ui

st.title("Models & results")
st.caption(prose.MEASURED)

settings, loaded = ui.model_or_fallback(ui.settings())
found = measured.results_page(measured.bundled_results())
if found.greedy_bleu:  # the picture first: every bundled model on every test set
    st.altair_chart(charts.test_bleu(pd.DataFrame(found.greedy_bleu), "Each bundled model's BLEU on each test set"),
                    width="stretch", key="test_bleu")
said = measured.in_use(loaded)
if said is not None:  # a Hub translator or a folder: what it is, from the model and its card
    st.subheader(f"The model in use: {for_markdown(settings.model)}")
    st.markdown("\n".join(f"- **{name}:** {for_markdown(value)}" for name, value in said.items()))
for problem in found.problems:
    st.warning(problem)
if found.tests:
    st.subheader("Test results")
    st.dataframe(pd.DataFrame(found.tests).style.format(precision=1, na_rep="—"), hide_index=True)
for name, made in found.trained:  # below the table, folded: how each was made, with its commands
    with st.expander(f"How it was trained: {name} — {made.parameters:,} parameters"):
        st.markdown(f"{made.description}  \nTrained on {made.data}, for {made.summary}; best validation BLEU "
                    f"{made.best}.")
        st.code("\n".join(made.commands), language="bash")
        if made.evaluations:
            st.code("\n".join(made.evaluations), language="bash")
        else:
            st.info("Not evaluated yet.")
if found.lengths:
    st.subheader("BLEU against sentence length")
    st.caption("After Bahdanau et al. (2015), Figure 2: without attention, quality falls as sentences get longer.")
for test, (points, finding) in found.lengths.items():
    st.altair_chart(charts.bleu_by_length(pd.DataFrame(points), test), width="stretch", key=f"lengths_{test}")
    if finding:
        st.caption(finding)

if found.curves:
    st.subheader("What the training minutes bought")
    st.caption(prose.CURVES)
    st.altair_chart(charts.quality_per_minute(pd.DataFrame(found.curves)), width="stretch", key="quality_per_minute")

table, commands = found.alignment
if table:
    st.subheader("Is attention an alignment?")
    st.caption(prose.ALIGNMENT)
    st.dataframe(pd.DataFrame(table).style.format(precision=1, na_rep="—"), hide_index=True, key="alignment")
    with st.expander("How these were measured"):
        st.code("\n".join(commands), language="bash")
if found.believed:
    st.subheader("Which matrix to believe?")
    st.caption(prose.BELIEVE)
    st.dataframe(pd.DataFrame(found.believed).style.format(precision=2, na_rep="—"), hide_index=True, key="believed")
    with st.expander("How these were measured"):
        st.code("\n".join(found.believe_commands), language="bash")
for key, title, grid in found.aer_grids:
    st.altair_chart(charts.aer_grid(*grid, title), width="stretch", key=key)
    st.caption(prose.AER_GRID)
for key, title, heads in found.importance:
    st.altair_chart(charts.aer_grid(*heads.grid, title, "BLEU drop", lower_is_better=False), width="stretch", key=key)
    st.caption(f"Each cell: greedy BLEU on {heads.sentences} validation sentences with the whole model minus "
               f"with that head's output zeroed (Michel et al. 2019). {heads.can_go} of {heads.of} heads can "
               f"go, most unimportant first, before BLEU falls by {heads.budget:g}. Beside the AER grid above: "
               "do the heads that align matter?")

st.subheader("Load your own model")
st.markdown(prose.OWN_MODEL)
