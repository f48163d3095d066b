"""Alignment error rate (Och & Ney 2003, "A Systematic Comparison of Various Statistical Alignment Models", §5).

With A the predicted links, S the Sure and P the Possible gold links (S ⊆ P), summed over a corpus:

    precision = |A ∩ P| / |A|,   recall = |A ∩ S| / |S|,   AER = 1 − (|A ∩ S| + |A ∩ P|) / (|A| + |S|)

A link that people marked only as Possible costs nothing when predicted and nothing when missed.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

Link = tuple[int, int]


@dataclass(frozen=True)
class AlignmentScore:
    aer: float  # percent, lower is better
    precision: float  # percent
    recall: float  # percent
    links: int  # |A|


def alignment_score(predicted: Iterable[set[Link]], sure: Iterable[frozenset[Link]],
                    possible: Iterable[frozenset[Link]]) -> AlignmentScore:
    """Corpus-level AER, precision and recall of ``predicted`` against the gold, sentence by sentence."""
    a = a_and_s = a_and_p = s = 0
    for links, gold_sure, gold_possible in zip(predicted, sure, possible, strict=True):
        a += len(links)
        s += len(gold_sure)
        a_and_s += len(links & gold_sure)
        a_and_p += len(links & gold_possible)
    if a + s == 0:
        raise ValueError("no links predicted and none in the gold: AER is undefined")
    return AlignmentScore(aer=100 * (1 - (a_and_s + a_and_p) / (a + s)), precision=100 * a_and_p / a if a else 0.0,
                          recall=100 * a_and_s / s if s else 0.0, links=a)
