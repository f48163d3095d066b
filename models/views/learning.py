"""What the Learning page replays: a training run's record beside its checkpoint (the curated examples decoded at
every validation point), as the learning curve and each example's alignment at a moment of training."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..analysis.learning import LearnedAlignment, LearningCurve, alignment_at, learning_curve
from ..decoding.trace import Reading
from ..storage.timeline import read_timeline, timeline_file


@dataclass(frozen=True, eq=False)
class Replay:
    """One training run's record, to replay point by point."""

    timeline: dict

    @property
    def examples(self) -> list[str]:
        """The curated examples it decoded at every point."""
        return [e["text"] for e in self.timeline["examples"]]

    def curve(self, reading: Reading | None) -> LearningCurve:
        """Validation BLEU, loss and attention entropy at every point."""
        return learning_curve(self.timeline, reading)

    def at(self, example: int, point: int, reading: Reading | None) -> LearnedAlignment:
        """Example ``example``'s translation and attention at validation point ``point``."""
        return alignment_at(self.timeline, example, point, reading)


def record_stamp(directory: str | Path) -> tuple[str, int] | None:
    """The record file's name and modification time, to know a rewritten record; None without one."""
    file = timeline_file(directory)
    return None if file is None else (file.name, file.stat().st_mtime_ns)


def replay(directory: str | Path) -> Replay | None:
    """The record beside the checkpoint in ``directory``; None without one, or with no point recorded; a
    ValueError (``TimelineError``) where it cannot be read."""
    timeline = read_timeline(directory)
    return Replay(timeline) if timeline is not None and timeline["epochs"] else None
