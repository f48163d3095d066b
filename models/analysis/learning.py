"""Alignment as it is learned: a curated example's attention at one moment of training, and the validation curve.

The record is the one :mod:`models.storage.timeline` keeps beside a checkpoint
(the training CLI appends the greedy traces of every validation point). Replaying
it shows when the diagonal of a monotone sentence appears and when "a red car"
learns to look at *car* before *red* ("une voiture rouge").
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..decoding.trace import Reading
from ..network.tokenization import WORD_MARK, is_marker
from .alignment import AttentionView, piece_label
from .sharpness import sharpness


@dataclass(frozen=True)
class LearningCurve:
    """The record's points in order: when each was, and its validation scores."""

    epochs: tuple[float, ...]  # epochs done, a fraction inside an epoch
    labels: tuple[str, ...]  # 'epoch 0.29 · step 1,000 · 13 min', or 'epoch 2' for records kept per epoch
    val_bleu: tuple[float, ...]  # mean over the validation corpora, as the training CLI chose on
    val_loss: tuple[float, ...]
    entropy_bits: tuple[float, ...]  # the examples' mean attention entropy at each point; () without attention


@dataclass(frozen=True, eq=False)
class LearnedAlignment:
    label: str  # when, as in :attr:`LearningCurve.labels`
    translation: str  # what greedy decoding wrote at this point
    view: AttentionView | None  # pieces × source pieces; None for a model without attention


def _heads(trace: dict) -> np.ndarray | None:
    """One example's cross-attention at one point of the record, [L, heads, T, S]."""
    return None if trace["cross_attention"] is None else np.asarray(trace["cross_attention"], dtype=np.float32)


def point_label(entry: dict) -> str:
    """When a point of the record was, in the words the page shows."""
    parts = [f"epoch {entry['epoch']:g}" if float(entry["epoch"]).is_integer() else f"epoch {entry['epoch']:.2f}"]
    if "step" in entry:
        parts.append(f"step {entry['step']:,}")
    if "minutes" in entry:
        parts.append(f"{entry['minutes']:.0f} min")
    return " · ".join(parts)


def learning_curve(timeline: dict, reading: Reading) -> LearningCurve:
    """The record's points, with the entropy of ``reading`` of the examples' attention at each."""
    points = timeline["epochs"]
    heads = [[_heads(t) for t in e["traces"]] for e in points]
    attends = bool(points) and all(h is not None for hs in heads for h in hs)
    return LearningCurve(
        tuple(float(e["epoch"]) for e in points), tuple(point_label(e) for e in points),
        tuple(float(e["val_bleu"]) for e in points), tuple(float(e["val_loss"]) for e in points),
        tuple(sharpness([reading.of(h) for h in hs]).entropy_bits for hs in heads) if attends else (),
    )


def alignment_at(timeline: dict, example: int, point: int, reading: Reading) -> LearnedAlignment:
    """Example ``example`` at the record's point ``point`` (both 0-based; IndexError if absent), as ``reading``
    of its attention reads it."""
    if not 0 <= point < len(timeline["epochs"]):
        raise IndexError(f"point {point + 1} is not in this record of {len(timeline['epochs'])}")
    entry = timeline["epochs"][point]
    source = timeline["examples"][example]["source_pieces"]
    trace = entry["traces"][example]
    pieces = trace["target_pieces"]
    translation = "".join(p for p in pieces if not is_marker(p)).replace(WORD_MARK, " ").strip()
    heads = _heads(trace)
    if heads is None:
        return LearnedAlignment(point_label(entry), translation, None)
    view = AttentionView(rows=tuple(piece_label(p) for p in pieces), columns=tuple(piece_label(p) for p in source),
                         unknown=(False,) * len(source), weights=reading.of(heads), energies=None)
    return LearnedAlignment(point_label(entry), translation, view)
