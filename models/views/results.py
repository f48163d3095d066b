"""What the Models & results and answer pages show of the bundled translators, read from the records beside each
checkpoint (training, evaluation, alignment, heads, faithfulness, probe): one :class:`ModelResults` per model, every
table in rows by column title and every figure in words."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..analysis.lengths import LengthEnds, ends, figure_2_finding
from ..nouns.attention_map import Reading
from ..storage.cards.metadata import SUPERVISION
from ..storage.cards.render import (
    bucket_label,
    load_records,
    model_description,
    results_rows,
    scored_set_name,
    training_data,
)
from ..storage.commands import for_people
from ..storage.hub import bundled_models, resolve
from ..storage.languages import language_name
from ..storage.loaded import LoadedModel
from ..storage.model_facts import model_facts
from ..storage.records.alignment_rows import (
    BUNDLED_BASELINE,
    AlignmentRow,
    aer_by_head,
    alignment_commands,
    alignment_table,
    read_alignment,
    recorded,
)
from ..storage.records.evaluation import EvaluationRecord
from ..storage.records.head_scores import importance_grid, read_heads
from ..storage.records.matrix_scores import MatrixScore, matrix_scores, read_faithfulness
from ..storage.records.training import TrainingRecord, best_validation, quality_per_minute, training_summary
from .naming import model_name

Grid = tuple[list[str], list[str], list[list[float | None]]]  # row labels, column labels, a value a cell


@dataclass(frozen=True)
class Training:
    """How one model was made, in words, with the commands that made and measured it."""

    parameters: int
    description: str
    data: str  # the corpora, credited
    summary: str  # steps, minutes, machine
    best: str  # its best validation BLEU and where
    commands: tuple[str, ...]
    evaluations: tuple[str, ...]  # the commands that measured its test sets; none: not evaluated


@dataclass(frozen=True)
class HeadImportance:
    """Each head's validation BLEU drop when it alone is switched off, and how many can go (``heads.json``)."""

    grid: Grid
    sentences: int
    can_go: int
    of: int
    budget: float


@dataclass(frozen=True)
class ModelResults:
    """Everything measured of one bundled model."""

    name: str  # its bundled name
    training: Training | None
    problem: str | None  # why its training record cannot be read; None when it can
    tests: tuple[dict, ...]  # test set, decoding, BLEU, BLEU (lowercased), chrF
    lengths: tuple[dict, ...]  # test set, source words, first, BLEU, sentences: BLEU by sentence length
    ends: dict[str, LengthEnds]  # by test set: the shortest and the longest sentences' BLEU
    curve: tuple[dict, ...]  # minutes, step, validation set, BLEU
    alignment: tuple[AlignmentRow, ...]
    aer_grids: dict[bool, Grid]  # by "read one step later": each head's test AER
    importance: HeadImportance | None
    scores: tuple[MatrixScore, ...]  # which matrix to believe
    faithfulness_command: str | None


def _training(training: TrainingRecord, evaluation: EvaluationRecord | None) -> Training:
    return Training(training.parameters, model_description(training), training_data(training),
                    training_summary(training), best_validation(training), tuple(map(for_people, training.commands)),
                    tuple(map(for_people, evaluation.commands)) if evaluation else ())


def _importance(directory: Path) -> HeadImportance | None:
    record = read_heads(directory)
    if record is None:
        return None
    prune = record.pruning
    return HeadImportance(importance_grid(record), record.sentences, prune.can_go, prune.of, prune.budget)


def model_results(name: str) -> ModelResults:
    """What is measured of the bundled model ``name``."""
    directory = resolve(name)
    try:
        training, evaluation = load_records(directory)
        problem = None
    except (OSError, ValueError) as e:
        training, evaluation, problem = None, None, f"no training record ({e})"
    tests = evaluation.test_sets if evaluation else ()
    lengths = [{"test set": scored_set_name(t), "source words": bucket_label(b.min_words, b.max_words),
                "first": b.min_words, "BLEU": b.greedy_bleu, "sentences": b.sentences} for t in tests for b in t.by_length]
    alignment = recorded(directory)
    grids = {shifted: grid for shifted in (False, True) if (grid := aer_by_head(alignment, "test", shifted))}
    faithfulness = read_faithfulness(directory)
    return ModelResults(
        name, training and _training(training, evaluation), problem,
        tuple(results_rows(evaluation)) if evaluation else (), tuple(lengths),
        {scored_set_name(t): ends(t.by_length, lambda b: bucket_label(b.min_words, b.max_words)) for t in tests},
        tuple(quality_per_minute(training)) if training else (), tuple(alignment), grids,
        _importance(directory), tuple(matrix_scores(directory)), faithfulness and faithfulness.command)


def bundled_results() -> list[ModelResults]:
    """:func:`model_results` of every bundled model, in their order."""
    return [model_results(name) for name in bundled_models()]


def figure_2(results: list[ModelResults], test: str) -> str | None:
    """Bahdanau et al.'s Figure 2 on ``test``, in a sentence: the no-attention model against the attention models
    from the shortest sentences to the longest; None without those models' figures."""
    found = {r.name: r.ends[test] for r in results if test in r.ends}
    attention = {model_name(m): found[m] for m in ("additive", "dot") if m in found}
    return figure_2_finding(found["none"], attention) if "none" in found and attention else None


def in_use(loaded: LoadedModel) -> dict[str, str] | None:
    """What the model in use is, by what is said of it, in words (raw text): where it came from, what it is, its
    languages, size and licence, and the head trained to align; None for a bundled model (the page's tables say
    it all)."""
    facts = model_facts(loaded)
    if facts.bundled:
        return None
    (source, target), head = facts.languages, facts.supervised
    return {"From": facts.origin, "What": facts.description,
            "Languages": f"{language_name(source, 'not said')} → {language_name(target, 'not said')}",
            "Parameters": f"{facts.parameters:,}", "Licence": facts.licence or "its card names none",
            "Trained to align": f"{head.label.capitalize()}. {SUPERVISION}" if head else
            "no head, as far as its card says"}


def alignment(results: list[ModelResults]) -> tuple[list[dict], list[str]]:
    """The table of AER against people (the models, eflomal's links, the published figures) by column title, and
    the commands that measured it."""
    found = {model_name(r.name): list(r.alignment) for r in results if r.alignment}
    baseline = read_alignment(BUNDLED_BASELINE)
    return alignment_table(found, baseline), [for_people(c) for c in alignment_commands(found, baseline)]


@dataclass(frozen=True)
class ResultsPage:
    """What the Models & results page draws of the bundled models, each named as the page names it
    (:func:`models.views.naming.model_name`): tables in rows by column title, each chart's rows, key and title."""

    problems: tuple[str, ...]  # a model whose training record cannot be read, and why
    tests: tuple[dict, ...]  # a row a model and test set: BLEU, chrF
    trained: tuple[tuple[str, Training], ...]  # (model, how it was made)
    lengths: dict[str, tuple[tuple[dict, ...], str | None]]  # by test set: BLEU by length, Figure 2 in a sentence
    curves: tuple[dict, ...]  # validation BLEU against training minutes
    alignment: tuple[list[dict], list[str]]  # AER against people, and its commands
    believed: tuple[dict, ...]  # which matrix to believe
    believe_commands: tuple[str, ...]
    aer_grids: tuple[tuple[str, str, Grid], ...]  # (chart key, title, each head's AER)
    importance: tuple[tuple[str, str, HeadImportance], ...]  # (chart key, title, each head's BLEU drop)

    @property
    def greedy_bleu(self) -> tuple[dict, ...]:
        """Each model's greedy BLEU on each test set (``model``, ``test set``, ``BLEU``): the page's first picture."""
        return tuple({k: row[k] for k in ("model", "test set", "BLEU")} for row in self.tests
                     if row["decoding"] == "greedy")


def believed_row(score: MatrixScore) -> dict:
    """A matrix's row of "Which matrix to believe?" (:meth:`~models.storage.records.matrix_scores.MatrixScore.
    table_row`) with each reading named as the matrix names it ("layer 2", "layer 1, head 4, read one step later"),
    never by its key."""
    row = score.table_row()
    for column, found in (("aligned at", score.aligned), ("explained at", score.explained)):
        if found and found.reading:
            reading = Reading.from_key(found.reading)
            at = score.matrix.label(reading)
            row[column] = at + (f", {found.method}" if column == "aligned at" else "")
    return row


def results_page(results: list[ModelResults]) -> ResultsPage:
    """The page's figures of ``results`` (:func:`bundled_results`)."""
    name = {r.name: model_name(r.name) for r in results}
    test_sets = dict.fromkeys(point["test set"] for r in results for point in r.lengths)  # in the order first seen
    lengths = {test: (tuple({"model": name[r.name], **point} for r in results for point in r.lengths
                            if point["test set"] == test), figure_2(results, test)) for test in test_sets}
    when = {False: "", True: ", read one step later"}
    return ResultsPage(
        tuple(f"{r.name}: {r.problem}." for r in results if r.problem),
        tuple({"model": name[r.name], **row} for r in results for row in r.tests),
        tuple((name[r.name], r.training) for r in results if r.training),
        lengths,
        tuple({"model": name[r.name], **point} for r in results for point in r.curve),
        alignment(results),
        tuple({"model": name[r.name], **believed_row(score)} for r in results for score in r.scores),
        tuple(dict.fromkeys(for_people(r.faithfulness_command) for r in results if r.faithfulness_command)),
        tuple((f"aer_heads_{r.name}{'_shifted' * shifted}", f"{name[r.name]}: which head aligns{when[shifted]}? AER "
               "on the test set, each layer's heads and their mean", grid)
              for r in results for shifted, grid in r.aer_grids.items()),
        tuple((f"head_importance_{r.name}", f"{name[r.name]}: which heads matter? Validation BLEU lost when a head "
               "alone is switched off", r.importance) for r in results if r.importance is not None))
