"""``probe.json`` beside a model: its reading fit to human links (:class:`~models.nouns.probe.Probe`), written by
``python -m models.align --fit-on …`` and read by the loader, so the app reads a fitted probe instead of refitting.

One JSON object, every field of the record by name; a field it does not know, or one missing, is refused with the
file's name, so a record written by another version never reads as something it is not.
"""
from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

from ... import ASSETS
from ...nouns.link_rule import LinkRule
from ...nouns.probe import LOOKS, Feature, FitData, Probe, SecondLook, Tried
from .strict import read_json_file

PROBE_FILE = "probe.json"
#: The position floor: a probe of the words' positions alone, fit on the Hansards' trial pairs, read for every model
#: (``python -m models.align.floor --data gold:en-fr --save assets/position_floor.json``).
BUNDLED_FLOOR = ASSETS / "position_floor.json"


def _tried(t: Tried) -> dict:
    return {**dataclasses.asdict(t), "rule": str(t.rule)}


def _written(feature: Feature) -> dict:
    """A feature's fields, ``reverse`` only where it is set (the records of one-model probes stay as they were)."""
    found = dataclasses.asdict(feature)
    return found if feature.reverse else {k: v for k, v in found.items() if k != "reverse"}


def _second_json(second: SecondLook) -> dict:
    return {"mean": list(second.mean), "spread": list(second.spread), "weights": list(second.weights),
            "intercept": second.intercept, "chosen": _tried(second.chosen), "tried": [_tried(t) for t in second.tried]}


def probe_json(probe: Probe) -> dict:
    """The record as JSON: features by their three fields, rules by name; ``second`` only where there is one (the
    records of one-look probes stay as they were)."""
    return {"features": [_written(f) for f in probe.features], "mean": list(probe.mean),
            "spread": list(probe.spread), "weights": list(probe.weights), "intercept": probe.intercept,
            "chosen": _tried(probe.chosen), "tried": [_tried(t) for t in probe.tried],
            "data": dataclasses.asdict(probe.data), "seconds": probe.seconds,
            **({"second": _second_json(probe.second)} if probe.second else {})}


def _strict(cls, found: dict, where: str):
    """``found`` where it holds every field of ``cls`` without a default, and no field ``cls`` lacks (a record
    written before a defaulted field was added reads as that default)."""
    names = {f.name for f in dataclasses.fields(cls)}
    required = {f.name for f in dataclasses.fields(cls)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    if not required <= set(found) <= names:
        raise ValueError(f"{where}: a {cls.__name__} has the fields {sorted(names)}, not {sorted(found)}")
    return found


def _read_tried(found: dict, where: str) -> Tried:
    found = _strict(Tried, found, where)
    return Tried(found["labels"], float(found["strength"]), LinkRule.parse(str(found["rule"])), float(found["aer"]))


def _read_second(found: dict | None, where: str) -> SecondLook | None:
    if found is None:
        return None
    found = _strict(SecondLook, found, where)
    if {len(LOOKS), *(len(found[k]) for k in ("mean", "spread", "weights"))} != {len(LOOKS)}:
        raise ValueError(f"{where}: a second look reads {len(LOOKS)} features")
    return SecondLook(*(tuple(map(float, found[k])) for k in ("mean", "spread", "weights")),
                      float(found["intercept"]), _read_tried(found["chosen"], where),
                      tuple(_read_tried(t, where) for t in found["tried"]))


def probe_from_json(found: dict, where: str = PROBE_FILE) -> Probe:
    """The record :func:`probe_json` wrote; ValueError naming ``where`` for anything else."""
    try:
        found = _strict(Probe, found, where)
        features = tuple(Feature(**_strict(Feature, f, where)) for f in found["features"])
        sizes = {len(features), *(len(found[k]) for k in ("mean", "spread", "weights"))}
        if len(sizes) != 1:
            raise ValueError(f"{where}: features, mean, spread and weights differ in length")
        return Probe(features, tuple(map(float, found["mean"])), tuple(map(float, found["spread"])),
                     tuple(map(float, found["weights"])), float(found["intercept"]),
                     _read_tried(found["chosen"], where), tuple(_read_tried(t, where) for t in found["tried"]),
                     FitData(**_strict(FitData, found["data"], where)), float(found["seconds"]),
                     _read_second(found.get("second"), where))
    except (TypeError, KeyError, AttributeError) as e:
        raise ValueError(f"{where}: not a probe record ({e})") from None


def write_probe(directory: str | Path, probe: Probe, name: str = PROBE_FILE) -> Path:
    """``probe`` as ``name`` in ``directory``."""
    path = Path(directory) / name
    path.write_text(json.dumps(probe_json(probe), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path


@functools.lru_cache(maxsize=1)
def bundled_floor() -> Probe | None:
    """The position floor every model is read beside (None where none is bundled)."""
    return read_probe(BUNDLED_FLOOR.parent, BUNDLED_FLOOR.name)


def read_probe(directory: str | Path, name: str = PROBE_FILE) -> Probe | None:
    """The probe ``name`` in ``directory`` (beside a model: its ``probe.json``), or None without one; ValueError for
    a file that is not one."""
    path = Path(directory) / name
    found = read_json_file(path)
    if found is None:
        return None
    if not isinstance(found, dict):
        raise ValueError(f"{path.name}: not a probe record")
    return probe_from_json(found, path.name)
