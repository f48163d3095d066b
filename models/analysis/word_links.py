"""Word links from an attention matrix between whole words — the extraction rules ``python -m models.align``
compares (each tuned on the gold's trial set only).

The matrix [F, E] — attention α or an attribution (:mod:`.attribution`) — has one row per French (target) word and
one column per English (source) word, end of sentence left out. Links are 0-based ``(english, french)`` pairs, as in
the gold.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..decoding.greedy import forced
from ..decoding.trace import RNN_READING, Reading
from ..network.tokenization import TokenizerPair, is_marker
from ..network.translator import Translator
from .aer import alignment_score
from .alignment import word_view
from .matrices import read

Links = set[tuple[int, int]]


def rows_argmax(alpha: np.ndarray) -> Links:
    """Each French word to the English word it attends to most: one link per French word."""
    return {(int(alpha[j].argmax()), j) for j in range(alpha.shape[0])}


def columns_argmax(alpha: np.ndarray) -> Links:
    """Each English word to the French word that attends to it most: one link per English word."""
    return {(i, int(alpha[:, i].argmax())) for i in range(alpha.shape[1])}


def intersection(alpha: np.ndarray) -> Links:
    """Links both directions agree on: fewer, surer (as symmetrised statistical aligners begin)."""
    return rows_argmax(alpha) & columns_argmax(alpha)


def union(alpha: np.ndarray) -> Links:
    return rows_argmax(alpha) | columns_argmax(alpha)


#: The eight neighbours of a link (English offset, French offset), in the order lilt/alignment-scripts visits them.
#: Its ``combine_bidirectional_alignments.py`` keeps them in a Python set, so it visits them in the order CPython
#: (3.8 and later) iterates that set of small-int tuples — this order. It matters when two neighbours compete for one
#: unlinked word: the first visited takes it (``test_word_links`` pins a case where it decides the result).
NEIGHBOURS = ((0, 1), (-1, -1), (-1, 1), (1, 1), (1, -1), (-1, 0), (1, 0), (0, -1))


def grow_diag_final(one: Links, other: Links) -> Links:
    """Two directions' links symmetrised as Moses's ``grow-diag-final`` (Koehn et al. 2005), the recipe statistical
    aligners' links are given to guided alignment in (OPUS-MT-train, Garg et al. 2019).

    From the intersection, a neighbour (diagonals too) in the union is added when *either* of its words is still
    unlinked, until nothing grows; then ("final") each remaining union link whose English or French word is still
    unlinked. Looser than :func:`grown_diagonally` (lilt's, both words unlinked, no final step), which scores
    readings against the gold; this one keeps more links to learn from, in one pass over the links rather than the
    grid (a million training pairs)."""
    links, candidates = one & other, one | other
    linked_e, linked_f = {e for e, _ in links}, {f for _, f in links}

    def add(link: tuple[int, int]) -> None:
        links.add(link)
        linked_e.add(link[0])
        linked_f.add(link[1])

    grown = True
    while grown:
        grown = False
        for e, f in sorted(links):
            for de, df in NEIGHBOURS:
                new = (e + de, f + df)
                if new in candidates and new not in links and (new[0] not in linked_e or new[1] not in linked_f):
                    add(new)
                    grown = True
    for link in sorted(candidates - links):
        if link[0] not in linked_e or link[1] not in linked_f:
            add(link)
    return links


def grow_diag(alpha: np.ndarray) -> Links:
    """Both argmax directions of ``alpha`` symmetrised by :func:`grown_diagonally`."""
    return grown_diagonally(rows_argmax(alpha), columns_argmax(alpha))


def grown_diagonally(one: Links, other: Links) -> Links:
    """The intersection of two directions' links, grown into their union through neighbouring cells (diagonals
    too) — for attention's two argmax directions and a statistical aligner's forward and reverse links alike.

    This is grow-diag exactly as lilt/alignment-scripts defines it (``grow-diagonal`` of
    ``combine_bidirectional_alignments.py``, the tooling behind the published Hansard figures; no "final" step):

    1. start from the intersection; the grid is E × F, each side one past the largest index in the union;
    2. sweep the grid, English word outer, French word inner; at each cell linked *by then* (a link added earlier in
       the same sweep counts), visit its :data:`NEIGHBOURS` in order, and add a neighbour that is in the union when
       *both* its English and its French word are still unlinked — stricter than Moses's ``grow-diag``, which adds
       it when *either* is;
    3. repeat the sweep until one adds nothing.
    """
    links, candidates = one & other, one | other
    E, F = (1 + max((link[n] for link in candidates), default=-1) for n in (0, 1))
    grown = True
    while grown:
        grown = False
        for e in range(E):
            for f in range(F):
                if (e, f) not in links:
                    continue
                for de, df in NEIGHBOURS:
                    new = (e + de, f + df)
                    linked_e, linked_f = {a for a, _ in links}, {b for _, b in links}
                    if new in candidates and new[0] not in linked_e and new[1] not in linked_f:
                        links.add(new)
                        grown = True
    return links


def above(threshold: float) -> Callable[[np.ndarray], Links]:
    """Every pair whose weight reaches ``threshold`` (several English words per French word, or none)."""
    def links(alpha: np.ndarray) -> Links:
        return {(int(i), int(j)) for j, i in zip(*np.nonzero(alpha >= threshold))}
    return links


#: ``--method`` choices (``threshold`` takes ``--threshold``).
METHODS = {"argmax": rows_argmax, "intersection": intersection, "union": union, "grow-diag": grow_diag}

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

#: The rule read from each matrix: the best of ``METHODS`` and the thresholds on the trial set (docs/results.md).
#: A matrix without its own (those added since) is read by the attention's until ``--matrix all`` chooses one for
#: a model (recorded in its alignment table).
CHOSEN = {"attention": "union", "gradient×input": "union", "integrated gradients": "intersection"}

#: The least weight ``threshold`` links, per matrix: chosen on the gold's trial set (docs/results.md); as above.
THRESHOLDS = {"attention": 0.2, "gradient×input": 0.15, "integrated gradients": 0.2}


def chosen_rule(matrix: str) -> str:
    return CHOSEN.get(matrix, CHOSEN["attention"])


def least_weight(matrix: str) -> float:
    return THRESHOLDS.get(matrix, THRESHOLDS["attention"])


def word_matrices(model: Translator, tokenizers: TokenizerPair, english: Sequence[str], french: Sequence[str],
                  matrix: str, readings: Sequence[Reading], written: bool = WRITTEN) -> list[np.ndarray]:
    """Weights [F, E] between given words under forced decoding of ``french``, one matrix per reading of the
    attention (an attribution has one matrix: ``readings`` is ignored). End of sentence left out; a sentence cut
    at the model's length limit has fewer rows or columns than it has words.

    The words are joined by spaces, so each is one word of the app's word view (subwords joined by ``▁``). With
    ``written``, the French is forced as it is written (:func:`written_french`) and each written word's row is
    given to every token it stands for.
    """
    if written:
        words, groups = written_french(tuple(french))
        found = word_matrices(model, tokenizers, english, words, matrix, readings, written=False)  # [F', E] each
        return [rows[[k for k, group in enumerate(groups[: len(rows)]) for _ in group]] for rows in found]  # [F, E]
    trace = forced(model, tokenizers, " ".join(english), " ".join(french))
    found = []
    for w in read(model, trace, matrix, list(readings)):  # [T, S] each
        view = word_view(trace, w)
        columns = [s for s, word in enumerate(view.columns) if not is_marker(word)][: len(english)]
        rows = [t for t, word in enumerate(view.rows) if not is_marker(word)][: len(french)]
        found.append(view.weights[rows][:, columns])
    return found


def word_matrix(model: Translator, tokenizers: TokenizerPair, english: Sequence[str], french: Sequence[str],
                matrix: str = "attention", reading: Reading = RNN_READING, written: bool = WRITTEN) -> np.ndarray:
    """The [F, E] word matrix of one reading (or of an attribution): :func:`word_matrices` for one."""
    return word_matrices(model, tokenizers, english, french, matrix, [reading], written)[0]


def rule_named(name: str) -> Callable[[np.ndarray], Links]:
    """The rule ``models.align`` records as ``method``: one of :data:`METHODS` or ``threshold 0.2``."""
    if name.startswith("threshold "):
        return above(float(name.removeprefix("threshold ")))
    return METHODS[name]


def pair_scores(weights: np.ndarray, sure: Links, possible: Links, matrix: str,
                chosen: str | None = None) -> list[dict]:
    """One pair's AER, precision and recall (%) under the rules people compare: how a heatmap is read (each French
    word's most weighed English word), the rule chosen on the trial set (``chosen``: the model's own, else the one
    chosen for ``matrix`` across the first bundled models), and the matrix's threshold."""
    chosen, least = chosen or chosen_rule(matrix), least_weight(matrix)
    rules = {"most weighed English word (how a heatmap is read)": rows_argmax,
             f"{chosen} (chosen on the trial set)": rule_named(chosen), f"every weight ≥ {least:g}": above(least)}
    scores = {name: alignment_score([rule(weights)], [sure], [possible]) for name, rule in rules.items()}
    return [{"links read as": name, "AER %": round(s.aer, 1), "precision %": round(s.precision, 1),
             "recall %": round(s.recall, 1), "links": s.links} for name, s in scores.items()]
