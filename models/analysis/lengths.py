"""Bahdanau et al. (2015), Figure 2, as one sentence: does attention hold up on long sentences where the
no-attention encoder–decoder falls?

"The performance of RNNencdec dramatically drops as the length of the sentences increases […] both RNNsearch-30
and RNNsearch-50 are more robust to the length of the sentences" (§5.2.1). Read from the ``by_length`` buckets
``python -m models.evaluate`` writes (greedy BLEU of the sentences whose source has that many words), comparing
the shortest bucket with the longest: the finding holds when every attention model's BLEU, as a multiple of the
no-attention model's, is larger on the longest sentences than on the shortest — the gap grows with length.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LengthEnds:
    """One model's greedy BLEU on the shortest and the longest sentences of a test set."""

    short: float
    long: float
    short_label: str  # "1–9"
    long_label: str  # "25+"


def ends(buckets, label) -> LengthEnds:
    """The first and last of a test set's BLEU-by-length buckets (:class:`~models.storage.records.evaluation.
    LengthBucket`; ``label`` names a bucket)."""
    first, last = buckets[0], buckets[-1]
    return LengthEnds(first.greedy_bleu, last.greedy_bleu, label(first), label(last))


def figure_2_finding(without: LengthEnds, attention: dict[str, LengthEnds]) -> str:
    """One sentence: how the no-attention model and each attention model fare from the shortest to the longest
    sentences, and whether that agrees with the paper."""
    def ratio(bleu: float, over: float) -> str:
        return f"{bleu / over:.1f}×" if over > 0 else "—"

    parts = [f"{name} {e.short:.1f} → {e.long:.1f} ({ratio(e.short, without.short)} → "
             f"{ratio(e.long, without.long)} the no-attention model's)" for name, e in attention.items()]
    holds = without.short > 0 and without.long > 0 and all(
        e.long / without.long > e.short / without.short for e in attention.values())
    verdict = ("agrees with the paper: the gap to the no-attention model grows with length" if holds else
               "does not agree with the paper here: the gap to the no-attention model does not grow with length")
    return (f"From the shortest sentences ({without.short_label} words) to the longest ({without.long_label}), "
            f"greedy BLEU goes {without.short:.1f} → {without.long:.1f} without attention and "
            f"{'; '.join(parts)} with it — this {verdict}.")
