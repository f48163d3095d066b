"""The training record (``training.json``, written by :mod:`models.train`) as frozen dataclasses, read and written
here alone; and what it says, in words and rows: how long the run took and from where it started, the validation
point kept and its weights, the learning rate's course, and quality per minute — for the model card and the Models
page.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...network.family import variant_of
from ...network.learning.step import DEFAULT_LR
from .strict import read_record, read_record_file, write_record_file

TRAINING_FILE = "training.json"


@dataclass(frozen=True)
class TrainedOn:
    """One training corpus and how it was sampled."""

    name: str
    train_split: str
    val_split: str
    weight: float  # its sampling weight among the corpora
    train_pairs: int


@dataclass(frozen=True)
class ValidatedOn:
    """A set validated on but not trained on: a folder's split, or a test set by name (no split)."""

    name: str
    val_split: str | None = None


@dataclass(frozen=True)
class Schedule:
    """The learning rate's plan over the budget."""

    shape: str  # wsd, linear, cosine
    lr: float  # after warm-up
    warmup_steps: int
    planned_steps: int
    minutes: float | None  # the wall-clock budget, where one was given
    ema_decay: float  # of the weights' moving average


@dataclass(frozen=True)
class CorpusScore:
    val_loss: float
    val_bleu: float


@dataclass(frozen=True)
class ValidationPoint:
    """One validation point of the run: the better of the raw weights and their average, on every corpus."""

    step: int
    epoch: float
    minutes: float  # training and validation time so far
    lr: float
    train_loss: float  # mean since the last point
    val_loss: float  # mean over the corpora
    val_bleu: float  # mean over the corpora: what the checkpoint is chosen on
    by_corpus: dict[str, CorpusScore]
    weights: str  # "raw" or "average": which were better here
    raw_val_bleu: float
    average_val_bleu: float


@dataclass(frozen=True)
class Start:
    """The checkpoint a continued run (``--init-from``) started from, and what its own record said of it."""

    checkpoint: str
    commands: tuple[str, ...] | None = None  # None (and below): a checkpoint without a record of its own
    started_from: Start | None = None
    data: tuple[TrainedOn, ...] | None = None
    architecture: str | None = None
    score: str | None = None
    wall_clock_s: float | None = None
    steps: int | None = None
    epochs: float | None = None
    cpu: str | None = None
    threads: int | None = None
    device: str | None = None


@dataclass(frozen=True)
class Guided:
    """The head trained toward word links (guided alignment)."""

    reading: str  # its key: "1.4.shifted"
    weight: float  # the alignment loss's weight
    links: str  # what made the links, in words
    links_seconds: float  # the time making them took
    full_context: bool | None = None  # read in a second pass, the future mask lifted (None: a record from before)


@dataclass(frozen=True)
class TrainingRecord:
    """What ``python -m models.train`` did: its commands, data, schedule, time, machine, sizes and curve."""

    commands: tuple[str, ...]  # every invocation, a resumed run's too
    data: tuple[TrainedOn, ...]
    validated_only_on: tuple[ValidatedOn, ...]
    architecture: str  # rnn, transformer, decoder-only
    languages: tuple[str, ...]  # source, target
    parameters: int
    schedule: Schedule
    wall_clock_s: float
    steps: int
    epochs: float
    best_val_bleu: float
    threads: int
    cpu: str
    first_step_s: tuple[float, ...]  # each invocation's first step
    peak_memory_mib: float
    processes: int
    device: str
    history: tuple[ValidationPoint, ...]
    started_from: Start | None = None
    score: str | None = None  # an RNN's attention score
    kept: str | None = None  # "best" (None: a record from before the choice) or "last", the budget's end
    guided_alignment: Guided | None = None


def read_training(directory: str | Path) -> TrainingRecord | None:
    """The training record beside a checkpoint; None where it has none (trained elsewhere); ValueError naming the
    file for one that is not a record of this version."""
    return read_record_file(TrainingRecord, Path(directory) / TRAINING_FILE)


def training_from_json(found: dict) -> TrainingRecord:
    return read_record(TrainingRecord, found, TRAINING_FILE)


def write_training(record: TrainingRecord, directory: str | Path) -> Path:
    return write_record_file(record, Path(directory) / TRAINING_FILE)


def trained_variant(directory: str | Path) -> str | None:
    """The family a checkpoint's training record names (:func:`~models.network.family.variant_of` its architecture and
    score); None where it has none (trained elsewhere)."""
    record = read_training(directory)
    return record and variant_of(record.architecture, record.score)


def training_summary(training: TrainingRecord) -> str:
    """'11,200 steps (3.26 epochs) in 150.0 min on cpu, AMD EPYC (1 thread(s))': for the card and the Models page."""
    runs = len(training.commands)
    threads = f"{training.threads} thread(s)"
    if runs > 1:
        threads = f"{runs} invocations, the last with {threads}"
    done = f"{training.steps:,} steps ({training.epochs:.2f} epochs)"
    return (f"{done} in {training.wall_clock_s / 60:.1f} min on {training.device}, {training.cpu} ({threads})"
            f"{lineage(training)}")


def lineage(training: TrainingRecord) -> str:
    """'; continued from en-fr-additive (150.0 min of its own): 310.0 min in all' for a run started from a
    checkpoint (``--init-from``), following each start back to a run from scratch."""
    starts, total, start = [], training.wall_clock_s, training.started_from
    while start is not None:
        own = start.wall_clock_s or 0.0
        starts.append(f"{Path(start.checkpoint).name} ({own / 60:.1f} min of its own)")
        total += own
        start = start.started_from
    if not starts:
        return ""
    return f"; continued from {', itself from '.join(starts)}: {total / 60:.1f} min in all"


def best_point(training: TrainingRecord) -> ValidationPoint:
    """The validation point the checkpoint was taken at: the best mean BLEU (the first of equals), or the last
    where the run kept its last (``--keep last``)."""
    if training.kept == "last":
        return training.history[-1]
    return max(training.history, key=lambda r: r.val_bleu)


def best_validation(training: TrainingRecord) -> str:
    """'38.1 (step 9,000, epoch 2.6; multi30k 45.0, tatoeba-en-fr 31.2)': the chosen point's validation BLEU."""
    best = best_point(training)
    where = f"step {best.step:,}, epoch {best.epoch:.2f}"
    if len(best.by_corpus) > 1:
        where += "; " + ", ".join(f"{name} {v.val_bleu:.1f}" for name, v in best.by_corpus.items())
    return f"{best.val_bleu:.1f} ({where})"


def learning_rate(training: TrainingRecord) -> str:
    """How the learning rate went: the planned schedule over the budget."""
    plan = training.schedule
    default = "the default" if plan.lr == DEFAULT_LR else f"not the default {DEFAULT_LR:g}"
    budget = f"{plan.planned_steps:,} steps" + (f" or {plan.minutes:g} minutes, whichever came first"
                                                if plan.minutes else "")
    return (f"Adam; learning rate {plan.lr:g} ({default}) after a {plan.warmup_steps}-step warm-up, then "
            f"{plan.shape} to zero over the budget ({budget})")


def kept_weights(training: TrainingRecord) -> str:
    """Which weights the checkpoint holds, the raw ones or their moving average, and what each validated."""
    best, decay = best_point(training), training.schedule.ema_decay
    wins = sum(r.weights == "average" for r in training.history)
    won = f"the average won at {wins} of {len(training.history)} points"
    if best.weights == "average":
        return (f"the moving average of the weights (decay {decay:g}): validation BLEU {best.average_val_bleu:.1f} "
                f"against {best.raw_val_bleu:.1f} for the raw weights at that point; {won}")
    return (f"the raw weights: validation BLEU {best.raw_val_bleu:.1f} against {best.average_val_bleu:.1f} for "
            f"their moving average (decay {decay:g}) at that point; {won}")


def quality_per_minute(training: TrainingRecord) -> list[dict]:
    """One row per validation point and corpus (and their mean): training minutes and validation BLEU."""
    return [{"minutes": r.minutes, "step": r.step, "validation set": name, "BLEU": bleu}
            for r in training.history
            for name, bleu in [("mean", r.val_bleu), *((n, v.val_bleu) for n, v in r.by_corpus.items())]]


def validation_table(training: TrainingRecord) -> str:
    """Quality per minute: each validation point's time, rate and BLEU (mean and by corpus)."""
    names = list(training.history[0].by_corpus) if training.history else []
    rows = ["| minutes | step | epochs | learning rate | weights | val BLEU | " + " | ".join(names) + " |",
            "|---:|---:|---:|---:|---|---:|" + "---:|" * len(names)]
    rows += [f"| {r.minutes:.1f} | {r.step:,} | {r.epoch:.2f} | {r.lr:.2e} | {r.weights} | {r.val_bleu:.1f} | "
             + " | ".join(f"{r.by_corpus[n].val_bleu:.1f}" for n in names) + " |" for r in training.history]
    return "\n".join(rows)
