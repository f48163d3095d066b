"""What a page shows of a model: attention (one head, or a layer's mean) or an attribution; and human links.

Attribution (:mod:`models.analysis.attribution`) answers "which source words did this output piece depend on",
attention "where did the decoder read"; a page shows either for the same step. A multi-head model's attention is
read one way at a time (:class:`models.decoding.trace.Reading`), in the URL as ``head=LAYER.HEAD`` or
``head=LAYER.mean``. Human links come by name in the model's pair (``gold:en-fr``, ``gold:ro-en``, …, fetched
once: :mod:`models.storage.gold_sets`), or, for an English→French model, from a folder of the Hansards gold with its
trial set (``ATLAS_GOLD``, else ``../shared/data/hansards-en-fr-align`` beside the project). None is bundled.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import streamlit as st

from models.analysis.attribution import IG_STEPS, attribution_matrix, estimated_seconds
from models.analysis.matrices import MATRICES
from models.analysis.word_links import word_matrix
from models.decoding.trace import Reading, Trace, readings
from models.storage.gold import GoldPair
from models.storage.gold_sets import GOLD_SETS, PREFIX, find_gold, gold_for, is_cached, load_gold
from models.storage.hub import LoadedModel
from models.storage.languages import EN_FR, Languages, assumed, may_translate, pair_name
from models.storage.model_card import SUPERVISION

from . import cache, deploy, ui

DEFAULT_GOLD = deploy.DEFAULT_DATA / "hansards-en-fr-align"

#: How each matrix is named in titles and on the colour bar.
TITLES = {
    "attention": ("Attention α", "α"),
    "gradient×input": ("Gradient×input attribution: each source token's share in each output token", "share"),
    "integrated gradients": ("Integrated-gradients attribution: each source token's share in each output token",
                             "share"),
}


#: Which step a reading of the attention uses, and why (shown wherever a shifted reading can be picked).
STEP_NOTE = ("A row is the step that *writes* its word, from the words before it; read one step later (SHIFT-ATT, "
             "Chen et al. 2020), a word's row is the step where it is the decoder's *input*, the first step that has "
             "seen it — which of the two lines up with human links is measured per model on the Models page.")


def slug(matrix: str) -> str:
    """The URL form of a matrix: ``integrated gradients`` → ``integrated-gradients``."""
    return matrix.replace("×", "-x-").replace(" ", "-")


def matrix_picker(loaded: LoadedModel, key: str = "reading") -> str:
    """Attention or an attribution (in the URL as ``read``); a model without attention offers attribution only."""
    choices = [m for m in MATRICES if m != "attention" or loaded.model.has_attention]
    wanted = {slug(m): m for m in choices}.get(ui.read_url().read or "", choices[0])
    matrix = st.segmented_control(
        "Show", choices, default=wanted, key=key, help="Attention: where the decoder read. Attribution (Captum): how "
        "much each source token's embedding changed the log-probability of the token written — for any model, "
        f"attention or not. Integrated gradients take {IG_STEPS} passes along a path: seconds for a short "
        "sentence, minutes for a long one on one CPU thread.") or wanted  # an emptied control keeps the last one
    st.query_params["read"] = slug(matrix)
    return matrix


def head_label(reading: Reading, default: Reading | None, supervised: Reading | None = None) -> str:
    first = " — shown first" if reading == default else ""
    aligner = " — trained to align" if supervised is not None and reading == supervised else ""
    return reading.label.capitalize() + first + aligner


def head_picker(loaded: LoadedModel, key: str = "head", label: str = "Attention head",
                shifted: bool = False, shape: tuple[int, int] | None = None) -> Reading | None:
    """Which reading of the model's attention to draw (in the URL under ``key``, a field of :class:`.url.UrlState`;
    the model's default reading first): a head or a layer's mean, read at the step that writes each piece, or with
    ``shifted`` one step later too (for pages that read attention as word alignment); of another attention than
    the cross-attention when ``shape`` (its layers, heads) is given. An RNN's only plain reading needs no widget;
    None without attention."""
    if loaded.reading is None:
        return None
    options = readings(shape or loaded.model.attention_shape, shifted)
    default = loaded.reading if shifted else loaded.reading.plain
    default = default if default in options else options[-1]  # another kind may have fewer layers
    if len(options) == 1:
        return options[0]
    chosen = chosen_key(key)  # kept apart from the widget's own state, which a page switch resets
    if st.session_state.get(chosen) not in options:  # first run, or another model: the link's, else the default
        wanted = url_reading(loaded, getattr(ui.read_url(), key), default)
        st.session_state[chosen] = wanted if wanted in options else wanted.plain if wanted.plain in options else default
    st.session_state[key] = st.session_state[chosen]
    supervised = loaded.supervised if loaded.supervised in options else None
    reading = st.selectbox(label, options, key=key, format_func=lambda r: head_label(r, default, supervised),
                           on_change=lambda: st.session_state.update({chosen: st.session_state[key]}),
                           help="Each decoder layer has several heads, each with its own attention over the source; "
                                "a layer's mean averages them. Read one step later, each word's row is the step "
                                "where it is the decoder's input." + (f" {SUPERVISION}" if supervised else ""))
    st.query_params[key] = reading.key
    return reading


def chosen_key(key: str) -> str:
    """The session key that keeps a head picker's choice across pages and reruns."""
    return f"_atlas_chosen_{key}"


def url_reading(loaded: LoadedModel, key: str | None, default: Reading | None = None) -> Reading:
    """The reading a link names, or ``default`` (the model's own by default), with a notice when the link names
    none of its heads."""
    default = default or loaded.reading
    if key is None:
        return default
    try:
        return Reading.parse(key, loaded.model.attention_shape)
    except ValueError as e:
        st.toast(f"Ignored head={key[:20]!r} from the link: {e}.", icon=":material/warning:")
        return default


@st.cache_data(max_entries=64, show_spinner=False)
def cached_attribution(ref: str, revision: str | None, languages: Languages | None,
                       text: str, target: tuple[int, ...], method: str) -> np.ndarray:
    """``method``'s shares [T, S] for ``text`` written as ``target``, with a progress bar while it is computed (made
    and removed in here, so a cached answer replays no bar)."""
    loaded = cache.load(ref, revision, languages)
    bar = st.progress(0.0, text=f"Computing {method}…")
    weights = attribution_matrix(loaded.model, cache.cached_forced(ref, revision, languages, text, target), method,
                                 lambda done: bar.progress(done, text=f"Computing {method}: {done:.0%} of the "
                                                                      "written pieces"))
    bar.empty()
    return weights


def affordable(trace: Trace, matrix: str) -> bool:
    """Whether this server gives ``matrix`` of ``trace`` the time it would take; if not, says so."""
    limit = deploy.attribution_limit_s()
    if matrix == "attention" or limit is None or (needed := estimated_seconds(trace, matrix)) <= limit:
        return True
    cheaper = " Gradient×input is far cheaper;" if matrix == "integrated gradients" else ""
    st.warning(f"{matrix.capitalize()} of this sentence would take about {needed:.0f} s on this shared server, "
               f"which gives one request at most {limit:.0f} s.{cheaper} a shorter sentence is quicker. Run the app "
               "on your own machine for any length (README).")
    return False


def shown(trace: Trace, settings: ui.Settings, text: str, matrix: str,
          reading: Reading | None) -> tuple[str, np.ndarray, np.ndarray | None]:
    """What a page draws for ``trace``: the matrix's name, the matrix [T, S] and the energies behind it (None for
    attributions and means). An attribution this server cannot afford (:func:`affordable`) gives way to the
    attention, or, without attention, ends the page."""
    if not affordable(trace, matrix):
        if reading is None:
            st.stop()
        matrix = "attention"
    if matrix == "attention":
        return matrix, trace.read(reading), trace.read_energies(reading)
    model = (settings.model, settings.revision, settings.languages)
    return matrix, cached_attribution(*model, text, trace.target_ids, matrix), None


def gold_source(loaded: LoadedModel) -> tuple[str, list[str]] | None:
    """Where this model's human links come from and their splits: for an English→French model the Hansards folder,
    if there is one (``ATLAS_GOLD``, else the data folder's), else the set of its pair by name; None, said in a
    sentence, when no set links its languages."""
    folder = Path(deploy.setting("ATLAS_GOLD") or DEFAULT_GOLD)
    splits = [s for s in ("test", "trial") if (folder / f"{s}.gold").exists()]
    if splits and may_translate(loaded.languages, EN_FR):
        return str(folder), splits
    gold_set = gold_for(assumed(loaded.languages))
    if gold_set:
        return gold_set.name, ["test"] + ([] if gold_set.own_trial else ["trial"])
    names = ", ".join(pair_name(g.languages) for g in GOLD_SETS)
    st.info(f"People's links come by name for {names} (either way); this model translates "
            f"{pair_name(loaded.languages)}, so there is nothing of its to lay over them.")
    return None


def gold_pairs(spec: str, languages: Languages, split: str) -> list[GoldPair]:
    """The pairs of ``split`` (:func:`models.storage.gold_sets.load_gold`), fetched under a status the first time."""
    gold_set = find_gold(spec) if spec.startswith(PREFIX) else None
    if gold_set is None or is_cached(gold_set):
        return _cached_gold(spec, languages, split)
    with st.status(f"Fetching {spec} ({gold_set.who}) from awesome-align's examples…") as status:
        pairs = _cached_gold(spec, languages, split)
        status.update(label=f"{spec}: cached", state="complete", expanded=False)
    return pairs


@st.cache_data(max_entries=8, show_spinner=False)
def _cached_gold(spec: str, languages: Languages, split: str) -> list[GoldPair]:
    return load_gold(spec, languages, split)[0]


@st.cache_data(max_entries=128, show_spinner="Reading the model…")
def cached_word_matrix(ref: str, revision: str | None, languages: Languages | None,
                       english: tuple[str, ...], french: tuple[str, ...],
                       matrix: str, reading: Reading | None) -> np.ndarray:
    """[F, E] between the gold's own words (see :func:`models.analysis.word_links.word_matrix`)."""
    loaded = cache.load(ref, revision, languages)
    return word_matrix(loaded.model, loaded.tokenizers, english, french, matrix, reading or loaded.reading)
