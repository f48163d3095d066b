"""The one cached loader, and the cached traces every page draws: models are loaded once per server (a resource),
traces once per sentence and setting (data). Nothing here does math: it calls ``models`` and caches the results.
"""
from __future__ import annotations

import streamlit as st

from models.decoding.trace import Trace
from models.storage.hub import LoadedModel, LoadPolicy, load_model, stays_loaded
from models.storage.languages import Asking
from models.views import inside, translate
from models.views.learning import Replay, record_stamp
from models.views.learning import replay as replay_of

from .deploy import now, set_serving_threads


def load(ref: str, revision: str | None, asking: Asking | None = None) -> LoadedModel:
    """The model ``ref`` under this deployment's policy (the policy is part of the cache key), asked as ``asking``
    says (a many-to-many or chat model's pair, a chat model's instruction; None: as it loads). The bundled models
    and local folders stay loaded; of Hub repos the server keeps the last few used
    (:data:`~models.views.deployment.HUB_MODELS_KEPT`), so visitors asking for one model after another cannot
    exhaust its memory. A pair shares the loaded model's weights."""
    policy = now().load_policy  # read once a call: it reads the settings and the machine's memory
    if asking is not None:
        return _asked(ref, revision, asking, policy)
    if stays_loaded(ref, policy):
        return _load(ref, revision, policy)
    return _load_hub(ref, revision, policy)


@st.cache_resource(max_entries=8, show_spinner="Loading the model…")
def _load(ref: str, revision: str | None, policy: LoadPolicy) -> LoadedModel:
    set_serving_threads()
    return load_model(ref, revision, policy=policy)


@st.cache_resource(max_entries=now().hub_models_kept, show_spinner="Loading the model from the Hugging Face Hub…")
def _load_hub(ref: str, revision: str | None, policy: LoadPolicy) -> LoadedModel:
    set_serving_threads()
    return load_model(ref, revision, policy=policy)


@st.cache_resource(max_entries=16, show_spinner="Setting the model's languages…")
def _asked(ref: str, revision: str | None, asking: Asking, policy: LoadPolicy) -> LoadedModel:
    return load(ref, revision).asked(asking)


def neighbour_index(ref: str, revision: str | None) -> translate.Indexed:
    """The neighbour index beside the model, or why there is none to use (:func:`models.views.translate.
    neighbour_index`). Cached by the file's modification time too, so an index built while the app runs is seen."""
    return _index(ref, revision, now().load_policy, translate.index_stamp(load(ref, revision)))


@st.cache_resource(max_entries=8, show_spinner="Loading the neighbour index…")
def _index(ref: str, revision: str | None, policy: LoadPolicy, stamp: int | None) -> translate.Indexed:
    return translate.neighbour_index(load(ref, revision))


def replay(ref: str, revision: str | None) -> Replay | None:
    """The model's training record to replay (:func:`models.views.learning.replay`), None without one; a
    ValueError if unusable. Cached by the file's modification time too, so a record rewritten while the app runs
    is seen."""
    return _replay(ref, revision, now().load_policy, record_stamp(load(ref, revision).path))


@st.cache_data(max_entries=8, show_spinner=False)
def _replay(ref: str, revision: str | None, policy: LoadPolicy, stamp: tuple | None) -> Replay | None:
    return replay_of(load(ref, revision).path)


@st.cache_data(max_entries=256, show_spinner=False)
def cached_trace(ref: str, revision: str | None, asking: Asking | None, text: str,
                 beam: int) -> Trace | translate.Refused:
    """The best-beam trace of ``text``, or greedy (:func:`models.views.translate.translation`)."""
    if beam > 1:
        found = cached_beam(ref, revision, asking, text, beam)
        return found.hypotheses[0] if isinstance(found, translate.BeamView) else found
    return translate.translation(load(ref, revision, asking), text)


@st.cache_data(max_entries=64, show_spinner=False)
def cached_what_if(ref: str, revision: str | None, asking: Asking | None,
                   text: str, step: int, word: int, layer: int) -> translate.WhatIfView:
    """:func:`models.views.translate.what_if_view` of the model ``ref``."""
    return translate.what_if_view(load(ref, revision, asking), text, step, word, layer)


@st.cache_data(max_entries=64, show_spinner=False)
def cached_beam(ref: str, revision: str | None, asking: Asking | None, text: str,
                beam: int) -> translate.BeamView | translate.Refused:
    """Every final hypothesis of a beam search and its tree."""
    return translate.beam(load(ref, revision, asking), text, beam)


@st.cache_data(max_entries=256, show_spinner=False)
def cached_forced(ref: str, revision: str | None, asking: Asking | None,
                  text: str, target: str | tuple[int, ...]) -> Trace | translate.Refused:
    """``text`` made to translate as ``target`` (:func:`models.views.translate.translation`)."""
    return translate.translation(load(ref, revision, asking), text, target)


@st.cache_data(max_entries=16, show_spinner=False)
def cached_scaling(max_dim: int) -> list[dict]:
    return inside.scaling(max_dim)
