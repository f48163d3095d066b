"""What a page shows of a model: one matrix (:mod:`models.analysis.recipes`: the attention, what it adds, a rollout,
an attribution) at one reading (one head, or a layer's whole); and human links.

Attribution (:mod:`models.analysis.attribution`) answers "which source words did this output piece depend on",
attention "where did the decoder read", the others "how much did each source piece add"; a page shows any of them
for the same step. A multi-head model's attention is
read one way at a time (:class:`models.nouns.attention_map.Reading`), in the URL as ``head=LAYER.HEAD`` or
``head=LAYER.mean``. Human links come by name in the model's pair (``gold:en-fr``, ``gold:ro-en``, …, fetched
once: :mod:`models.datasets.gold_sets`), or, for an English→French model, from a folder of the Hansards gold with its
trial set (``ATLAS_GOLD``, else ``../shared/data/hansards-en-fr-align`` beside the project). None is bundled.
"""
from __future__ import annotations

import streamlit as st

from models.decoding.trace import Trace
from models.nouns.attention_map import Reading
from models.nouns.matrix import ATTENTION, Matrix
from models.storage.hub import LoadedModel
from models.storage.languages import Languages
from models.views import deployment, matrix_views as views, naming

from . import cache, deploy, ui


def matrix_picker(loaded: LoadedModel, key: str = "matrix") -> Matrix:
    """Which matrix to draw (in the URL as ``matrix``): every one the model has (:func:`applicable`), opening on
    its own (the one its head trained to align is read under)."""
    choices, wanted = naming.matrix_choice(loaded, ui.read_url().matrix)
    matrix = st.selectbox("Show", choices, index=choices.index(wanted), key=key, format_func=naming.matrix_name,
                          help=naming.show_help(loaded))
    st.query_params["matrix"] = matrix.slug
    st.query_params.pop("read", None)  # an old link's name for it (query_string.RENAMED)
    return matrix


def head_picker(loaded: LoadedModel, key: str = "head", label: str = "Attention head",
                shifted: bool = False, shape: tuple[int, int] | None = None,
                matrix: Matrix = ATTENTION) -> Reading | None:
    """Which reading of the model's attention to draw (in the URL under ``key``, a field of
    :class:`models.views.query_string.UrlState`), of those :func:`models.views.naming.head_choice` offers: a head or
    a layer's mean, with ``shifted`` one step later too; of another attention when ``shape`` (its layers, heads) is
    given; of ``matrix``'s layers. An RNN's only plain reading needs no widget; None without attention or for an
    attribution."""
    choice = naming.head_choice(loaded, matrix, shifted, shape)
    if choice is None or len(choice.options) == 1:
        return choice and choice.options[0]
    chosen = chosen_key(key)  # kept apart from the widget's own state, which a page switch resets
    if st.session_state.get(chosen) not in choice.options:  # first run, or another model: the link's, else default
        linked, notice = naming.linked_reading(loaded, getattr(ui.read_url(), key), choice.default)
        if notice:
            st.toast(notice, icon=":material/warning:")
        st.session_state[chosen] = choice.wanted(matrix.at(linked))
    st.session_state[key] = st.session_state[chosen]
    reading = st.selectbox(label, choice.options, key=key, format_func=choice.name, help=choice.help,
                           on_change=lambda: st.session_state.update({chosen: st.session_state[key]}))
    st.query_params[key] = reading.key
    return reading


def chosen_key(key: str) -> str:
    """The session key that keeps a head picker's choice across pages and reruns."""
    return f"_atlas_chosen_{key}"


def affordable(loaded: LoadedModel, trace: Trace, matrix: Matrix) -> bool:
    """Whether this server gives ``matrix`` of ``trace`` the time it would take; if not, says so."""
    reason = deployment.affordable(loaded.model, trace, matrix, deploy.now().attribution_limit_s)
    if reason:
        st.warning(reason)
    return reason is None


def matrix_view(settings: ui.Settings, text: str, trace: Trace, matrix: Matrix,
                reading: Reading | None) -> views.MatrixView:
    """``matrix`` of ``trace`` at ``reading`` as a page draws it (:func:`models.views.matrix_views.matrix_view`), each
    matrix of a sentence computed once a server and kept; a bar while a slow one runs; a warning where the
    attention stands in for a matrix this server cannot afford, and the page's end where nothing can."""
    loaded = cache.load(settings.key)
    found = cache.found_matrices(settings.key, text, trace.target_ids)
    bar = None

    def progress(done: float) -> None:
        nonlocal bar
        bar = bar or st.progress(0.0)
        bar.progress(done, text=f"Computing {matrix.name}: {done:.0%}")

    try:
        drawn = views.matrix_view(loaded, trace, matrix, reading, settings.words,
                                  deploy.now().attribution_limit_s, progress, found)
    except views.Unaffordable as e:
        st.warning(str(e))
        st.stop()
    if bar is not None:
        bar.empty()
    if drawn.instead:
        st.warning(drawn.instead)
    return drawn


def gold_source(loaded: LoadedModel) -> tuple[str, list[str]] | None:
    """Where this model's human links come from and their splits (:func:`models.views.matrix_views.gold_source`: the
    Hansards folder, ``ATLAS_GOLD`` else the data folder's, for an English→French model; else its pair's set by
    name); None, said in a sentence, when no set links its languages."""
    found = views.gold_source(loaded.languages, deploy.now().gold_folder)
    if isinstance(found, str):
        st.info(found)
        return None
    return found


def gold_pairs(spec: str, languages: Languages, split: str) -> list:
    """The pairs of ``split`` (:func:`models.views.matrix_views.gold_pairs`), fetched under a status the first time."""
    gold_set = views.to_fetch(spec)
    if gold_set is None:
        return cache.cached_gold(spec, languages, split)
    with st.status(f"Fetching {spec} ({gold_set.who}) from awesome-align's examples…") as status:
        pairs = cache.cached_gold(spec, languages, split)
        status.update(label=f"{spec}: cached", state="complete", expanded=False)
    return pairs

