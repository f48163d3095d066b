"""Which matrix to believe? One sentence's matrices side by side, each with its AER on the human-aligned set and how
far this translation depends on the words it points at; a click opens one on the Translate page."""
import pandas as pd
import streamlit as st

from models import charts
from models.views import prose
from models.views.matrix_views import fitted_heads
from pages._shared import matrix_panels, ui

st.title("Which matrix to believe?")
st.caption("One translation read every way the model allows; is each an alignment, and is it an explanation?",
           help=prose.EVERY_WAY)

settings, loaded = ui.model_or_fallback(ui.settings())
text = ui.sentence_input(loaded.languages[0])
if text is None:
    st.stop()
trace = ui.trace_or_stop(settings, text)
ui.say_notices(loaded, trace, text)
ui.show_translation(trace.translation)
found = matrix_panels.every_way(settings.key, text, trace.target_ids)

event = st.altair_chart(charts.head_grid(found.heatmaps(trace, settings.words), list(found.titles), None, columns=3,
                                         measure="share"), key="readings", on_select="rerun", selection_mode="head")
st.caption(prose.PANELS)
picked = event.selection.get("head", []) if event else []
if picked and (link := found.links[int(picked[0]["head"])]) is not None:
    params = {k: v for k, v in st.query_params.to_dict().items() if k not in ("matrix", "read", "head", "foil")}
    st.switch_page("pages/translate.py", query_params={**params, **link})

st.dataframe(pd.DataFrame(found.table).style.format(precision=2, na_rep="—"), hide_index=True, key="matrix_scores")
if not found.recorded:
    st.caption(prose.NO_AER)
st.caption(prose.PANEL_SCORES)
if heads := fitted_heads(loaded):
    matrix_panels.fitted_heads(heads, columns=2)
