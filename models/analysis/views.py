"""What a page draws of one sentence's matrix, whole, from one call: the matrix at one reading, in words or pieces,
labelled and titled, the target prefix's share beside it, and what was drawn in its place and why — so a page only
draws (:mod:`.matrices` holds every matrix's record).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..decoding.trace import Reading, Trace
from ..network.translator import Translator
from .alignment import AttentionView, piece_view, word_view
from .contributions import Sentence
from .matrices import ATTENTION, Matrix, Progress, layer_reading, layered, read_layered, record


class Unaffordable(ValueError):
    """A matrix this server cannot give the time it takes, on a model without attention to draw in its place."""


@dataclass(frozen=True, eq=False)
class MatrixView:
    """One matrix of one sentence at one reading, ready to draw."""

    matrix: Matrix  # what is drawn: the one asked for, or the attention in its place (see ``instead``)
    reading: Reading | None  # as the matrix has it (a layer's whole for a layer-wise one); None: one matrix
    weights: np.ndarray  # [T, S] piece by piece ([T − 1, S] shifted): what a step's bars read
    view: AttentionView  # the same in words or pieces, labelled
    name: str  # the chart's title: "Attention α (layer 1, head 4)"
    prefix: np.ndarray | None  # [T] the target prefix's share of each step at the reading's layer, where seen
    instead: str | None  # why the matrix asked for is not the one drawn, in a sentence; None when it is


def too_costly(model: Translator, trace: Trace, matrix: str, limit_s: float | None) -> str | None:
    """Why a server that gives a request ``limit_s`` seconds cannot read ``matrix`` of ``trace``, in a sentence;
    None when it can (or sets no limit)."""
    found = record(matrix)
    if limit_s is None or (needed := found.seconds(model, trace)) <= limit_s:
        return None
    cheaper = f" {found.cheaper};" if found.cheaper else ""
    return (f"{found.named} of this sentence would take about {needed:.0f} s on this shared server, which gives one "
            f"request at most {limit_s:.0f} s.{cheaper} a shorter sentence is quicker. Run the app on your own "
            "machine for any length (README).")


def matrix_view(sentence: Sentence, matrix: str, reading: Reading | None, words: bool,
                limit_s: float | None = None, progress: Progress = None) -> MatrixView:
    """``matrix`` of ``sentence`` at ``reading`` (the model's own reading; ignored by a one-matrix reading), between
    words or pieces. One the server cannot afford (:func:`too_costly`) gives way to the attention at the same
    reading; :class:`Unaffordable` where the model has none. ``progress`` hears a slow matrix's share done."""
    model, trace = sentence.model, sentence.trace
    instead = too_costly(model, trace, matrix, limit_s)
    if instead and (reading is None or not model.has_attention):
        raise Unaffordable(instead)
    found = record(ATTENTION if instead else matrix)
    at = None if reading is None or found.per == "sentence" else layer_reading(model, found.name, reading)
    layers = layered(sentence, found.name, progress)
    weights = read_layered(layers, at)  # [T, S]
    energies = trace.read_energies(at) if found.name == ATTENTION and not words else None
    view = word_view(trace, weights) if words else piece_view(trace, weights, energies)
    several = at is not None and (trace.attention_shape[1] > 1 or found.name != ATTENTION)
    name = found.title + (f" ({found.label(at)})" if several else "")
    prefix = None if at is None or layers.prefix is None else layers.prefix[at.layer]
    return MatrixView(found, at, weights, view, name, prefix, instead)
