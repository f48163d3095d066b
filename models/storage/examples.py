"""The curated example sentences in ``assets/examples.txt``."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import ROOT

EXAMPLES_FILE = ROOT / "assets" / "examples.txt"


@dataclass(frozen=True)
class Example:
    text: str
    note: str  # what the sentence shows


def load_examples(path: Path = EXAMPLES_FILE) -> list[Example]:
    """Lines ``sentence | note``; ``#`` lines are comments."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            text, _, note = line.partition("|")
            out.append(Example(text.strip(), note.strip()))
    return out
