"""The curated example sentences in ``assets/examples.txt``: grouped under ``## `` headings, one marked ``* `` as
the sentence a new visitor sees first, one marked ``+ `` as the one the Learning page replays first."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import ASSETS

EXAMPLES_FILE = ASSETS / "examples.txt"  # English: what the bundled English→French models read


def examples_file(language: str = "en") -> Path:
    """The curated sentences of one source language (an ISO 639-1 code): ``examples.txt`` for English,
    ``examples.LANG.txt`` for another (``examples.fr.txt``), which need not exist."""
    return EXAMPLES_FILE if language == "en" else EXAMPLES_FILE.with_suffix(f".{language}.txt")


@dataclass(frozen=True)
class Example:
    text: str
    note: str  # what the sentence shows
    group: str = ""  # the heading it is listed under
    opens: bool = False  # the sentence a new visitor sees first
    replayed: bool = False  # the one the Learning page opens on: a word-order change the models learn


def load_examples(path: Path = EXAMPLES_FILE) -> list[Example]:
    """Lines ``sentence | note``, ``* sentence | note`` for the one opened first, ``+ sentence | note`` for the one
    replayed first; ``## heading`` starts a group; other ``#`` lines are comments. A file that does not exist has
    none."""
    if not path.is_file():
        return []
    out, group = [], ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            group = line.removeprefix("## ").strip()
        elif line.strip() and not line.startswith("#"):
            text, _, note = line.removeprefix("* ").removeprefix("+ ").partition("|")
            out.append(Example(text.strip(), note.strip(), group, line.startswith("* "), line.startswith("+ ")))
    return out


def first_example(examples: list[Example]) -> Example:
    """The example a new visitor sees first: the one marked, else the first."""
    return next((e for e in examples if e.opens), examples[0])
