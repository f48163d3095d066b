"""What a page shows of a model: one matrix (:mod:`models.analysis.matrices`: the attention, what it adds, a rollout,
an attribution) at one reading (one head, or a layer's whole); and human links.

Attribution (:mod:`models.analysis.attribution`) answers "which source words did this output piece depend on",
attention "where did the decoder read", the others "how much did each source piece add"; a page shows any of them
for the same step. A multi-head model's attention is
read one way at a time (:class:`models.decoding.trace.Reading`), in the URL as ``head=LAYER.HEAD`` or
``head=LAYER.mean``. Human links come by name in the model's pair (``gold:en-fr``, ``gold:ro-en``, …, fetched
once: :mod:`models.storage.gold_sets`), or, for an English→French model, from a folder of the Hansards gold with its
trial set (``ATLAS_GOLD``, else ``../shared/data/hansards-en-fr-align`` beside the project). None is bundled.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import streamlit as st

from models.analysis.attribution import ATTRIBUTIONS, IG_STEPS, attribution_matrix
from models.analysis.contributions import Layered
from models.analysis.matrices import (
    MATRICES,
    applicable,
    estimated_seconds,
    layer_reading,
    layered,
    matrix_readings,
    not_applicable,
    slug,
)
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
    "attention norm": ("Attention norm ‖α f(x)‖: the size of what each source token adds through the attention",
                       "share"),
    "ALTI": ("ALTI: each source token's contribution to the layer's output (the prefix's share set aside)", "share"),
    "ALTI+ rollout": ("ALTI+ rollout: what each output token is made of, through every layer up to this one",
                      "share"),
    "attention rollout": ("Attention rollout: ½ attention + ½ residual, multiplied through the layers", "share"),
    "value zeroing": ("Value zeroing: how far the layer's output moves without each source token's values", "share"),
}

#: One sentence on each matrix, for the picker's help and the "Which reading?" page.
ABOUT = {
    "attention": "where the decoder read (the weights α)",
    "attention norm": "α times the size of what each source token's value adds (Kobayashi et al. 2020)",
    "ALTI": "each token's share of the layer's output, residual and layer norm included (Ferrando et al. 2022)",
    "ALTI+ rollout": "ALTI multiplied through every layer: the source's and the prefix's share of each word",
    "attention rollout": "the weights, half residual, multiplied through the layers (Abnar & Zuidema 2020)",
    "value zeroing": "the change in the layer's output when a token's values are zeroed (Mohebbi et al. 2023)",
    "gradient×input": "how the written token's log-probability depends on each source embedding (one pass back)",
    "integrated gradients": f"the same, averaged over {IG_STEPS} points from an all-padding sentence",
}


#: Which step a reading of the attention uses, and why (shown wherever a shifted reading can be picked).
STEP_NOTE = ("A row is the step that *writes* its word, from the words before it; read one step later (SHIFT-ATT, "
             "Chen et al. 2020), a word's row is the step where it is the decoder's *input*, the first step that has "
             "seen it — which of the two lines up with human links is measured per model on the Models page.")


def named(matrix: str) -> str:
    """A matrix's name to begin a sentence with (ALTI stays ALTI)."""
    return matrix[:1].upper() + matrix[1:]


def matrix_picker(loaded: LoadedModel, key: str = "reading") -> str:
    """Which matrix to draw (in the URL as ``read``): every one the model has (:func:`applicable`)."""
    choices = list(applicable(loaded.model))
    wanted = {slug(m): m for m in choices}.get(ui.read_url().read or "", choices[0])
    lacking: dict[str, list[str]] = {}
    for m in MATRICES:
        if (reason := not_applicable(loaded.model, m)) is not None:
            lacking.setdefault(reason, []).append(m)
    matrix = st.selectbox(
        "Show", choices, index=choices.index(wanted), key=key,
        format_func=lambda m: f"{m} — {ABOUT[m]}",
        help="The attention, what it adds (its norm, ALTI, value zeroing), a rollout through the layers, or an "
        "attribution (Captum), which works on any model. Integrated gradients take "
        f"{IG_STEPS} passes along a path and value zeroing one pass per source token: seconds for a short sentence, "
        "longer for a long one. Which of them to believe: the Which reading? page."
        + "".join(f"\n\nNot for this model — {', '.join(names)}: {reason}." for reason, names in lacking.items()))
    st.query_params["read"] = slug(matrix)
    return matrix


def head_label(reading: Reading, default: Reading | None, supervised: Reading | None = None,
               matrix: str = "attention") -> str:
    first = " — shown first" if reading == default else ""
    aligner = " — trained to align" if supervised is not None and reading == supervised else ""
    return reading_label(reading, matrix).capitalize() + first + aligner


def reading_label(reading: Reading, matrix: str) -> str:
    """A reading's name under ``matrix``: a layer's whole is its heads' mean for the attention only."""
    if matrix == "attention" or reading.head is not None:
        return reading.label
    return f"layer {reading.layer + 1}" + (", all heads together" * (matrix == "attention norm")) + (
        ", read one step later" if reading.shifted else "")


def head_picker(loaded: LoadedModel, key: str = "head", label: str = "Attention head",
                shifted: bool = False, shape: tuple[int, int] | None = None,
                matrix: str = "attention") -> Reading | None:
    """Which reading of the model's attention to draw (in the URL under ``key``, a field of :class:`.url.UrlState`;
    the model's default reading first): a head or a layer's mean, read at the step that writes each piece, or with
    ``shifted`` one step later too (for pages that read attention as word alignment); of another attention than
    the cross-attention when ``shape`` (its layers, heads) is given; of ``matrix``'s layers (and heads where it
    has its own). An RNN's only plain reading needs no widget; None without attention or for an attribution."""
    if loaded.reading is None or matrix in ATTRIBUTIONS:
        return None
    options = (readings(shape, shifted) if shape and matrix == "attention"
               else matrix_readings(loaded.model, matrix, shifted))
    default = layer_reading(loaded.model, matrix, loaded.reading if shifted else loaded.reading.plain)
    default = default if default in options else options[-1]  # another kind may have fewer layers
    if len(options) == 1:
        return options[0]
    chosen = chosen_key(key)  # kept apart from the widget's own state, which a page switch resets
    if st.session_state.get(chosen) not in options:  # first run, or another model: the link's, else the default
        wanted = layer_reading(loaded.model, matrix, url_reading(loaded, getattr(ui.read_url(), key), default))
        st.session_state[chosen] = wanted if wanted in options else wanted.plain if wanted.plain in options else default
    st.session_state[key] = st.session_state[chosen]
    # a head trained one step later is named on its plain reading too, where a page offers only those
    supervised = next((r for r in (loaded.supervised, loaded.supervised and loaded.supervised.plain) if r in options),
                      None)
    reading = st.selectbox(label, options, key=key, format_func=lambda r: head_label(r, default, supervised, matrix),
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


@st.cache_data(max_entries=64, show_spinner=False)
def cached_layered(ref: str, revision: str | None, languages: Languages | None,
                   text: str, target: tuple[int, ...], matrix: str) -> Layered:
    """``matrix`` of ``text`` written as ``target``, every layer, with a progress bar while value zeroing runs."""
    loaded = cache.load(ref, revision, languages)
    bar = st.progress(0.0, text=f"Computing {matrix}…")
    found = layered(loaded.model, cache.cached_forced(ref, revision, languages, text, target), matrix,
                    lambda done: bar.progress(done, text=f"Computing {matrix}: {done:.0%}"))
    bar.empty()
    return found


def affordable(loaded: LoadedModel, trace: Trace, matrix: str) -> bool:
    """Whether this server gives ``matrix`` of ``trace`` the time it would take; if not, says so."""
    limit = deploy.attribution_limit_s()
    if limit is None or (needed := estimated_seconds(loaded.model, trace, matrix)) <= limit:
        return True
    cheaper = {"integrated gradients": " Gradient×input is far cheaper;",
               "value zeroing": " ALTI and the attention norm cost one pass;"}.get(matrix, "")
    st.warning(f"{named(matrix)} of this sentence would take about {needed:.0f} s on this shared server, "
               f"which gives one request at most {limit:.0f} s.{cheaper} a shorter sentence is quicker. Run the app "
               "on your own machine for any length (README).")
    return False


def shown(trace: Trace, settings: ui.Settings, text: str, matrix: str,
          reading: Reading | None) -> tuple[str, np.ndarray, np.ndarray | None]:
    """What a page draws for ``trace``: the matrix's name, the matrix [T, S] and the energies behind it (attention
    heads only). A matrix this server cannot afford (:func:`affordable`) gives way to the attention, or, without
    attention, ends the page."""
    loaded = cache.load(settings.model, settings.revision, settings.languages)
    if not affordable(loaded, trace, matrix):
        if reading is None:
            st.stop()
        matrix = "attention"
    if matrix == "attention":
        return matrix, trace.read(reading), trace.read_energies(reading)
    model = (settings.model, settings.revision, settings.languages)
    if matrix in ATTRIBUTIONS:
        return matrix, cached_attribution(*model, text, trace.target_ids, matrix), None
    found = cached_layered(*model, text, trace.target_ids, matrix)
    return matrix, found.read(layer_reading(loaded.model, matrix, reading)), None


def prefix_share(trace: Trace, settings: ui.Settings, text: str, matrix: str, reading: Reading) -> np.ndarray | None:
    """The target prefix's share [T] of each step at ``reading``'s layer, for a matrix that sees one (ALTI, the
    rollouts); None for the others."""
    if matrix in ATTRIBUTIONS or matrix == "attention":
        return None
    found = cached_layered(settings.model, settings.revision, settings.languages, text, trace.target_ids, matrix)
    return None if found.prefix is None else found.prefix[reading.layer]


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
