"""Is attention an alignment? Is it an explanation? The answer for three generations of translator, on one gold,
against a floor: every number read from the records beside the bundled models (models.views.answer)."""
import pandas as pd
import streamlit as st

from models import charts
from models.storage.hub import bundled_models
from models.views import answer as measured, prose
from models.views.prose import for_markdown

st.title("Is attention an alignment?")
found = measured.answer(bundled_models())
st.caption(prose.ANSWER_READING, help=prose.ANSWER)
bars = pd.DataFrame(found.bars)
event = st.altair_chart(charts.alignment_chart(bars, pd.DataFrame(found.references), "Against people: AER %"),
                            on_select="rerun", key="answer", width="stretch")
deleted = st.altair_chart(charts.deletion_chart(bars, pd.DataFrame(found.random), "Against the model: deletion"),
                          on_select="rerun", key="deletion", width="stretch")
picked = [*(event.selection.get("bar", []) if event else []), *(deleted.selection.get("bar", []) if deleted else [])]
if picked and (link := found.link(picked[0])) is not None:
    st.switch_page("pages/translate.py", query_params=link)
st.markdown("\n".join(f"- {for_markdown(line)}" for line in found.verdicts))
with st.expander("How each number was measured"):
    st.code("\n".join(found.commands), language="bash")
