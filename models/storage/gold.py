"""Human word alignments (the Hansards gold of Och & Ney 2000): sentence pairs and their Sure / Possible links.

A gold folder holds ``{split}.en``, ``{split}.fr`` (tokenised text, one sentence a line, words separated by
spaces) and ``{split}.gold``: per line, space-separated links, 1-based, English word first — ``i-j`` a Sure link,
``ipj`` a Possible one. Every Sure link is Possible too. Links here are 0-based ``(english, french)`` pairs.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .. import ROOT

Link = tuple[int, int]  # (English word, French word), 0-based


@dataclass(frozen=True)
class GoldPair:
    """One sentence pair: its words and the links people drew between them."""

    english: tuple[str, ...]
    french: tuple[str, ...]
    sure: frozenset[Link]
    possible: frozenset[Link]  # a superset of ``sure``


def parse_links(line: str) -> tuple[frozenset[Link], frozenset[Link]]:
    """Sure and Possible links of one gold line (``1-1 2p3`` → Sure {(0, 0)}, Possible {(0, 0), (1, 2)})."""
    sure, possible = set(), set()
    for token in line.split():
        sep = "-" if "-" in token else "p"
        i, j = token.split(sep)
        link = (int(i) - 1, int(j) - 1)
        if min(link) < 0:
            raise ValueError(f"link {token!r} is not 1-based")
        possible.add(link)
        if sep == "-":
            sure.add(link)
    return frozenset(sure), frozenset(possible)


def read_gold(folder: str | Path, split: str) -> list[GoldPair]:
    """The pairs of ``split`` (e.g. ``test``, ``trial``); raises ValueError when the files disagree."""
    folder = Path(folder)
    lines = {ext: (folder / f"{split}.{ext}").read_text(encoding="utf-8").splitlines() for ext in ("en", "fr", "gold")}
    if len({len(v) for v in lines.values()}) != 1:
        raise ValueError(f"{folder}/{split}.*: the .en, .fr and .gold files have different numbers of lines")
    pairs = []
    for n, (en, fr, gold) in enumerate(zip(lines["en"], lines["fr"], lines["gold"]), 1):
        sure, possible = parse_links(gold)
        english, french = tuple(en.split()), tuple(fr.split())
        if any(i >= len(english) or j >= len(french) for i, j in possible):
            raise ValueError(f"{split}.gold line {n}: a link points past the end of its sentence")
        pairs.append(GoldPair(english, french, sure, possible))
    return pairs


def format_links(links: set[Link] | frozenset[Link]) -> str:
    """Links in the gold's own format, 1-based, sorted: ``1-1 2-3``."""
    return " ".join(f"{i + 1}-{j + 1}" for i, j in sorted(links))


ALIGNMENT_FILE = "alignment.json"  # beside a checkpoint: its AER by matrix and method, written by models.align
BUNDLED_BASELINE = ROOT / "assets" / "eflomal.json"  # the statistical aligner's, by models.align.statistical


def record_alignment(path: str | Path, result: dict) -> None:
    """Add ``result`` (one scored reading: split, matrix, method, aer, …, command) to the JSON list at ``path``,
    replacing an earlier result for the same split, matrix and method."""
    path = Path(path)
    key = (result["split"], result["matrix"], result["method"])
    kept = [r for r in read_alignment(path) if (r["split"], r["matrix"], r["method"]) != key]
    path.write_text(json.dumps([*kept, result], indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def read_alignment(path: str | Path) -> list[dict]:
    """The results recorded at ``path`` (none when the file is missing)."""
    path = Path(path)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
