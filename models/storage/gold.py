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
from ..decoding.trace import RNN_READING, Reading, readings

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


#: Published AER of statistical aligners on the same gold, one direction (Och & Ney 2003; Mihalcea & Pedersen 2003).
PUBLISHED = {"fast_align, same direction (published)": 16.4, "GIZA++ (Mgiza), same direction (published)": 8.0}
ALIGNMENT_FILE = "alignment.json"  # beside a checkpoint: its AER by matrix and method, written by models.align
BUNDLED_BASELINE = ROOT / "assets" / "eflomal.json"  # the statistical aligner's, by models.align.statistical


def _key(result: dict) -> tuple:
    """What one result measured: split, matrix, rule and, for a multi-head model's attention, the reading; and
    whether the rule was chosen on the trial set (a ``--matrix all`` row, kept apart from a rule asked for)."""
    return result["split"], result["matrix"], result["method"], result.get("reading"), "trial aer" in result


def record_alignment(path: str | Path, results: list[dict]) -> None:
    """Add ``results`` (each one scored reading: split, matrix, method, [reading,] aer, …, command) to the JSON
    list at ``path``, replacing earlier results that measured the same thing."""
    path = Path(path)
    new = {_key(r) for r in results}
    kept = [r for r in read_alignment(path) if _key(r) not in new]
    path.write_text(json.dumps([*kept, *results], indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def read_alignment(path: str | Path) -> list[dict]:
    """The results recorded at ``path`` (none when the file is missing)."""
    path = Path(path)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []


def aer_by_head(results: list[dict], split: str, shifted: bool = False
                ) -> tuple[list[str], list[str], list[list[float | None]]] | None:
    """A multi-head model's attention AER on ``split`` as a grid: row labels (layers), column labels (its heads, then
    the layer's mean) and AER per cell (None where not measured), from results that name a ``reading`` (read at
    the writing step, or with ``shifted`` one step later); None without any. Where a reading was scored by several
    rules, the lowest AER is kept."""
    scored = {}
    for r in results:
        reading = Reading.from_key(r["reading"]) if r.get("reading") else None
        if r["split"] == split and r["matrix"] == "attention" and reading and reading.shifted == shifted:
            layer, head = reading.layer + 1, "mean" if reading.head is None else str(reading.head + 1)
            best = scored.get((layer, head))
            scored[layer, head] = r["aer"] if best is None else min(best, r["aer"])
    if not scored or not any(h == "mean" for _, h in scored):  # an RNN's one head is no grid
        return None
    layers = sorted({layer for layer, _ in scored})
    heads = sorted({int(h) for _, h in scored if h != "mean"})
    columns = [str(h) for h in heads] + ["mean"]
    return ([f"layer {n}" for n in layers], [f"head {c}" if c != "mean" else "mean" for c in columns],
            [[scored.get((n, c)) for c in columns] for n in layers])


def trial_best(directory: str | Path, shape: tuple[int, int]) -> dict | None:
    """The attention result with the lowest AER on the gold's trial set recorded beside a model whose attention is
    shaped ``(L, heads)``, over every reading (shifted ones too) and rule; None when none was scored. An RNN's
    results from before readings were recorded read as its one plain head."""
    options = {r.key for r in readings(shape, shifted=True)}
    scored = [{**r, "reading": r.get("reading") or RNN_READING.key}
              for r in read_alignment(Path(directory) / ALIGNMENT_FILE) if r["split"] == "trial"
              and r["matrix"] == "attention" and (r.get("reading") or RNN_READING.key) in options]
    return min(scored, key=lambda r: r["aer"]) if scored else None


def default_reading(directory: str | Path, shape: tuple[int, int], supervised: Reading | None = None
                    ) -> Reading | None:
    """Which reading of a model's attention (shaped ``(L, heads)``) it aligns with: the one with the lowest AER on
    the gold's trial set recorded beside it (chosen on the trial set only, ``python -m models.align --split trial
    --reading all --save``), else the head trained to align (``supervised``, from the model's card), else the
    RNN's only head or a Transformer's last layer's mean. None without attention. The app's heatmap draws its
    plain counterpart (:attr:`Reading.plain`), the step's own attention."""
    if shape == (0, 0):
        return None
    best = trial_best(directory, shape)
    if best:
        return Reading.parse(best["reading"], shape)
    return supervised or (RNN_READING if shape == (1, 1) else Reading(shape[0] - 1, None))


def alignment_rows(results: dict[str, list[dict]], baseline: list[dict]) -> list[dict]:
    """The table of AER against human links: each model's results (by its label; of a multi-head model, the test
    set's), the statistical aligner's and the published figures, each row named by what its links came from."""
    rows = [{**r, "links from": f"{label}: {r['matrix']}" + (f", reading {r['reading']}" if r.get("reading") else "")}
            for label, found in results.items() for r in found
            if (not r.get("reading") or r["split"] == "test") and "trial aer" not in r]  # --matrix all: its own table
    rows += [{**r, "links from": f"eflomal ({r['method']} links)"} for r in baseline]
    return rows + [{"links from": name, "split": "test", "aer": aer} for name, aer in PUBLISHED.items()]
