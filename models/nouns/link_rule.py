"""How word links are read from a word matrix [F, E] (one row per target word, one column per source word): each
rule by its name together with the function that reads it (:data:`METHODS`), or every weight of at least a
threshold (``threshold 0.2``) — one :class:`LinkRule` either way, the object the commands, records and pages pass;
and two directions' links symmetrised (lilt's ``grow-diag``, which scores readings against the gold; Moses's looser
``grow-diag-final``, which guided alignment learns from).
Links are 0-based ``(source, target)`` pairs, as in the gold. A rule is chosen on a gold's trial set and kept in the
records storage reads and writes (``alignment.json``, a fitted probe) by its name, which reads back as the rule.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

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



@dataclass(frozen=True)
class LinkRule:
    """One way to read links: a method of :data:`METHODS`, or every weight of at least ``threshold``
    (:meth:`at_least`); equal by its name and threshold, and written as :meth:`__str__` writes it."""

    name: str  # a key of METHODS, or "threshold"
    read: Callable[[np.ndarray], Links] = field(compare=False, repr=False)  # the links of a word matrix [F, E]
    threshold: float | None = None  # the least weight linked: "threshold" only

    @classmethod
    def at_least(cls, threshold: float) -> LinkRule:
        """Every weight of at least ``threshold`` linked (several English words per French word, or none)."""
        return cls("threshold", above(threshold), threshold)

    @classmethod
    def parse(cls, name: str) -> LinkRule:
        """The rule a record or ``--method`` names: ``union`` or ``threshold 0.2``; ValueError for no such rule."""
        if name.startswith("threshold "):
            try:
                return cls.at_least(float(name.removeprefix("threshold ")))
            except ValueError:
                raise ValueError(f"unknown link rule {name!r}: a threshold is a number") from None
        if name not in METHODS:
            raise ValueError(f"unknown link rule {name!r}; expected one of {tuple(METHODS)} or 'threshold W'")
        return METHODS[name]

    def __reduce__(self):  # a copy (a cache's, a worker's) is read back from its name: its function is no data
        return LinkRule.parse, (str(self),)

    def __str__(self) -> str:
        return self.name if self.threshold is None else f"threshold {self.threshold:g}"


#: The rules that read links without a threshold, by name: ``--method``'s choices beside ``threshold``.
METHODS = {rule.name: rule for rule in (LinkRule("argmax", rows_argmax), LinkRule("intersection", intersection),
                                        LinkRule("union", union), LinkRule("grow-diag", grow_diag))}
