"""Attention or attribution, and human links: the controls and caches of the Translate and Human-links pages.

Attribution (:mod:`models.analysis.attribution`) answers "which source words did this output piece depend on",
attention "where did the decoder read"; a page shows either for the same step. The human-aligned gold set is read
from a folder (``ATLAS_GOLD``, else ``../shared/data/hansards-en-fr-align`` beside the project): it is never
bundled (its licence), so a deployment without it shows how to point at one.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import streamlit as st

from models.analysis.attribution import attributed
from models.analysis.word_links import MATRICES, word_matrix
from models.decoding.greedy import Trace
from models.storage.gold import GoldPair, read_gold

from . import ui

DEFAULT_GOLD = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "hansards-en-fr-align"

#: How each reading is named in titles and on the colour bar.
TITLES = {
    "attention": ("Attention α", "α"),
    "gradient×input": ("Gradient×input attribution: each source token's share in each output token", "share"),
    "integrated gradients": ("Integrated-gradients attribution: each source token's share in each output token",
                             "share"),
}


def slug(reading: str) -> str:
    """The URL form of a reading: ``integrated gradients`` → ``integrated-gradients``."""
    return reading.replace("×", "-x-").replace(" ", "-")


def reading_picker(score: str, key: str = "reading") -> str:
    """Attention or an attribution (in the URL as ``read``); a model without attention offers attribution only."""
    choices = [m for m in MATRICES if m != "attention" or score != "none"]
    wanted = {slug(m): m for m in choices}.get(st.query_params.get("read", ""), choices[0])
    reading = st.segmented_control(
        "Show", choices, default=wanted, key=key, help="Attention: where the decoder read. Attribution (Captum): how "
        "much each source token's embedding changed the log-probability of the token written — for any model, "
        "attention or not. Integrated gradients take 16 passes: about a second for a short sentence, a minute for "
        "a 45-word one on one CPU thread.") or wanted  # a segmented control can be emptied: keep the last reading
    st.query_params["read"] = slug(reading)
    return reading


@st.cache_data(max_entries=64, show_spinner="Computing the attribution…")
def cached_attributed(ref: str, revision: str | None, text: str, target: tuple[int, ...], method: str) -> Trace:
    """The trace of ``text`` written as ``target``, its attention replaced by ``method``'s shares."""
    loaded = ui.load(ref, revision)
    return attributed(loaded.model, ui.cached_forced(ref, revision, text, target), method)


def shown(trace: Trace, settings: ui.Settings, text: str, reading: str) -> Trace:
    """``trace`` as the chosen reading shows it."""
    if reading == "attention":
        return trace
    return cached_attributed(settings.model, settings.revision, text, trace.target_ids, reading)


def gold_folder() -> Path | None:
    """The folder of the human-aligned gold set, or None (with a note on how to give one)."""
    folder = Path(ui.setting("ATLAS_GOLD") or DEFAULT_GOLD)
    if (folder / "test.gold").exists() or (folder / "trial.gold").exists():
        return folder
    st.info(f"No human-aligned sentences found at `{folder}`. Set `ATLAS_GOLD` to a folder of `test.en`, `test.fr` "
            "and `test.gold` (the English–French Hansards gold set of Och & Ney 2000, as in "
            "`../shared/data/hansards-en-fr-align`) and reload.")
    return None


@st.cache_data(max_entries=4, show_spinner=False)
def cached_gold(folder: str, split: str) -> list[GoldPair]:
    return read_gold(folder, split)


@st.cache_data(max_entries=128, show_spinner="Reading the model…")
def cached_word_matrix(ref: str, revision: str | None, english: tuple[str, ...], french: tuple[str, ...],
                       reading: str) -> np.ndarray:
    """[F, E] between the gold's own words (see :func:`models.analysis.word_links.word_matrix`)."""
    loaded = ui.load(ref, revision)
    return word_matrix(loaded.model, loaded.tokenizers, english, french, reading)
