"""Attention Atlas — the entry point: the navigation and the sidebar every page shares.

Run with ``streamlit run app.py``. Each view is a thin file in ``pages/``; the
sidebar (model, decoding, tokens) is drawn here once, before the page runs, so
its state and the URL carry across pages.
"""
import time

started = time.perf_counter(), time.thread_time()  # before the imports: a first run imports torch and the models

import streamlit as st  # noqa: E402

from models.views.deployment import log_run  # noqa: E402
from pages._shared import ui  # noqa: E402

# Material Symbols ship with Streamlit's front end, so they render in a browser without an emoji font.
st.set_page_config(page_title="Attention Atlas", page_icon=":material/explore:", layout="wide")
page = st.navigation([
    st.Page("pages/translate.py", title="Translate & align", icon=":material/translate:", default=True),
    st.Page("pages/Answer.py", title="Is attention an alignment?", icon=":material/quiz:", url_path="Answer"),
    st.Page("pages/Compare_scoring.py", title="Compare scoring", icon=":material/compare_arrows:",
            url_path="Compare_scoring"),
    st.Page("pages/Corpus.py", title="A corpus at a time", icon=":material/table_view:", url_path="Corpus"),
    st.Page("pages/Context_vectors.py", title="Context vectors", icon=":material/scatter_plot:",
            url_path="Context_vectors"),
    st.Page("pages/Score_anatomy.py", title="Score anatomy", icon=":material/functions:", url_path="Score_anatomy"),
    st.Page("pages/Learning.py", title="Alignment as it is learned", icon=":material/movie:", url_path="Learning"),
    st.Page("pages/Human_links.py", title="Against human links", icon=":material/fact_check:", url_path="Human_links"),
    st.Page("pages/Which_matrix.py", title="Which matrix to believe?", icon=":material/rule:",
            url_path="Which_matrix"),
    st.Page("pages/Models_and_results.py", title="Models & results", icon=":material/leaderboard:",
            url_path="Models_and_results"),
    # an old link's name for Which matrix to believe? ("reading" now means one head or layer only): it opens that page
    st.Page("pages/Which_reading.py", title="Which matrix to believe?", url_path="Which_reading", visibility="hidden"),
])
ui.sidebar()
page.run()
log_run(page.url_path or "home", started)
