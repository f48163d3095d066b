"""Alignment as it is learned: a curated example's attention at one epoch of training, and the validation curve.

The record is the one :mod:`models.storage.timeline` keeps beside a checkpoint
(the training CLI appends each epoch's greedy traces). Replaying it shows when
the diagonal of a monotone sentence appears and when "a red car" learns to
look at *car* before *red* ("une voiture rouge").
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..network.tokenization import EOS, WORD_MARK
from .alignment import AttentionView, piece_label


@dataclass(frozen=True)
class LearningCurve:
    epochs: tuple[int, ...]
    val_bleu: tuple[float, ...]  # mean over the validation corpora, as the training CLI chose on
    val_loss: tuple[float, ...]


@dataclass(frozen=True, eq=False)
class LearnedAlignment:
    epoch: int
    translation: str  # what greedy decoding wrote after this epoch
    view: AttentionView | None  # pieces × source pieces; None for a model without attention


def learning_curve(timeline: dict) -> LearningCurve:
    epochs = timeline["epochs"]
    return LearningCurve(tuple(e["epoch"] for e in epochs), tuple(float(e["val_bleu"]) for e in epochs),
                         tuple(float(e["val_loss"]) for e in epochs))


def alignment_at(timeline: dict, example: int, epoch: int) -> LearnedAlignment:
    """Example ``example`` (0-based) after ``epoch`` (an epoch number in the record; KeyError if absent)."""
    entry = next((e for e in timeline["epochs"] if e["epoch"] == epoch), None)
    if entry is None:
        raise KeyError(f"epoch {epoch} is not in this record")
    source = timeline["examples"][example]["source_pieces"]
    trace = entry["traces"][example]
    pieces = trace["target_pieces"]
    translation = "".join(p for p in pieces if p != EOS).replace(WORD_MARK, " ").strip()
    if trace["attention"] is None:
        return LearnedAlignment(epoch, translation, None)
    view = AttentionView(rows=tuple(piece_label(p) for p in pieces), columns=tuple(piece_label(p) for p in source),
                         unknown=(False,) * len(source), weights=np.asarray(trace["attention"], dtype=np.float32),
                         energies=None)
    return LearnedAlignment(epoch, translation, view)
