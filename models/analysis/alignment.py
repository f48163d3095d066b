"""Attention matrices as alignments: subword → word merging and hard links.

Word-level attention sums a word's source pieces (how much of α_t fell on
the word, so rows still sum to 1) and averages a word's target pieces (a
word's typical step). Hard alignments link each target word to the source
word it attends most, written in Pharaoh ``src-tgt`` format (0-based).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..decoding.greedy import Trace
from ..network.tokenization import EOS, WORD_MARK, word_groups


@dataclass(frozen=True, eq=False)
class AttentionView:
    """An attention-like matrix with its labels, at piece or word level."""

    rows: tuple[str, ...]  # [T] target labels
    columns: tuple[str, ...]  # [S] source labels
    unknown: tuple[bool, ...]  # [S] True where the source contains an unknown piece
    weights: np.ndarray  # [T, S]
    energies: np.ndarray | None  # [T, S], piece level only


def piece_label(piece: str) -> str:
    """A target piece as text: the ``▁`` word marker dropped, unless it is all there is."""
    return _word([piece], [0])


def _word(pieces, group: list[int]) -> str:
    """The text of a word made of ``pieces[group]``: word markers dropped (a bare "▁" stays visible)."""
    return "".join(pieces[i].replace(WORD_MARK, "") for i in group) or WORD_MARK


def piece_view(trace: Trace) -> AttentionView:
    if trace.attention is None:
        raise ValueError("this model has no attention")
    return AttentionView(
        rows=tuple(piece_label(p) for p in trace.target_pieces),
        columns=trace.source.surfaces,
        unknown=trace.source.unknown,
        weights=trace.attention,
        energies=trace.energies,
    )


def word_view(trace: Trace) -> AttentionView:
    """Attention between whole words (pieces joined by the ``▁`` convention)."""
    columns, by_src = source_word_weights(trace)  # [T, Sw]
    tgt_groups = word_groups(trace.target_pieces)
    src_groups = word_groups(trace.source.pieces)
    return AttentionView(
        rows=tuple(_word(trace.target_pieces, g) for g in tgt_groups),
        columns=columns,
        unknown=tuple(any(trace.source.unknown[i] for i in g) for g in src_groups),
        weights=np.stack([by_src[g].mean(axis=0) for g in tgt_groups]),  # [Tw, Sw]
        energies=None,
    )


def hard_alignments(view: AttentionView) -> list[tuple[int, int]]:
    """``(source, target)`` index pairs: each target's most attended source, EOS left out."""
    pairs = []
    for t, row in enumerate(view.weights):
        s = int(np.argmax(row))
        if view.rows[t] != EOS and view.columns[s] != EOS:
            pairs.append((s, t))
    return pairs


def pharaoh(pairs: list[tuple[int, int]]) -> str:
    """Pharaoh format: ``"0-0 1-2 …"`` (source-target)."""
    return " ".join(f"{s}-{t}" for s, t in pairs)


def source_word_weights(trace: Trace) -> tuple[tuple[str, ...], np.ndarray]:
    """Source words and each step's attention summed over a word's pieces, [T, Sw]."""
    view, pieces = piece_view(trace), trace.source.pieces
    groups = word_groups(pieces)
    # A bare "▁" piece (a space before punctuation) shows as "▁" alone, never inside a word.
    words = tuple("".join(view.columns[i] for i in g if pieces[i] != WORD_MARK) or view.columns[g[0]] for g in groups)
    return words, np.stack([view.weights[:, g].sum(axis=1) for g in groups], axis=1)


def focus_on_word(trace: Trace, word: int) -> np.ndarray:
    """Attention weights [S] that put everything on source word ``word``, spread over its pieces."""
    group = word_groups(trace.source.pieces)[word]
    weights = np.zeros(len(trace.source.ids), dtype=np.float32)
    weights[group] = 1 / len(group)
    return weights
