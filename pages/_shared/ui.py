"""What every page shares: the sidebar, the cached model loader and traces, safe labels.

Streamlit does not list this folder as a page. Nothing here does math: it
calls ``models`` and caches the results.
"""
from __future__ import annotations

import html
import os
import unicodedata
from dataclasses import asdict, dataclass, replace

import streamlit as st

from models.alignment import AttentionView, piece_view, word_view
from models.anatomy import scaling_curves
from models.beam import beam_search
from models.decoding import MAX_SOURCE_TOKENS, Trace, forced, greedy
from models.examples import load_examples
from models.hub import DEFAULT_MODEL, CheckpointError, LoadedModel, bundled_models, load_model
from models.tokenization import InputError

MODEL_LABELS = {"additive": "Additive (Bahdanau)", "dot": "Dot-product (scaled)", "none": "No attention (baseline)"}
HUB_CHOICE = "Hugging Face Hub repo…"
MAX_CHARS = 500
#: Deployments may default to a Hub model (env var or a root-level Streamlit secret of that name).
DEFAULT_HUB_REPO = os.environ.get("ATLAS_HUB_REPO", "").strip()


@dataclass(frozen=True)
class Settings:
    model: str  # bundled name or Hub repo id
    revision: str | None
    beam: int
    words: bool  # word-level (True) or subword view


@st.cache_resource(max_entries=8, show_spinner="Loading the model…")
def load(ref: str, revision: str | None) -> LoadedModel:
    return load_model(ref, revision)


@st.cache_data(max_entries=256, show_spinner=False)
def cached_trace(ref: str, revision: str | None, text: str, beam: int, overrides: tuple = ()) -> Trace:
    """Greedy (with what-if ``overrides`` ((t, weights), …)) or best-beam trace of ``text``."""
    loaded = load(ref, revision)
    if beam > 1 and not overrides:
        return beam_search(loaded.model, loaded.tokenizers, text, beam)[0]
    return greedy(loaded.model, loaded.tokenizers, text, overrides=dict(overrides) or None)


@st.cache_data(max_entries=256, show_spinner=False)
def cached_forced(ref: str, revision: str | None, text: str, target: str | tuple[int, ...]) -> Trace:
    loaded = load(ref, revision)
    return forced(loaded.model, loaded.tokenizers, text, target)


@st.cache_data(max_entries=16, show_spinner=False)
def cached_scaling_curves(dims: tuple[int, ...]) -> list[dict]:
    return [asdict(p) for p in scaling_curves(list(dims))]


def _param(name: str, default: str) -> str:
    return st.query_params.get(name, default)


def model_picker(label: str, default: str, key: str) -> tuple[str, str | None]:
    """A bundled model or a Hub repo id (+ revision); the choice is kept in the URL under ``key``."""
    bundled = bundled_models()
    wanted = _param(key, default)
    options = [*bundled, HUB_CHOICE]
    index = options.index(wanted) if wanted in bundled else len(bundled)
    choice = st.selectbox(label, options, index=index, format_func=lambda m: MODEL_LABELS.get(m, m), key=f"{key}_pick")
    revision = None
    if choice == HUB_CHOICE:
        choice = st.text_input("Hub repo id", value=wanted if wanted not in bundled else DEFAULT_HUB_REPO,
                               placeholder="owner/name", key=f"{key}_repo").strip() or default
        revision = st.text_input("Revision (optional)", value=_param(f"{key}_rev", ""), key=f"{key}_rev").strip() or None
    st.query_params[key] = choice
    if revision:
        st.query_params[f"{key}_rev"] = revision
    return choice, revision


def sidebar(default_model: str = DEFAULT_HUB_REPO or DEFAULT_MODEL, with_model: bool = True) -> Settings:
    """Model, decoding and view controls; their values live in the URL."""
    with st.sidebar:
        st.header("Settings")
        choice, revision = model_picker("Model", default_model, "model") if with_model else (default_model, None)
        greedy_mode = st.radio("Decoding", ["greedy", "beam search"], index=int(_param("beam", "1") != "1"),
                               horizontal=True)
        beam = st.slider("Beam size", 2, 8, max(2, int(_param("beam", "4")))) if greedy_mode == "beam search" else 1
        words = st.radio("Tokens", ["words", "subwords"], index=int(_param("level", "words") == "subwords"),
                         horizontal=True) == "words"
    st.query_params.update(beam=str(beam), level="words" if words else "subwords")
    return Settings(choice, revision, beam, words)


def model_or_fallback(settings: Settings, fallback: str = DEFAULT_MODEL) -> tuple[Settings, LoadedModel]:
    """Load the chosen model; if it cannot be loaded, say why and use the bundled ``fallback``."""
    try:
        loaded = load(settings.model, settings.revision)
    except CheckpointError as e:
        st.error(f"{e} Using the bundled {MODEL_LABELS.get(fallback, fallback)} model instead.")
        settings = replace(settings, model=fallback, revision=None)
        loaded = load(fallback, None)
    st.sidebar.caption(f"{MODEL_LABELS.get(settings.model, settings.model)}: running on **{loaded.device}**, "
                       f"score **{loaded.score}**")
    return settings, loaded


def sentence_input(key: str = "text") -> str | None:
    """Example picker and text box; returns the sentence, or None (with a prompt) when empty."""
    examples = load_examples()
    pick = st.selectbox("Examples", [e.text for e in examples], index=None, placeholder="Pick an example…",
                        format_func=lambda t: f"{t}  — {next(e.note for e in examples if e.text == t)}")
    if pick and st.session_state.get("_picked") != pick:
        st.session_state[key], st.session_state["_picked"] = pick, pick
    if key not in st.session_state:
        st.session_state[key] = _param("text", examples[0].text)
    text = st.text_area("English sentence", key=key, height=80)
    st.query_params["text"] = text
    if not text.strip():
        st.info("Type an English sentence above (or pick an example) to see its translation and attention.")
        return None
    if len(text) > MAX_CHARS:
        st.warning(f"The text is {len(text):,} characters long; only the first {MAX_CHARS} are translated.")
        text = text[:MAX_CHARS]
    return text


def trace_or_stop(settings: Settings, text: str, overrides: tuple = ()) -> Trace:
    """The cached trace, or a friendly message and the end of this run."""
    try:
        return cached_trace(settings.model, settings.revision, text, settings.beam, overrides)
    except InputError as e:
        st.info(str(e))
        st.stop()


def source_notices(trace: Trace) -> None:
    """Say when the source was cut, and which of its pieces the model does not know."""
    if trace.source.truncated:
        st.warning(f"The sentence is longer than {MAX_SOURCE_TOKENS} tokens: only the beginning was translated.")
    unknown = [s for s, u in zip(trace.source.surfaces, trace.source.unknown) if u]
    if unknown:
        st.caption("Unknown to the model (marked ⁇ in the charts): " + ", ".join(safe(u) for u in dict.fromkeys(unknown)))


def view_of(trace: Trace, words: bool) -> AttentionView:
    return word_view(trace) if words else piece_view(trace)


def safe(text: str) -> str:
    """A label that shows any text literally: control characters made visible, HTML escaped."""
    shown = "".join(f"\\x{ord(c):02x}" if unicodedata.category(c) in ("Cc", "Cf") else c for c in text)
    return html.escape(shown, quote=True)

