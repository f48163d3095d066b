"""The matrices' own widgets' work: the step explorer's contrast (``foil=``) and the “Which matrix to believe?”
page's sentence read every way, under this server's time limit — cached, no math here
(:mod:`models.views.matrix_views`)."""
from __future__ import annotations

import streamlit as st

from models import charts
from models.views import deployment, matrix_views as views

from . import cache, deploy, ui


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
    return ui.or_stop(cache.cached_every_way(key, text, target, tuple(chosen.items()), refused is None))


def fitted_heads(found: views.FittedHeads, columns: int = 1) -> None:
    """Draw which heads people's links single out (:func:`models.views.matrix_views.fitted_heads`): the probe's weight a
    layer × head, at the writing step and one step later (and the reverse model's, where it reads one), each head's
    own AER in its tooltip, in ``columns``."""
    st.markdown("**Heads fit to people**", help=found.about)
    st.caption(found.summary)
    places = st.columns(columns) if columns > 1 else [st.container()] * len(found.weights)
    for n, ((title, grid), place) in enumerate(zip(found.weights.items(), places * len(found.weights))):
        place.altair_chart(charts.weight_grid(grid, found.aer[title], title, found.bound,
                                              legend=n == len(found.weights) - 1),
                           width="stretch", key=f"fitted_heads_{n}")
