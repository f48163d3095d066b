"""The pages' cache, all of it: the one cached loader, the cached traces every page draws, and each page's work on
them. Models are loaded once per server (a resource), traces and what is read of them once per sentence and setting
(data). Nothing here does math or lays out a widget: it calls ``models`` and caches the results; a result that
cannot be made is handed back as the view's :class:`~models.views.translation.Refused`, for the page to say.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import streamlit as st

from models.datasets.sentences import Sentences, read_folder
from models.decoding.trace import Trace
from models.nouns.attention_map import AttentionMap, Kind, Reading
from models.nouns.matrix import Matrix
from models.storage.hub import LoadedModel, LoadPolicy, load_model, stays_loaded
from models.storage.languages import Asking, Languages, language_key
from models.views import corpus, inside, kinds as kinds_views, matrix_views, translation
from models.views.learning import Replay, record_stamp, replay as replay_of

from .deploy import now

#: A matrix is keyed by its name: the registry holds one of each (its callables are not data to hash).
BY_NAME = {Matrix: lambda matrix: matrix.name}


@dataclass(frozen=True)
class ModelKey:
    """A model as the page cache keys it: a bundled name, a Hub repo id or a folder (``ref``), its revision, and
    what it is asked (a many-to-many or chat model's pair, a chat model's instruction; None: as it loads)."""

    ref: str
    revision: str | None = None
    asking: Asking | None = None


def load(key: ModelKey) -> LoadedModel:
    """The model ``key`` names, under this deployment's policy (the policy is part of the cache key). The bundled
    models and local folders stay loaded; of Hub repos the server keeps the last few used
    (:data:`~models.views.deployment.HUB_MODELS_KEPT`), so visitors asking for one model after another cannot
    exhaust its memory. A model asked for a pair or an instruction shares the loaded model's weights."""
    policy = now().load_policy  # read once a call: it reads the settings and the machine's memory
    if key.asking is not None:
        return _asked(key, policy)
    return (_load if stays_loaded(key.ref, policy) else _load_hub)(key, policy)


@st.cache_resource(max_entries=8, show_spinner="Loading the model…")
def _load(key: ModelKey, policy: LoadPolicy) -> LoadedModel:
    now().set_threads()
    return load_model(key.ref, key.revision, policy=policy)


@st.cache_resource(max_entries=now().hub_models_kept, show_spinner="Loading the model from the Hugging Face Hub…")
def _load_hub(key: ModelKey, policy: LoadPolicy) -> LoadedModel:
    now().set_threads()
    return load_model(key.ref, key.revision, policy=policy)


@st.cache_resource(max_entries=16, show_spinner="Setting the model's languages…")
def _asked(key: ModelKey, policy: LoadPolicy) -> LoadedModel:
    return load(replace(key, asking=None)).asked(key.asking)


def neighbour_index(key: ModelKey) -> inside.Indexed:
    """The neighbour index beside the model, or why there is none to use (:func:`models.views.translation.
    neighbour_index`), whatever the model is asked. Cached by the file's modification time too, so an index built
    while the app runs is seen."""
    key = replace(key, asking=None)
    return _index(key, now().load_policy, inside.index_stamp(load(key)))


@st.cache_resource(max_entries=8, show_spinner="Loading the neighbour index…")
def _index(key: ModelKey, policy: LoadPolicy, stamp: int | None) -> inside.Indexed:
    return inside.neighbour_index(load(key))


def replay(key: ModelKey) -> Replay | None:
    """The model's training record to replay (:func:`models.views.learning.replay`), None without one; a
    ValueError if unusable. Cached by the file's modification time too, so a record rewritten while the app runs
    is seen."""
    key = replace(key, asking=None)
    return _replay(key, now().load_policy, record_stamp(load(key).path))


@st.cache_data(max_entries=8, show_spinner=False)
def _replay(key: ModelKey, policy: LoadPolicy, stamp: tuple | None) -> Replay | None:
    loaded = load(key)
    source = loaded.languages[0]  # None where the model does not say: no curated example is marked for it
    return replay_of(loaded.path, source and language_key(source))


@st.cache_data(max_entries=256, show_spinner=False)
def cached_trace(key: ModelKey, text: str, beam: int) -> Trace | translation.Refused:
    """The best-beam trace of ``text``, or greedy (:func:`models.views.translation.translation`)."""
    if beam > 1:
        found = cached_beam(key, text, beam)
        return found.hypotheses[0] if isinstance(found, translation.BeamView) else found
    return translation.translation(load(key), text)


@st.cache_data(max_entries=64, show_spinner=False)
def cached_what_if(key: ModelKey, text: str, step: int, word: int, layer: int) -> translation.WhatIfView:
    """:func:`models.views.translation.what_if_view` of the model ``key`` names."""
    return translation.what_if_view(load(key), text, step, word, layer)


@st.cache_data(max_entries=64, show_spinner=False)
def cached_beam(key: ModelKey, text: str, beam: int) -> translation.BeamView | translation.Refused:
    """Every final hypothesis of a beam search and its tree."""
    return translation.beam(load(key), text, beam)


@st.cache_data(max_entries=256, show_spinner=False)
def cached_forced(key: ModelKey, text: str, target: str | tuple[int, ...]) -> Trace | translation.Refused:
    """``text`` made to translate as ``target`` (:func:`models.views.translation.translation`)."""
    return translation.translation(load(key), text, target)


@st.cache_data(max_entries=16, show_spinner=False)
def cached_scaling(max_dim: int) -> list[dict]:
    return inside.scaling(max_dim)


@st.cache_data(max_entries=16, show_spinner="Rendering the images…")
def images(spec: str) -> tuple[bytes, bytes]:
    """PNG (twice the size) and SVG of a Vega-Lite chart, rendered on the server by vl-convert: no browser."""
    import vl_convert  # only asked for here: the first page does not pay for loading it

    return vl_convert.vegalite_to_png(spec, scale=2), vl_convert.vegalite_to_svg(spec).encode()


@st.cache_resource(max_entries=32, show_spinner=False)
def found_matrices(key: ModelKey, text: str, target: tuple[int, ...]) -> dict:
    """The matrices read so far of ``text`` written as ``target``, by name: one sentence's
    :attr:`~models.analysis.contributions.Sentence.found`, kept across reruns and visitors (arrays, no model)."""
    return {}


@st.cache_data(max_entries=8, show_spinner=False)
def cached_gold(spec: str, languages: Languages, split: str) -> list:
    """The human-linked pairs of ``split`` (:func:`models.views.matrix_views.gold_pairs`)."""
    return matrix_views.gold_pairs(spec, languages, split)


@st.cache_data(max_entries=128, show_spinner="Reading the model…", hash_funcs=BY_NAME)
def cached_gold_view(key: ModelKey, pair, matrix: Matrix, reading: Reading | None) -> matrix_views.GoldView:
    """``pair`` under ``matrix`` at ``reading``, scored (:func:`models.views.matrix_views.gold_view`)."""
    return matrix_views.gold_view(load(key), pair, matrix, reading)


@st.cache_data(max_entries=64, show_spinner="Reading every attention…")
def cached_kinds(key: ModelKey, text: str, target: tuple[int, ...]) -> dict[Kind, AttentionMap] | translation.Refused:
    """The three attentions of ``text`` written as ``target``: computed for the sentence shown only (forcing adds
    an end of sentence to a translation cut at its length limit; its row is not shown)."""
    trace = cached_forced(key, text, target)
    if isinstance(trace, translation.Refused):
        return trace
    return kinds_views.sentence_kinds(load(key).model, trace, len(target))


@st.cache_data(max_entries=32, show_spinner="Decoding without those heads…")
def cached_heads_off(key: ModelKey, text: str, off: tuple[str, ...]) -> Trace:
    """The greedy translation of ``text`` by a copy of the model with the heads ``off`` switched off."""
    return kinds_views.without(load(key), text, off)


@st.cache_data(max_entries=16, show_spinner=False)
def cached_bertviz(key: ModelKey, text: str, target: tuple[int, ...]) -> str | translation.Refused:
    """bertviz's model view of the sentence's three attentions, written once per sentence and translation."""
    kinds = cached_kinds(key, text, target)
    return kinds if isinstance(kinds, translation.Refused) else kinds_views.bertviz(kinds)


@st.cache_data(max_entries=64, show_spinner="Contrasting the two pieces…", hash_funcs=BY_NAME)
def cached_contrast(key: ModelKey, text: str, target: tuple[int, ...], matrix: Matrix, step: int,
                    foil: int) -> tuple[Matrix, np.ndarray] | translation.Refused:
    """The attribution used and its shares [S]: why step ``step`` of ``text`` written as ``target`` wrote its piece
    and not ``foil`` (:func:`models.views.matrix_views.contrast`)."""
    trace = cached_forced(key, text, target)
    if isinstance(trace, translation.Refused):
        return trace
    return matrix_views.contrast(load(key).model, trace, matrix, step, foil, now().attribution_limit_s)


@st.cache_data(max_entries=32, show_spinner="Reading the sentence every way and masking its words…",
               hash_funcs=BY_NAME)
def cached_every_way(key: ModelKey, text: str, target: tuple[int, ...],
                     chosen: tuple[tuple[Matrix, Reading | None], ...],
                     scored: bool) -> matrix_views.EveryWay | translation.Refused:
    """``text`` written as ``target`` read as each of the ``chosen`` matrices at its reading, deletion-scored
    where ``scored`` (:func:`models.views.matrix_views.every_way`)."""
    trace = cached_forced(key, text, target)
    if isinstance(trace, translation.Refused):
        return trace
    return matrix_views.every_way(load(key), trace, dict(chosen), scored)


@st.cache_data(max_entries=8, show_spinner="Reading the test set…")
def cached_folder(folder: str, split: str) -> Sentences:
    """A test split of a data folder."""
    return read_folder(folder, split)


@st.cache_data(max_entries=8, show_spinner=False)
def cached_test_set(test_set: corpus.TestSet, languages: Languages, max_mb: float | None) -> Sentences:
    """A public test set by name, fetched into sacreBLEU's cache the first time (:func:`models.views.corpus.
    from_public`)."""
    return corpus.from_public(test_set, languages, max_mb)


@dataclass(frozen=True)
class TableModel:
    """One model of the Corpus table as the page names it: the model, its reading's key and its column's name."""

    key: ModelKey
    reading: str | None
    name: str


def table_of(models: tuple[TableModel, ...]) -> corpus.Table:
    """The table of ``models``, each loaded through the one cached loader."""
    loaded = [load(m.key) for m in models]
    return corpus.Table.of(loaded, [m.name for m in models], [m.reading for m in models])


@st.cache_data(max_entries=256, show_spinner=False)
def cached_rows(models: tuple[TableModel, ...], sentences: Sentences, start: int, stop: int) -> list[dict]:
    """Rows ``start`` to ``stop`` of the table: a batch, cached by its models, readings and sentences."""
    return table_of(models).rows(sentences, start, stop)


@st.cache_data(max_entries=32, show_spinner=False)
def cached_figures(job: str, done: int, _models: tuple[TableModel, ...], _sentences: Sentences,
                   _rows: list[dict]) -> corpus.Figures:
    """The rows and figures of the first ``done`` rows of ``job`` (what the table names its models and sentences
    by: the rest of the arguments are not hashed again)."""
    return table_of(_models).figures(_sentences, _rows)
