"""What every page shares: the sidebar, the cached model loader and traces, the URL and deployment settings.

Streamlit does not list this folder as a page. Nothing here does math: it
calls ``models`` and caches the results. The query string is read only
through :func:`read_url` (validated by :mod:`.url`).
"""
from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, replace

import streamlit as st
import torch

from models.analysis.alignment import AttentionView, focus_on_word, piece_view, word_view
from models.analysis.anatomy import scaling_curves
from models.analysis.neighbours import INDEX_FILE, StateIndex, load_index
from models.decoding.beam import BeamResult, beam_search
from models.decoding.greedy import MAX_SOURCE_TOKENS, Trace, forced, greedy
from models.network.attention import SCORES
from models.network.tokenization import InputError
from models.storage.examples import load_examples
from models.storage.hub import (
    DEFAULT_MODEL,
    CheckpointError,
    LoadedModel,
    LoadPolicy,
    bundled_models,
    bundled_scores,
    load_model,
)
from models.storage.timeline import TIMELINE_FILE, read_timeline

from . import url
from .labels import for_markdown

HUB_CHOICE = "Hugging Face Hub repo…"
_SETTINGS = "_atlas_settings"  # session-state key of the sidebar's Settings
_SENTENCE = "_atlas_sentence"  # session-state key of the sentence, shared by every page


def setting(name: str, default: str = "") -> str:
    """A deployment setting: the environment variable ``name``, else a root-level Streamlit secret."""
    if name in os.environ:
        return os.environ[name].strip()
    try:
        return str(st.secrets.get(name, default)).strip()
    except Exception:  # no secrets file: Streamlit raises its own not-found error, which varies by version
        return default


def load_policy() -> LoadPolicy:
    """Public mode (``ATLAS_PUBLIC=1``): bundled models and Hub ids only, optionally an allow-list of Hub ids."""
    allow = {r.strip() for r in setting("ATLAS_HUB_ALLOW").split(",") if r.strip()}
    try:
        max_mb = float(setting("ATLAS_MAX_DOWNLOAD_MB", "200"))
    except ValueError:
        max_mb = 200.0
    return LoadPolicy(local_paths=setting("ATLAS_PUBLIC").lower() not in {"1", "true", "yes", "on"},
                      hub_allow=frozenset(allow) if allow else None, max_download_mb=max_mb)


def default_model() -> str:
    """The model a fresh visitor sees: ``ATLAS_HUB_REPO`` if the deployment sets one, else the bundled default."""
    return setting("ATLAS_HUB_REPO") or DEFAULT_MODEL


def log_run(page: str, started: tuple[float, float]) -> None:
    """With ``ATLAS_RUN_LOG=FILE`` set, append this script run's wall-clock and CPU seconds since ``started``
    (``time.perf_counter()``, ``time.thread_time()``: each session's script runs in a thread of its own, so the CPU
    time is the server's own work, whatever else shares the processor). ``python -m models.bench open`` and
    ``load`` read the file."""
    path = os.environ.get("ATLAS_RUN_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"{page}\t{time.perf_counter() - started[0]:.4f}\t{time.thread_time() - started[1]:.4f}\n")


SERVING_THREADS = 1  # torch threads per server process; chosen with `python -m models.bench load --threads N`


def set_serving_threads() -> None:
    """Torch's intra-op threads (``ATLAS_TORCH_THREADS``): sessions run in parallel threads of one process."""
    try:
        torch.set_num_threads(max(1, int(setting("ATLAS_TORCH_THREADS", str(SERVING_THREADS)))))
    except ValueError:
        torch.set_num_threads(SERVING_THREADS)


@dataclass(frozen=True)
class Settings:
    model: str  # bundled name or Hub repo id
    revision: str | None
    beam: int
    words: bool  # word-level (True) or subword view


def load(ref: str, revision: str | None) -> LoadedModel:
    """The model ``ref`` under this deployment's policy (the policy is part of the cache key)."""
    return _load(ref, revision, load_policy())


@st.cache_resource(max_entries=8, show_spinner="Loading the model…")
def _load(ref: str, revision: str | None, policy: LoadPolicy) -> LoadedModel:
    set_serving_threads()
    return load_model(ref, revision, policy=policy)


def neighbour_index(ref: str, revision: str | None) -> StateIndex | None:
    """The neighbour index beside the model, None without one; raises ``IndexFileError`` for an unusable file.

    Cached by the file's modification time too, so an index built while the app runs is seen.
    """
    file = load(ref, revision).path / INDEX_FILE
    return _index(ref, revision, load_policy(), file.stat().st_mtime_ns if file.exists() else None)


@st.cache_resource(max_entries=8, show_spinner="Loading the neighbour index…")
def _index(ref: str, revision: str | None, policy: LoadPolicy, stamp: int | None) -> StateIndex | None:
    loaded = _load(ref, revision, policy)
    return load_index(loaded.path, loaded.model)


def timeline(ref: str, revision: str | None) -> dict | None:
    """The model's training record (alignment timeline), None without one; raises ``TimelineError`` if unusable."""
    file = load(ref, revision).path / TIMELINE_FILE
    return _timeline(ref, revision, load_policy(), file.stat().st_mtime_ns if file.exists() else None)


@st.cache_data(max_entries=8, show_spinner=False)
def _timeline(ref: str, revision: str | None, policy: LoadPolicy, stamp: int | None) -> dict | None:
    return read_timeline(load(ref, revision).path)


@st.cache_data(max_entries=256, show_spinner=False)
def cached_trace(ref: str, revision: str | None, text: str, beam: int, what_if: tuple[int, int] | None = None) -> Trace:
    """The best-beam trace of ``text``, or greedy; ``what_if`` = (step, word) forces that step onto that word."""
    loaded = load(ref, revision)
    if what_if is not None:  # what-ifs always decode greedily on from the forced step
        step, word = what_if
        focus = focus_on_word(cached_trace(ref, revision, text, 1), word)
        return greedy(loaded.model, loaded.tokenizers, text, overrides={step: focus})
    if beam > 1:
        return cached_beam(ref, revision, text, beam).hypotheses[0]
    return greedy(loaded.model, loaded.tokenizers, text)


@st.cache_data(max_entries=64, show_spinner=False)
def cached_beam(ref: str, revision: str | None, text: str, beam: int) -> BeamResult:
    """Every final hypothesis of a beam search and its tree."""
    loaded = load(ref, revision)
    return beam_search(loaded.model, loaded.tokenizers, text, beam)


@st.cache_data(max_entries=256, show_spinner=False)
def cached_forced(ref: str, revision: str | None, text: str, target: str | tuple[int, ...]) -> Trace:
    loaded = load(ref, revision)
    return forced(loaded.model, loaded.tokenizers, text, target)


@st.cache_data(max_entries=16, show_spinner=False)
def cached_scaling_curves(dims: tuple[int, ...]) -> list[dict]:
    return [asdict(p) for p in scaling_curves(list(dims))]


def read_url() -> url.UrlState:
    """The validated query string (bad values already replaced by defaults)."""
    return url.parse({key: st.query_params.get(key) for key in st.query_params})


def model_picker(label: str, wanted: str, key: str, revision: str | None = None) -> tuple[str, str | None]:
    """A bundled model or a Hub repo id (+ revision); the choice is kept in the URL under ``key``."""
    bundled = bundled_models()
    options = [*bundled, HUB_CHOICE]
    index = options.index(wanted) if wanted in bundled else len(bundled)
    choice = st.selectbox(label, options, index=index, format_func=model_name, key=f"{key}_pick")
    if choice == HUB_CHOICE:
        typed = st.text_input("Hub repo id", value="" if wanted in bundled else wanted, max_chars=url.MAX_REF_CHARS,
                              placeholder="owner/name", key=f"{key}_repo").strip()
        choice = typed or default_model()
        revision = st.text_input("Revision (optional)", value=revision or "", max_chars=url.MAX_REVISION_CHARS,
                                 key=f"{key}_rev").strip() or None
    else:
        revision = None
    st.query_params[key] = choice
    if revision:
        st.query_params[f"{key}_rev"] = revision
    else:
        st.query_params.pop(f"{key}_rev", None)
    return choice, revision


def sidebar() -> None:
    """Model, decoding and view controls, drawn by the entry point for every page; their values live in the URL.

    The page reads them with :func:`settings`.
    """
    state = read_url()
    for notice in state.notices:
        st.toast(notice, icon=":material/warning:")
    with st.sidebar:
        st.header("Settings")
        choice, revision = model_picker("Model", state.model or default_model(), "model", state.model_rev)
        mode = st.radio("Decoding", ["greedy", "beam search"], index=int(state.beam > 1), horizontal=True)
        beam = st.slider("Beam size", 2, url.MAX_BEAM, max(2, state.beam)) if mode == "beam search" else 1
        words = st.radio("Tokens", url.LEVELS, index=url.LEVELS.index(state.level), horizontal=True) == "words"
    st.query_params.update(beam=str(beam), level="words" if words else "subwords")
    st.session_state[_SETTINGS] = Settings(choice, revision, beam, words)


def settings() -> Settings:
    """What the sidebar says in this run (drawn by ``app.py`` before the page)."""
    return st.session_state[_SETTINGS]


def model_or_fallback(settings: Settings, fallback: str = DEFAULT_MODEL) -> tuple[Settings, LoadedModel]:
    """Load the chosen model; if it cannot be loaded, say why and use the bundled ``fallback``."""
    try:
        loaded = load(settings.model, settings.revision)
    except CheckpointError as e:
        st.error(f"{for_markdown(str(e))} Using the bundled {model_name(fallback)} model instead.")
        settings = replace(settings, model=fallback, revision=None)
        loaded = load(fallback, None)
    st.sidebar.caption(f"{for_markdown(model_name(settings.model))}: running on **{loaded.device}**, "
                       f"score **{loaded.score}**")
    return settings, loaded


def model_name(ref: str) -> str:
    """A bundled model's label (its score's), or the reference itself (raw text: escape it for its renderer)."""
    score = bundled_scores().get(ref)
    return SCORES[score].label if score else ref


def sentence_input() -> str | None:
    """Example picker and text box; returns the sentence, or None (with a prompt) when empty.

    The sentence lives under a session key of its own, so it follows the visitor from page to page
    (each page's text box is a new widget).
    """
    examples = load_examples()
    notes = {e.text: e.note for e in examples}
    if _SENTENCE not in st.session_state:
        linked = read_url().text
        st.session_state[_SENTENCE] = examples[0].text if linked is None else linked
    pick = st.selectbox("Examples", list(notes), index=None, placeholder="Pick an example…",
                        format_func=lambda t: f"{t}  — {notes[t]}")
    if pick and st.session_state.get("_picked") != pick:
        st.session_state[_SENTENCE], st.session_state["_picked"] = pick, pick
    st.session_state["text"] = st.session_state[_SENTENCE]
    text = st.text_area("English sentence", key="text", height=80, on_change=_keep_sentence)
    if len(text) > url.MAX_TEXT_CHARS:
        st.warning(f"The text is {len(text):,} characters long; only the first {url.MAX_TEXT_CHARS} are translated.")
        text = text[: url.MAX_TEXT_CHARS]
    st.query_params["text"] = text
    if not text.strip():
        st.info("Type an English sentence above (or pick an example) to see its translation and attention.")
        return None
    return text


def _keep_sentence() -> None:
    st.session_state[_SENTENCE] = st.session_state["text"]


def trace_or_stop(settings: Settings, text: str, what_if: tuple[int, int] | None = None) -> Trace:
    """The cached trace, or a friendly message and the end of this run."""
    try:
        return cached_trace(settings.model, settings.revision, text, settings.beam, what_if)
    except InputError as e:
        st.info(str(e))
        st.stop()


def source_notices(trace: Trace) -> None:
    """Say when the source was cut, and which of its pieces the model does not know."""
    if trace.source.truncated:
        st.warning(f"The sentence is longer than {MAX_SOURCE_TOKENS} tokens: only the beginning was translated.")
    unknown = [s for s, u in zip(trace.source.surfaces, trace.source.unknown) if u]
    if unknown:
        st.caption("Unknown to the model (marked ⁇ in the charts): "
                   + ", ".join(for_markdown(u) for u in dict.fromkeys(unknown)))


def show_translation(text: str, where=st) -> None:
    """A translation as plain text, exactly as written. ``st.text``, not ``st.code``: the code box's syntax
    highlighter is a 1.5 MB script, which made a new visitor's first heatmap 1.5–2.4 s later
    (``python -m models.bench open``)."""
    where.text(text or "(empty)")


def view_of(trace: Trace, words: bool) -> AttentionView:
    return word_view(trace) if words else piece_view(trace)

