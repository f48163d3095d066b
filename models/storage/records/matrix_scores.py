"""Which matrix to believe, from what a checkpoint's folder records: each matrix scored against people
(``alignment.json``'s ``--matrix all`` rows, each reading and rule chosen on the trial set: :mod:`.alignment_rows`)
and against the model itself (``faithfulness.json``, written by ``python -m models.faithfulness --save`` and read
here) — one :class:`MatrixScore` per matrix, for the card and the app's Models page.

Against people, the row is the reading with the lowest AER on the *trial* set, its test AER shown: chosen without
the test set. Against the model, the row is the layer (or head) with the highest comprehensiveness on the
sentences scored; there is no held-out set for it, so each matrix shows its best, the random ranking its only one.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...nouns.matrix import Matrix
from .alignment_rows import AlignmentRow, recorded
from .strict import read_record_file, write_record_file

FAITHFULNESS_FILE = "faithfulness.json"


@dataclass(frozen=True)
class FaithfulnessRow:
    """One matrix at one reading, its deletion scores averaged over every step scored (nats)."""

    row: str  # MATRIX.READING, as models.align names it
    matrix: Matrix  # a matrix of the registry, or the random ranking (models.nouns.matrix.RANDOM)
    comprehensiveness: float  # higher is better
    sufficiency: float  # lower is better
    steps: int
    reading: str | None = None  # a Reading's key; None: an attribution or the random floor


@dataclass(frozen=True)
class Faithfulness:
    """``faithfulness.json``: every row, on which sentences, and the command that scored them."""

    model: str
    data: str
    sentences: int
    deletions: int  # most words masked: k = 1 … deletions
    rows: tuple[FaithfulnessRow, ...]
    command: str


def write_faithfulness(directory: str | Path, record: Faithfulness) -> None:
    write_record_file(record, Path(directory) / FAITHFULNESS_FILE)


def read_faithfulness(directory: str | Path) -> Faithfulness | None:
    """The faithfulness record beside a checkpoint (read strictly: :mod:`.strict`), or None without one."""
    return read_record_file(Faithfulness, Path(directory) / FAITHFULNESS_FILE)


@dataclass(frozen=True)
class MatrixScore:
    """One matrix: its AER against people at the reading and rule chosen on the trial set, and its deletion scores
    at its best reading; either None where not measured."""

    matrix: Matrix
    aligned: AlignmentRow | None
    explained: FaithfulnessRow | None

    def table_row(self) -> dict:
        """The row as the card and the Models page show it, by column title."""
        a, f = self.aligned, self.explained
        return {"matrix": self.matrix.name, "aligned at": f"{a.reading or '—'}, {a.method}" if a else "",
                "AER %": a.aer if a else None, "trial AER %": a.trial_aer if a else None,
                "explained at": (f.reading or "—") if f else "",
                "comprehensiveness": f.comprehensiveness if f else None, "sufficiency": f.sufficiency if f else None}


def aligned(directory: str | Path) -> dict[Matrix, AlignmentRow]:
    """Each matrix's ``--matrix all`` row with the lowest trial AER (the first of equals)."""
    best: dict[Matrix, AlignmentRow] = {}
    for r in recorded(directory):
        if r.chosen_on_trial and (r.matrix not in best or r.trial_aer < best[r.matrix].trial_aer):
            best[r.matrix] = r
    return best


def explained(record: Faithfulness | None) -> dict[Matrix, FaithfulnessRow]:
    """Each matrix's row with the highest comprehensiveness (the first of equals)."""
    best: dict[Matrix, FaithfulnessRow] = {}
    for r in record.rows if record else ():
        if r.matrix not in best or r.comprehensiveness > best[r.matrix].comprehensiveness:
            best[r.matrix] = r
    return best


def matrix_scores(directory: str | Path) -> list[MatrixScore]:
    """One score per matrix, aligned or explained or both; [] when neither was measured."""
    people, model = aligned(directory), explained(read_faithfulness(directory))
    return [MatrixScore(m, people.get(m), model.get(m)) for m in dict.fromkeys([*people, *model])]


def _cell(value) -> str:
    return "" if value is None else f"{value:.1f}" if isinstance(value, float) and abs(value) >= 10 else str(value)


def matrix_table(directory: str | Path) -> str:
    """The card's table of :func:`matrix_scores` with the commands that measured it."""
    rows = [s.table_row() for s in matrix_scores(directory)]
    if not rows:
        return ("Not measured yet: run `python -m models.align --matrix all --save` and "
                "`python -m models.faithfulness --save`.")
    names = list(rows[0])
    lines = ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    lines += ["| " + " | ".join(_cell(r[n]) for n in names) + " |" for r in rows]
    record = read_faithfulness(directory)
    commands = [r.command for r in recorded(directory) if r.chosen_on_trial and r.command][:1]
    commands += [record.command] if record else []
    said = (f" Deletion scores on the first {record.sentences} sentences of {record.data}, the model's own "
            "greedy translations, in nats, each matrix at its best layer there (random has one)." if record else "")
    return ("\n".join(lines) + f"\n\nAER: lower is better. Comprehensiveness: how far log p of the written piece "
            f"falls with the 1–{record.deletions if record else 5} source words a matrix ranks highest masked "
            f"(higher is better); sufficiency: with only them kept (lower is better).{said}\n\n"
            + "\n".join("    " + c for c in commands))
