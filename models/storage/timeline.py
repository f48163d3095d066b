"""Alignment as it is learned: each curated example's greedy trace at every validation point of a training run.

``alignment_timeline.safetensors`` beside a checkpoint holds, in its metadata (JSON), the examples once and a list
``epochs`` of moments of training, each named by its ``epoch`` (epochs done: a fraction inside an epoch) with its
``step`` and ``minutes``, validation scores and each example's target pieces; and, as float16 tensors named
``{point}/{example}``, each example's cross-attention ``[L, heads, T, S]`` at that point (none for a model
without attention). Binary float16 is about a sixth of the JSON text the first records used
(``alignment_timeline.json``, attention rounded to 3 decimals, an RNN's one ``[T, S]`` matrix under
``attention`` in the oldest): :func:`read_timeline` still reads those, so readers see one form, with
``cross_attention`` a float32 array or None. The training CLI appends a point as it validates, so a resumed run
keeps the points before the interruption.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from safetensors import SafetensorError, safe_open
from safetensors.numpy import load_file, save_file

from ..decoding.trace import Trace

TIMELINE_FILE = "alignment_timeline.safetensors"
LEGACY_FILE = "alignment_timeline.json"  # what checkpoints trained before the binary record hold


def timeline_file(directory: str | Path) -> Path | None:
    """The timeline file beside a checkpoint (the binary one first), None without one."""
    return next((p for p in (Path(directory) / TIMELINE_FILE, Path(directory) / LEGACY_FILE) if p.exists()), None)


def timeline_entry(record: dict, traces: list[Trace]) -> dict:
    """One point of the timeline: when it was (step, epochs, minutes), its validation scores, and each example's
    pieces and cross-attention [L, heads, T, S]."""
    return {
        **{k: record[k] for k in ("step", "epoch", "minutes", "val_bleu", "val_loss")},
        "traces": [{"target_pieces": list(t.target_pieces), "cross_attention": t.cross_attention} for t in traces],
    }


def _as_heads(trace: dict) -> dict:
    """One example at one point of a JSON record with its attention as a ``cross_attention`` array
    [L, heads, T, S] (the oldest files' ``attention`` [T, S] becomes [1, 1, T, S])."""
    if "cross_attention" not in trace:
        rows = trace.pop("attention")
        trace["cross_attention"] = None if rows is None else [[rows]]
    heads = trace["cross_attention"]
    return {**trace, "cross_attention": None if heads is None else np.asarray(heads, dtype=np.float32)}


def append_point(directory: str | Path, examples: list[str], traces: list[Trace], entry: dict) -> None:
    """Add ``entry`` to the directory's timeline, dropping any point at or after it (a resumed run redoes those)."""
    heads = {"examples": [{"text": e, "source_pieces": list(t.source.pieces)} for e, t in zip(examples, traces)]}
    timeline = read_timeline(directory) if timeline_file(directory) else None
    if timeline is None or timeline["examples"] != heads["examples"]:
        timeline = {**heads, "epochs": []}
    timeline["epochs"] = [e for e in timeline["epochs"] if e["epoch"] < entry["epoch"]] + [entry]
    _write(Path(directory), timeline)


def _write(directory: Path, timeline: dict) -> None:
    tensors, points = {}, []
    for p, entry in enumerate(timeline["epochs"]):
        for e, trace in enumerate(entry["traces"]):
            if trace["cross_attention"] is not None:
                tensors[f"{p}/{e}"] = np.ascontiguousarray(trace["cross_attention"], dtype=np.float16)
        points.append({**entry, "traces": [{"target_pieces": t["target_pieces"],
                                            "attention": t["cross_attention"] is not None} for t in entry["traces"]]})
    meta = json.dumps({"examples": timeline["examples"], "epochs": points}, ensure_ascii=False, separators=(",", ":"))
    save_file(tensors, directory / TIMELINE_FILE, metadata={"timeline": meta})
    (directory / LEGACY_FILE).unlink(missing_ok=True)  # one record: the binary one now holds every point


class TimelineError(ValueError):
    """A timeline file that cannot be read or does not have the shape above; the message is for users."""


def _read_binary(path: Path) -> dict:
    with safe_open(path, framework="numpy") as f:
        timeline = json.loads(f.metadata()["timeline"])
    tensors = load_file(path)
    for p, entry in enumerate(timeline["epochs"]):
        entry["traces"] = [{"target_pieces": t["target_pieces"], "cross_attention":
                            tensors[f"{p}/{e}"].astype(np.float32) if t["attention"] else None}
                           for e, t in enumerate(entry["traces"])]
    return timeline


def _read_json(path: Path) -> dict:
    timeline = json.loads(path.read_text(encoding="utf-8"))
    for entry in timeline["epochs"]:
        entry["traces"] = [_as_heads(t) for t in entry["traces"]]
    return timeline


def read_timeline(directory: str | Path) -> dict | None:
    """The timeline beside a checkpoint, or None when it was trained without one; raises :class:`TimelineError`."""
    path = timeline_file(directory)
    if path is None:
        return None
    try:
        timeline = _read_binary(path) if path.name == TIMELINE_FILE else _read_json(path)
        _check(timeline)
    except (ValueError, TypeError, KeyError, AttributeError, SafetensorError) as e:  # JSON, Unicode: ValueErrors
        raise TimelineError(f"{path.name} is unreadable or malformed ({type(e).__name__}: {e}).") from e
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
            if heads is not None and (heads.ndim != 4 or heads.shape[2:] != (len(trace["target_pieces"]), width)):
                raise ValueError(f"an attention matrix of point {entry['epoch']} does not fit its pieces")
