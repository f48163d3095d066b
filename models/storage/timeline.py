"""Alignment as it is learned: each curated example's greedy trace at every validation point of a training run.

``alignment_timeline.json`` beside a checkpoint holds the examples once and a list ``epochs`` of moments of
training, each named by its ``epoch`` (epochs done: a fraction inside an epoch; whole numbers in files from
before validation inside epochs) with its ``step`` and ``minutes``, validation scores, and each example's target
pieces and cross-attention ``[L, heads, T, S]`` (key ``cross_attention``, rounded to 3 decimals; ``null`` for
a model without attention). Files written before the Transformer hold an RNN's one ``[T, S]`` matrix under
``attention``: :func:`read_timeline` gives it as ``cross_attention`` ``[1, 1, T, S]``, so readers see one
form. The training CLI appends a point as it validates, so a resumed run keeps the points before the interruption.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..decoding.trace import Trace

TIMELINE_FILE = "alignment_timeline.json"


def timeline_entry(record: dict, traces: list[Trace]) -> dict:
    """One point of the timeline: when it was (step, epochs, minutes), its validation scores, and each example's
    pieces and cross-attention [L, heads, T, S]."""
    return {
        **{k: record[k] for k in ("step", "epoch", "minutes", "val_bleu", "val_loss")},
        "traces": [{"target_pieces": list(t.target_pieces), "cross_attention":
                    None if t.cross_attention is None else t.cross_attention.round(3).tolist()} for t in traces],
    }


def _as_heads(trace: dict) -> dict:
    """One example at one point with its attention as ``cross_attention`` [L, heads, T, S] (an older file's
    ``attention`` [T, S] becomes [1, 1, T, S])."""
    if "cross_attention" in trace:
        return trace
    rows = trace.pop("attention")
    return {**trace, "cross_attention": None if rows is None else [[rows]]}


def append_point(directory: str | Path, examples: list[str], traces: list[Trace], entry: dict) -> None:
    """Add ``entry`` to the directory's timeline, dropping any point at or after it (a resumed run redoes those)."""
    path = Path(directory) / TIMELINE_FILE
    timeline = read_timeline(directory) if path.exists() else None
    if timeline is None or timeline["examples"] != [{"text": e, "source_pieces": list(t.source.pieces)}
                                                     for e, t in zip(examples, traces)]:
        timeline = {"examples": [{"text": e, "source_pieces": list(t.source.pieces)} for e, t in zip(examples, traces)],
                    "epochs": []}
    timeline["epochs"] = [e for e in timeline["epochs"] if e["epoch"] < entry["epoch"]] + [entry]
    path.write_text(json.dumps(timeline, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


class TimelineError(ValueError):
    """A timeline file that cannot be read or does not have the shape above; the message is for users."""


def read_timeline(directory: str | Path) -> dict | None:
    """The timeline beside a checkpoint, or None when it was trained without one; raises :class:`TimelineError`."""
    path = Path(directory) / TIMELINE_FILE
    if not path.exists():
        return None
    try:
        timeline = json.loads(path.read_text(encoding="utf-8"))
        for entry in timeline["epochs"]:
            entry["traces"] = [_as_heads(t) for t in entry["traces"]]
        _check(timeline)
    except (ValueError, TypeError, KeyError, AttributeError) as e:  # JSON and Unicode errors are ValueErrors
        raise TimelineError(f"{TIMELINE_FILE} is unreadable or malformed ({type(e).__name__}: {e}).") from e
    return timeline


def _check(timeline: dict) -> None:
    """Every point has a numeric epoch and scores and, per example, pieces and an attention matrix of the right
    shape."""
    widths = [len(e["source_pieces"]) for e in timeline["examples"]]
    if not all(isinstance(e["text"], str) for e in timeline["examples"]):
        raise ValueError("an example's text is not a string")
    for entry in timeline["epochs"]:
        if not isinstance(entry["epoch"], (int, float)) or len(entry["traces"]) != len(widths):
            raise ValueError(f"point {entry.get('epoch')!r} does not hold one trace per example")
        if not all(isinstance(entry[k], (int, float)) for k in ("val_bleu", "val_loss")):
            raise ValueError(f"point {entry['epoch']} has no numeric validation scores")
        for width, trace in zip(widths, entry["traces"]):
            heads = trace["cross_attention"]
            if heads is not None and np.asarray(heads).shape[2:] != (len(trace["target_pieces"]), width):
                raise ValueError(f"an attention matrix of point {entry['epoch']} does not fit its pieces")
