"""The readings' own widgets' work: the step explorer's contrast (``foil=``) and the Which reading? page's
sentence read every way, under this server's time limit — cached, no math here (:mod:`models.views.readings`)."""
from __future__ import annotations

import numpy as np
import streamlit as st

from models.decoding.attention_map import Reading
from models.views import deployment
from models.views import readings as views

from . import cache, charts, deploy, ui


@st.cache_data(max_entries=64, show_spinner="Contrasting the two pieces…")
def cached_contrast(key: cache.ModelKey, text: str, target: tuple[int, ...], matrix: str, step: int,
                    foil: int) -> tuple[str, np.ndarray]:
    """The attribution used and its shares [S]: why step ``step`` of ``text`` written as ``target`` wrote its piece
    and not ``foil`` (:func:`models.views.readings.contrast`)."""
    trace = ui.or_stop(cache.cached_forced(key, text, target))
    return views.contrast(cache.load(key).model, trace, matrix, step, foil,
                          deploy.now().attribution_limit_s)


def every_way(key: cache.ModelKey, text: str, target: tuple[int, ...]) -> views.EveryWay:
    """``text`` written as ``target`` read as every matrix this server affords, each at the reading it aligns
    with, side by side; their deletion scores where the server affords those too, else said why not."""
    loaded = cache.load(key)
    trace = ui.or_stop(cache.cached_forced(key, text, target))
    chosen, slow = views.panel_readings(loaded, trace, deploy.now().attribution_limit_s)
    refused = deployment.deletions_refused(trace, len(chosen) + 1, deploy.now().attribution_limit_s)
    if refused:
        st.info(refused)
    if slow:
        st.caption(slow)
    return _every_way(key, text, target, tuple(chosen.items()), refused is None)


@st.cache_data(max_entries=32, show_spinner="Reading the sentence every way and masking its words…")
def _every_way(key: cache.ModelKey, text: str, target: tuple[int, ...],
               chosen: tuple[tuple[str, Reading | None], ...], scored: bool) -> views.EveryWay:
    trace = ui.or_stop(cache.cached_forced(key, text, target))
    return views.every_way(cache.load(key), trace, dict(chosen), scored)


def fitted_heads(found: views.FittedHeads, columns: int = 1) -> None:
    """Draw which heads people's links single out (:func:`models.views.readings.fitted_heads`): the probe's weight a
    layer × head, at the writing step and one step later (and the reverse model's, where it reads one), each head's
    own AER in its tooltip, in ``columns``."""
    st.markdown("**Heads fit to people**", help=found.about)
    st.caption(found.summary)
    places = st.columns(columns) if columns > 1 else [st.container()] * len(found.weights)
    for n, ((title, grid), place) in enumerate(zip(found.weights.items(), places * len(found.weights))):
        place.altair_chart(charts.weight_grid(grid, found.aer[title], title, found.bound,
                                              legend=n == len(found.weights) - 1),
                           width="stretch", key=f"fitted_heads_{n}")
