"""``alignment.json`` beside a checkpoint, and ``assets/eflomal.json``: AER against people's links, one
:class:`AlignmentRow` per reading and rule scored — read and written here only (``python -m models.align --save``
and ``models.align.statistical --save`` write them; the card, the tables and the pages read them).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from ... import ASSETS
from ...nouns.attention_map import RNN_READING, WHOLES, Reading, readings
from ...nouns.link_rule import LinkRule
from ...nouns.matrix import ATTENTION, Matrix
from .strict import CODEC, JSON, read_json_file, read_record, record_json

ALIGNMENT_FILE = "alignment.json"  # beside a checkpoint: its AER by matrix and method, written by models.align
BUNDLED_BASELINE = ASSETS / "eflomal.json"  # the statistical aligner's, by models.align.statistical
#: Published AER of statistical aligners on the same gold, one direction (Och & Ney 2003; Mihalcea & Pedersen 2003).
PUBLISHED = {"fast_align, same direction (published)": 16.4, "GIZA++ (Mgiza), same direction (published)": 8.0}
PerPair = tuple[tuple[int, int], ...]  # each pair's share of AER's sums, (|A ∩ S| + |A ∩ P|, |A| + |S|), in order


def _shares(written: str) -> PerPair:
    """Each pair's share as the file writes them: ``"agreed/total agreed/total …"``, one pair after another."""
    if not isinstance(written, str):
        raise ValueError("expected agreed/total pairs")
    return tuple((int(a), int(t)) for a, t in (p.split("/") for p in written.split()))


def _spelled(name: str, codec: tuple | None = None) -> dict:
    """A field the file spells with a space, as the commands have always printed it (and its codec)."""
    return {"metadata": {JSON: name, **({CODEC: codec} if codec else {})}}


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
    # a --matrix all row: its rule was chosen on the trial set, at this AER there
    trial_aer: float | None = field(default=None, **_spelled("trial aer"))
    french: Literal["written", "tokens"] | None = None  # how the gold's French was forced
    # the model's card marks this reading's head as trained to align
    trained_to_align: bool = field(default=False, **_spelled("trained to align"))
    training_pairs: int | None = None  # a statistical aligner's: the pairs it was trained on
    data: str | None = None  # the human links scored against: a set by name (gold:en-fr) or a folder's name
    command: str | None = None
    #: each pair's share of the AER (models.analysis.aer), for a paired test against another row on the same pairs:
    #: kept on the rows the answer compares (each matrix's trial-best, the floor's, the aligner's), None elsewhere
    per_pair: PerPair | None = field(default=None, **_spelled("per pair", (_shares, lambda found: " ".join(
        f"{a}/{t}" for a, t in found))))

    def __post_init__(self):
        if self.matrix.aligner:  # the aligner's method is its direction or symmetrisation, in words
            object.__setattr__(self, "method", str(self.method))
        elif not isinstance(self.method, LinkRule):
            raise ValueError(f"{self.matrix.name}'s links are read by a link rule, not {self.method!r}")

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
    def from_json(cls, found: dict, where: str = ALIGNMENT_FILE) -> AlignmentRow:
        """A row as the file and the commands' printed lines have it, read strictly (:mod:`.strict`)."""
        return read_record(cls, found, where)

    def to_json(self) -> dict:
        """As the file and the commands' printed lines have it: fields left at their defaults left out."""
        return record_json(self)

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
    found = read_json_file(path)
    if found is not None and not isinstance(found, list):
        raise ValueError(f"{path.name}: expected a list of results")
    return [AlignmentRow.from_json(r, path.name) for r in found or ()]


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
    scored = [replace(r, reading=reading.key) for r, reading in read.items()
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
