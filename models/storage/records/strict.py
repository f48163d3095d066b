"""The JSON records beside a checkpoint as frozen dataclasses: read strictly (a field unknown or missing is refused
with the file's name, so a record of another version never reads as something it is not) and written back as they
were read.

A record class declares its fields with types this reader knows: ``str``, ``int``, ``float``, ``bool``, an ``Enum``
(by its value), a ``Literal`` (one of its values), a noun written by its name (:data:`NAMED`: a link rule, a
matrix), another record class, ``tuple[X, ...]`` and ``dict[str, X]`` of one of them, and ``X | Y | None`` (the
first of them the value reads as). A field with a default may be absent (a record from before it existed, or a run
that did not do what it records); it is written back absent when it holds its default. A field's metadata may give
the name the file spells it with (``JSON``: ``"trial aer"``) and a pair of functions that read and write a value the
file writes in a form of its own (``CODEC``).
"""
from __future__ import annotations

import dataclasses
import json
import types
import typing
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar

from ...nouns.link_rule import LinkRule
from ...nouns.matrix import Matrix, matrix_named

R = TypeVar("R")
JSON, CODEC = "json", "codec"  # a field's metadata: its name in the file; (read, write) for a form of its own
#: The nouns a record writes by name, each with what reads the name back and what writes it.
NAMED = {LinkRule: (LinkRule.parse, str), Matrix: (matrix_named, lambda matrix: matrix.name)}


def _read(kind: Any, found: Any, where: str) -> Any:
    """``found`` (parsed JSON) as ``kind`` (a resolved type hint)."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (types.UnionType, typing.Union):  # X | Y | None: the first that reads it
        if found is None and type(None) in args:
            return None
        kinds = [a for a in args if a is not type(None)]
        for each in kinds[:-1]:
            try:
                return _read(each, found, where)
            except ValueError:
                continue
        return _read(kinds[-1], found, where)
    if origin is typing.Literal:
        if found not in args:
            raise ValueError(f"{where}: expected one of {list(args)}, got {found!r:.60}")
        return found
    if kind in NAMED:
        if not isinstance(found, str):
            raise ValueError(f"{where}: expected a {kind.__name__}'s name, got {found!r:.60}")
        try:
            return NAMED[kind][0](found)
        except ValueError as e:  # it says what it does not know; here, where
            raise ValueError(f"{where}: {e}") from None
    if origin is dict:
        if not isinstance(found, dict) or not all(isinstance(k, str) for k in found):
            raise ValueError(f"{where}: expected an object, got {found!r:.60}")
        return {k: _read(args[1], v, where) for k, v in found.items()}
    if origin is tuple:
        if not isinstance(found, list):
            raise ValueError(f"{where}: expected a list, got {found!r:.60}")
        return tuple(_read(args[0], item, where) for item in found)
    if dataclasses.is_dataclass(kind):
        return read_record(kind, found, where)
    if isinstance(kind, type) and issubclass(kind, Enum):
        try:
            return kind(found)
        except ValueError:
            raise ValueError(f"{where}: expected one of {[k.value for k in kind]}, got {found!r:.60}") from None
    if kind is float and type(found) is int:
        return float(found)
    if type(found) is not kind:
        raise ValueError(f"{where}: expected {kind.__name__}, got {found!r:.60}")
    return found


def _spelled(field: dataclasses.Field) -> str:
    """A field's name in the file."""
    return field.metadata.get(JSON, field.name)


def _field(field: dataclasses.Field, kind: Any, found: Any, where: str) -> Any:
    """One field's value: through its codec where it has one (refused as any other value is), else as ``kind``."""
    if CODEC not in field.metadata:
        return _read(kind, found, where)
    try:
        return field.metadata[CODEC][0](found)
    except (ValueError, TypeError, AttributeError) as e:
        raise ValueError(f"{where}: {_spelled(field)} {found!r:.60} does not read ({e})") from None


def read_record(cls: type[R], found: Any, where: str) -> R:
    """The record of class ``cls`` that JSON ``found`` holds; ValueError naming ``where`` for anything else."""
    fields = {_spelled(f): f for f in dataclasses.fields(cls)}
    needed = {name for name, f in fields.items() if f.default is dataclasses.MISSING}
    if not isinstance(found, dict) or not needed <= set(found) <= set(fields):
        given = sorted(found) if isinstance(found, dict) else type(found).__name__
        optional = f" (optional: {sorted(set(fields) - needed)})" if set(fields) - needed else ""
        raise ValueError(f"{where}: a {cls.__name__} has the fields {sorted(needed)}{optional}, not {given}")
    hints = typing.get_type_hints(cls)
    try:
        return cls(**{f.name: _field(f, hints[f.name], found[name], where) for name, f in fields.items()
                      if name in found})
    except ValueError as e:  # a field's, said where already, or the record's own check (__post_init__)
        if str(e).startswith(where):
            raise
        raise ValueError(f"{where}: {e}") from None


def _at_default(field: dataclasses.Field, value: Any) -> bool:
    """Whether ``value`` is ``field``'s default: None by identity (an array's ``==`` compares cell by cell)."""
    if field.default is dataclasses.MISSING:
        return False
    return value is None if field.default is None else value == field.default


def _json(value: Any) -> Any:
    """A record's value as JSON: a record's fields at their default left out."""
    if type(value) in NAMED:
        return NAMED[type(value)][1](value)
    if dataclasses.is_dataclass(value):
        written = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if not _at_default(f, v):
                written[_spelled(f)] = f.metadata[CODEC][1](v) if CODEC in f.metadata else _json(v)
        return written
    if isinstance(value, (tuple, list)):
        return [_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items()}
    return value


def record_json(record) -> dict:
    """``record`` as JSON, as :func:`read_record` reads it back."""
    return _json(record)


def read_json_file(path: Path) -> Any:
    """The JSON object of a record's file, or None where there is no such file; ValueError for one that is not JSON."""
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path.name}: not JSON ({e})") from None


def read_record_file(cls: type[R], path: Path) -> R | None:
    """The record in ``path``, or None where there is no such file; ValueError for a file that is not one."""
    found = read_json_file(path)
    return None if found is None else read_record(cls, found, path.name)


def write_record_file(record, path: Path) -> Path:
    path.write_text(json.dumps(record_json(record), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
