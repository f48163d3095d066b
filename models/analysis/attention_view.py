"""Attention matrices as alignments: subword → word merging and hard links.

A view is built from a trace's pieces and one ``[T, S]`` matrix (:mod:`.views` makes a page's: a reading of its
cross-attention, what it adds, or an attribution). Word-level attention sums a word's source pieces (how much of
α_t fell on the word, so rows still sum to 1) and averages a word's target pieces (a word's typical step). Hard
alignments link each target word to the source word it attends most, written in Pharaoh ``src-tgt`` format
(0-based); the matrix itself as CSV or JSON.
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..decoding.trace import Trace
from ..network.tokenization import WORD_MARK, is_marker, piece_groups, word_groups
from ..nouns.attention_map import Reading


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
    return word_text([piece], [0])


def word_text(pieces: Sequence[str], group: Sequence[int]) -> str:
    """The text of a word made of ``pieces[group]``: word markers dropped (a bare "▁" stays visible)."""
    return "".join(pieces[i].replace(WORD_MARK, "") for i in group) or WORD_MARK


def piece_columns(trace: Trace, weights: np.ndarray) -> tuple[tuple[str, ...], tuple[bool, ...], np.ndarray]:
    """The source's piece columns — each piece, except the prompt around the sentence, one column
    (:func:`~models.network.tokenization.piece_groups`) — their unknown flags, and ``weights`` [..., S] summed into
    them, [..., S']."""
    groups, source = piece_groups(trace.source.pieces), trace.source
    if len(groups) == len(source.pieces):
        return source.surfaces, source.unknown, weights
    return (tuple(source.surfaces[g[0]] for g in groups), tuple(source.unknown[g[0]] for g in groups),
            np.stack([weights[..., g].sum(-1) for g in groups], -1))


def piece_view(trace: Trace, weights: np.ndarray, energies: np.ndarray | None = None) -> AttentionView:
    """``weights`` [T, S] (and the ``energies`` behind them, if any; none where a prompt's pieces are one column)
    labelled with the trace's pieces (a shifted reading's [T − 1, S] with all but the last)."""
    columns, unknown, folded = piece_columns(trace, weights)
    return AttentionView(
        rows=tuple(piece_label(p) for p in trace.target_pieces[: len(weights)]),
        columns=columns,
        unknown=unknown,
        weights=folded,
        energies=energies if folded is weights else None,
    )


def word_view(trace: Trace, weights: np.ndarray) -> AttentionView:
    """``weights`` [T, S] between whole words (pieces joined by the ``▁`` convention; a shifted reading's
    [T − 1, S] has no row for the last piece)."""
    columns, by_src = source_word_weights(trace, weights)  # [T, Sw]
    pieces = trace.target_pieces[: len(weights)]
    tgt_groups = word_groups(pieces)
    src_groups = word_groups(trace.source.pieces)
    return AttentionView(
        rows=tuple(word_text(pieces, g) for g in tgt_groups),
        columns=columns,
        unknown=tuple(any(trace.source.unknown[i] for i in g) for g in src_groups),
        weights=np.stack([by_src[g].mean(axis=0) for g in tgt_groups]),  # [Tw, Sw]
        energies=None,
    )


def view_at(trace: Trace, weights: np.ndarray, energies: np.ndarray | None, words: bool) -> AttentionView:
    """``weights`` [T, S] of ``trace`` at word level (``words``) or piece by piece, with the energies behind them
    (a word has no single energy)."""
    return word_view(trace, weights) if words else piece_view(trace, weights, energies)


def reading_view(trace: Trace, reading: Reading, words: bool) -> AttentionView:
    """One reading of ``trace``'s attention (:meth:`Trace.read`) at word level or piece by piece."""
    return view_at(trace, trace.read(reading), trace.attention.read_energies(reading), words)


def hard_alignments(view: AttentionView) -> list[tuple[int, int]]:
    """``(source, target)`` word index pairs: each target word's most attended source word; markers (EOS, a language
    tag) are left out and not counted, so index k is the sentence's k-th word."""
    source = _word_numbers(view.columns)
    target = _word_numbers(view.rows)
    pairs = []
    for t, row in enumerate(view.weights):
        s = int(np.argmax(row))
        if target[t] is not None and source[s] is not None:
            pairs.append((source[s], target[t]))
    return pairs


def _word_numbers(labels: tuple[str, ...]) -> list[int | None]:
    """Each label's number among the labels that are words; None for a marker."""
    numbers, n = [], 0
    for label in labels:
        numbers.append(None if is_marker(label) else n)
        n += not is_marker(label)
    return numbers


def pharaoh(pairs: list[tuple[int, int]]) -> str:
    """Pharaoh format: ``"0-0 1-2 …"`` (source-target)."""
    return " ".join(f"{s}-{t}" for s, t in pairs)


def matrix_csv(view: AttentionView) -> str:
    """One row per target token, one column per source token (the csv module: no pandas import on the first page)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["", *view.columns])
    writer.writerows([row, *map(repr, weights)] for row, weights in zip(view.rows, view.weights.tolist()))
    return out.getvalue()


def matrix_json(view: AttentionView, name: str = "attention") -> str:
    """The matrix under ``name`` (``attention``, or the attribution shown in its place), with its labels."""
    data = {"target": view.rows, "source": view.columns, name: view.weights.round(6).tolist()}
    if view.energies is not None:
        data["energies"] = view.energies.round(6).tolist()
    return json.dumps(data, ensure_ascii=False, indent=1)


def source_word_weights(trace: Trace, weights: np.ndarray) -> tuple[tuple[str, ...], np.ndarray]:
    """Source words and each step's ``weights`` [T, S] summed over a word's pieces, [T, Sw]."""
    columns, pieces = trace.source.surfaces, trace.source.pieces
    groups = word_groups(pieces)
    # A bare "▁" piece (a space before punctuation) shows as "▁" alone, never inside a word.
    words = tuple(columns[g[0]] if is_marker(pieces[g[0]]) else
                  "".join(columns[i] for i in g if pieces[i] != WORD_MARK) or columns[g[0]] for g in groups)
    return words, np.stack([weights[:, g].sum(axis=1) for g in groups], axis=1)


def step_of_row(target_pieces: tuple[str, ...], row: int | None, words: bool) -> int | None:
    """The decoding step (0-based) that wrote a heatmap row: the row's piece, or the first piece of a word row;
    None for no row or one past the sentence (a selection left from a longer one)."""
    groups = word_groups(target_pieces) if words else [[i] for i in range(len(target_pieces))]
    return groups[row][0] if row is not None and 0 <= row < len(groups) else None
