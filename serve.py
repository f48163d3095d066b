"""Attention Atlas served warm: ``streamlit run serve.py`` runs the same app (``app.py``), with torch, the pages'
modules and the default model loaded *before* the server takes its first visitor.

Streamlit runs no user code until a browser connects, so under ``streamlit run app.py`` the first visitor after a
start — on Community Cloud, after every deploy and every wake from sleep — waits for those imports and the
checkpoint: the server's first script run, about 2 s on a 2-core machine (docs/performance.md). ``st.App``
(Streamlit's ASGI entry, experimental in 1.67) runs its lifespan at start-up, before the server answers; the deploy
names this file as its main file (docs/deploy.md). Locally, ``streamlit run app.py`` is the same app.
"""
from contextlib import asynccontextmanager

import streamlit as st
from streamlit.logger import get_logger


@asynccontextmanager
async def warm(_app):
    """Import what the first page imports and load the default model into the app's own cache; and tell Streamlit
    that the app's pages come from ``st.navigation``, not from the ``pages/`` folder beside it."""
    from streamlit.runtime.pages_manager import PagesManager

    from models.charts import answer_bars, curves, matrices, paths, steps
    from models.storage.languages import EN_FR, pair_name
    from pages._shared import cache, deploy, evidence, exports, ui  # noqa: F401  (torch, the models)

    # Streamlit decides once a process, at its first session, whether the app is a `pages/`-folder app; until some
    # script run calls st.navigation it says yes, and the first run lists that folder's files itself. A first visitor
    # who follows a link to /Compare_scoring then gets "Page not found" (those files' own names differ), over the
    # right page (Streamlit's issues #9624, #9992). The app's pages/ holds st.navigation's pages, so say so first.
    PagesManager.uses_pages_directory = False
    pair_name(EN_FR)  # langcodes reads its languages' names once a process: not on a visitor's time
    try:
        cache.load(cache.ModelKey(deploy.now().default_model))
    except Exception as e:  # an unreachable Hub default: the page says why when a visitor comes
        get_logger(__name__).warning("default model not preloaded: %s", e)
    yield


app = st.App("app.py", lifespan=warm)
