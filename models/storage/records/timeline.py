"""Alignment as it is learned: each curated example's greedy trace at every validation point of a training run.

``alignment_timeline.safetensors`` beside a checkpoint holds, in its metadata (JSON), the examples once and a list
``epochs`` of moments of training, each named by its ``epoch`` (epochs done: a fraction inside an epoch) with its
``step`` and ``minutes``, validation scores and each example's target pieces; and, as float16 tensors named
``{point}/{example}``, each example's cross-attention ``[L, heads, T, S]`` at that point (none for a model
without attention). Binary float16 is about a sixth of the JSON text the first records used
(``alignment_timeline.json``, attention rounded to 3 decimals, an RNN's one ``[T, S]`` matrix under
``attention`` in the oldest): :func:`read_timeline` still reads those, so readers see one form, with
``attention`` an :class:`~models.nouns.attention_map.AttentionMap` or None. The training CLI appends a point as
it validates, so a resumed run keeps the points before the interruption.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from safetensors import SafetensorError, safe_open
from safetensors.numpy import load_file, save_file

from ...decoding.trace import Trace
from ...nouns.attention_map import AttentionMap, Kind

TIMELINE_FILE = "alignment_timeline.safetensors"
LEGACY_FILE = "alignment_timeline.json"  # what checkpoints trained before the binary record hold


@dataclass(frozen=True)
class TimelineExample:
    text: str
    source_pieces: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class TimelineTrace:
    """One example's greedy translation at one point."""

    target_pieces: tuple[str, ...]
    attention: AttentionMap | None  # the cross-attention [L, heads, T, S]; None for a model without attention


@dataclass(frozen=True, eq=False)
class TimelinePoint:
    """One validation point of the run: when it was, its scores, and every example's trace."""

    epoch: float  # epochs done, a fraction inside an epoch
    val_bleu: float
    val_loss: float
    traces: tuple[TimelineTrace, ...]  # one an example, in the examples' order
    step: int | None = None  # None: a record kept per epoch, from before validation inside epochs
    minutes: float | None = None


@dataclass(frozen=True, eq=False)
class Timeline:
    examples: tuple[TimelineExample, ...]
    points: tuple[TimelinePoint, ...]  # in the order of training


def timeline_file(directory: str | Path) -> Path | None:
    """The timeline file beside a checkpoint (the binary one first), None without one."""
    return next((p for p in (Path(directory) / TIMELINE_FILE, Path(directory) / LEGACY_FILE) if p.exists()), None)


def timeline_entry(record: dict, traces: list[Trace]) -> TimelinePoint:
    """One point of the timeline: a validation point of the training CLI (its step, epochs, minutes and scores),
    and each example's pieces and cross-attention [L, heads, T, S]."""
    return TimelinePoint(record["epoch"], record["val_bleu"], record["val_loss"],
                         tuple(TimelineTrace(t.target_pieces, t.attention) for t in traces),
                         record["step"], record["minutes"])


def append_point(directory: str | Path, examples: list[str], traces: list[Trace], entry: TimelinePoint) -> None:
    """Add ``entry`` to the directory's timeline, dropping any point at or after it (a resumed run redoes those)."""
    heads = tuple(TimelineExample(e, t.source.pieces) for e, t in zip(examples, traces))
    timeline = read_timeline(directory) if timeline_file(directory) else None
    points = () if timeline is None or timeline.examples != heads else timeline.points
    _write(Path(directory), Timeline(heads, tuple(p for p in points if p.epoch < entry.epoch) + (entry,)))


def _write(directory: Path, timeline: Timeline) -> None:
    tensors, points = {}, []
    for p, entry in enumerate(timeline.points):
        for e, trace in enumerate(entry.traces):
            if trace.attention is not None:
                tensors[f"{p}/{e}"] = np.ascontiguousarray(trace.attention.weights, dtype=np.float16)
        when = {k: v for k, v in (("step", entry.step), ("minutes", entry.minutes)) if v is not None}
        points.append({"epoch": entry.epoch, **when, "val_bleu": entry.val_bleu, "val_loss": entry.val_loss,
                       "traces": [{"target_pieces": list(t.target_pieces), "attention": t.attention is not None}
                                  for t in entry.traces]})
    examples = [{"text": e.text, "source_pieces": list(e.source_pieces)} for e in timeline.examples]
    meta = json.dumps({"examples": examples, "epochs": points}, ensure_ascii=False, separators=(",", ":"))
    save_file(tensors, directory / TIMELINE_FILE, metadata={"timeline": meta})
    (directory / LEGACY_FILE).unlink(missing_ok=True)  # one record: the binary one now holds every point


class TimelineError(ValueError):
    """A timeline file that cannot be read or does not have the shape above; the message is for users."""


def _read_binary(path: Path) -> dict:
    """The file's JSON, each trace's ``cross_attention`` its tensor (None where it has none)."""
    with safe_open(path, framework="numpy") as f:
        timeline = json.loads(f.metadata()["timeline"])
    tensors = load_file(path)
    for p, entry in enumerate(timeline["epochs"]):
        entry["traces"] = [{"target_pieces": t["target_pieces"],
                            "cross_attention": tensors[f"{p}/{e}"] if t["attention"] else None}
                           for e, t in enumerate(entry["traces"])]
    return timeline


def _read_json(path: Path) -> dict:
    """A JSON record's, its oldest files' ``attention`` [T, S] read as ``cross_attention`` [1, 1, T, S]."""
    timeline = json.loads(path.read_text(encoding="utf-8"))
    for entry in timeline["epochs"]:
        for trace in entry["traces"]:
            if "cross_attention" not in trace:
                rows = trace.pop("attention")
                trace["cross_attention"] = None if rows is None else [[rows]]
    return timeline


def read_timeline(directory: str | Path) -> Timeline | None:
    """The timeline beside a checkpoint, or None when it was trained without one; raises :class:`TimelineError`."""
    path = timeline_file(directory)
    if path is None:
        return None
    try:
        return _typed(_read_binary(path) if path.name == TIMELINE_FILE else _read_json(path))
    except (ValueError, TypeError, KeyError, AttributeError, SafetensorError) as e:  # JSON, Unicode: ValueErrors
        raise TimelineError(f"{path.name} is unreadable or malformed ({type(e).__name__}: {e}).") from e


def _typed(found: dict) -> Timeline:
    """The record read, checked: a numeric epoch and scores at every point and, per example, pieces and an
    attention matrix of the right shape."""
    examples = tuple(TimelineExample(e["text"], tuple(e["source_pieces"])) for e in found["examples"])
    if not all(isinstance(e.text, str) for e in examples):
        raise ValueError("an example's text is not a string")
    return Timeline(examples, tuple(_point(entry, examples) for entry in found["epochs"]))


def _point(entry: dict, examples: tuple[TimelineExample, ...]) -> TimelinePoint:
    if not isinstance(entry["epoch"], (int, float)) or len(entry["traces"]) != len(examples):
        raise ValueError(f"point {entry.get('epoch')!r} does not hold one trace per example")
    if not all(isinstance(entry[k], (int, float)) for k in ("val_bleu", "val_loss")):
        raise ValueError(f"point {entry['epoch']} has no numeric validation scores")
    traces = []
    for example, trace in zip(examples, entry["traces"]):
        heads = None if trace["cross_attention"] is None else np.asarray(trace["cross_attention"], dtype=np.float32)
        pieces = tuple(trace["target_pieces"])
        traces.append(TimelineTrace(pieces, None if heads is None else  # a map checks its shape against its pieces
                                    AttentionMap(Kind.CROSS, heads, pieces, example.source_pieces)))
    return TimelinePoint(entry["epoch"], entry["val_bleu"], entry["val_loss"], tuple(traces), entry.get("step"),
                         entry.get("minutes"))
