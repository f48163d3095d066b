"""Which reading? One sentence's matrices side by side, each with its AER on the human-aligned set and how far this
translation depends on the words it points at; a click opens one on the Translate page."""
import pandas as pd
import streamlit as st

from models.analysis.faithfulness import DELETIONS
from models.analysis.matrices import MATRICES, slug
from models.analysis.side_by_side import RANDOM, Panel
from models.storage.reading_scores import aligned
from pages._shared import charts, readings, ui

st.title("Which reading?")
st.caption("One translation read every way the model allows; is each an alignment, and is it an explanation?",
           help="The readings: its attention weights, what the attention adds (its norm, ALTI, value zeroing), what "
                "every layer so far adds up to (rollouts) and gradient attributions. Is it an alignment? Its AER "
                "against people's links on the gold test set, as recorded by `python -m models.align --matrix "
                "all`. Is it an explanation? Mask the source words it ranks highest (1 to "
                f"{DELETIONS}) and see how far the written word's log-probability falls (comprehensiveness: higher "
                "is better), or keep only them (sufficiency: lower is better). A random ranking is the floor.")

settings, loaded = ui.model_or_fallback(ui.settings())
text = ui.sentence_input(loaded.languages[0])
if text is None:
    st.stop()
trace = ui.trace_or_stop(settings, text)
ui.show_translation(trace.translation)
chosen = readings.panel_readings(loaded, trace)
panels = readings.cached_side_by_side(settings.model, settings.revision, settings.languages, text, trace.target_ids,
                                      tuple(chosen.items()), readings.deletions_affordable(trace, len(chosen) + 1))
recorded = aligned(loaded.path)


def where(panel: Panel) -> str:
    return "" if panel.reading is None else MATRICES[panel.matrix].label(panel.reading)


def short(panel: Panel) -> str:
    """A panel's title: the matrix, its layer (and head), this sentence's comprehensiveness."""
    at = "" if panel.reading is None else f" {panel.reading.key.removesuffix('.mean')}"
    score = "" if panel.comprehensiveness is None else f" · deletion {panel.comprehensiveness:.2f}"
    return f"{panel.matrix}{at}{score}"


views = [ui.view_of(trace, p.weights, None, settings.words) for p in panels]
event = st.altair_chart(charts.head_grid(views, [short(p) for p in panels], None, columns=3, measure="share"),
                        key="readings", on_select="rerun", selection_mode="head")
st.caption("Each panel: rows are the words written, columns the source words, darker is more. Click one to open it "
           "on the Translate page.")
picked = event.selection.get("head", []) if event else []
if picked and panels[int(picked[0]["head"])].matrix != RANDOM:
    panel = panels[int(picked[0]["head"])]
    params = {k: v for k, v in st.query_params.to_dict().items() if k not in ("read", "head", "foil")}
    st.switch_page("pages/translate.py", query_params={**params, "read": slug(panel.matrix),
                                                       **({"head": panel.reading.key} if panel.reading else {})})

rows = [{"matrix": p.matrix, "reading": where(p),
         "AER % (gold test set)": recorded[p.matrix].aer if p.matrix in recorded else None,
         "aligned at": (f"{recorded[p.matrix].reading or ''} {recorded[p.matrix].method}".strip()
                        if p.matrix in recorded else ""),
         "comprehensiveness": p.comprehensiveness, "sufficiency": p.sufficiency} for p in panels]
st.dataframe(pd.DataFrame(rows).style.format(precision=2, na_rep="—"), hide_index=True, key="reading_scores")
if not recorded:
    st.caption("No AER recorded for this model yet: `python -m models.align --model … --data gold:… --matrix all "
               "--save` writes it beside the checkpoint.")
st.caption("Comprehensiveness and sufficiency are this sentence's, in nats, averaged over its steps; a one-word "
           "sentence has none. Each matrix is drawn at the layer (and head) it aligns best with, read at the step "
           "that writes each word. The Models page has both scores over whole test sets.")
