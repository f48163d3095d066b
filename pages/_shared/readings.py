"""The readings' own widgets' work: which reading each matrix of the Which reading? page is drawn at, whether this
server affords its deletion scores, and the step explorer's contrast (``foil=``) — cached, no math here."""
from __future__ import annotations

import numpy as np
import streamlit as st

from models.analysis.attribution import ATTRIBUTIONS, contrast_seconds, contrastive
from models.analysis.faithfulness import estimated_seconds as deletion_seconds
from models.analysis.matrices import applicable, layer_reading
from models.analysis.side_by_side import Panel, side_by_side
from models.decoding.trace import Reading, Trace
from models.storage.hub import LoadedModel
from models.storage.languages import Languages
from models.storage.reading_scores import aligned

from . import cache, deploy
from .evidence import affordable


@st.cache_data(max_entries=64, show_spinner="Contrasting the two pieces…")
def cached_contrast(ref: str, revision: str | None, languages: Languages | None, text: str,
                    target: tuple[int, ...], method: str, step: int, foil: int) -> np.ndarray:
    """Shares [S] of why step ``step`` of ``text`` written as ``target`` wrote its piece and not ``foil``."""
    loaded = cache.load(ref, revision, languages)
    return contrastive(loaded.model, cache.cached_forced(ref, revision, languages, text, target), method, step, foil)


def panel_readings(loaded: LoadedModel, trace: Trace) -> dict[str, Reading | None]:
    """Each matrix the model has and this server affords on ``trace``, at the reading it aligns best with (its
    ``--matrix all`` row chosen on the trial set, read at the writing step), else at the model's own layer."""
    best, chosen = aligned(loaded.path), {}
    for matrix in applicable(loaded.model):
        if not affordable(loaded, trace, matrix):
            continue
        key = best[matrix].reading if matrix in best else None
        own = Reading.from_key(key).plain if key else loaded.reading.plain if loaded.reading else None
        chosen[matrix] = None if own is None else layer_reading(loaded.model, matrix, own)
    return chosen


def deletions_affordable(trace: Trace, matrices: int) -> bool:
    """Whether this server gives the deletion scores of ``matrices`` matrices of ``trace`` their time; if not,
    says so."""
    limit = deploy.attribution_limit_s()
    if limit is None or (needed := deletion_seconds(trace, matrices)) <= limit:
        return True
    st.info(f"Masking this sentence's words for every reading would take about {needed:.0f} s on this shared server, "
            f"which gives one request at most {limit:.0f} s: the readings are drawn without their deletion scores. "
            "A shorter sentence, or the app on your own machine, has them.")
    return False


def contrast_method(trace: Trace, matrix: str, step: int) -> str:
    """The attribution a contrast at ``step`` uses: the one shown, else gradient×input — also where this server
    cannot afford integrated gradients' (:func:`models.analysis.attribution.contrast_seconds`)."""
    method = matrix if matrix in ATTRIBUTIONS else "gradient×input"
    limit = deploy.attribution_limit_s()
    return "gradient×input" if limit is not None and contrast_seconds(trace, method, step) > limit else method


@st.cache_data(max_entries=32, show_spinner="Reading the sentence every way and masking its words…")
def cached_side_by_side(ref: str, revision: str | None, languages: Languages | None, text: str,
                        target: tuple[int, ...], chosen: tuple[tuple[str, Reading | None], ...],
                        scored: bool) -> list[Panel]:
    """:func:`models.analysis.side_by_side.side_by_side` of ``text`` written as ``target``."""
    loaded = cache.load(ref, revision, languages)
    return side_by_side(loaded.model, cache.cached_forced(ref, revision, languages, text, target), dict(chosen),
                        scored)
