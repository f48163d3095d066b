"""Human word alignments (the Hansards gold of Och & Ney 2000): sentence pairs and their Sure / Possible links.

A gold folder holds ``{split}.en``, ``{split}.fr`` (tokenised text, one sentence a line, words separated by
spaces) and ``{split}.gold``: per line, space-separated links, 1-based, English word first — ``i-j`` a Sure link,
``ipj`` a Possible one. Every Sure link is Possible too. Links here are 0-based ``(english, french)`` pairs.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

Link = tuple[int, int]  # (source word, target word), 0-based: of the Hansards gold, (English, French)


@dataclass(frozen=True)
class GoldPair:
    """One sentence pair: its source and target words (a model's source and target: of the Hansards gold, English
    and French) and the links people drew between them, source word first."""

    source: tuple[str, ...]
    target: tuple[str, ...]
    sure: frozenset[Link]
    possible: frozenset[Link]  # a superset of ``sure``

    def reversed(self) -> GoldPair:
        """The same pair read the other way: target words first, each link turned round."""
        return GoldPair(self.target, self.source, _turned(self.sure), _turned(self.possible))


def _turned(links: frozenset[Link]) -> frozenset[Link]:
    return frozenset((j, i) for i, j in links)


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


def write_links(path: Path, pairs: list[set[Link]] | list[frozenset[Link]]) -> Path:
    """Each pair's links, a line each, in the gold's own format (any AER tool rescores them)."""
    path.write_text("".join(format_links(links) + "\n" for links in pairs), encoding="utf-8")
    return path
