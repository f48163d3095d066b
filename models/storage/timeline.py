"""Alignment as it is learned: each curated example's greedy trace after every training epoch.

``alignment_timeline.json`` beside a checkpoint holds the examples once and,
per epoch, the validation scores and each example's target pieces and
attention matrix (rounded to 3 decimals; ``null`` for a model without
attention). The training CLI appends an epoch as it finishes one, so a resumed
run keeps the epochs before the interruption.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..decoding.greedy import Trace

TIMELINE_FILE = "alignment_timeline.json"


def epoch_entry(epoch: int, scores: dict, traces: list[Trace]) -> dict:
    """One epoch of the timeline: its validation scores and each example's pieces and attention [T, S]."""
    return {
        "epoch": epoch,
        **scores,
        "traces": [{"target_pieces": list(t.target_pieces),
                    "attention": None if t.attention is None else t.attention.round(3).tolist()} for t in traces],
    }


def append_epoch(directory: str | Path, examples: list[str], traces: list[Trace], entry: dict) -> None:
    """Add ``entry`` to the directory's timeline, dropping any epoch at or after it (a resumed run redoes those)."""
    path = Path(directory) / TIMELINE_FILE
    timeline = read_timeline(directory) if path.exists() else None
    if timeline is None or timeline["examples"] != [{"text": e, "source_pieces": list(t.source.pieces)}
                                                     for e, t in zip(examples, traces)]:
        timeline = {"examples": [{"text": e, "source_pieces": list(t.source.pieces)} for e, t in zip(examples, traces)],
                    "epochs": []}
    timeline["epochs"] = [e for e in timeline["epochs"] if e["epoch"] < entry["epoch"]] + [entry]
    path.write_text(json.dumps(timeline, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def read_timeline(directory: str | Path) -> dict | None:
    """The timeline beside a checkpoint, or None when it was trained without one."""
    path = Path(directory) / TIMELINE_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
