"""A reading fit to people, as a record: every head of a model read at once, weighed by a sparse logistic regression
fit on a few human-aligned pairs, and read as p(link) of each (target word, source word) cell. What its features
are, how they are weighed, what was chosen and on what data — fit by :mod:`models.analysis.probe_fit`, read by
:mod:`models.analysis.fitted`, kept beside the model by :mod:`models.storage.records.probe_file`, which is why it sits
here, below both: a frozen record of readings (:class:`.attention_map.Reading`) and numbers, nothing computed
from a model.

Dimension names: F target words, E source words, K features.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from .attention_map import Reading
from .link_rule import LinkRule

Scale = Literal["as read", "÷ row max", "÷ column max"]
SCALES: tuple[Scale, ...] = ("as read", "÷ row max", "÷ column max")
#: Which cell a feature reads: the cell itself, or its neighbour on the diagonal before or after it (alignments run
#: along diagonals, so a link is likelier where the words before both were linked too).
At = Literal["cell", "diagonal before", "diagonal after"]
#: The features of the words themselves, beside the matrices'.
POSITIONS = ("diagonal distance", "same punctuation", "same word")
#: A statistical aligner's links as features (``models.align --external eflomal``): the share of its runs that link
#: the cell. Not of the model: a probe that reads them is scored by the command, never saved as the model's reading.
EXTERNAL = ("eflomal forward link", "eflomal reverse link")
#: How a feature read from the reverse partner is named.
REVERSE = "reverse model:"
#: What the second look (:class:`SecondLook`) reads of each cell on the first look's p(link) grid: its own p, beside
#: its row's and its column's best and strongest rival and its neighbours on the diagonal — the competition between
#: cells that a per-cell probe cannot see (a French word linked one way is less likely linked another).
LOOKS = ("p", "p ÷ row max", "p ÷ column max", "p diagonal before", "p diagonal after", "row's strongest rival",
         "column's strongest rival", "share of both maxima", "both maxima")


@dataclass(frozen=True)
class Feature:
    """One column of the probe's input: a matrix at one reading, scaled one way; or one of :data:`POSITIONS`."""

    source: str  # a matrix's name (:mod:`.matrices`), or one of POSITIONS
    reading: str | None = None  # the matrix's reading (its key, ``1.4.shifted``); None: one-matrix, or a position
    scale: Scale = "as read"
    at: At = "cell"
    #: Read from the model's reverse partner (:data:`FitData.partner`, translating the other way) on the same pair with
    #: the roles swapped, its [E, F] transposed onto this model's [F, E] grid.
    reverse: bool = False

    @property
    def name(self) -> str:
        return " ".join(filter(None, (REVERSE if self.reverse else None, self.source, self.reading,
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
    #: The model translating the other way whose heads it reads too (a bundled name or a folder); None: its own only.
    partner: str | None = None
    repeats: int = 1  # the cross-validation's shuffles, its settings chosen by their mean AER


@dataclass(frozen=True)
class Tried:
    """One setting cross-validation weighed: which links count as positive, the inverse L1 strength, the rule."""

    labels: Literal["sure", "possible"]
    strength: float  # scikit-learn's C
    rule: LinkRule  # how links are read from p(link)
    aer: float  # cross-validated AER on the pairs fit on, percent


def _rival(p: np.ndarray, axis: int) -> np.ndarray:
    """[F, E] each cell's strongest rival along ``axis``: the best other cell of its row (1) or column (0)."""
    ranked = np.sort(p, axis)
    best, second = np.take(ranked, [-1], axis), np.take(ranked, [-2], axis) if p.shape[axis] > 1 else 0.0
    return np.where(p >= best, second, best)


def looks(p: np.ndarray) -> np.ndarray:
    """[F, E, len(LOOKS)] what the second look reads of the first look's p(link) [F, E]; probabilities as logs."""
    by_row, by_column = p / p.max(1, keepdims=True), p / p.max(0, keepdims=True)
    padded = np.pad(p, 1)
    log = lambda a: np.log(np.clip(a, 1e-6, 1.0))  # noqa: E731 (a cell of p 0 would be −∞)
    return np.stack([log(p), log(by_row), log(by_column), log(padded[:-2, :-2]), log(padded[2:, 2:]),
                     log(_rival(p, 1)), log(_rival(p, 0)), by_row * by_column,
                     ((by_row == 1) & (by_column == 1)).astype(float)], -1)


@dataclass(frozen=True)
class SecondLook:
    """A second logistic regression, over :func:`looks` of the first's p(link) grid, fit to the same pairs' links
    from the first look's out-of-fold predictions (each pair's p from a fit that never saw it, as the first look
    will read an unseen sentence), its own labels, strength and rule chosen the same way."""

    mean: tuple[float, ...]  # [len(LOOKS)]
    spread: tuple[float, ...]
    weights: tuple[float, ...]
    intercept: float
    chosen: Tried
    tried: tuple[Tried, ...]

    def probability(self, p: np.ndarray) -> np.ndarray:
        """p(link) [F, E] of the first look's p(link) [F, E]."""
        z = ((looks(p) - np.asarray(self.mean)) / np.asarray(self.spread)) @ np.asarray(self.weights)
        return 1 / (1 + np.exp(-(z + self.intercept)))


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
    #: Read over this probe's p(link) where cross-validation found it reads people's links better; None: not.
    second: SecondLook | None = None

    @property
    def final(self) -> Tried:
        """The setting links are read by: the second look's where there is one, else :attr:`chosen`."""
        return self.second.chosen if self.second else self.chosen

    @property
    def active(self) -> tuple[int, ...]:
        """The features with a non-zero weight, in order: all a sentence needs read (most are zero: L1)."""
        return tuple(k for k, w in enumerate(self.weights) if w)

    def probability(self, x: np.ndarray, active: bool = False) -> np.ndarray:
        """p(link) [F, E] of features ``x`` [F, E, K] (with ``active``, of the :attr:`active` ones only), through
        the second look where there is one."""
        first = self.first_look(x, active)
        return self.second.probability(first) if self.second else first

    def first_look(self, x: np.ndarray, active: bool = False) -> np.ndarray:
        """p(link) [F, E] of the cells alone, each read apart from its rivals."""
        keep = list(self.active) if active else slice(None)
        mean, spread, weights = (np.asarray(v)[keep] for v in (self.mean, self.spread, self.weights))
        return 1 / (1 + np.exp(-(((x - mean) / spread) @ weights + self.intercept)))

    @property
    def reads_partner(self) -> bool:
        """Whether a sentence's reading needs the reverse partner's pass (a feature of it has a weight)."""
        return any(self.features[k].reverse for k in self.active)

    def used(self) -> list[tuple[Feature, float]]:
        """The features with a non-zero weight, largest first."""
        return sorted(((f, w) for f, w in zip(self.features, self.weights) if w), key=lambda fw: -abs(fw[1]))

    def head_grid(self, layers: int, heads: int, shifted: bool, reverse: bool = False) -> np.ndarray:
        """[L, heads + 1] the weight people's links give each attention head (the last column: the layer's whole),
        summed over the matrices and scalings that read it, at the writing step or one step later; of the model's
        own heads, or (``reverse``) its reverse partner's."""
        grid = np.zeros((layers, heads + 1))
        for feature, w in zip(self.features, self.weights):
            head = feature.head
            if head is not None and feature.reverse == reverse and head.shifted == shifted and head.layer < layers:
                grid[head.layer, heads if head.head is None else head.head] += w
        return grid
