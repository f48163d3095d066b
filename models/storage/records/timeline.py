"""Alignment as it is learned: each curated example's greedy trace at every validation point of a training run.

``alignment_timeline.safetensors`` beside a checkpoint holds, in its metadata (JSON), the examples once and a list
``epochs`` of moments of training, each named by its ``epoch`` (epochs done: a fraction inside an epoch) with its
``step`` and ``minutes``, validation scores and each example's target pieces; and, as float16 tensors named
``{point}/{example}``, each example's cross-attention ``[L, heads, T, S]`` at that point (none for a model
without attention). Binary float16 is about a sixth of the JSON text the first records used
(``alignment_timeline.json``, attention rounded to 3 decimals, an RNN's one ``[T, S]`` matrix under
``attention`` in the oldest): :func:`read_timeline` still reads those, so readers see one form, with
``attention`` an :class:`~models.nouns.attention_map.AttentionMap` or None; both are read by the one strict reader
(:mod:`.strict`). The training CLI appends a point as it validates, so a resumed run keeps the points before the
interruption.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from safetensors import SafetensorError, safe_open
from safetensors.numpy import load_file, save_file

from ...decoding.trace import Trace
from ...nouns.attention_map import AttentionMap, Kind
from .strict import CODEC, read_record, record_json

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


@dataclass(frozen=True)
class _Trace:
    """A trace as the binary record's metadata writes it: its pieces, and whether a tensor holds its attention."""

    target_pieces: tuple[str, ...]
    attention: bool  # the tensor "{point}/{example}" holds its cross-attention


#: An attention written inline as nested lists (the JSON records): read as an array, written back as lists.
_INLINE = {"metadata": {CODEC: (lambda found: None if found is None else np.asarray(found, dtype=np.float32),
                                lambda weights: None if weights is None else weights.tolist())}}


@dataclass(frozen=True)
class _JsonTrace:
    """A trace as the JSON records wrote it, its attention inline: ``cross_attention`` [L, heads, T, S], or, in
    the oldest, an RNN's ``attention`` [T, S]; neither for a model without attention."""

    target_pieces: tuple[str, ...]
    cross_attention: np.ndarray | None = field(default=None, **_INLINE)
    attention: np.ndarray | None = field(default=None, **_INLINE)


@dataclass(frozen=True)
class _Point:
    """A point as the file writes it (the fields of :class:`TimelinePoint`, each trace as :class:`_Trace`)."""

    epoch: float
    val_bleu: float
    val_loss: float
    traces: tuple[_Trace, ...]
    step: int | None = None
    minutes: float | None = None


@dataclass(frozen=True)
class _JsonPoint(_Point):
    traces: tuple[_JsonTrace, ...]


@dataclass(frozen=True)
class _Record:
    """The record as the file writes it: the examples once, then each point."""

    examples: tuple[TimelineExample, ...]
    epochs: tuple[_Point, ...]


@dataclass(frozen=True)
class _JsonRecord(_Record):
    epochs: tuple[_JsonPoint, ...]


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
        points.append(_Point(entry.epoch, entry.val_bleu, entry.val_loss,
                             tuple(_Trace(t.target_pieces, t.attention is not None) for t in entry.traces),
                             entry.step, entry.minutes))
    meta = json.dumps(record_json(_Record(timeline.examples, tuple(points))), ensure_ascii=False,
                      separators=(",", ":"))
    save_file(tensors, directory / TIMELINE_FILE, metadata={"timeline": meta})
    (directory / LEGACY_FILE).unlink(missing_ok=True)  # one record: the binary one now holds every point


class TimelineError(ValueError):
    """A timeline file that cannot be read or does not have the shape above; the message is for users."""


def _read_binary(path: Path) -> Timeline:
    """The binary record: its metadata read strictly, each trace's attention from its tensor."""
    with safe_open(path, framework="numpy") as f:
        found = read_record(_Record, json.loads(f.metadata()["timeline"]), path.name)
    tensors = load_file(path)
    return _timeline(found, lambda p, e, trace: tensors[f"{p}/{e}"] if trace.attention else None)


def _read_json(path: Path) -> Timeline:
    """A JSON record's, each trace's attention inline; its oldest files' ``attention`` [T, S] read as a
    ``cross_attention`` [1, 1, T, S]."""
    found = read_record(_JsonRecord, json.loads(path.read_text(encoding="utf-8")), path.name)
    return _timeline(found, lambda p, e, trace: trace.cross_attention if trace.attention is None
                     else trace.attention[None, None])


def read_timeline(directory: str | Path) -> Timeline | None:
    """The timeline beside a checkpoint, or None when it was trained without one; raises :class:`TimelineError`."""
    path = timeline_file(directory)
    if path is None:
        return None
    try:
        return _read_binary(path) if path.name == TIMELINE_FILE else _read_json(path)
    except (ValueError, TypeError, KeyError, AttributeError, SafetensorError) as e:  # JSON, Unicode: ValueErrors
        raise TimelineError(f"{path.name} is unreadable or malformed ({type(e).__name__}: {e}).") from e


def _timeline(found: _Record, weights: Callable) -> Timeline:
    """The record read, each trace's cross-attention [L, heads, T, S] from ``weights(point, example, trace)``
    (None: a model without attention), checked: one trace per example, and a map of its pieces' shape."""
    points = []
    for p, entry in enumerate(found.epochs):
        if len(entry.traces) != len(found.examples):
            raise ValueError(f"point {entry.epoch} does not hold one trace per example")
        traces = []
        for e, (example, trace) in enumerate(zip(found.examples, entry.traces)):
            heads = weights(p, e, trace)
            traces.append(TimelineTrace(trace.target_pieces, None if heads is None else AttentionMap(  # shape checked
                Kind.CROSS, np.asarray(heads, dtype=np.float32), trace.target_pieces, example.source_pieces)))
        points.append(TimelinePoint(entry.epoch, entry.val_bleu, entry.val_loss, tuple(traces), entry.step,
                                    entry.minutes))
    return Timeline(found.examples, tuple(points))
