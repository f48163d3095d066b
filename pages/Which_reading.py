"""Which reading? One sentence's matrices side by side, each with its AER on the human-aligned set and how far this
translation depends on the words it points at; a click opens one on the Translate page."""
import pandas as pd
import streamlit as st

from models.analysis.alignment import view_at
from models.views.readings import EVERY_WAY, fitted_heads
from pages._shared import charts, reading_panels, ui

st.title("Which reading?")
st.caption("One translation read every way the model allows; is each an alignment, and is it an explanation?",
           help=EVERY_WAY)

settings, loaded = ui.model_or_fallback(ui.settings())
text = ui.sentence_input(loaded.languages[0])
if text is None:
    st.stop()
trace = ui.trace_or_stop(settings, text)
ui.say_notices(loaded, trace, text)
ui.show_translation(trace.translation)
found = reading_panels.every_way(settings.key, text, trace.target_ids)

views = [view_at(trace, p.weights, None, settings.words) for p in found.panels]
event = st.altair_chart(charts.head_grid(views, list(found.titles), None, columns=3, measure="share"),
                        key="readings", on_select="rerun", selection_mode="head")
st.caption("Each panel: rows are the words written, columns the source words, darker is more. Click one to open it "
           "on the Translate page.")
picked = event.selection.get("head", []) if event else []
if picked and (link := found.links[int(picked[0]["head"])]) is not None:
    params = {k: v for k, v in st.query_params.to_dict().items() if k not in ("matrix", "read", "head", "foil")}
    st.switch_page("pages/translate.py", query_params={**params, **link})

st.dataframe(pd.DataFrame(found.table).style.format(precision=2, na_rep="—"), hide_index=True, key="matrix_scores")
if not found.recorded:
    st.caption("No AER recorded for this model yet: `python -m models.align --model … --data gold:… --matrix all "
               "--save` writes it beside the checkpoint.")
st.caption("Comprehensiveness and sufficiency are this sentence's, in nats, averaged over its steps; a one-word "
           "sentence has none. Each matrix is drawn at the layer (and head) it aligns best with, read at the step "
           "that writes each word. The Models page has both scores over whole test sets.")
if heads := fitted_heads(loaded):
    reading_panels.fitted_heads(heads, columns=2)
