"""A reading fit to people: every head of a model read at once, weighed by a sparse logistic regression fit on a few
human-aligned pairs (:mod:`.probe_fit`), and read as the probability that a (target word, source word) cell is a
link.

Its features are other readings of the same sentence — each head, each layer's whole, at the step that writes the
word and one step later, of every matrix cheap enough to come from the one hooked pass (:mod:`.recipes`), each as
read and divided by its row's and its column's largest value — and three of the words themselves: how far the cell
lies from the diagonal, whether both words are the same punctuation, whether they are the same word. A feature is
read between whole words (a word's source pieces summed, its target pieces averaged, as
:func:`.heatmaps.word_heatmap` reads any matrix), so the probe is fit, scored and drawn on one grid.

Dimension names: T target pieces, S source pieces, F target words, E source words (markers left out), K features.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..network.tokenization import is_marker, word_groups
from ..nouns.attention_map import Reading
from ..nouns.probe import POSITIONS, At, Feature, Probe, Scale
from .heatmaps import Heatmap, word_heatmap
from .contributions import Layered, Sentence


def _groups(trace) -> tuple[list[list[int]], list[list[int]]]:
    return word_groups(trace.target_pieces), word_groups(trace.source.pieces)


def _aggregation(groups: list[list[int]], n: int, mean: bool) -> np.ndarray:
    """[words, n]: a word's pieces summed (or averaged)."""
    a = np.zeros((len(groups), n))
    for w, g in enumerate(groups):
        a[w, g] = 1 / len(g) if mean else 1
    return a


def _is_punctuation(word: str) -> bool:
    return bool(word) and all(unicodedata.category(c).startswith("P") for c in word)


@dataclass(frozen=True, eq=False)
class WordGrid:
    """A sentence's features between its words: X [F, E, K], and where those words sit in its word view."""

    x: np.ndarray  # [F, E, K]
    rows: list[int]  # [F] word-view rows that are words
    columns: list[int]  # [E]


#: One sentence's pass, as a grid reads it: the sentence, and its matrices' layers by name (:func:`.recipes.layered`,
#: so each is computed once a sentence).
Pass = tuple[Sentence, Callable[[str], Layered]]


def word_grid(sentence: Sentence, read: Callable[[str], Layered], features: tuple[Feature, ...],
              reverse: Pass | None = None) -> WordGrid:
    """``features`` of one sentence between its words (markers left out); ``read`` gives a matrix's layers by name.
    A feature of the reverse partner is read from ``reverse`` (the partner's pass over the same two sentences, roles
    swapped), its [E, F] transposed onto this grid; a cell past the partner's words (a sentence it cut) reads 0."""
    own = tuple(f for f in features if not f.reverse)
    grid = _one_way(sentence, read, own)
    if len(own) == len(features):
        return grid
    if reverse is None:
        raise ValueError("these features read the reverse partner: give its pass")
    theirs = _one_way(*reverse, tuple(replace(f, reverse=False) for f in features if f.reverse)).x  # [E', F', K']
    F, E = min(grid.x.shape[0], theirs.shape[1]), min(grid.x.shape[1], theirs.shape[0])
    x = np.zeros((*grid.x.shape[:2], len(features)))
    x[:, :, [k for k, f in enumerate(features) if not f.reverse]] = grid.x
    x[:F, :E, [k for k, f in enumerate(features) if f.reverse]] = theirs[:E, :F].transpose(1, 0, 2)
    return WordGrid(x, grid.rows, grid.columns)


def _words(trace) -> tuple[Heatmap, list[int], list[int]]:
    """A trace's word view, and which of its rows [F] and columns [E] are words (markers left out)."""
    view = word_heatmap(trace, np.zeros((len(trace.target_pieces), len(trace.source.ids))))
    return (view, [t for t, w in enumerate(view.rows) if not is_marker(w)],
            [s for s, w in enumerate(view.columns) if not is_marker(w)])


def sentence_words(trace) -> tuple[list[str], list[str]]:
    """The words of a trace's target [F] and source [E] as a grid reads them: what a reverse partner is given."""
    view, rows, columns = _words(trace)
    return [view.rows[r] for r in rows], [view.columns[c] for c in columns]


def _one_way(sentence: Sentence, read: Callable[[str], Layered], features: tuple[Feature, ...]) -> WordGrid:
    trace = sentence.trace
    view, rows, columns = _words(trace)
    by_target, by_source = _groups(trace)
    along_t = _aggregation(by_target, len(trace.target_pieces), mean=True)[rows]  # [F, T]
    along_s = _aggregation(by_source, len(trace.source.ids), mean=False)[columns]  # [E, S]
    F, E = len(rows), len(columns)
    read_once: dict[tuple[str, str | None], np.ndarray] = {}
    x = np.zeros((F, E, len(features)))
    for k, feature in enumerate(features):
        if feature.source in POSITIONS:
            x[:, :, k] = position(feature.source, [view.rows[r] for r in rows], [view.columns[c] for c in columns])
            continue
        key = (feature.source, feature.reading)
        if key not in read_once:
            layers = read(feature.source)
            pieces = layers.layers[0] if feature.reading is None else layers.read(Reading.from_key(feature.reading))
            pieces = np.pad(pieces, ((0, len(trace.target_pieces) - len(pieces)), (0, 0)))  # [T, S]: shifted ends
            read_once[key] = along_t @ pieces @ along_s.T  # [F, E]
        x[:, :, k] = _neighbour(_scaled(read_once[key], feature.scale), feature.at)
    return WordGrid(x, rows, columns)


def _scaled(w: np.ndarray, scale: Scale) -> np.ndarray:
    if scale == "÷ row max":
        return w / np.maximum(w.max(1, keepdims=True), 1e-9)
    if scale == "÷ column max":
        return w / np.maximum(w.max(0, keepdims=True), 1e-9)
    return w


def _neighbour(w: np.ndarray, at: At) -> np.ndarray:
    """[F, E] each cell's value at ``at``: its own, or its diagonal neighbour's (0 past the edge)."""
    found = np.zeros_like(w)
    if at == "cell":
        return w
    if at == "diagonal before":
        found[1:, 1:] = w[:-1, :-1]
    else:
        found[:-1, :-1] = w[1:, 1:]
    return found


def position(name: str, target: list[str], source: list[str]) -> np.ndarray:
    """[F, E] one of :data:`POSITIONS` between target words and source words: all a position floor reads."""
    F, E = len(target), len(source)
    if name == "diagonal distance":
        return np.abs((np.arange(F)[:, None] + 0.5) / max(F, 1) - (np.arange(E)[None, :] + 0.5) / max(E, 1))
    same = np.array([[t.lower() == s.lower() for s in source] for t in target], dtype=float).reshape(F, E)
    punctuation = np.array([[_is_punctuation(t) for _ in source] for t in target], dtype=bool).reshape(F, E)
    return same * (punctuation if name == "same punctuation" else ~punctuation)


def fitted_matrix(sentence: Sentence, probe: Probe, read: Callable[[str], Layered],
                  reverse: Pass | None = None) -> Layered:
    """The probe's p(link) of one sentence as a piece matrix [1, T, S]: each word cell's probability given to
    every target piece of the word and split evenly over the source word's pieces, so the word view (source pieces
    summed, target pieces averaged) reads back exactly the probe's word grid; markers 0. Only the features it
    weighs are read: the matrices of the others are never computed (nor the reverse partner's pass, where it
    weighs none of its heads)."""
    trace = sentence.trace
    grid = word_grid(sentence, read, tuple(probe.features[k] for k in probe.active), reverse)
    by_target, by_source = _groups(trace)
    words = np.zeros((len(by_target), len(by_source)))
    words[np.ix_(grid.rows, grid.columns)] = probe.probability(grid.x, active=True)
    spread_t = _aggregation(by_target, len(trace.target_pieces), mean=False).T  # [T, Tw]
    spread_s = _aggregation(by_source, len(trace.source.ids), mean=True)  # [Sw, S]
    return Layered((spread_t @ words @ spread_s)[None].astype(np.float32))  # [1, T, S]
