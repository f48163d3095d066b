"""What a chart draws of a matrix: a :class:`Heatmap`, its weights with the labels of its rows and columns, at piece or
word level — and its hard links, CSV and JSON.

A heatmap is made from a trace's pieces and one ``[T, S]`` matrix (:mod:`models.views` makes a page's: a reading of
its cross-attention, what it adds, or an attribution). Word-level attention sums a word's source pieces (how much of
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
class Heatmap:
    """A matrix as a chart draws it: its weights with the labels of its rows and columns, at piece or word level —
    the one form every page's matrix takes between the model's map (:class:`~models.nouns.attention_map.AttentionMap`)
    and the chart. Its arrays are checked against its labels as it is made."""

    rows: tuple[str, ...]  # [R] target labels (one row: a step's bars)
    columns: tuple[str, ...]  # [C] source labels
    unknown: tuple[bool, ...]  # [C] True where the source contains an unknown piece
    weights: np.ndarray  # [R, C]
    energies: np.ndarray | None = None  # [R, C] the scores before the softmax, piece level only

    def __post_init__(self):
        if self.weights.shape != (len(self.rows), len(self.columns)) or len(self.unknown) != len(self.columns):
            raise ValueError(f"weights {self.weights.shape} do not fit {len(self.rows)} row and "
                             f"{len(self.columns)} column labels ({len(self.unknown)} unknown flags)")
        if self.energies is not None and self.energies.shape != self.weights.shape:
            raise ValueError(f"energies {self.energies.shape} beside weights {self.weights.shape}")


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


def steps_heatmap(trace: Trace, weights: np.ndarray) -> Heatmap:
    """``weights`` [T, S] as read: a row a decoding step (the piece it wrote), a column a source piece as the model
    read it (a prompt's pieces each one) — what a page's piece and word heatmaps and a step's bars are made from."""
    return Heatmap(tuple(piece_label(p) for p in trace.target_pieces[: len(weights)]), trace.source.surfaces,
                   trace.source.unknown, weights)


def piece_heatmap(trace: Trace, weights: np.ndarray, energies: np.ndarray | None = None) -> Heatmap:
    """``weights`` [T, S] (and the ``energies`` behind them, if any; none where a prompt's pieces are one column)
    labelled with the trace's pieces (a shifted reading's [T − 1, S] with all but the last)."""
    columns, unknown, folded = piece_columns(trace, weights)
    return Heatmap(
        rows=tuple(piece_label(p) for p in trace.target_pieces[: len(weights)]),
        columns=columns,
        unknown=unknown,
        weights=folded,
        energies=energies if folded is weights else None,
    )


def word_heatmap(trace: Trace, weights: np.ndarray) -> Heatmap:
    """``weights`` [T, S] between whole words (pieces joined by the ``▁`` convention; a shifted reading's
    [T − 1, S] has no row for the last piece)."""
    columns, by_src = source_word_weights(trace, weights)  # [T, Sw]
    pieces = trace.target_pieces[: len(weights)]
    tgt_groups = word_groups(pieces)
    src_groups = word_groups(trace.source.pieces)
    return Heatmap(
        rows=tuple(word_text(pieces, g) for g in tgt_groups),
        columns=columns,
        unknown=tuple(any(trace.source.unknown[i] for i in g) for g in src_groups),
        weights=np.stack([by_src[g].mean(axis=0) for g in tgt_groups]),  # [Tw, Sw]
        energies=None,
    )


def heatmap_at(trace: Trace, weights: np.ndarray, energies: np.ndarray | None, words: bool) -> Heatmap:
    """``weights`` [T, S] of ``trace`` at word level (``words``) or piece by piece, with the energies behind them
    (a word has no single energy)."""
    return word_heatmap(trace, weights) if words else piece_heatmap(trace, weights, energies)


def reading_heatmap(trace: Trace, reading: Reading, words: bool) -> Heatmap:
    """One reading of ``trace``'s attention (:meth:`Trace.read`) at word level or piece by piece."""
    return heatmap_at(trace, trace.read(reading), trace.attention.read_energies(reading), words)


def hard_alignments(view: Heatmap) -> list[tuple[int, int]]:
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


def matrix_csv(view: Heatmap) -> str:
    """One row per target token, one column per source token (the csv module: no pandas import on the first page)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["", *view.columns])
    writer.writerows([row, *map(repr, weights)] for row, weights in zip(view.rows, view.weights.tolist()))
    return out.getvalue()


def matrix_json(view: Heatmap, name: str = "attention") -> str:
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
