"""Fitting a reading to people (:class:`.fitted.Probe`): an L1-regularised logistic regression (scikit-learn's)
from a sentence's word-cell features to human links, its settings chosen by cross-validation over whole pairs.

Which links count as positive (Sure only, or Possible too), how strongly weights are pushed to zero, and how links
are read from the probabilities (a threshold, or the argmax rules of :mod:`.link_rules`) are chosen together by
the AER of out-of-fold predictions: each pair predicted by a fit that never saw it. The chosen setting is then fit
once on every pair. Then a second look (:func:`second_look`): a small probe over the first's p(link) grid, each cell
beside its row's and column's rivals, fit to the first's out-of-fold predictions and kept where cross-validation
says it reads the links better. A set with no trial split is cross-fitted (:func:`cross_fitted`): each fold of it
predicted by a probe chosen and fit on the other folds alone.

Dimension names: F target words, E source words, K features, N cells of the pairs fit on.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, replace

import numpy as np
from joblib import Parallel, delayed
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from ..network.translator import Fitted, Translator
from ..nouns.link_rule import METHODS, LinkRule
from ..nouns.matrix import matrix_named
from ..nouns.probe import POSITIONS, SCALES, Feature, FitData, Probe, SecondLook, Tried, looks
from .aer import alignment_score
from .recipes import applicable, cheap

#: The inverse L1 strengths weighed (scikit-learn's C): from a handful of features to most of them.
STRENGTHS = (0.003, 0.01, 0.03, 0.1)
#: The second look's: it reads a few features, so from strongly pushed to barely.
SECOND_STRENGTHS = (0.1, 1.0, 10.0)
LABELS = ("sure", "possible")
#: How links may be read from p(link): a threshold, or each argmax rule of the probabilities.
RULES = (*(LinkRule.at_least(t) for t in (0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)),
         *METHODS.values())
FOLDS = 5
SEED = 0
#: The cross-validation's shuffles: each setting is weighed by its mean AER over them, so the choice does not rest
#: on one draw of folds from 37 pairs (on the Transformer one draw's best ranges over ±0.4 AER between draws).
REPEATS = 3


def features_of(model: Translator, partner: Translator | None = None) -> tuple[Feature, ...]:
    """Every feature a probe of ``model`` reads: each matrix it has that comes from the one pass (not value zeroing
    or an attribution, which cost a pass a piece), at each of its readings and one step later, in each scale; the
    attention's cells beside it on the diagonal, each divided by its row's largest (chosen on the Hansards trial
    pairs: 7.62 → 7.12 cross-validated AER on the bundled Transformer); the same of ``partner``, a model translating
    the other way, read on the pair with the roles swapped (:attr:`Feature.reverse`); then the words' own."""
    theirs = tuple(replace(f, reverse=True) for f in _cells(partner)) if partner is not None else ()
    return (*_cells(model), *theirs, *map(Feature, POSITIONS))


def _cells(model: Translator) -> tuple[Feature, ...]:
    found = [m for m in applicable(model, Fitted()) if cheap(m) and not m.fit]  # a probe reads none fit to people
    cells = [Feature(m.name, r and r.key, scale) for m in found for r in m.readings(model.attention_shape, True)
             for scale in SCALES]
    return (*cells, *(Feature(f.source, f.reading, f.scale, at) for f in cells if matrix_named(f.source).own
                      and f.scale == "÷ row max" for at in ("diagonal before", "diagonal after")))


@dataclass(frozen=True, eq=False)
class Example:
    """One human-aligned pair as the probe reads it: its cells' features and people's links."""

    x: np.ndarray  # [F, E, K]
    sure: frozenset[tuple[int, int]]  # (source word, target word), 0-based
    possible: frozenset[tuple[int, int]]

    def labels(self, which: str) -> np.ndarray:
        """[F, E] 1 where people linked the cell (``sure``: Sure links only; ``possible``: Possible too)."""
        y = np.zeros(self.x.shape[:2])
        for e, f in self.sure if which == "sure" else self.possible:
            if f < len(y) and e < y.shape[1]:  # a sentence cut at the model's length limit has fewer words
                y[f, e] = 1
        return y


def folds(n: int, k: int = FOLDS, seed: int = SEED) -> list[np.ndarray]:
    """``k`` disjoint held-out sets of pair indices covering ``range(n)`` (shuffled by ``seed``)."""
    return [np.sort(part) for part in np.array_split(np.random.default_rng(seed).permutation(n), min(k, n))]


def _stacked(examples: list[Example], which: str) -> tuple[np.ndarray, np.ndarray]:
    x = np.concatenate([e.x.reshape(-1, e.x.shape[-1]) for e in examples])  # [N, K]
    return x, np.concatenate([e.labels(which).ravel() for e in examples])  # [N]


def _fit(examples: list[Example], which: str, strength: float, seed: int) -> tuple[StandardScaler, LogisticRegression]:
    x, y = _stacked(examples, which)
    scaler = StandardScaler().fit(x)
    if y.min() == y.max():
        raise ValueError("the pairs fit on have no links, or nothing but links: a probe needs both")
    model = LogisticRegression(C=strength, l1_ratio=1.0, solver="liblinear", random_state=seed, tol=1e-3,
                               max_iter=1000)
    return scaler, model.fit(scaler.transform(x), y)


def _predict(fitted: tuple[StandardScaler, LogisticRegression], example: Example) -> np.ndarray:
    scaler, model = fitted
    x = example.x.reshape(-1, example.x.shape[-1])
    return model.predict_proba(scaler.transform(x))[:, 1].reshape(example.x.shape[:2])  # [F, E]


def _aer(probabilities: list[np.ndarray], examples: list[Example], rule: LinkRule) -> float:
    return alignment_score([rule.read(p) for p in probabilities], [e.sure for e in examples],
                           [e.possible for e in examples]).aer


def out_of_fold(examples: list[Example], which: str, strength: float, k: int = FOLDS,
                seed: int = SEED) -> list[np.ndarray]:
    """Each pair's p(link) [F, E] from a fit on the other folds only."""
    found: list[np.ndarray | None] = [None] * len(examples)
    for held in folds(len(examples), k, seed):
        kept = [e for i, e in enumerate(examples) if i not in set(held.tolist())]
        fitted = _fit(kept, which, strength, seed)
        for i in held:
            found[i] = _predict(fitted, examples[i])
    return found


def choose(examples: list[Example], k: int = FOLDS, seed: int = SEED, repeats: int = REPEATS,
           strengths: tuple[float, ...] = STRENGTHS) -> list[Tried]:
    """Every labels × strength with the rule its out-of-fold predictions read best, each with that AER: the mean
    over ``repeats`` shuffles of the folds (seeds ``seed``, ``seed + 1``, …). The settings run on every core, in
    processes, not threads: liblinear seeds one random generator per process at each fit, which threads would share
    mid-fit; so each fit is seeded and the choice is the same on any number of cores."""
    settings = [(which, strength) for which in LABELS for strength in strengths]
    draws = range(seed, seed + repeats)
    predicted = Parallel(n_jobs=-1)(
        delayed(out_of_fold)(examples, which, strength, k, draw) for which, strength in settings for draw in draws)
    tried = []
    for index, (which, strength) in enumerate(settings):
        scores = {rule: statistics.fmean(_aer(p, examples, rule) for p in predicted[index * repeats:][:repeats])
                  for rule in RULES}
        rule = min(scores, key=scores.get)
        tried.append(Tried(which, strength, rule, round(scores[rule], 2)))
    return tried


def fit_probe(examples: list[Example], features: tuple[Feature, ...], gold: str, split: str, k: int = FOLDS,
              seed: int = SEED, cross_fitted: bool = False, partner: str | None = None,
              repeats: int = REPEATS) -> Probe:
    """The probe of ``examples`` (one pair each): settings chosen by ``k``-fold cross-validation over the pairs,
    repeated over ``repeats`` shuffles (the lowest mean AER; of equals, the sparser), then fit on them all; reading
    ``partner``'s heads too where ``features`` name them; then its second look, where that reads better. Seeded and
    deterministic."""
    began = time.perf_counter()
    tried = choose(examples, k, seed, repeats)
    best = min(tried, key=lambda t: (t.aer, t.strength))
    scaler, model = _fit(examples, best.labels, best.strength, seed)
    return Probe(features, tuple(map(float, scaler.mean_)), tuple(map(float, scaler.scale_)),
                 tuple(map(float, model.coef_[0])), float(model.intercept_[0]), best, tuple(tried),
                 FitData(gold, split, len(examples), k, cross_fitted, partner, repeats),
                 round(time.perf_counter() - began, 2), second_look(examples, best, k, seed, repeats))


def second_look(examples: list[Example], first: Tried, k: int = FOLDS, seed: int = SEED,
                repeats: int = REPEATS) -> SecondLook | None:
    """A second probe over the ``first`` setting's out-of-fold p(link) (:func:`~models.nouns.probe.looks`),
    chosen by the same cross-validation; None where its AER is no better than the first's."""
    seen = [Example(looks(p), e.sure, e.possible)
            for e, p in zip(examples, out_of_fold(examples, first.labels, first.strength, k, seed))]
    tried = choose(seen, k, seed, repeats, SECOND_STRENGTHS)
    best = min(tried, key=lambda t: (t.aer, t.strength))
    if best.aer >= first.aer:
        return None
    scaler, model = _fit(seen, best.labels, best.strength, seed)
    return SecondLook(tuple(map(float, scaler.mean_)), tuple(map(float, scaler.scale_)),
                      tuple(map(float, model.coef_[0])), float(model.intercept_[0]), best, tuple(tried))


def cross_fitted(examples: list[Example], features: tuple[Feature, ...], gold: str, k: int = FOLDS,
                 seed: int = SEED, partner: str | None = None) -> tuple[list[set[tuple[int, int]]], Probe]:
    """For a set with no trial split: each pair's links read by a probe chosen and fit on the other folds alone
    (their AER is the set's cross-fitted one), and the probe fit on every pair, labelled cross-fitted."""
    found: list[set | None] = [None] * len(examples)
    for held in folds(len(examples), k, seed):
        kept = [e for i, e in enumerate(examples) if i not in set(held.tolist())]
        probe = fit_probe(kept, features, gold, "test", k, seed, partner=partner)
        for i in held:
            found[i] = probe.final.rule.read(probe.probability(examples[i].x))
    return found, fit_probe(examples, features, gold, "test", k, seed, cross_fitted=True, partner=partner)
