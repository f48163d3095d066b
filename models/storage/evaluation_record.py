"""The evaluation record (``evaluation.json``, written by :mod:`models.evaluate`) as frozen dataclasses, read and
written here alone: each test set's sacreBLEU scores, greedy and with a beam, their signatures, BLEU by source
length and a few examples."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .records import read_record_file, write_record_file

EVALUATION_FILE = "evaluation.json"


@dataclass(frozen=True)
class Scores:
    """One decoding's scores on a test set (sacreBLEU: cased, lowercased, chrF)."""

    bleu: float
    bleu_lc: float
    chrf: float


@dataclass(frozen=True)
class LengthBucket:
    """Cased BLEU of the sentences whose source has ``min_words`` to ``max_words`` words."""

    min_words: int
    max_words: int  # the open-ended last bucket's is 1000
    sentences: int
    greedy_bleu: float
    beam_bleu: float | None = None  # where a beam was scored


@dataclass(frozen=True)
class Example:
    source: str
    references: tuple[str, ...]
    greedy: str


@dataclass(frozen=True)
class TestScores:
    """One test set, scored."""

    __test__ = False  # a record, not a test class, whatever pytest's collector thinks of its name

    data: str  # the corpus's name: "multi30k", "sacrebleu:wmt14"
    split: str
    sentences: int
    references: int  # the most references a sentence has
    greedy: Scores
    signatures: dict[str, str]  # each metric's sacreBLEU signature
    by_length: tuple[LengthBucket, ...]
    examples: tuple[Example, ...]
    beam: Scores | None = None


@dataclass(frozen=True)
class EvaluationRecord:
    """What ``python -m models.evaluate`` measured of a checkpoint, and the command that did."""

    model: str  # the checkpoint's folder name
    variant: str
    beam_size: int  # 1: greedy only
    test_sets: tuple[TestScores, ...]
    command: str


def read_evaluation(directory: str | Path) -> EvaluationRecord | None:
    """The evaluation record beside a checkpoint; None where it was not evaluated; ValueError naming the file for
    one that is not a record of this version."""
    return read_record_file(EvaluationRecord, Path(directory) / EVALUATION_FILE)


def write_evaluation(record: EvaluationRecord, path: Path) -> Path:
    return write_record_file(record, path)
