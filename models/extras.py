"""The optional extras: packages a feature needs that the app's install (``requirements-app.txt``) leaves out, each
with the one sentence a user gets when it is missing. They are installed by ``requirements-extras.txt``; a test
keeps that file, this list and the imports of models/ and pages/ in step.

A leaf: it imports nothing of this project, so every layer may ask it for a package.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass
from types import ModuleType

INSTALL = "pip install -r requirements-extras.txt"


@dataclass(frozen=True)
class Extra:
    """One optional package: its import name, its distribution on PyPI and what needs it."""

    module: str
    distribution: str
    needed_for: str

    @property
    def message(self) -> str:
        return f"{self.needed_for} needs {self.distribution}, an optional extra: {INSTALL} (or pip install " \
               f"{self.distribution})."


EXTRAS = {extra.module: extra for extra in (
    Extra("bertviz", "bertviz", "The bertviz export"),
    Extra("eflomal", "eflomal", "The statistical aligner (python -m models.align.statistical) and guided alignment "
                               "(python -m models.train --guided-alignment eflomal)"),
    Extra("sacremoses", "sacremoses", "The statistical aligner (python -m models.align.statistical)"),
)}


class MissingExtra(ModuleNotFoundError):
    """An optional extra is not installed; ``str()`` is the sentence to show."""


def available(module: str) -> bool:
    """Whether the extra ``module`` is installed, found without importing it (some imports are slow)."""
    if module in sys.modules:
        return sys.modules[module] is not None  # None: an import that is known to fail
    return importlib.util.find_spec(module) is not None


def require(module: str) -> ModuleType:
    """The extra ``module``, imported; :class:`MissingExtra` with its sentence when it is not installed."""
    extra = EXTRAS[module]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name != module:  # the extra is there but broken inside: that is no missing extra
            raise
        raise MissingExtra(extra.message, name=module) from e
