"""The one cached loader, and the cached traces every page draws: models are loaded once per server (a resource),
traces once per sentence and setting (data). Nothing here does math: it calls ``models`` and caches the results.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

from models.decoding.trace import Trace
from models.storage.hub import LoadedModel, LoadPolicy, load_model, stays_loaded
from models.storage.languages import Asking
from models.views import inside, translate
from models.views.learning import Replay, record_stamp
from models.views.learning import replay as replay_of

from .deploy import now, set_serving_threads


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
    set_serving_threads()
    return load_model(key.ref, key.revision, policy=policy)


@st.cache_resource(max_entries=now().hub_models_kept, show_spinner="Loading the model from the Hugging Face Hub…")
def _load_hub(key: ModelKey, policy: LoadPolicy) -> LoadedModel:
    set_serving_threads()
    return load_model(key.ref, key.revision, policy=policy)


@st.cache_resource(max_entries=16, show_spinner="Setting the model's languages…")
def _asked(key: ModelKey, policy: LoadPolicy) -> LoadedModel:
    return load(replace(key, asking=None)).asked(key.asking)


def neighbour_index(key: ModelKey) -> inside.Indexed:
    """The neighbour index beside the model, or why there is none to use (:func:`models.views.translate.
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
    return replay_of(load(key).path)


@st.cache_data(max_entries=256, show_spinner=False)
def cached_trace(key: ModelKey, text: str, beam: int) -> Trace | translate.Refused:
    """The best-beam trace of ``text``, or greedy (:func:`models.views.translate.translation`)."""
    if beam > 1:
        found = cached_beam(key, text, beam)
        return found.hypotheses[0] if isinstance(found, translate.BeamView) else found
    return translate.translation(load(key), text)


@st.cache_data(max_entries=64, show_spinner=False)
def cached_what_if(key: ModelKey, text: str, step: int, word: int, layer: int) -> translate.WhatIfView:
    """:func:`models.views.translate.what_if_view` of the model ``key`` names."""
    return translate.what_if_view(load(key), text, step, word, layer)


@st.cache_data(max_entries=64, show_spinner=False)
def cached_beam(key: ModelKey, text: str, beam: int) -> translate.BeamView | translate.Refused:
    """Every final hypothesis of a beam search and its tree."""
    return translate.beam(load(key), text, beam)


@st.cache_data(max_entries=256, show_spinner=False)
def cached_forced(key: ModelKey, text: str, target: str | tuple[int, ...]) -> Trace | translate.Refused:
    """``text`` made to translate as ``target`` (:func:`models.views.translate.translation`)."""
    return translate.translation(load(key), text, target)


@st.cache_data(max_entries=16, show_spinner=False)
def cached_scaling(max_dim: int) -> list[dict]:
    return inside.scaling(max_dim)
