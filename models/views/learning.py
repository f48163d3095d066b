"""What the Learning page replays: a training run's record beside its checkpoint (the curated examples decoded at
every validation point, :mod:`models.storage.records.timeline`), as the learning curve and each example's alignment at a
moment of training — when the diagonal of a monotone sentence appears, when "a red car" learns to look at *car*
before *red* ("une voiture rouge")."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..analysis.heatmaps import Heatmap
from ..analysis.sharpness import sharpness
from ..network.tokenization import WORD_MARK, is_marker
from ..nouns.attention_map import Reading
from ..storage.examples import examples_file, load_examples
from ..storage.records.timeline import Timeline, TimelinePoint, read_timeline, timeline_file
from .kinds import kind_heatmap


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
    heatmap: Heatmap | None  # pieces × source pieces; None for a model without attention


def point_label(point: TimelinePoint) -> str:
    """When a point of the record was, in the words the page shows."""
    parts = [f"epoch {point.epoch:g}" if float(point.epoch).is_integer() else f"epoch {point.epoch:.2f}"]
    if point.step is not None:
        parts.append(f"step {point.step:,}")
    if point.minutes is not None:
        parts.append(f"{point.minutes:.0f} min")
    return " · ".join(parts)


def learning_curve(timeline: Timeline, reading: Reading) -> LearningCurve:
    """The record's points, with the entropy of ``reading`` of the examples' attention at each."""
    points = timeline.points
    attends = bool(points) and all(t.attention is not None for p in points for t in p.traces)
    return LearningCurve(
        tuple(float(p.epoch) for p in points), tuple(point_label(p) for p in points),
        tuple(float(p.val_bleu) for p in points), tuple(float(p.val_loss) for p in points),
        tuple(sharpness([t.attention.read(reading) for t in p.traces]).entropy_bits for p in points)
        if attends else (),
    )


def alignment_at(timeline: Timeline, example: int, point: int, reading: Reading) -> LearnedAlignment:
    """Example ``example`` at the record's point ``point`` (both 0-based; IndexError if absent), as ``reading``
    of its attention reads it."""
    if not 0 <= point < len(timeline.points):
        raise IndexError(f"point {point + 1} is not in this record of {len(timeline.points)}")
    entry = timeline.points[point]
    trace = entry.traces[example]
    translation = "".join(p for p in trace.target_pieces if not is_marker(p)).replace(WORD_MARK, " ").strip()
    if trace.attention is None:
        return LearnedAlignment(point_label(entry), translation, None)
    return LearnedAlignment(point_label(entry), translation, kind_heatmap(trace.attention, reading))


@dataclass(frozen=True, eq=False)
class Replay:
    """One training run's record, to replay point by point."""

    timeline: Timeline
    opening: int = 0  # the example the page opens on: the curated one marked to replay first, where recorded

    @property
    def examples(self) -> list[str]:
        """The curated examples it decoded at every point."""
        return [e.text for e in self.timeline.examples]

    def curve(self, reading: Reading | None) -> LearningCurve:
        """Validation BLEU, loss and attention entropy at every point."""
        return learning_curve(self.timeline, reading)

    def linked_point(self, wanted: int | None) -> tuple[int, str | None]:
        """The 0-based point a link's 1-based ``point=`` names; the last where it names none, or one the record has
        not (with a sentence saying so)."""
        last = len(self.timeline.points) - 1
        if wanted is not None and wanted > last + 1:
            return last, f"Point {wanted} is not in this model's record (points 1–{last + 1}); showing the last."
        return (last if wanted is None else wanted - 1), None

    def at(self, example: int, point: int, reading: Reading | None) -> LearnedAlignment:
        """Example ``example``'s translation and attention at validation point ``point``."""
        return alignment_at(self.timeline, example, point, reading)


def record_stamp(directory: str | Path) -> tuple[str, int] | None:
    """The record file's name and modification time, to know a rewritten record; None without one."""
    file = timeline_file(directory)
    return None if file is None else (file.name, file.stat().st_mtime_ns)


def replay(directory: str | Path, language: str | None) -> Replay | None:
    """The record beside the checkpoint in ``directory`` of a model reading ``language`` (an ISO 639-1 code; None
    where the model does not say), opening on the curated example of that language marked to replay first
    (:mod:`models.storage.examples`) where the record decoded it, else on its first; None without a record, or with
    no point recorded; a ValueError (``TimelineError``) where it cannot be read."""
    timeline = read_timeline(directory)
    if timeline is None or not timeline.points:
        return None
    marked = {e.text for e in load_examples(examples_file(language)) if e.replayed} if language else set()
    return Replay(timeline, next((n for n, e in enumerate(timeline.examples) if e.text in marked), 0))
