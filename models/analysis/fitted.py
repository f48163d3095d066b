"""A reading fit to people: every head of a model read at once, weighed by a sparse logistic regression fit on a few
human-aligned pairs (:mod:`.probe_fit`), and read as the probability that a (target word, source word) cell is a
link.

Its features are other readings of the same sentence — each head, each layer's whole, at the step that writes the
word and one step later, of every matrix cheap enough to come from the one hooked pass (:mod:`.matrices`), each as
read and divided by its row's and its column's largest value — and three of the words themselves: how far the cell
lies from the diagonal, whether both words are the same punctuation, whether they are the same word. A feature is
read between whole words (a word's source pieces summed, its target pieces averaged, as :func:`.alignment.word_view`
reads any matrix), so the probe is fit, scored and drawn on one grid.

Dimension names: T target pieces, S source pieces, F target words, E source words (markers left out), K features.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..decoding.trace import Reading
from ..network.tokenization import is_marker, word_groups
from .alignment import word_view
from .contributions import Layered, Sentence
from .link_rules import LinkRule

Scale = Literal["as read", "÷ row max", "÷ column max"]
SCALES: tuple[Scale, ...] = ("as read", "÷ row max", "÷ column max")
#: Which cell a feature reads: the cell itself, or its neighbour on the diagonal before or after it (alignments run
#: along diagonals, so a link is likelier where the words before both were linked too).
At = Literal["cell", "diagonal before", "diagonal after"]
#: The features of the words themselves, beside the matrices'.
POSITIONS = ("diagonal distance", "same punctuation", "same word")
#: A statistical aligner's links as features (``models.align --external eflomal``): 1 where it links the cell. Not
#: of the model: a probe that reads them is scored by the command, never saved as the model's reading.
EXTERNAL = ("eflomal forward link", "eflomal reverse link")


@dataclass(frozen=True)
class Feature:
    """One column of the probe's input: a matrix at one reading, scaled one way; or one of :data:`POSITIONS`."""

    source: str  # a matrix's name (:mod:`.matrices`), or one of POSITIONS
    reading: str | None = None  # the matrix's reading (its key, ``1.4.shifted``); None: one-matrix, or a position
    scale: Scale = "as read"
    at: At = "cell"

    @property
    def name(self) -> str:
        return " ".join(filter(None, (self.source, self.reading,
                                      None if self.source in (*POSITIONS, *EXTERNAL) else self.scale,
                                      None if self.at == "cell" else f"({self.at})")))

    @property
    def head(self) -> Reading | None:
        """The cross-attention head it reads (a layer's whole: head None), or None for a one-matrix reading or a
        position."""
        return Reading.from_key(self.reading) if self.reading else None


@dataclass(frozen=True)
class FitData:
    """What a probe was fit on, and how its score was had."""

    gold: str  # the gold set's name or folder
    split: str  # the split fit on: "trial", or "test" when cross-fitted
    pairs: int
    folds: int  # of the cross-validation that chose its settings
    cross_fitted: bool  # no trial split: its AER on the set is each fold's, fit on the others (said wherever shown)


@dataclass(frozen=True)
class Tried:
    """One setting cross-validation weighed: which links count as positive, the inverse L1 strength, the rule."""

    labels: Literal["sure", "possible"]
    strength: float  # scikit-learn's C
    rule: LinkRule
    aer: float  # cross-validated AER on the pairs fit on, percent


@dataclass(frozen=True)
class Probe:
    """A fitted reading: standardised features times weights, through a logistic: p(link) of every word cell."""

    features: tuple[Feature, ...]  # [K]
    mean: tuple[float, ...]  # [K] the standardisation learned on the pairs fit on
    spread: tuple[float, ...]  # [K]
    weights: tuple[float, ...]  # [K], most of them zero (L1)
    intercept: float
    chosen: Tried  # the setting cross-validation chose: its labels, strength, rule and CV AER
    tried: tuple[Tried, ...]  # every setting weighed (the best rule of each labels × strength)
    data: FitData
    seconds: float  # fitting, cross-validation included, once the matrices were read

    @property
    def rule(self) -> LinkRule:
        return self.chosen.rule

    def probability(self, x: np.ndarray) -> np.ndarray:
        """p(link) [F, E] of features ``x`` [F, E, K]."""
        z = ((x - np.asarray(self.mean)) / np.asarray(self.spread)) @ np.asarray(self.weights) + self.intercept
        return 1 / (1 + np.exp(-z))

    def used(self) -> list[tuple[Feature, float]]:
        """The features with a non-zero weight, largest first."""
        return sorted(((f, w) for f, w in zip(self.features, self.weights) if w), key=lambda fw: -abs(fw[1]))

    def head_grid(self, layers: int, heads: int, shifted: bool) -> np.ndarray:
        """[L, heads + 1] the weight people's links give each attention head (the last column: the layer's whole),
        summed over the matrices and scalings that read it, at the writing step or one step later."""
        grid = np.zeros((layers, heads + 1))
        for feature, w in zip(self.features, self.weights):
            head = feature.head
            if head is not None and head.shifted == shifted and head.layer < layers:
                grid[head.layer, heads if head.head is None else head.head] += w
        return grid


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


def word_grid(sentence: Sentence, read: Callable[[str], Layered], features: tuple[Feature, ...]) -> WordGrid:
    """``features`` of one sentence between its words (markers left out); ``read`` gives a matrix's layers by name
    (:func:`.matrices.layered`, so each is computed once a sentence)."""
    trace = sentence.trace
    view = word_view(trace, np.zeros((len(trace.target_pieces), len(trace.source.ids))))
    rows = [t for t, w in enumerate(view.rows) if not is_marker(w)]
    columns = [s for s, w in enumerate(view.columns) if not is_marker(w)]
    by_target, by_source = _groups(trace)
    along_t = _aggregation(by_target, len(trace.target_pieces), mean=True)[rows]  # [F, T]
    along_s = _aggregation(by_source, len(trace.source.ids), mean=False)[columns]  # [E, S]
    F, E = len(rows), len(columns)
    read_once: dict[tuple[str, str | None], np.ndarray] = {}
    x = np.zeros((F, E, len(features)))
    for k, feature in enumerate(features):
        if feature.source in POSITIONS:
            x[:, :, k] = _position(feature.source, [view.rows[r] for r in rows], [view.columns[c] for c in columns])
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


def _position(name: str, target: list[str], source: list[str]) -> np.ndarray:
    """[F, E] one of :data:`POSITIONS`."""
    F, E = len(target), len(source)
    if name == "diagonal distance":
        return np.abs((np.arange(F)[:, None] + 0.5) / max(F, 1) - (np.arange(E)[None, :] + 0.5) / max(E, 1))
    same = np.array([[t.lower() == s.lower() for s in source] for t in target], dtype=float).reshape(F, E)
    punctuation = np.array([[_is_punctuation(t) for _ in source] for t in target], dtype=bool).reshape(F, E)
    return same * (punctuation if name == "same punctuation" else ~punctuation)


def fitted_matrix(sentence: Sentence, probe: Probe, read: Callable[[str], Layered]) -> Layered:
    """The probe's p(link) of one sentence as a piece matrix [1, T, S]: each word cell's probability given to
    every target piece of the word and split evenly over the source word's pieces, so the word view (source pieces
    summed, target pieces averaged) reads back exactly the probe's word grid; markers 0."""
    trace = sentence.trace
    grid = word_grid(sentence, read, probe.features)
    by_target, by_source = _groups(trace)
    words = np.zeros((len(by_target), len(by_source)))
    words[np.ix_(grid.rows, grid.columns)] = probe.probability(grid.x)
    spread_t = _aggregation(by_target, len(trace.target_pieces), mean=False).T  # [T, Tw]
    spread_s = _aggregation(by_source, len(trace.source.ids), mean=True)  # [Sw, S]
    return Layered((spread_t @ words @ spread_s)[None].astype(np.float32))  # [1, T, S]
