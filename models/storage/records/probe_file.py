"""``probe.json`` beside a model: its reading fit to human links (:class:`~models.nouns.probe.Probe`), written by
``python -m models.align --fit-on …`` and read by the loader, so the app reads a fitted probe instead of refitting.

One JSON object, every field of the record by name, read by the one strict reader (:mod:`.strict`): a field it does
not know, or one missing, is refused with the file's name, so a record written by another version never reads as
something it is not.
"""
from __future__ import annotations

import functools
from pathlib import Path

from ... import ASSETS
from ...nouns.probe import LOOKS, Probe
from .strict import read_json_file, read_record, record_json, write_record_file

PROBE_FILE = "probe.json"
#: The position floor: a probe of the words' positions alone, fit on the Hansards' trial pairs, read for every model
#: (``python -m models.align.floor --data gold:en-fr --save assets/position_floor.json``).
BUNDLED_FLOOR = ASSETS / "position_floor.json"


def probe_json(probe: Probe) -> dict:
    """The record as JSON (:func:`.strict.record_json`): rules by name, fields at their default left out (a
    one-look probe has no ``second``, a feature of the model's own no ``reverse``)."""
    return record_json(probe)


def probe_from_json(found: dict, where: str = PROBE_FILE) -> Probe:
    """The record :func:`probe_json` wrote, read strictly (:func:`.strict.read_record`); ValueError naming ``where``
    for anything else, features and weights of different lengths included."""
    probe = read_record(Probe, found, where)
    if len({len(probe.features), len(probe.mean), len(probe.spread), len(probe.weights)}) != 1:
        raise ValueError(f"{where}: features, mean, spread and weights differ in length")
    second = probe.second
    if second and {len(LOOKS), len(second.mean), len(second.spread), len(second.weights)} != {len(LOOKS)}:
        raise ValueError(f"{where}: a second look reads {len(LOOKS)} features")
    return probe


def write_probe(directory: str | Path, probe: Probe, name: str = PROBE_FILE) -> Path:
    """``probe`` as ``name`` in ``directory``."""
    return write_record_file(probe, Path(directory) / name)


@functools.lru_cache(maxsize=1)
def bundled_floor() -> Probe | None:
    """The position floor every model is read beside (None where none is bundled)."""
    return read_probe(BUNDLED_FLOOR.parent, BUNDLED_FLOOR.name)


def read_probe(directory: str | Path, name: str = PROBE_FILE) -> Probe | None:
    """The probe ``name`` in ``directory`` (beside a model: its ``probe.json``), or None without one; ValueError for
    a file that is not one."""
    path = Path(directory) / name
    found = read_json_file(path)
    return None if found is None else probe_from_json(found, path.name)
