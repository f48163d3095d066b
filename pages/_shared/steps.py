"""The Translate page's step explorer: one decoding step's bars, choices and links (:func:`models.views.translation.
step_view`), why it wrote its piece and not another, the training states nearest to it, and a what-if."""
from __future__ import annotations

import streamlit as st

from models import charts
from models.analysis.heatmaps import piece_label
from models.decoding.trace import Trace
from models.nouns.attention_map import Reading
from models.nouns.matrix import Matrix
from models.storage.loaded import LoadedModel
from models.views import inside, prose, translation
from models.views.prose import for_markdown, plain
from models.views.matrix_views import MatrixView

from . import cache, ui


@st.fragment
def step_explorer(trace: Trace, shown: MatrixView, settings: ui.Settings, text: str, reading: Reading | None,
                  loaded: LoadedModel) -> None:
    """The chosen step's attention (or attribution), next-piece choices and links, and the what-if; reruns alone."""
    st.subheader("Step explorer")
    pieces = len(trace.target_pieces)
    if "step" not in st.session_state:
        st.session_state.step = ui.read_url().step
    st.session_state.step = min(max(1, st.session_state.step), pieces)  # a new sentence may be shorter
    step = 0  # a translation of one step has nothing to slide over
    if pieces > 1:
        step = st.slider("Decoding step", 1, pieces, key="step", help="Each step writes one subword.") - 1
    st.query_params["step"] = str(step + 1)
    found = translation.step_view(loaded.model, trace, shown, step, settings.words, reading)
    st.markdown(f"Step **{step + 1}** wrote **{for_markdown(found.written)}**.")
    if found.forced:
        st.caption(found.forced)
    left, right = st.columns(2)
    bars = found.bars
    left.altair_chart(charts.bars(charts.marked(bars.columns, bars.unknown), bars.weights[0], found.best, found.over),
                      width="stretch", key="step_bars")
    right.altair_chart(charts.top_k(trace.top_k[step], trace.target_pieces[step]), width="stretch", key="step_top")
    for share in found.shares:
        st.caption(share)
    st.altair_chart(charts.links(shown.heatmap, found.row, measure=shown.matrix.unit), width="stretch",
                    key="step_links")
    if not found.forced:
        contrast(trace, settings, text, step, shown.matrix)
    neighbours(trace, settings, step, found.written)
    if found.what_if:
        what_if(settings, text, step, found.source_words, reading.layer, loaded.model.several_heads)
    elif found.no_what_if:
        st.subheader("What if…")
        st.caption(found.no_what_if)


def contrast(trace: Trace, settings: ui.Settings, text: str, step: int, matrix: Matrix) -> None:
    """Why the step wrote its piece and not another of its candidates (in the URL as ``foil``): an attribution of
    the difference of their log-probabilities, the shown one's (else gradient×input)."""
    st.subheader("Why this and not…")
    options = translation.foils(trace, step)
    wanted, pieces = ui.read_url().foil, list(options)
    foil = st.selectbox(f"Why “{piece_label(trace.target_pieces[step])}” at step {step + 1}, and not", pieces,
                        format_func=piece_label, index=pieces.index(wanted) if wanted in pieces else None,
                        key=f"foil_{step}", placeholder="Pick another of the step's candidates…")
    if foil is None:
        st.query_params.pop("foil", None)
        st.caption(prose.NO_FOIL)
        return
    st.query_params["foil"] = foil
    used, weights = ui.or_stop(cache.cached_contrast(settings.key, text, trace.target_ids, matrix, step,
                                                     options[foil]))
    contrast, title = translation.contrast_heatmap(trace, step, foil, used, weights)
    st.altair_chart(charts.heatmap(contrast, title, measure="share"), width="stretch", key="contrast")
    st.caption(prose.CONTRAST)


def neighbours(trace: Trace, settings: ui.Settings, step: int, written: str) -> None:
    """Training sentences in which the decoder was in the state nearest to this step's."""
    st.subheader("Nearest training states")
    index = cache.neighbour_index(settings.key)
    if isinstance(index, inside.Unindexed):
        if index.broken:  # its message quotes the file's error: escaped
            st.warning(for_markdown(index.why))
        else:
            st.info(index.why)
        return
    found = inside.neighbours(index, trace, step)
    st.caption(f"The decoder state that wrote **{for_markdown(written)}** is closest to the states that wrote the "
               f"bold words below, {found.among}.")
    st.markdown("\n".join(
        f"{i}. `{n.similarity:.2f}` {for_markdown(n.before)} **{for_markdown(n.word)}** {for_markdown(n.after)}  \n"
        f"   :gray[{for_markdown(source)}]" for i, (n, source) in enumerate(zip(found.neighbours, found.sources), 1)
    ))


def what_if(settings: ui.Settings, text: str, step: int, source_words: tuple[str, ...], layer: int,
            several: bool) -> None:
    """Force the step's attention onto one source word and decode on from there."""
    st.subheader("What if…")
    st.caption(translation.forcing(layer, several))
    focus = st.selectbox(f"At step {step + 1}, look only at", range(len(source_words)), index=None,
                         placeholder="Pick a source word…", format_func=lambda i: plain(source_words[i]), key="focus")
    if focus is None:  # decode the what-if only when asked: it costs a second greedy pass per step
        return
    found = cache.cached_what_if(settings.key, text, step, focus, layer)
    forced = f"**Looking only at “{for_markdown(source_words[focus])}” at step {found.step + 1}**"
    before, after = st.columns(2)
    for place, title, outcome, key in ((before, "**As decoded**", found.before, "wi_before"),
                                       (after, forced, found.after, "wi_after")):
        place.markdown(title)
        ui.show_translation(outcome.translation, place)
        place.altair_chart(charts.top_k(outcome.choices, outcome.written), width="stretch", key=key)
