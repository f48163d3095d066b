"""``alignment.json`` beside a checkpoint, and ``assets/eflomal.json``: AER against people's links, one
:class:`AlignmentRow` per reading and rule scored — read and written here only (``python -m models.align --save``
and ``models.align.statistical --save`` write them; the card, the tables and the pages read them).
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

from ... import ASSETS
from ...nouns.attention_map import RNN_READING, WHOLES, Reading, readings
from ...nouns.link_rule import LinkRule
from ...nouns.matrix import ATTENTION, Matrix, matrix_named

ALIGNMENT_FILE = "alignment.json"  # beside a checkpoint: its AER by matrix and method, written by models.align
BUNDLED_BASELINE = ASSETS / "eflomal.json"  # the statistical aligner's, by models.align.statistical
#: Published AER of statistical aligners on the same gold, one direction (Och & Ney 2003; Mihalcea & Pedersen 2003).
PUBLISHED = {"fast_align, same direction (published)": 16.4, "GIZA++ (Mgiza), same direction (published)": 8.0}
#: Fields the file spells with a space, as the commands have always printed them.
_SPELLED = {"trial_aer": "trial aer", "trained_to_align": "trained to align", "per_pair": "per pair"}
PerPair = tuple[tuple[int, int], ...]  # each pair's share of AER's sums, (|A ∩ S| + |A ∩ P|, |A| + |S|), in order


@dataclass(frozen=True)
class AlignmentRow:
    """One reading of one matrix (or a statistical aligner), its links read by one rule, scored on one split."""

    model: str
    split: str  # "test" or "trial"
    pairs: int
    matrix: Matrix  # a matrix of the registry, or the statistical aligner's links (models.nouns.matrix.ALIGNER)
    method: LinkRule | str  # a matrix's link rule; the statistical aligner's direction or symmetrisation, its words
    aer: float  # %
    precision: float  # %
    recall: float  # %
    links: int
    reading: str | None = None  # a Reading's key; None: an attribution, an aligner, or an RNN recorded before
    row: str | None = None  # a --matrix all row's name: MATRIX.READING
    trial_aer: float | None = None  # a --matrix all row: its rule was chosen on the trial set, at this AER there
    french: str | None = None  # "written" or "tokens": how the gold's French was forced
    trained_to_align: bool = False  # the model's card marks this reading's head as trained to align
    training_pairs: int | None = None  # a statistical aligner's: the pairs it was trained on
    data: str | None = None  # the human links scored against: a set by name (gold:en-fr) or a folder's name
    command: str | None = None
    #: each pair's share of the AER (models.analysis.aer), for a paired test against another row on the same pairs:
    #: kept on the rows the answer compares (each matrix's trial-best, the floor's, the aligner's), None elsewhere
    per_pair: PerPair | None = None

    @property
    def chosen_on_trial(self) -> bool:
        """A ``--matrix all`` row (its rule chosen on the trial set), kept apart from a rule asked for."""
        return self.trial_aer is not None

    @property
    def head_reading(self) -> Reading | None:
        """The layer or head scored; None where the row reads no head (an attribution, an aligner, an RNN recorded
        before readings were: a head-by-head table has no cell for it, and its one head is the RNN's default)."""
        return Reading.from_key(self.reading) if self.reading else None

    @classmethod
    def from_json(cls, found: dict) -> AlignmentRow:
        names = {_SPELLED.get(f.name, f.name): f.name for f in dataclasses.fields(cls)}
        unknown = set(found) - set(names)
        if unknown:
            raise ValueError(f"an alignment result with unknown fields {sorted(unknown)}")
        row = cls(**{names[k]: v for k, v in found.items()})
        matrix = matrix_named(row.matrix)
        rule = row.method if matrix.aligner else LinkRule.parse(row.method)  # the aligner's: its direction, in words
        row = dataclasses.replace(row, matrix=matrix, method=rule)
        if row.per_pair is not None:  # written "agreed/total agreed/total …", one pair after another
            row = dataclasses.replace(row, per_pair=tuple(tuple(map(int, p.split("/"))) for p in row.per_pair.split()))
        return row

    def to_json(self) -> dict:
        """As the file and the commands' printed lines have it: fields left at their defaults left out."""
        written = {"matrix": lambda matrix: matrix.name, "method": str,
                   "per_pair": lambda found: " ".join(f"{a}/{t}" for a, t in found)}
        return {_SPELLED.get(f.name, f.name): written.get(f.name, lambda v: v)(v) for f in dataclasses.fields(self)
                if (v := getattr(self, f.name)) != f.default}

    def _key(self) -> tuple:
        return self.data, self.split, self.matrix, str(self.method), self.reading, self.chosen_on_trial


def record_alignment(path: str | Path, results: list[AlignmentRow]) -> None:
    """Add ``results`` to the file at ``path``, replacing earlier results that measured the same thing (gold set,
    split, matrix, rule, reading, and whether the rule was chosen on the trial set) and keeping every other."""
    path = Path(path)
    new = {r._key() for r in results}
    kept = [r for r in read_alignment(path) if r._key() not in new]
    path.write_text(json.dumps([r.to_json() for r in [*kept, *results]], indent=1, ensure_ascii=False) + "\n",
                    encoding="utf-8")


def read_alignment(path: str | Path) -> list[AlignmentRow]:
    """The results recorded at ``path`` (none when the file is missing)."""
    path = Path(path)
    return [AlignmentRow.from_json(r) for r in json.loads(path.read_text(encoding="utf-8"))] if path.exists() else []


def recorded(directory: str | Path) -> list[AlignmentRow]:
    """The results beside the checkpoint in ``directory``."""
    return read_alignment(Path(directory) / ALIGNMENT_FILE)


def aer_by_head(results: list[AlignmentRow], split: str, shifted: bool = False, matrix: Matrix = ATTENTION
                ) -> tuple[list[str], list[str], list[list[float | None]]] | None:
    """A multi-head model's AER of ``matrix`` (its attention, by default) on ``split`` as a grid: row labels
    (layers), column labels (its heads, then each way its heads are read as one: their mean, any other of
    :data:`~models.nouns.attention_map.WHOLES`) and AER per cell (None where not measured), from results that name a
    ``reading`` (read at the writing step, or with ``shifted`` one step later); None without any. Where a reading
    was scored by several rules, the lowest AER is kept."""
    scored = {}
    for r in results:
        reading = r.head_reading
        if r.matrix == matrix and r.split == split and reading and reading.shifted == shifted:
            layer, head = reading.layer + 1, reading.whole if reading.head is None else int(reading.head + 1)
            best = scored.get((layer, head))
            scored[layer, head] = r.aer if best is None else min(best, r.aer)
    if not scored or not any(isinstance(h, str) for _, h in scored):  # an RNN's one head is no grid
        return None
    layers = sorted({layer for layer, _ in scored})
    found = {h for _, h in scored}
    columns = sorted(h for h in found if isinstance(h, int)) + [w for w in WHOLES if w in found]
    return ([f"layer {n}" for n in layers], [f"head {c}" if isinstance(c, int) else c for c in columns],
            [[scored.get((n, c)) for c in columns] for n in layers])


def trial_best(directory: str | Path, shape: tuple[int, int], matrix: Matrix = ATTENTION,
               heads: bool = False) -> AlignmentRow | None:
    """The result with the lowest AER on the gold's trial set recorded beside a model whose attention is shaped
    ``(L, heads)``, over every reading (shifted ones too) and rule of ``matrix`` (one read head by head: the
    attention, or the full-context attention), of its single heads alone with ``heads``; None when none was scored
    (an RNN's rows from before readings were recorded name none: :func:`default_reading` reads its one head)."""
    options = {r.key for r in readings(shape, shifted=True)}
    read = {r: r.head_reading for r in recorded(directory) if r.split == "trial" and r.matrix == matrix}
    scored = [dataclasses.replace(r, reading=reading.key) for r, reading in read.items()
              if reading and reading.key in options and not (heads and reading.head is None)]
    return min(scored, key=lambda r: r.aer) if scored else None


def default_reading(directory: str | Path, shape: tuple[int, int], supervised: Reading | None = None,
                    matrix: Matrix = ATTENTION) -> Reading | None:
    """Which reading of a model's attention (shaped ``(L, heads)``) it aligns with, under ``matrix`` (the model's
    own: :attr:`~.cards.metadata.CardFacts.aligning_matrix`): the one with the lowest AER on the gold's trial set
    recorded beside it, a single head where it has several (chosen on the trial set only, ``python -m models.align
    --split trial --reading all --save``), else the head trained to align (``supervised``, from the model's card),
    else the RNN's only head or a Transformer's last layer's mean. None without attention. The app's heatmap draws its plain counterpart
    (:attr:`Reading.plain`), the step's own attention."""
    if shape == (0, 0):
        return None
    # one head, where the model has several: a layer's mean blurs what each head reads (the decoder-only's layer 5
    # mean scores 45.7 on trial, its head 2 46.6, and shows a diffuse picture where the head draws a diagonal)
    best = trial_best(directory, shape, matrix, heads=shape[1] > 1) or trial_best(directory, shape, matrix)
    if best:
        return Reading.parse(best.reading, shape)
    return supervised or (RNN_READING if shape == (1, 1) else Reading(shape[0] - 1, None))


def alignment_table(results: dict[str, list[AlignmentRow]], baseline: list[AlignmentRow]) -> list[dict]:
    """The table of AER against human links, by column title: each model's results (by its label; of a multi-head
    model, the test set's), the statistical aligner's and the published figures, each row named by what its links
    came from. The ``--matrix all`` rows have a table of their own (:mod:`.matrix_scores`)."""
    rows = [(f"{label}: {r.matrix.name}" + (f", {Reading.from_key(r.reading).label}" if r.reading else ""), r)
            for label, found in results.items() for r in found
            if (not r.reading or r.split == "test") and not r.chosen_on_trial]
    floors = [r for found in results.values() for r in found if r.matrix.floor and r.split == "test"][:1]
    rows += [("position floor (where the words sit alone, no model)", r) for r in floors]
    rows += [(f"eflomal ({r.method} links)", r) for r in baseline]
    table = [{"links from": name, "read as": str(r.method), "split": r.split, "AER %": r.aer,
              "precision %": r.precision, "recall %": r.recall} for name, r in rows]
    return table + [{"links from": name, "read as": None, "split": "test", "AER %": aer, "precision %": None,
                     "recall %": None} for name, aer in PUBLISHED.items()]


def alignment_commands(results: dict[str, list[AlignmentRow]], baseline: list[AlignmentRow]) -> list[str]:
    """The commands that measured :func:`alignment_table`'s rows, each once."""
    found = [r for rows in results.values() for r in rows if not r.chosen_on_trial] + baseline
    return list(dict.fromkeys(r.command for r in found if r.command))
