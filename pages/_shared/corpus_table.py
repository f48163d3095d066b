"""The Corpus page's parts: where its sentences come from, its table computed a batch at a time (cached, with a
progress bar, a Stop button and a public server's limits), and a row opened on another page.

The table itself is :mod:`models.tables.rows`'s: each batch is cached by its models, readings and sentences, so
reopening the page, sorting or filtering computes nothing, and a visitor's rows so far survive a Stop.
"""
from __future__ import annotations

import hashlib
import time

import pandas as pd
import streamlit as st

from models.datasets.sentences import Sentences
from models.storage.languages import Languages, pair_name
from models.views import corpus, prose
from models.views.corpus import EXAMPLES
from models.views.prose import for_markdown

from . import cache, deploy, ui

PUBLIC, PASTE, UPLOAD = "a public test set", "paste", "upload a file"
_JOB = "_atlas_corpus_job"  # session key: (job, rows so far, stopped)


def _public_set(found: corpus.Sources) -> Sentences | None:
    """A sacreBLEU set of the model's pair, picked by name (those already cached first): fetched into sacreBLEU's
    cache the first time, under a status; None until one is picked."""
    cached = found.cached
    test_set = st.selectbox(f"{pair_name(found.pair)} test sets (sacreBLEU)", found.public, index=None,
                            placeholder="Choose one: it is fetched once, then read from the cache",
                            format_func=lambda t: t.label + (" · cached" if t in cached else ""), key="corpus_set",
                            help=prose.PUBLIC_SETS)
    if test_set is None:
        return None
    if test_set in cached:
        return cache.cached_test_set(test_set, found.pair, deploy.now().test_set_mb)
    with st.status(f"Fetching {test_set.label} ({test_set.name}) into sacreBLEU's cache…") as status:
        try:
            sentences = cache.cached_test_set(test_set, found.pair, deploy.now().test_set_mb)
        except (OSError, ValueError):
            status.update(label=f"{test_set.label}: not fetched", state="error", expanded=False)
            raise
        status.update(label=f"{test_set.label}: {len(sentences):,} sentences, cached", state="complete",
                      expanded=False)
    return sentences


def pick_sentences(languages: Languages) -> Sentences | None:
    """The sentences chosen for a model of ``languages``: a test split of the data folder, a public test set of
    its pair, the app's examples, pasted or uploaded lines; None (with a prompt or the reason) when there are none."""
    found = corpus.sources(deploy.now().data_folder, languages)
    choice = st.radio("Sentences", [EXAMPLES, *found.folders, *([PUBLIC] if found.public else []), PASTE, UPLOAD],
                      key="corpus_from",
                      help=prose.SENTENCES)
    try:
        if choice in found.folders:
            folder, split = found.folders[choice]
            return cache.cached_folder(str(folder), split)
        if choice == PUBLIC:
            return _public_set(found) or _prompt("Choose a test set above.")
        if choice == EXAMPLES:
            return corpus.examples(languages[0])
        if choice == PASTE:
            text = st.text_area("One sentence a line, or source TAB reference", height=200, key="corpus_text",
                                max_chars=corpus.MAX_PASTED)
            return corpus.pasted(text) if text.strip() else _prompt("Paste sentences above.")
        upload = st.file_uploader("A UTF-8 text file: one sentence a line, or source TAB reference", key="corpus_file")
        links = st.file_uploader("Human links (optional): a line per pair, 1-based, source word first (1-1 2-3 3p2)",
                                 key="corpus_links")
        if upload is None:
            return _prompt("Upload a file above.")
        return corpus.uploaded(upload.getvalue(), upload.name, links and links.getvalue())
    except (OSError, ValueError) as e:
        st.error(for_markdown(corpus.problem(e)))
    return None


def _prompt(text: str) -> None:
    st.info(text)


def within_limit(sentences: Sentences) -> Sentences:
    """The first sentences a public server takes (:func:`models.views.corpus.within_limit`), said before anything
    is computed."""
    limits = deploy.now()
    sentences, note = corpus.within_limit(sentences, limits.corpus_sentences, limits.corpus_seconds)
    if note:
        st.info(note)
    return sentences


def of_one_pair(models: tuple[cache.TableModel, ...]) -> tuple[cache.TableModel, ...]:
    """The models of one table: a second model of another language pair than the first's is set aside, said in a
    line."""
    if reason := cache.table_of(models).other_pair():
        st.caption(f"{for_markdown(reason)} The table shows {for_markdown(models[0].name)} alone.")
        return models[:1]
    return models


def refusal(models: tuple[cache.TableModel, ...], sentences: Sentences) -> str | None:
    """Why these models cannot make a table of these sentences (their languages), or None."""
    return cache.table_of(models).refusal(sentences)


def table(models: tuple[cache.TableModel, ...], sentences: Sentences) -> tuple[str, list[dict]]:
    """The job's name and every row, computed a batch at a time under a progress bar with a Stop button; on a
    public server, no more than its seconds of work per request (the rows so far are kept, and Continue goes on)."""
    job = hashlib.sha256(repr((models, sentences)).encode()).hexdigest()
    found, rows, stopped = st.session_state.get(_JOB, (None, [], False))
    if found != job:
        rows, stopped = [], False
    n, seconds = len(sentences), deploy.now().corpus_seconds
    if len(rows) < n and not stopped:
        slot = st.empty()
        with slot.container():
            bar = st.progress(len(rows) / n, text=f"Translating {n:,} sentences…")
            stopped = st.button("Stop", key="corpus_stop", icon=":material/stop:")
        started = time.perf_counter()
        for start, stop in corpus.batches(len(rows), n if not stopped else len(rows)):
            rows = rows + cache.cached_rows(models, sentences, start, stop)
            st.session_state[_JOB] = (job, rows, False)
            bar.progress(len(rows) / n, text=f"{len(rows):,} of {n:,} sentences")
            if seconds is not None and time.perf_counter() - started >= seconds and len(rows) < n:
                st.warning(f"This server spends at most {seconds:g} s on one request: {len(rows):,} of {n:,} "
                           "sentences are done.")
                stopped = True
                break
        slot.empty()
    st.session_state[_JOB] = (job, rows, stopped)
    if stopped and len(rows) < n:
        st.button(f"Continue ({n - len(rows):,} sentences to go)", key="corpus_continue", on_click=_go_on)
    return job, rows


def _go_on() -> None:
    job, rows, _ = st.session_state[_JOB]
    st.session_state[_JOB] = (job, rows, False)



def sorted_and_filtered(frame: pd.DataFrame, models: tuple[cache.TableModel, ...]) -> pd.DataFrame:
    """The table as the widgets above it ask (:func:`models.views.corpus.shown`): rows whose source or translations
    contain a text, sorted by a column (disagreement first, where there are two models)."""
    text, by, order = st.columns([2, 2, 1])
    wanted = text.text_input("Only sentences containing", key="corpus_filter", max_chars=200)
    columns = list(frame.columns)
    first, highest = corpus.first_sort(columns)
    key = by.selectbox("Sort by", columns, index=columns.index(first), key="corpus_sort")
    highest = order.toggle("Highest first", value=highest, key="corpus_desc")
    return corpus.shown(frame, [m.name for m in models], wanted, key, highest)


def column_help(frame: pd.DataFrame, models: tuple[cache.TableModel, ...]) -> dict:
    """Each statistic's column with its meaning on hover and two decimals."""
    meaning = corpus.meanings([m.name for m in models])
    return {c: st.column_config.NumberColumn(c, help=meaning[c], format="%.2f") for c in frame if c in meaning}


def open_row(row: pd.Series, models: tuple[cache.TableModel, ...]) -> None:
    """Buttons that open the row's sentence on Translate & align (the first model) or Compare scoring (both)."""
    st.markdown(f"**#{row['#']}** {for_markdown(row['source'])}")
    here, there = st.columns(2)
    first = {"head": models[0].reading} if models[0].reading else {}
    if here.button("Open on Translate & align", key="corpus_open_translate", icon=":material/translate:"):
        ui.open_sentence("pages/translate.py", row["source"], first)
    if len(models) == 2 and there.button("Open on Compare scoring", key="corpus_open_compare",
                                         icon=":material/compare_arrows:"):
        ui.open_sentence("pages/Compare_scoring.py", row["source"],
                         corpus.compare_link([(m.key.ref, m.key.revision, m.reading) for m in models]))
