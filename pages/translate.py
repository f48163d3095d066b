"""Translate & align: a sentence, its translation, and where the model looked at every step."""
import streamlit as st

from models.analysis.alignment import AttentionView, piece_columns, piece_label, source_word_weights, step_of_row
from models.analysis.matrices import MATRICES
from models.analysis.neighbours import IndexFileError, nearest
from models.decoding.trace import Reading, Trace
from models.network.translator import NamedKind, Translator
from models.network.tokenization import is_language_tag, word_index
from models.views import naming
from models.views.readings import MatrixView
from pages._shared import cache, charts, evidence, exports, readings, ui
from pages._shared import kinds as kinds_ui
from pages._shared.labels import for_markdown, plain


def beam_explorer(settings: ui.Settings, text: str) -> Trace:
    """The n-best list and the search tree; returns the hypothesis picked for the views below."""
    result = cache.cached_beam(settings.model, settings.revision, settings.asking, text, settings.beam)
    st.subheader("Beam search")
    st.dataframe([{"#": i + 1, "translation": h.translation, "log p": h.logprob,
                   "per piece": h.logprob / len(h.target_ids), "pieces": len(h.target_ids)}
                  for i, h in enumerate(result.hypotheses)], hide_index=True, key="nbest",
                 column_config={k: st.column_config.NumberColumn(format="%.2f") for k in ("log p", "per piece")})
    chosen = st.radio("Show hypothesis", range(len(result.hypotheses)), horizontal=True, key="hypothesis",
                      format_func=lambda i: f"#{i + 1}", help="the heatmap and the step explorer follow it")
    chosen = min(chosen, len(result.hypotheses) - 1)
    st.altair_chart(charts.beam_tree(result.nodes, result.ends, chosen), width="stretch", key="beam_tree")
    st.caption("Each column is a decoding step; higher is better. Blue: kept in the beam; grey: the best pruned; "
               "orange: the hypothesis shown; squares end with </s>.")
    return result.hypotheses[chosen]


def shifted_toggle(chosen: bool) -> bool:
    """Whether to draw the reading one step later beside the plain one (in the URL as ``shifted``); without the
    URL's word, as the model's card chose (``chosen``: the reading it aligns with is read one step later)."""
    linked = ui.read_url().shifted
    on = st.toggle("One step later", value=chosen if linked is None else bool(linked),
                   key="shifted",
                   help=evidence.STEP_NOTE)
    st.query_params["shifted"] = str(int(on))
    return on


def shifted_heatmap(place, settings: ui.Settings, text: str, trace: Trace, matrix: str, reading: Reading,
                    title: str, measure: str) -> None:
    """The same reading of ``matrix`` with each word's row taken from the step where it is the decoder's input."""
    later = Reading(reading.layer, reading.head, shifted=True)
    if len(trace.target_pieces) < 2:
        place.info("One written piece: there is no later step to read it at.")
        return
    view = evidence.matrix_view(settings, text, trace, matrix, later).view
    place.altair_chart(charts.heatmap(view, f"{title}, one step later — the row of the step each word is read in",
                                      measure=measure), width="stretch", key="heatmap_shifted")
    place.caption(evidence.STEP_NOTE)


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


def pick_head() -> None:
    """A click in the head grid opens that head of the layer shown (runs before the next script run)."""
    points, chosen = st.session_state["head_grid"].selection.get("head", []), evidence.chosen_key("head")
    if points and isinstance(st.session_state.get(chosen), Reading):
        st.session_state[chosen] = Reading(st.session_state[chosen].layer, int(points[0]["head"]))


def head_grid(trace: Trace, kinds, kind: NamedKind, reading: Reading, words: bool) -> None:
    """Every head of the shown layer at a glance; clicking one opens it above."""
    heads = trace.attention_shape[1]
    views = [kinds_ui.views_of(trace, kinds, kind, Reading(reading.layer, h), words) for h in range(heads)]
    st.altair_chart(charts.head_grid(views, [f"head {h + 1}" for h in range(heads)], reading.head),
                    key="head_grid", on_select=pick_head, selection_mode="head")
    st.caption(f"Layer {reading.layer + 1}'s {heads} heads on this sentence. Click a head to open it above.")


@st.fragment
def step_explorer(trace: Trace, shown: MatrixView, settings: ui.Settings, text: str, reading: Reading | None,
                  model: Translator) -> None:
    """The chosen step's attention (or attribution), next-piece choices and links, and the what-if; reruns alone."""
    view, weights, matrix = shown.view, shown.weights, shown.matrix
    st.subheader("Step explorer")
    written = charts.piece_text(trace.target_pieces)
    if "step" not in st.session_state:
        st.session_state.step = ui.read_url().step
    st.session_state.step = min(max(1, st.session_state.step), len(written))  # a new sentence may be shorter
    step = 0  # a translation of one step has nothing to slide over
    if len(written) > 1:
        step = st.slider("Decoding step", 1, len(written), key="step", help="Each step writes one subword.") - 1
    st.query_params["step"] = str(step + 1)
    st.markdown(f"Step **{step + 1}** wrote **{for_markdown(written[step])}**.")
    if is_language_tag(trace.target_pieces[step]):
        st.caption("Forced, not chosen: a many-to-many model is made to write the target language's tag first (as "
                   "generate's forced_bos_token_id does). The attention is the step's own; its choices are not.")
    source_words, by_word = source_word_weights(trace, weights)
    if settings.words:
        source, row_weights = charts.marked(view.columns, view.unknown), by_word[step]
    else:
        columns, unknown, row_weights = piece_columns(trace, weights[step])
        source = charts.marked(columns, unknown)
    left, right = st.columns(2)
    over = f"{matrix.named} over the source"
    left.altair_chart(charts.bars(source, row_weights, int(row_weights.argmax()), over), width="stretch",
                      key="step_bars")
    right.altair_chart(charts.top_k(trace.top_k[step], trace.target_pieces[step]), width="stretch", key="step_top")
    read = float(weights[step].sum())
    if matrix.weights and model.continues_prompt:  # a chat model's row: the rest went to what it had written
        st.caption(f"Of this step's attention, {read:.0%} went to the prompt (the sentence and the rest of it) and "
                   f"{1 - read:.0%} to the translation so far: a chat model reads both. The bars are not rescaled.")
    share = shown.prefix
    if share is not None:
        st.caption(f"Of what this step's layer {reading.layer + 1} holds, {1 - share[step]:.0%} comes from the source "
                   f"and {share[step]:.0%} from what the decoder had already written (the target prefix), by "
                   f"{matrix.name}. The bars share out the source's part.")
    row = word_index(trace.target_pieces)[step] if settings.words else step
    st.altair_chart(charts.links(view, row, measure=matrix.unit), width="stretch", key="step_links")
    if not is_language_tag(trace.target_pieces[step]):
        contrast(trace, settings, text, step, matrix.name)
    neighbours(trace, settings, step, written[step])
    if reading is not None and model.attention_can_be_forced:  # without attention there is nothing to force
        what_if(settings, text, step, source_words, reading.layer, model.several_heads)
    elif reading is not None:
        st.subheader("What if…")
        st.caption("This model's attention cannot be forced to look elsewhere: the library it comes from offers no "
                   "place to set a layer's weights, so there is no what-if here.")


def contrast(trace: Trace, settings: ui.Settings, text: str, step: int, matrix: str) -> None:
    """Why the step wrote its piece and not another of its candidates (in the URL as ``foil``): an attribution of
    the difference of their log-probabilities, the shown one's (else gradient×input)."""
    st.subheader("Why this and not…")
    written = piece_label(trace.target_pieces[step])
    options = {p: i for (p, _), i in zip(trace.top_k[step], trace.top_ids[step]) if i != trace.target_ids[step]}
    wanted, pieces = ui.read_url().foil, list(options)
    foil = st.selectbox(f"Why “{written}” at step {step + 1}, and not", pieces, format_func=piece_label,
                        index=pieces.index(wanted) if wanted in pieces else None, key=f"foil_{step}",
                        placeholder="Pick another of the step's candidates…")
    if foil is None:
        st.query_params.pop("foil", None)
        st.caption("Pick a piece the model nearly wrote: the source tokens that made it write its own instead "
                   "(contrastive attribution, Yin & Neubig 2022).")
        return
    st.query_params["foil"] = foil
    method, weights = readings.cached_contrast(settings.model, settings.revision, settings.asking, text,
                                               trace.target_ids, matrix, step, options[foil])
    columns, unknown, weights = piece_columns(trace, weights[None])
    view = AttentionView(rows=(f"{written}, not {piece_label(foil)}",), columns=columns, unknown=unknown,
                         weights=weights, energies=None)
    title = f"{MATRICES[method].named} of log p(“{written}”) − log p(“{piece_label(foil)}”)"
    st.altair_chart(charts.heatmap(view, title, measure="share"), width="stretch", key="contrast")
    st.caption("Each source token's share in the difference between the two log-probabilities: what made the model "
               "write its piece rather than the other.")


def neighbours(trace: Trace, settings: ui.Settings, step: int, written: str) -> None:
    """Training sentences in which the decoder was in the state nearest to this step's."""
    st.subheader("Nearest training states")
    try:
        index = cache.neighbour_index(settings.model, settings.revision)
    except IndexFileError as e:
        st.warning(f"This model's neighbour index cannot be used: {for_markdown(str(e))}")
        return
    if index is None:
        st.info("This model has no neighbour index. Build one beside its checkpoint with "
                "`python -m models.neighbours --model … --data …`.")
        return
    found = nearest(index, trace.states[step], k=8)
    st.caption(f"The decoder state that wrote **{for_markdown(written)}** is closest to the states that wrote the "
               f"bold words below, in {len(index.sources):,} training sentences ({len(index.vectors):,} states, "
               f"cosine similarity over {index.vectors.shape[1]} principal components keeping "
               f"{index.explained:.0%} of their variance).")
    st.markdown("\n".join(
        f"{i}. `{n.similarity:.2f}` {for_markdown(n.before)} **{for_markdown(n.word)}** {for_markdown(n.after)}  \n"
        f"   :gray[{for_markdown(index.sources[n.sentence])}]" for i, n in enumerate(found, 1)
    ))


def what_if(settings: ui.Settings, text: str, step: int, source_words: tuple[str, ...], layer: int,
            several: bool) -> None:
    st.subheader("What if…")
    where = f"every head of layer {layer + 1}" if several else "the attention"
    st.caption(f"Force {where} at the chosen step onto one source word and let the decoder carry on from there "
               "(greedy decoding, whatever the sidebar says).")
    focus = st.selectbox(f"At step {step + 1}, look only at", range(len(source_words)), index=None,
                         placeholder="Pick a source word…", format_func=lambda i: plain(source_words[i]), key="focus")
    if focus is None:  # decode the what-if only when asked: it costs a second greedy pass per step
        return
    found = cache.cached_what_if(settings.model, settings.revision, settings.asking, text, step, focus, layer)
    base, changed, step = found.base, found.changed, found.step
    before, after = st.columns(2)
    before.markdown("**As decoded**")
    ui.show_translation(base.translation, before)
    before.altair_chart(charts.top_k(base.top_k[step], base.target_pieces[step]), width="stretch", key="wi_before")
    after.markdown(f"**Looking only at “{for_markdown(source_words[focus])}” at step {step + 1}**")
    ui.show_translation(changed.translation, after)
    after.altair_chart(charts.top_k(changed.top_k[step], changed.target_pieces[step]), width="stretch",
                       key="wi_after")


settings, loaded = ui.model_or_fallback(ui.settings())
st.caption(f"{ui.direction(loaded)} translation by {naming.about(loaded.variant)}"
           " — and, at every word it writes, where its attention looks.")
text = ui.sentence_input(loaded.languages[0])
if text is None:
    st.stop()
trace = ui.trace_or_stop(settings, text)
ui.source_notices(trace)

ui.show_translation(trace.translation, help="The model's translation: greedy, or with a beam wider than 1 (the "
                                             "sidebar) the hypothesis picked below.")
if settings.beam > 1:
    trace = beam_explorer(settings, text)
# What the heatmap shows, in one row beside each other rather than a column above it: the picture stays in the
# first screen of a laptop (issue 64); on a phone the row stacks.
show_at, kind_at, head_at, later_at = st.columns([4, 5, 4, 3], vertical_alignment="bottom")
with show_at:
    matrix = evidence.matrix_picker(loaded)
with kind_at:
    kind = kinds_ui.kind_picker(loaded, offered=MATRICES[matrix].every_kind)
with head_at:
    reading = evidence.head_picker(loaded, shape=None if kind.stepwise else loaded.model.attention_shapes[kind.key],
                                   matrix=matrix)
if reading is None and not loaded.model.has_attention:
    st.caption("This model has no attention: the decoder sees one fixed summary of the sentence at every step. "
               "Attribution still shows which source words each output word depended on.")
steps_reading = reading if kind.stepwise else loaded.reading.plain  # the step explorer follows decoding steps
if reading is None and loaded.reading is not None:  # an attribution: the step explorer's what-if still forces
    steps_reading = loaded.reading.plain
drawn = evidence.matrix_view(settings, text, trace, matrix, steps_reading)
matrix, measure = drawn.matrix.name, drawn.matrix.unit  # the attention, where it stands in for the matrix asked
main = kinds_ui.shown(settings, loaded, text, trace, drawn, kind, reading)
heatmap = charts.heatmap(main.view, main.title, clickable=main.stepwise, measure=measure)
with later_at:
    later = shifted_toggle(loaded.reading.shifted) if drawn.matrix.later and main.stepwise else False
plain_place, later_place = st.columns(2) if later else (st.container(), None)
clicked = plain_place.altair_chart(heatmap, width="stretch", key="heatmap",
                                   **({"on_select": "rerun", "selection_mode": "cell"} if main.stepwise else {}))
if later:
    shifted_heatmap(later_place, settings, text, trace, matrix, reading, main.name, measure)
st.caption(main.caption)
if trace.source.prompt:  # a chat model's prompt, a T5's task prefix: what it read around the sentence
    with st.expander("The prompt the model read"):
        st.code(trace.source.prompt, language=None, wrap_lines=True)
if main.stepwise:
    follow_click(clicked, trace, settings.words)
if drawn.matrix.every_kind and loaded.model.several_heads:
    head_grid(trace, main.kinds, kind, reading, settings.words)
    kinds_ui.model_view(trace, main.kinds, kind, reading, settings.words)
step_explorer(trace, drawn, settings, text, steps_reading, loaded.model)
if drawn.matrix.every_kind and loaded.model.switchable_heads:
    kinds_ui.heads_off(settings, loaded, text, steps_reading, settings.words)

st.subheader("Downloads")
exports.download_buttons(main.view, heatmap, stem=main.stem)
kinds_ui.bertviz_download(settings, loaded, text, trace)
