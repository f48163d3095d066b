"""The corpus table: one row per sentence, one or two models, computed a batch at a time and kept as numbers.

For each model a row holds its greedy translation, sentence BLEU and chrF against the references (where there are
some), the attention statistics of :mod:`models.analysis.sentence_stats` on its own translation, and, on a
human-aligned set, the AER of its attention against people's links. Between two models it holds the divergence and
argmax agreement of their attention on one common target, the first model's translation forced through both — the
computation the Compare scoring page does for one sentence. Everything is read at word level, in each model's
chosen reading of its attention.

Batches are :data:`models.decoding.lines.BATCH` sentences in corpus order, as ``models.evaluate`` decodes, so the
translations are that command's, token for token. No trace outlives its batch: a row's full trace is recomputed
when the app opens it.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from sacrebleu.metrics import BLEU, CHRF

from ..analysis.aer import alignment_score
from ..analysis.heatmaps import word_heatmap
from ..analysis.sentence_stats import agreement, attention_stats
from ..analysis.word_links import word_matrix
from ..datasets.sentences import Sentences
from ..decoding.greedy import greedy_batch
from ..decoding.lines import BATCH
from ..decoding.trace import Trace
from ..nouns.attention_map import Reading
from ..nouns.link_rule import LinkRule
from ..nouns.matrix import ATTENTION
from ..storage.gold import GoldPair
from ..storage.languages import language_name, may_translate, pair_name
from ..storage.loaded import LoadedModel
from ..storage.records.alignment_rows import trial_best
from .columns import AGREEMENT, JSD, PAIR_STATS, STATS, column
from .scores import by_length, scores


@dataclass(frozen=True)
class Side:
    """One model of the table: the name its columns carry and the reading of its attention they use."""

    name: str
    loaded: LoadedModel
    reading: Reading | None  # None without attention

    def column(self, stat: str) -> str:
        return column(self.name, stat)

    @functools.cached_property  # read once, not for every sentence of a human-aligned set
    def aer_rule(self) -> LinkRule:
        """How its links are read for AER: the rule chosen on the gold's trial set beside it, else the default."""
        best = trial_best(self.loaded.path, self.loaded.model.attention_shape) if self.reading else None
        return best.method if best else ATTENTION.rule


def language_refusal(sides: Sequence[Side], sentences: Sentences) -> str | None:
    """Why these sides cannot make one table of these sentences, in a sentence; None when they can. Each model
    must read the sentences' language (and write their references'), and two models must translate the same way:
    their attention is compared on one translation forced through both."""
    for side in sides:
        if not may_translate(side.loaded.languages, sentences.languages):
            source = language_name(side.loaded.languages[0], "its source language")
            return (f"These sentences ({sentences.name}) are {_said(sentences.languages)}, and {side.name} translates "
                    f"{pair_name(side.loaded.languages)}: paste or upload {source} sentences instead.")
    return different_pairs(sides)


def different_pairs(sides: Sequence[Side]) -> str | None:
    """Why two sides cannot share a table, in a sentence (they translate different pairs); None when they can."""
    if len(sides) == 2 and not may_translate(sides[0].loaded.languages, sides[1].loaded.languages):
        a, b = sides
        return (f"{a.name} translates {pair_name(a.loaded.languages)} and {b.name} {pair_name(b.loaded.languages)}: "
                "two models set side by side must translate the same way, since their attention is compared on one "
                "translation.")
    return None


def _said(languages) -> str:
    source, target = languages
    return f"in {language_name(source, 'an unnamed language')}" if target is None else pair_name(languages)


def sides(loaded: Sequence[LoadedModel], names: Sequence[str], readings: Sequence[Reading | None]) -> list[Side]:
    """Sides named ``names``, made unique (the same model twice is told apart by its place)."""
    if len(set(names)) < len(names):
        names = [f"{n} ({k + 1})" for k, n in enumerate(names)]
    return [Side(n, m, r if m.model.has_attention else None) for n, m, r in zip(names, loaded, readings)]


def _sentence_scores(translation: str, refs: tuple[str, ...] | None) -> tuple[float, float]:
    if not refs:
        return np.nan, np.nan
    return (BLEU(effective_order=True).sentence_score(translation, list(refs)).score,
            CHRF().sentence_score(translation, list(refs)).score)


def _aer(side: Side, pair: GoldPair) -> float:
    """One pair's AER (%) of ``side``'s attention under its rule; NaN where neither it nor people link anything."""
    weights = word_matrix(side.loaded.model, side.loaded.tokenizers, pair.source, pair.target,
                          ATTENTION, side.reading)
    try:
        return alignment_score([side.aer_rule.read(weights)], [pair.sure], [pair.possible]).aer
    except ValueError:
        return np.nan


def _view(trace: Trace, reading: Reading):
    return word_heatmap(trace, trace.read(reading))


def batch_rows(sides: Sequence[Side], sentences: Sentences, start: int, stop: int) -> list[dict]:
    """The rows of sentences ``start`` … ``stop`` − 1 (one batch)."""
    texts = list(sentences.sources[start:stop])
    refs = sentences.references[start:stop] if sentences.references else [None] * len(texts)
    rows = [{"#": start + k + 1, "source": t, "reference": r[0] if r else "", "words": len(t.split())}
            for k, (t, r) in enumerate(zip(texts, refs))]
    traces = {}
    for side in sides:
        m = side.loaded
        traces[side.name] = greedy_batch(m.model, m.tokenizers, texts)
        for k, (row, trace) in enumerate(zip(rows, traces[side.name])):
            row[side.column("translation")] = trace.translation
            row[side.column("BLEU")], row[side.column("chrF")] = _sentence_scores(trace.translation, refs[k])
            found = attention_stats(_view(trace, side.reading)) if side.reading else None
            for stat in ("entropy", "coverage", "monotonicity"):
                row[side.column(stat)] = getattr(found, stat) if found else np.nan
            if sentences.gold:
                row[side.column("AER")] = _aer(side, sentences.gold[start + k]) if side.reading else np.nan
    if len(sides) == 2 and all(s.reading for s in sides):
        common = [t.translation for t in traces[sides[0].name]]
        forced = [greedy_batch(s.loaded.model, s.loaded.tokenizers, texts, common) for s in sides]
        for row, a, b in zip(rows, *forced):
            row[JSD], row[AGREEMENT] = agreement(_view(a, sides[0].reading), _view(b, sides[1].reading))
    return rows


def stream(sides: Sequence[Side], sentences: Sentences) -> Iterator[tuple[int, list[dict]]]:
    """Each batch's rows as it is done, with how many sentences are done so far."""
    for start in range(0, len(sentences), BATCH):
        stop = min(start + BATCH, len(sentences))
        yield stop, batch_rows(sides, sentences, start, stop)


def corpus_rows(sides: Sequence[Side], sentences: Sentences,
                progress: Callable[[int], None] | None = None) -> list[dict]:
    """Every row of the table; ``progress`` is told how many sentences are done after each batch."""
    rows = []
    for done, batch in stream(sides, sentences):
        rows += batch
        if progress:
            progress(done)
    return rows


def summary(sides: Sequence[Side], sentences: Sentences, rows: Sequence[dict]) -> dict:
    """Corpus-level figures of the rows done: each model's corpus BLEU, lowercased BLEU and chrF (``models.evaluate``'s
    :func:`~.scores.scores`) and BLEU by source length where there are references, and the mean of every
    statistic over the sentences that have it (of AER, the sentences' mean, not ``models.align``'s corpus AER)."""
    found = {"sentences": len(rows), "models": {}}
    refs = [list(r) for r in sentences.references[: len(rows)]] if sentences.references else None
    for side in sides:
        hyps = [row[side.column("translation")] for row in rows]
        entry = {"reading": side.reading.key if side.reading else None}
        if refs and rows:
            entry["scores"], entry["signatures"] = scores(hyps, refs)
            entry["by_length"] = by_length([row["source"] for row in rows], {"greedy": hyps}, refs)
        entry["means"] = {stat: _mean(rows, side.column(stat)) for stat in STATS
                          if rows and side.column(stat) in rows[0]}
        found["models"][side.name] = entry
    found["pair"] = {stat: _mean(rows, stat) for stat in PAIR_STATS if rows and stat in rows[0]}
    return found


def _mean(rows: Sequence[dict], column: str) -> float | None:
    values = np.array([row[column] for row in rows], dtype=float)
    return None if np.isnan(values).all() else float(np.nanmean(values))
