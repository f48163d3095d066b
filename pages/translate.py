"""Translate & align: a sentence, its translation, and where the model looked at every step."""
import streamlit as st

from models import charts
from models.analysis.heatmaps import step_of_row
from models.decoding.trace import Trace
from models.nouns.attention_map import Reading
from models.storage.languages import pair_name
from models.views import prose, translation
from pages._shared import cache, evidence, exports, kind_panels, steps, ui


def beam_explorer(settings: ui.Settings, text: str) -> Trace:
    """The n-best list and the search tree; returns the hypothesis picked for the views below."""
    result = ui.or_stop(cache.cached_beam(settings.key, text, settings.beam))
    st.subheader("Beam search")
    st.dataframe(list(result.rows), hide_index=True, key="nbest",
                 column_config={k: st.column_config.NumberColumn(format="%.2f") for k in ("log p", "per piece")})
    chosen = st.radio("Show hypothesis", range(len(result.hypotheses)), horizontal=True, key="hypothesis",
                      format_func=lambda i: f"#{i + 1}", help="the heatmap and the step explorer follow it")
    chosen = min(chosen, len(result.hypotheses) - 1)
    st.altair_chart(charts.beam_tree(result.tree(chosen)), width="stretch", key="beam_tree")
    st.caption(prose.BEAM_TREE)
    return result.hypotheses[chosen]


def shifted_toggle(chosen: bool) -> bool:
    """Whether to draw the reading one step later beside the plain one (in the URL as ``shifted``); without the
    URL's word, as the model's card chose (``chosen``: the reading it aligns with is read one step later)."""
    linked = ui.read_url().shifted
    on = st.toggle("One step later", value=chosen if linked is None else bool(linked), key="shifted",
                   help=prose.STEP_NOTE)
    st.query_params["shifted"] = str(int(on))
    return on


def shifted_heatmap(place, settings: ui.Settings, text: str, trace: Trace, drawn, reading: Reading,
                    title: str) -> None:
    """The same reading of the matrix ``drawn`` with each word's row taken from the step where it is the decoder's
    input."""
    if len(trace.target_pieces) < 2:
        place.info("One written piece: there is no later step to read it at.")
        return
    later = Reading(reading.layer, reading.head, shifted=True)
    later_heatmap = evidence.matrix_view(settings, text, trace, drawn.matrix, later).heatmap
    place.altair_chart(charts.heatmap(later_heatmap, f"{title}, one step later",  # why: the caption below
                                      measure=drawn.matrix.unit), width="stretch", key="heatmap_shifted")
    place.caption(prose.STEP_NOTE)


def follow_click(event, trace: Trace, words: bool) -> None:
    """A newly clicked heatmap cell selects its row's decoding step (the first piece of a clicked word)."""
    points = event.selection.get("cell", []) if event else []
    row = int(points[0]["t"]) if points else None
    if row == st.session_state.get("_clicked_row"):  # the same selection, rerun for another reason
        return
    st.session_state["_clicked_row"] = row
    step = step_of_row(trace.target_pieces, row, words)
    if step is not None:
        st.session_state.step = step + 1


settings, loaded = ui.model_or_fallback(ui.settings())
about, question = st.columns([3, 2], vertical_alignment="center")  # one line on a laptop: the picture stays high
about.caption(f"{pair_name(loaded.languages)} translation by {loaded.family.about}"
              " — and, at every word it writes, where its attention looks.")
question.page_link("pages/Answer.py", label=prose.QUESTION, icon=":material/quiz:")
text = ui.sentence_input(loaded.languages[0])
if text is None:
    st.stop()
trace = ui.trace_or_stop(settings, text)
ui.say_notices(loaded, trace, text)

ui.show_translation(trace.translation, help=prose.TRANSLATION)
if settings.beam > 1:
    trace = beam_explorer(settings, text)
# What the heatmap shows, in one row beside each other rather than a column above it: the picture stays in the
# first screen of a laptop (issue 64); on a phone the row stacks.
show_at, kind_at, head_at, later_at = st.columns([4, 5, 4, 3], vertical_alignment="bottom")
with show_at:
    matrix = evidence.matrix_picker(loaded)
with kind_at:
    kind = kind_panels.kind_picker(loaded, offered=matrix.every_kind)
with head_at:
    reading = evidence.head_picker(loaded, shape=None if kind.stepwise else loaded.model.attention_shapes[kind.key],
                                   matrix=matrix)
if note := translation.no_attention(loaded.model):
    st.caption(note)
steps_reading = translation.steps_reading(loaded, kind, reading)  # the step explorer follows decoding steps
drawn = evidence.matrix_view(settings, text, trace, matrix, steps_reading)
kinds = None if kind.stepwise else ui.or_stop(cache.cached_kinds(settings.key, text, trace.target_ids))
main = translation.heatmap(loaded.model, drawn, kind, reading, kinds)
heatmap = charts.heatmap(main.heatmap, main.title, clickable=main.stepwise, measure=drawn.matrix.unit)
with later_at:
    later = shifted_toggle(loaded.reading.shifted) if main.later else False
plain_place, later_place = st.columns(2) if later else (st.container(), None)
clicked = plain_place.altair_chart(heatmap, width="stretch", key="heatmap",
                                   **({"on_select": "rerun", "selection_mode": "cell"} if main.stepwise else {}))
if later:
    shifted_heatmap(later_place, settings, text, trace, drawn, reading, main.title)
st.caption(main.caption)
if trace.source.prompt:  # a chat model's prompt, a T5's task prefix: what it read around the sentence
    with st.expander("The prompt the model read"):
        st.code(trace.source.prompt, language=None, wrap_lines=True)
if main.stepwise:
    follow_click(clicked, trace, settings.words)
if main.heads:
    kind_panels.head_grid(trace, main.kinds, kind, reading, settings.words, range(reading.layer, reading.layer + 1),
                       "head_grid")
    st.caption(f"Layer {reading.layer + 1}'s heads on this sentence. Click a head to open it above.")
    kind_panels.model_view(trace, main.kinds, kind, reading, settings.words)
steps.step_explorer(trace, drawn, settings, text, steps_reading, loaded)
if main.heads_off:
    kind_panels.heads_off(settings, loaded, text, steps_reading, settings.words)

st.subheader("Downloads")
exports.download_buttons(main.heatmap, heatmap, stem=main.stem)
kind_panels.bertviz_download(settings, loaded, text, trace)
