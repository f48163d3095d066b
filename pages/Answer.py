"""Is attention an alignment? Is it an explanation? The answer for three generations of translator, on one gold,
against a floor: every number read from the records beside the bundled models (models.views.results.answer)."""
import pandas as pd
import streamlit as st

from models.storage.hub import bundled_models
from models.views import results as measured
from pages._shared import charts
from pages._shared.labels import for_markdown

st.title("Is attention an alignment?")
found = measured.answer(bundled_models())
st.caption("Each model read three ways: its raw attention (dark blue), its best other reading (light blue), every "
           "head fit to people's links (orange). Left, against people (AER, lower is better); right, on the same "
           "rows, against the model (deletion, higher is better; black: a random ranking). Click a bar to open it.",
           help=measured.ANSWER)
bars = pd.DataFrame(found.bars)
people, model = st.columns([3, 2])
event = people.altair_chart(charts.alignment_chart(bars, pd.DataFrame(found.references), "Against people: AER %"),
                            on_select="rerun", key="answer", width="stretch")
model.altair_chart(charts.deletion_chart(bars, pd.DataFrame(found.random), "Against the model: deletion"),
                   key="deletion", width="stretch")
picked = event.selection.get("bar", []) if event else []
if picked and (link := found.link(picked[0])) is not None:
    st.switch_page("pages/translate.py", query_params=link)
st.markdown("\n".join(f"- {for_markdown(line)}" for line in found.verdicts))
with st.expander("How each number was measured"):
    st.code("\n".join(found.commands), language="bash")
