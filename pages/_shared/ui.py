"""What every page shares: the sidebar, the model picker and its fallback, the sentence box, notices.

Streamlit does not list this folder as a page. Nothing here does math. The query string is read only through
:func:`read_url` (validated by :mod:`.url`); models and traces come from :mod:`.cache`, deployment settings from
:mod:`.deploy`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypeVar

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from models.decoding.trace import Trace
from models.storage.hub import DEFAULT_MODEL, CheckpointError, LoadedModel, bundled_models
from models.storage.languages import MAX_INSTRUCTION_CHARS, Asking, Languages
from models.views import naming, prose, query_string as url
from models.views.prose import for_markdown
from models.views.translation import Refused, doubts

from . import deploy
from .cache import ModelKey, cached_trace, load

HUB_CHOICE = "Hugging Face Hub repo…"
_SETTINGS = "_atlas_settings"  # session-state key of the sidebar's Settings
_SENTENCE = "_atlas_sentence"  # session-state key of the sentence, shared by every page
_DIRECTION = "_atlas_direction"  # session-state key of the bundled models' direction, read by every model picker
T = TypeVar("T")


@dataclass(frozen=True)
class Settings:
    model: str  # bundled name or Hub repo id
    revision: str | None
    beam: int
    words: bool  # word-level (True) or subword view
    asking: Asking | None = None  # a model of several pairs' pair, a chat model's instruction; None: as it loads

    @property
    def key(self) -> ModelKey:
        """The model as the page cache keys it."""
        return ModelKey(self.model, self.revision, self.asking)

    def for_model(self, model: str, revision: str | None = None) -> Settings:
        """These settings for another model, asked as it loads (what is picked belongs to the sidebar's)."""
        return replace(self, model=model, revision=revision, asking=None)


def read_url() -> url.UrlState:
    """The validated query string (bad values already replaced by defaults)."""
    return url.parse({key: st.query_params.get(key) for key in st.query_params})


def model_picker(label: str, wanted: str, key: str, revision: str | None = None) -> tuple[str, str | None]:
    """A bundled model of the sidebar's direction or a Hub repo id (+ revision); the choice is kept in the URL under
    ``key``."""
    pair = picked_direction()
    bundled = naming.models_of(pair) if pair else bundled_models()
    if pair and wanted in bundled_models():
        wanted = naming.opened_model(pair, wanted)
    options = [*bundled, HUB_CHOICE]
    index = options.index(wanted) if wanted in bundled else len(bundled)
    choice = st.selectbox(label, options, index=index, format_func=naming.model_name, key=picker_key(key, wanted))
    if choice == HUB_CHOICE:
        typed = st.text_input("Hub repo id", value="" if wanted in bundled else wanted, max_chars=url.MAX_REF_CHARS,
                              placeholder="owner/name", key=f"{key}_repo").strip()
        choice = typed or deploy.now().default_model
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


def picker_key(name: str, shown: str) -> str:
    """A sidebar picker's key, named for what the URL asks it to show: a page that opens another model (a bar
    clicked, the direction offered, the browser's back button) draws a new picker showing it. One key for every
    value left the browser's picker showing the choice made before, beside a page drawing another model."""
    return f"{name}_pick:{shown}"


def sidebar() -> None:
    """Model, decoding and view controls, drawn by the entry point for every page; their values live in the URL.

    The page reads them with :func:`settings`.
    """
    state = read_url()
    for notice in state.notices:
        st.toast(notice, icon=":material/warning:")
    with st.sidebar:
        st.header("Settings")
        wanted = state.model or deploy.now().default_model
        direction_picker(state.direction, wanted)
        choice, revision = model_picker("Model", wanted, "model", state.model_rev)
        languages = language_pickers(choice, revision, state)
        instruction = instruction_box(choice, revision, state)
        mode = st.radio("Decoding", ["greedy", "beam search"], index=int(state.beam > 1), horizontal=True)
        beam = st.slider("Beam size", 2, url.MAX_BEAM, max(2, state.beam)) if mode == "beam search" else 1
        words = st.radio("Tokens", url.LEVELS, index=url.LEVELS.index(state.level), horizontal=True) == "words"
    st.query_params.update(beam=str(beam), level="words" if words else "subwords")
    asking = None if languages is None and instruction is None else Asking(languages or (None, None), instruction)
    st.session_state[_SETTINGS] = Settings(choice, revision, beam, words, asking)


def direction_picker(key: str | None, wanted: str) -> None:
    """Which way the bundled models translate (where they go more than one way), kept in the URL (``direction``) and
    in the session for every model picker; a Hub model or a folder keeps its own languages."""
    pair, notice = naming.linked_direction(key, wanted)
    if notice:
        st.toast(notice, icon=":material/warning:")
    found = naming.directions()
    if len(found) > 1:
        pair = st.selectbox("Direction", found, index=found.index(pair), format_func=naming.direction_label,
                            key=picker_key("direction", naming.direction_key(pair)),
                            help="Which way the bundled models translate.")
    st.session_state[_DIRECTION] = pair
    st.query_params["direction"] = naming.direction_key(pair)


def language_pickers(ref: str, revision: str | None, state: url.UrlState) -> Languages | None:
    """For a many-to-many model, two pickers of its languages by name, kept in the URL (``src_lang``,
    ``tgt_lang``) in its own codes; a code it does not know is said, with the close matches, and its default used.
    None for a model of one pair (or one that cannot be loaded: the page says why)."""
    loaded = _loaded_or_none(ref, revision)
    if loaded is None or not loaded.codes:
        for key in ("src_lang", "tgt_lang"):
            st.query_params.pop(key, None)
        return None
    chosen = []
    for key, label, wanted, default in zip(("src_lang", "tgt_lang"), ("From", "Into"),
                                           (state.src_lang, state.tgt_lang), loaded.languages):
        code, notice = naming.language_choice(loaded.codes, wanted, default)
        if notice:
            st.toast(notice, icon=":material/warning:")
        chosen.append(st.selectbox(label, loaded.codes, index=loaded.codes.index(code), key=picker_key(key, code),
                                   format_func=naming.language_label,
                                   help="The model's languages (type to search); the URL keeps its own code."))
        st.query_params[key] = chosen[-1]
    return chosen[0], chosen[1]


def instruction_box(ref: str, revision: str | None, state: url.UrlState) -> str | None:
    """For a chat model, the instruction it is asked with, editable and kept in the URL (``instruction``) when it is
    not the model's own; one it cannot be asked with is said and the model's own used. None: the model's own, or a
    model that reads no instruction."""
    loaded = _loaded_or_none(ref, revision)
    if loaded is None or loaded.instruction is None:
        st.query_params.pop("instruction", None)
        return None
    typed = st.text_area("Instruction", value=state.instruction or loaded.instruction, key=f"instruction:{ref}",
                         max_chars=MAX_INSTRUCTION_CHARS, help=prose.INSTRUCTION)
    try:
        wanted = loaded.instructed(typed).instruction if typed != loaded.instruction else None
    except ValueError as e:
        st.warning(str(e))
        wanted = None
    if wanted is None:
        st.query_params.pop("instruction", None)
    else:
        st.query_params["instruction"] = wanted
    return wanted


def _loaded_or_none(ref: str, revision: str | None) -> LoadedModel | None:
    """The model as it loads, or None where it cannot be (the page says why when it loads it)."""
    try:
        return load(ModelKey(ref, revision))
    except CheckpointError:
        return None


def settings() -> Settings:
    """What the sidebar says in this run (drawn by ``app.py`` before the page).

    A page run without ``app.py`` first hands the run to it. That happens once a process: Streamlit decides at its
    first session whether an app is a ``pages/``-folder app, and says yes until a script run calls
    ``st.navigation``, so a new server's first visitor who follows a shared link has that page's file run alone
    (its issues #9624, #9992). Each page file is named as its page's URL, so Streamlit finds it rather than showing
    "Page not found"; the page then reruns through ``app.py``, under the same URL.
    """
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False  # what app.py's st.navigation would say
        st.rerun()
    return st.session_state[_SETTINGS]


def picked_direction() -> Languages | None:
    """The bundled models' direction the sidebar picked (None before it is drawn)."""
    return st.session_state.get(_DIRECTION)


def in_direction(models: tuple[str, ...]) -> None:
    """Stop the page, saying why, where the bundled ``models`` it reads do not translate the sidebar's direction (an
    RNN-only view on French→English, where no RNN is bundled)."""
    if reason := naming.not_in_direction(models, picked_direction()):
        st.info(reason)
        st.stop()


def model_or_fallback(settings: Settings, fallback: str = DEFAULT_MODEL) -> tuple[Settings, LoadedModel]:
    """Load the chosen model; if it cannot be loaded, say why and use the bundled ``fallback``."""
    try:
        loaded = load(settings.key)
    except CheckpointError as e:
        st.error(f"{for_markdown(str(e))} Using the bundled {naming.model_name(fallback)} model instead.")
        settings = settings.for_model(fallback)
        loaded = load(ModelKey(fallback))
    label, name = loaded.family.label, naming.model_name(settings.model)
    where = "" if name == label else f"{for_markdown(name)}: "  # a Hub repo or a folder is named as well
    st.sidebar.caption(f"{where}**{label}**, running on **{loaded.device}**")
    return settings, loaded


def sentence_input(source: str | None = "en") -> str | None:
    """Example picker and text box in the model's source language; returns the sentence, or None (with a prompt)
    when empty. The examples are English: a model reading another language opens on an empty box instead.

    The sentence lives under a session key of its own, so it follows the visitor from page to page
    (each page's text box is a new widget).
    """
    found = naming.sentence_box(source)
    if _SENTENCE not in st.session_state:
        linked = read_url().text
        st.session_state[_SENTENCE] = found.first if linked is None else linked
    st.session_state[_SENTENCE] = found.opens_on(st.session_state[_SENTENCE])  # a direction switched
    box, side = st.columns([3, 1], vertical_alignment="bottom") if found.examples else (st.container(), None)
    if found.examples:  # beside the box, not above it: the picture below starts higher
        pick = side.selectbox("Examples", list(found.examples), index=None, placeholder="Pick an example…",
                              format_func=found.examples.get)
        if pick and st.session_state.get("_picked") != pick:
            st.session_state[_SENTENCE], st.session_state["_picked"] = pick, pick
    st.session_state["text"] = st.session_state[_SENTENCE]
    # One line, as a sentence is: Enter translates it, as people expect of a box they type a sentence into (a text
    # area kept Enter for a new line and asked for Ctrl+Enter, which nothing said).
    text, cut = found.cut(box.text_input(f"{found.language} sentence", key="text", on_change=_keep_sentence,
                                         placeholder=f"Type a sentence in {found.language} and press Enter…"),
                          url.MAX_TEXT_CHARS)
    if cut:
        st.warning(cut)
    st.query_params["text"] = text
    if not text.strip():
        st.info(found.prompt)
        return None
    return text


def open_sentence(page: str, text: str, params: dict[str, str]) -> None:
    """Go to ``page`` (a file under ``pages/``) on ``text``, with ``params`` in its URL."""
    st.session_state[_SENTENCE] = text
    st.switch_page(page, query_params={"text": text, **params})


def _keep_sentence() -> None:
    st.session_state[_SENTENCE] = st.session_state["text"]


def trace_or_stop(settings: Settings, text: str) -> Trace:
    """The cached trace, or a friendly message and the end of this run."""
    return or_stop(cached_trace(settings.key, text, settings.beam))


def or_stop(found: T | Refused) -> T:
    """What a model made of a text, or why it made nothing of it, said, and the end of this run."""
    if isinstance(found, Refused):
        st.info(found.reason)
        st.stop()
    return found


def say_notices(loaded: LoadedModel, trace: Trace, text: str) -> None:
    """Say what to doubt in a translation (:mod:`models.views.notices`): one warning, then the unknown pieces."""
    found = doubts(loaded, trace, text)
    if found.warnings:
        st.warning(for_markdown(" ".join(found.warnings)))
    if loaded.origin.bundled and (other := naming.offer(found.looks_like, loaded.origin.ref)):
        st.button(other.label, icon=":material/swap_horiz:", key=f"offer_{loaded.origin.ref}", on_click=_turn,
                  args=(other,))
    if found.caption:
        st.caption(for_markdown(found.caption))


def _turn(offer: naming.Offer) -> None:
    """Switch the sidebar to ``offer``'s direction and model (a button's callback: before the widgets are drawn,
    each then a new one of what the URL says: :func:`picker_key`)."""
    st.query_params.update(direction=naming.direction_key(offer.pair), model=offer.model)


def show_translation(text: str, where=st, help: str | None = None) -> None:
    """A translation as plain text, exactly as written. ``st.text``, not ``st.code``: the code box's syntax
    highlighter is a 1.5 MB script, which made a new visitor's first heatmap 1.5–2.4 s later
    (``python -m bench open``)."""
    where.text(text or "(empty)", help=help)


