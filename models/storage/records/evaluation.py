"""The evaluation record (``evaluation.json``, written by :mod:`models.evaluate`) as frozen dataclasses, read and
written here alone: each test set's sacreBLEU scores, greedy and with a beam, their signatures, BLEU by source
length, a few examples and the command that measured them. A later evaluation is merged in by test set
(:func:`merged`): it replaces the sets it measured again and keeps every other."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .strict import read_record_file, write_record_file

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
    beam_size: int  # 1: greedy only
    command: str  # the evaluation that measured this set
    beam: Scores | None = None

    @property
    def key(self) -> tuple[str, str]:
        return self.data, self.split


@dataclass(frozen=True)
class EvaluationRecord:
    """What ``python -m models.evaluate`` measured of a checkpoint, a test set at a time."""

    model: str  # the checkpoint's folder name
    variant: str
    test_sets: tuple[TestScores, ...]

    @property
    def commands(self) -> tuple[str, ...]:
        """The commands that measured its sets, each once, in order."""
        return tuple(dict.fromkeys(t.command for t in self.test_sets))


def merged(before: EvaluationRecord | None, new: EvaluationRecord) -> EvaluationRecord:
    """``new`` with every test set of ``before`` that it did not measure again, in their first order."""
    if before is None:
        return new
    fresh = {t.key: t for t in new.test_sets}
    kept = [fresh.pop(t.key, t) for t in before.test_sets]
    return EvaluationRecord(new.model, new.variant, (*kept, *fresh.values()))


def read_evaluation(directory: str | Path) -> EvaluationRecord | None:
    """The evaluation record beside a checkpoint; None where it was not evaluated; ValueError naming the file for
    one that is not a record of this version."""
    return read_record_file(EvaluationRecord, Path(directory) / EVALUATION_FILE)


def write_evaluation(record: EvaluationRecord, path: Path) -> Path:
    """``record`` merged into the evaluation already at ``path`` (by test set), written there."""
    return write_record_file(merged(read_record_file(EvaluationRecord, path), record), path)
