"""A Transformer's three attentions on the Translate page: the kind switch, the reading's view of each kind, and
the model view — every layer × head of a kind as small multiples (bertviz's model view, drawn by the app's one
chart module). The RNNs read the source through one attention: for them there is no switch."""
from __future__ import annotations

import streamlit as st

from models import charts
from models.decoding.trace import Trace
from models.nouns.attention_map import AttentionMap, Kind, NamedKind, Reading
from models.storage.hub import LoadedModel
from models.views import kinds as kinds_views, prose
from models.views.prose import for_markdown

from . import cache, evidence, ui


def kind_picker(loaded: LoadedModel, offered: bool) -> NamedKind:
    """Which of its attentions a model's views draw (in the URL as ``attn``), as the model names them; where the
    matrix shown reads one attention only (not ``offered``) or the model has one, its step-by-step one."""
    choices = kinds_views.kinds_of(loaded.model) if offered else ()
    wanted = kinds_views.kind_named(loaded.model, ui.read_url().attn)
    if not choices:
        return loaded.model.steps_kind
    words = {k.key: k.word for k in choices}
    key = st.segmented_control(  # a word or two a kind: the control fits beside the others above the chart
        "Attention kind", list(words), default=wanted.key, key="attn", format_func=words.get,
        help="This model attends " + "; ".join(f"{k.word}: {k.name}" for k in choices) + ".") or wanted.key
    st.query_params["attn"] = key
    return kinds_views.kind_named(loaded.model, key)


def head_grid(trace: Trace, kinds: dict[Kind, AttentionMap] | None, kind: NamedKind, reading: Reading, words: bool,
              layers: range, key: str) -> None:
    """The heads of ``kind`` in ``layers`` as small multiples (:func:`models.views.kinds.head_grid`), a row a layer
    where there are several, the shown ``reading``'s marked; a click opens that head above (its callback runs
    before the next script run)."""
    grid = kinds_views.head_grid(trace, kinds, kind, reading, words, layers)

    def open_head() -> None:
        if points := st.session_state[key].selection.get("head", []):
            st.session_state[evidence.chosen_key("head")] = grid.cells[int(points[0]["head"])]

    st.altair_chart(charts.head_grid(list(grid.views), list(grid.titles), grid.selected, columns=grid.columns),
                    key=key, on_select=open_head, selection_mode="head")


def model_view(trace: Trace, kinds: dict[Kind, AttentionMap] | None, kind: NamedKind, reading: Reading,
               words: bool) -> None:
    """Every layer × head of ``kind`` at once, a row a layer, when asked for (in the URL as ``layers``): a grid of
    dozens of heatmaps holds a browser for seconds; clicking a panel opens it."""
    layers, heads = kinds_views.shown_map(trace, kinds, kind).shape
    st.subheader("Model view")
    if "model_view" not in st.session_state:
        st.session_state["model_view"] = bool(ui.read_url().layers)
    shown = st.toggle(f"All {layers} layers × {heads} heads of {kind.name}", key="model_view",
                      help="bertviz's model view: every head of the attention shown, a row a layer.")
    st.query_params["layers"] = str(int(shown))
    if not shown:
        return
    head_grid(trace, kinds, kind, reading, words, range(layers), "model_view_grid")
    st.caption(f"{kind.named}: all {layers} layers × {heads} heads on this sentence, a "
               f"row a layer (bertviz's model view). {kind.what} Click a panel to open it above.")


def linked_heads(loaded: LoadedModel) -> list[str]:
    """The heads the link switches off (``off=``), those the model lacks dropped with a notice."""
    keys, dropped = kinds_views.head_keys(ui.read_url().off or "", loaded.model)
    for notice in dropped:
        st.toast(notice, icon=":material/warning:")
    return keys


def heads_off(settings: ui.Settings, loaded: LoadedModel, text: str, reading: Reading, words: bool) -> None:
    """What if some heads were switched off: the translation decoded again, the changed words marked, and the
    cross-attention of both beside each other (in the URL as ``off``)."""
    st.subheader("Switch heads off")
    keys = kinds_views.heads(loaded.model)
    if "heads_off" not in st.session_state:
        st.session_state["heads_off"] = linked_heads(loaded)
    off = st.multiselect("Heads to switch off", keys, key="heads_off",
                         format_func=lambda key: kinds_views.head_name(key, loaded.model),
                         help=prose.HEADS_OFF)
    st.query_params["off"] = ",".join(off)
    if not off:
        st.caption("Pick heads to see what the translation loses without them (the Models page ranks every head).")
        return
    trace = cache.cached_trace(settings.key, text, 1)  # greedy, as the heads-off decoding
    changed = cache.cached_heads_off(settings.key, text, tuple(off))
    marked = " ".join(f":orange[**{for_markdown(w)}**]" if new else for_markdown(w)
                      for w, new in kinds_views.changed(trace.translation, changed.translation))
    left, right = st.columns(2)
    left.markdown(f"**As decoded (greedy)**  \n{for_markdown(trace.translation)}")
    right.markdown(f"**Without {len(off)} head{'s' * (len(off) > 1)}**  \n{marked or '(nothing)'}")
    steps = loaded.model.steps_kind
    for place, shown, name in ((left, trace, "as decoded"), (right, changed, "heads off")):
        view = kinds_views.shown_heatmap(shown, None, steps, reading.plain, words)
        place.altair_chart(charts.heatmap(view, f"{steps.named} ({reading.plain.label}), {name}"), width="stretch", key=f"heads_off_{name}")
    st.caption(f"Orange: words the translation without those heads has that the original does not. Both heatmaps "
               f"show the same reading of the {steps.name}.")


def bertviz_download(settings: ui.Settings, loaded: LoadedModel, text: str, trace: Trace) -> None:
    """The sentence's three attentions as the page bertviz's model view writes, built only when it is asked for
    (bertviz is an optional extra); nothing for a model without three."""
    if not kinds_views.offers_bertviz(loaded.model):
        return
    if missing := kinds_views.bertviz_missing():
        st.caption(f"bertviz's model view of this sentence: {missing}")
        return
    st.download_button("bertviz model view (HTML)",
                       lambda: ui.or_stop(cache.cached_bertviz(settings.key, text, trace.target_ids)),
                       "bertviz-model-view.html", "text/html", on_click="ignore",
                       help=prose.BERTVIZ)
