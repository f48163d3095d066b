"""Every matrix a step can be read as, and which of them a model has: the one list the app's "Show", ``models.align
--matrix`` and ``models.faithfulness`` offer.

A matrix says, for each written piece, how much each source piece counted: the attention weights, what the
attention adds (:mod:`.contributions`: its norm, ALTI, value zeroing), what every layer so far adds up to
(:mod:`.rollout`), or how the output's log-probability depends on the source (:mod:`.attribution`). The first six
are read layer by layer (:class:`~.contributions.Layered`; the attention and its norm head by head too); an
attribution is one matrix. A layer's whole is named as a layer's mean is (``2.mean``): for the attention it is
the mean of its heads, for the norm the norm of their sum, for the others the layer itself.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..decoding.trace import Reading, Trace, readings
from ..network.translator import Translator
from . import attribution
from .attribution import ATTRIBUTIONS, attribution_matrix
from .contributions import Layered, alti, attention, attention_norm, value_zeroing
from .rollout import alti_rollout, attention_rollout

#: The matrices read layer by layer, in the order they are offered.
LAYERED: dict[str, Callable[[Translator, Trace], Layered]] = {
    "attention": attention, "attention norm": attention_norm, "ALTI": alti, "ALTI+ rollout": alti_rollout,
    "attention rollout": attention_rollout, "value zeroing": value_zeroing}
#: Those with a matrix per head, not only per layer.
HEADWISE = ("attention", "attention norm")
#: Those that read a stack of layers with residual streams: none of them applies to the attentional RNN.
STACKED = ("ALTI", "ALTI+ rollout", "attention rollout", "value zeroing")
#: Every matrix, as ``--matrix`` and the app's "Show" name them.
MATRICES = (*LAYERED, *ATTRIBUTIONS)

#: Value zeroing's work a second on one CPU thread, in cells (layers × source pieces zeroed, each a pass over source
#: × target pieces): the bundled Transformer (d 256, 3 + 3 layers) did 107,000–139,000 (one thread, 15- and 25-piece
#: sentences, other runs on the other core); an opus-mt model (d 512, 6 + 6 layers) does about 8× the work a cell, hence this.
ZEROING_CELLS_PER_SECOND = 12_000

NO_ATTENTION = ("this model has no attention: its decoder reads one fixed summary of the sentence, so there are no "
                "weights, values or layers to read; an attribution asks the model itself")
NO_STACK = ("the attentional RNN has one attention and no residual stream: nothing for ALTI to weigh a source "
            "piece against, no stack of layers to roll out, and no layer output a zeroed value alone changes (its "
            "context enters a recurrence that carries it into every later step)")


def slug(matrix: str) -> str:
    """A matrix's name in URLs and file names: ``integrated gradients`` → ``integrated-gradients``."""
    return matrix.replace("×", "-x-").replace(" ", "-")


def row_name(matrix: str, reading: Reading | None) -> str:
    """One matrix at one reading, as a table row and a file stem name it: ``attention-norm.2.mean.shifted`` (an
    attribution by its matrix alone)."""
    return slug(matrix) + (f".{reading.key}" if reading else "")


def not_applicable(model: Translator, matrix: str) -> str | None:
    """Why ``matrix`` cannot be read on ``model``, in a sentence; None when it can."""
    if matrix not in MATRICES:
        raise ValueError(f"unknown matrix {matrix!r}; expected one of {MATRICES}")
    if matrix in ATTRIBUTIONS:
        return None
    if not model.has_attention:
        return NO_ATTENTION
    return NO_STACK if matrix in STACKED and not model.sublayer_sites() else None


def applicable(model: Translator) -> tuple[str, ...]:
    """The matrices ``model`` has, in :data:`MATRICES` order."""
    return tuple(m for m in MATRICES if not_applicable(model, m) is None)


def estimated_seconds(model: Translator, trace: Trace, matrix: str) -> float:
    """About how long ``matrix`` of ``trace`` takes on one CPU thread: an attribution's estimate, value zeroing's
    (:data:`ZEROING_CELLS_PER_SECOND`), nothing for the rest (one pass with hooks)."""
    if matrix in ATTRIBUTIONS:
        return attribution.estimated_seconds(trace, matrix)
    if matrix == "value zeroing":
        S, T = len(trace.source.ids), len(trace.target_ids)
        return model.attention_shape[0] * S * S * T / ZEROING_CELLS_PER_SECOND
    return 0.0


def matrix_readings(model: Translator, matrix: str, shifted: bool = False) -> list[Reading | None]:
    """The readings a matrix of ``model`` has: its heads and layers (every layer only, where no head has its own),
    with ``shifted`` each read one step later too; ``[None]`` for an attribution (one matrix)."""
    if matrix in ATTRIBUTIONS:
        return [None]
    layers, heads = model.attention_shape
    if matrix in HEADWISE:
        return readings((layers, heads), shifted)
    plain = [Reading(n, None) for n in range(layers)]
    return plain + [Reading(n, None, True) for n in range(layers)] if shifted else plain


def layer_reading(model: Translator, matrix: str, reading: Reading) -> Reading | None:
    """``reading`` as ``matrix`` has it: the same head of a head-wise matrix, else the layer's whole (None for an
    attribution)."""
    if matrix in ATTRIBUTIONS:
        return None
    return reading if matrix in HEADWISE else Reading(reading.layer, None, reading.shifted)


def read(model: Translator, trace: Trace, matrix: str, chosen: list[Reading | None],
         progress: Callable[[float], None] | None = None) -> list[np.ndarray]:
    """``matrix`` of ``trace`` at each of the ``chosen`` readings, [T, S] each ([T − 1, S] shifted; one matrix for
    an attribution); ValueError when the model has no such matrix."""
    reason = not_applicable(model, matrix)
    if reason:
        raise ValueError(f"{matrix}: {reason}")
    if matrix in ATTRIBUTIONS:
        return [attribution_matrix(model, trace, matrix, progress)]
    found = layered(model, trace, matrix, progress)
    return [found.read(layer_reading(model, matrix, r)) for r in chosen]


def layered(model: Translator, trace: Trace, matrix: str,
            progress: Callable[[float], None] | None = None) -> Layered:
    """``matrix`` of ``trace``, every layer (a matrix of :data:`LAYERED`); ``progress`` hears value zeroing's."""
    return value_zeroing(model, trace, progress) if matrix == "value zeroing" else LAYERED[matrix](model, trace)
