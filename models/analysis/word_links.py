"""A model's matrices between whole words, as the human-aligned gold splits its sentences, and one pair's links
scored under the rules people compare (:mod:`.link_rules`).

The matrix [F, E] — attention α, what it adds, or an attribution (:mod:`.recipes`) — has one row per French
(target) word and one column per English (source) word, end of sentence left out. Links are 0-based
``(english, french)`` pairs, as in the gold.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..decoding.greedy import forced
from ..network.tokenization import TokenizerPair, is_marker
from ..network.translator import Fitted, Translator
from ..nouns.attention_map import RNN_READING, Reading
from ..nouns.link_rule import LinkRule, Links, rows_argmax
from ..nouns.matrix import ATTENTION, Matrix
from .aer import alignment_score
from .heatmaps import word_heatmap
from .contributions import Sentence
from .recipes import of, read_layered

_CONTRACTED = {("à", "le"): "au", ("à", "les"): "aux", ("de", "le"): "du", ("de", "les"): "des"}
_ELIDED = {"le", "la", "de", "ne", "se", "que", "je", "me", "te", "ce", "si", "jusque", "lorsque", "puisque"}
_VOWEL_START = tuple("aeiouhâàéèêëîïôûAEIOUHÂÀÉÈÊÎÔ")


def _elides(word: str, following: str) -> bool:
    return word.lower() in _ELIDED and following.startswith(_VOWEL_START) and (word.lower() != "si" or
                                                                                following.lower() in {"il", "ils"})


def written_french(tokens: tuple[str, ...]) -> tuple[list[str], list[tuple[int, ...]]]:
    """The gold's French tokens as French is written, each written word with the tokens it stands for:
    ``à le`` → ``au``, ``de les`` → ``des``, ``le ordre`` → ``l'ordre``, ``aujourd' hui`` → ``aujourd'hui``
    (a translator trained on ordinary text reads these, not the gold's expanded forms)."""
    words, groups, i = [], [], 0
    while i < len(tokens):
        word, group = tokens[i], [i]
        following = tokens[i + 1] if i + 1 < len(tokens) else ""
        if (word.lower(), following.lower()) in _CONTRACTED and not (
                i + 2 < len(tokens) and _elides(following, tokens[i + 2])):  # "de le homme" is "de l'homme"
            word, group = _CONTRACTED[word.lower(), following.lower()], [i, i + 1]
        elif word.endswith("'") and following:  # aujourd' hui
            word, group = word + following, [i, i + 1]
        elif following and _elides(word, following):
            word, group = word[:-1] + "'" + following, [i, i + 1]
        words.append(word)
        groups.append(tuple(group))
        i = group[-1] + 1
    return words, groups


#: Force the gold's French as written? Not: on the trial set its tokens as they are did as well or better for both
#: bundled attention models (docs/results.md).
WRITTEN = False

def word_matrices(model: Translator, tokenizers: TokenizerPair, english: Sequence[str], french: Sequence[str],
                  rows: Mapping[Matrix, Sequence[Reading | None]],
                  written: bool = WRITTEN, fitted: Fitted = Fitted()) -> dict[Matrix, list[np.ndarray]]:
    """Weights [F, E] between given words under forced decoding of ``french``: for each matrix of ``rows``, one
    matrix per reading of it (None: a one-matrix reading), all from one pass. End of sentence left out; a sentence
    cut at the model's length limit has fewer rows or columns than it has words.

    The words are joined by spaces, so each is one word of the app's word view (subwords joined by ``▁``). With
    ``written``, the French is forced as it is written (:func:`written_french`) and each written word's row is
    given to every token it stands for. ``fitted``: what was fit beside the model (its probe, the floor).
    """
    if written:
        words, groups = written_french(tuple(french))
        found = word_matrices(model, tokenizers, english, words, rows, False, fitted)  # [F', E] each
        return {m: [w[[k for k, group in enumerate(groups[: len(w)]) for _ in group]] for w in ws]  # [F, E]
                for m, ws in found.items()}
    sentence = Sentence(model, forced(model, tokenizers, " ".join(english), " ".join(french)), fitted=fitted)
    found = {}
    for matrix, chosen in rows.items():
        layers = of(matrix, sentence)
        found[matrix] = [_words(sentence, read_layered(layers, r and matrix.at(r)), len(english), len(french))
                         for r in chosen]
    return found


def _words(sentence: Sentence, weights: np.ndarray, E: int, F: int) -> np.ndarray:
    """The [F, E] of words out of a matrix [T, S] of pieces: markers left out."""
    view = word_heatmap(sentence.trace, weights)
    columns = [s for s, word in enumerate(view.columns) if not is_marker(word)][:E]
    rows = [t for t, word in enumerate(view.rows) if not is_marker(word)][:F]
    return view.weights[rows][:, columns]


def word_matrix(model: Translator, tokenizers: TokenizerPair, english: Sequence[str], french: Sequence[str],
                matrix: Matrix = ATTENTION, reading: Reading | None = RNN_READING,
                written: bool = WRITTEN, fitted: Fitted = Fitted()) -> np.ndarray:
    """The [F, E] word matrix of one reading (or of a one-matrix reading): :func:`word_matrices` for one."""
    return word_matrices(model, tokenizers, english, french, {matrix: [reading]}, written, fitted)[matrix][0]


def pair_scores(weights: np.ndarray, sure: Links, possible: Links, matrix: Matrix,
                chosen: LinkRule | None = None) -> list[dict]:
    """One pair's AER, precision and recall (%) under the rules people compare: how a heatmap is read (each French
    word's most weighed English word), the rule chosen on the trial set (``chosen``: the model's own, else the
    matrix's default) and the matrix's threshold."""
    chosen, least = chosen or matrix.rule, matrix.least_weight
    rules = {"most weighed English word (how a heatmap is read)": rows_argmax,
             f"{chosen} (chosen on the trial set)": lambda w: chosen.read(w),
             f"every weight ≥ {least:g}": lambda w: LinkRule.at_least(least).read(w)}
    scores = {name: alignment_score([rule(weights)], [sure], [possible]) for name, rule in rules.items()}
    return [{"links read as": name, "AER %": round(s.aer, 1), "precision %": round(s.precision, 1),
             "recall %": round(s.recall, 1), "links": s.links} for name, s in scores.items()]
