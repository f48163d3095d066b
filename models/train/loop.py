"""The training loop: steps until the budget is spent, with validation points inside epochs.

At every validation point (every ``--validate-every`` steps, with two early ones at a quarter and half of that
interval so the alignment's first steps are seen, or else at each epoch's end; and when the budget is spent) both
the raw
weights and their moving average are validated on every corpus; the better of the two by the corpora's mean
BLEU is what the point records, what the alignment timeline traces and, if it is the best so far, the checkpoint.
"""
from __future__ import annotations

import json
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import sacrebleu
import torch
from torch import nn
from tqdm import tqdm

from ..decoding.greedy import greedy_batch, translate_batch
from ..network.learning.guided import GuidedAlignment, link_targets
from ..network.learning.schedule import Budget
from ..network.learning.step import PRECISIONS, Replicas, from_main, largest, loss_function, shard, train_step
from ..network.tokenization import PAD_ID, TokenizerPair
from ..storage.data import Corpus, batch_order, batches, mix, pad
from ..storage.examples import examples_file, load_examples
from ..storage.pieces import TokenizedPairs
from ..storage.records.timeline import append_point, timeline_entry
from .state import save_state


def now() -> float:
    """The clock a run's time budget is read from (tests replace it, so no test races the machine)."""
    return time.monotonic()


class RunClock:
    """Seconds the run has trained, over all its invocations; every process reads the same value."""

    def __init__(self, elapsed_s: float, replicas: Replicas):
        self._replicas = replicas
        self._start = now() - elapsed_s
        self.elapsed_s = elapsed_s

    def tick(self) -> float:
        self.elapsed_s = largest(now() - self._start, self._replicas)  # one schedule for every process
        return self.elapsed_s


@dataclass(frozen=True)
class Run:
    """Everything the loop works with; the counters it advances live in the state dict (saved as JSON)."""

    model: nn.Module  # the Translator being trained
    trained: nn.Module  # ``model``, or its DistributedDataParallel wrapper on several processes
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    average: torch.optim.swa_utils.AveragedModel
    clock: RunClock
    budget: Budget
    tokenizers: TokenizerPair
    corpora: list[Corpus]
    parts: list  # each corpus's training pairs
    validation: dict  # corpus name -> (pairs, sources, targets); empty on processes other than the main one
    args: object  # the parsed command line
    replicas: Replicas
    save: Callable[[str | Path, nn.Module, TokenizerPair], None]  # writes the checkpoint: weights and tokenizers
    guide: GuidedAlignment | None = None  # the head guided alignment trains; None: translation alone


def epoch_batches(parts: list[TokenizedPairs], corpora: list[Corpus], args, epoch: int,
                  replicas: Replicas) -> tuple[TokenizedPairs, list]:
    """Epoch ``epoch``'s mixed pairs and this process's batches of them (arrays of indices), the same on resume."""
    rng = np.random.default_rng(args.seed + epoch)
    pairs = mix(parts, [c.weight for c in corpora], rng)
    return pairs, shard(batch_order(pairs, args.batch_size, rng, args.batch_tokens), replicas)


def peak_memory_mib() -> float:
    """This process's peak resident memory so far (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (2**20 if sys.platform == "darwin" else 2**10), 1)


def fit(run: Run, state: dict, started: float | None) -> dict:
    """Train until the budget is spent; validate, trace and save at every validation point.

    ``started`` is when the command began (``time.monotonic()``): the seconds to this invocation's first step
    (reading, tokenising or the cache, building) are recorded with the peak memory, on every invocation.
    """
    args, loss_fn = run.args, loss_function(run.args.label_smoothing)
    while not run.budget.spent(state["step"], run.clock.elapsed_s):
        epoch = state["epoch"] + 1
        pairs, order = epoch_batches(run.parts, run.corpora, args, epoch, run.replicas)
        if state["batch"] == 0:
            torch.manual_seed(args.seed + epoch)  # a run resumed inside an epoch has its generator's state back
        losses: list[float] = []
        run.trained.train()
        bar = tqdm(range(state["batch"], len(order)), initial=state["batch"], total=len(order), unit="batch",
                   desc=f"epoch {epoch}", disable=not run.replicas.main)
        for i in bar:
            batch = tuple(x.to(run.model.device) for x in pad([pairs[j] for j in order[i]]))
            links = None if run.guide is None else link_targets(
                [pairs.links_of(j) for j in order[i]], batch[3].shape[1], batch[0].shape[1], run.model.device)
            losses.append(train_step(run.trained, batch, run.optimizer, loss_fn, precision=PRECISIONS[args.precision],
                                     guide=run.guide, links=links))
            if started is not None:  # this invocation's first step
                state["first_step_s"] = [*state["first_step_s"], round(time.monotonic() - started, 3)]
                started = None
            run.clock.tick()
            run.scheduler.step()
            run.average.update_parameters(run.model)
            state.update(step=state["step"] + 1, batch=i + 1)
            bar.set_postfix(loss=f"{sum(losses) / len(losses):.3f}", lr=f"{run.scheduler.get_last_lr()[0]:.2e}")
            spent = run.budget.spent(state["step"], run.clock.elapsed_s)
            epoch_end = i + 1 == len(order) and not args.validate_every
            if spent or epoch_end or validation_due(state["step"], args.validate_every):
                checkpoint(run, state, losses, epoch - 1 + (i + 1) / len(order), spent)
                losses = []
                run.trained.train()
            if spent:
                return state
        state.update(epoch=epoch, batch=0)
    return state


def validation_due(step: int, every: int) -> bool:
    """Every ``every`` steps, and early at a quarter and a half of it (0: never; epoch ends are points then)."""
    return every > 0 and (step % every == 0 or step in (every // 4, every // 2))


def checkpoint(run: Run, state: dict, losses: list[float], epochs: float, final: bool) -> None:
    """Validate the raw and the averaged weights, record the better, trace it, keep it if best (``--keep last``:
    if ``final``, the budget's end); save the state."""
    main = run.replicas.main
    candidates = from_main({"raw": scores(run.model, run), "average": scores(run.average.module, run)}
                           if main else None, run.replicas)
    kept = max(candidates, key=lambda k: candidates[k]["val_bleu"])
    record = {"step": state["step"], "epoch": round(epochs, 4), "minutes": round(run.clock.elapsed_s / 60, 2),
              "lr": run.scheduler.get_last_lr()[0], "train_loss": sum(losses) / max(len(losses), 1),
              **candidates[kept], "weights": kept, **{f"{k}_val_bleu": v["val_bleu"] for k, v in candidates.items()}}
    weights = run.model if kept == "raw" else run.average.module
    improved = record["val_bleu"] > state["best_bleu"]
    state.update(best_bleu=max(state["best_bleu"], record["val_bleu"]), history=[*state["history"], record],
                 elapsed_s=run.clock.elapsed_s, peak_memory_mib=max(state["peak_memory_mib"], peak_memory_mib()))
    if main:
        print(json.dumps({k: v for k, v in record.items() if k != "by_corpus"}), file=sys.stderr)
        record_alignments(Path(run.args.out), weights, run.tokenizers, record, run.args.src)
        if final if run.args.keep == "last" else improved:
            run.save(run.args.out, weights, run.tokenizers)
        save_state(Path(run.args.out), run.model, run.optimizer, run.scheduler, run.average, state)


def scores(model: nn.Module, run: Run) -> dict:
    """Validation loss and BLEU on each corpus, and their means (the checkpoint is chosen on the mean BLEU)."""
    by_corpus = {name: validate(model, run.tokenizers, *v, run.model.device) for name, v in run.validation.items()}
    means = {k: sum(s[k] for s in by_corpus.values()) / len(by_corpus) for k in ("val_loss", "val_bleu")}
    return {**means, "by_corpus": by_corpus}


@torch.inference_mode()
def validate(model: nn.Module, tokenizers: TokenizerPair, pairs, sources, targets, device) -> dict:
    """Teacher-forced loss on ``pairs`` and greedy sacreBLEU on ``sources``."""
    model.eval()
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD_ID, reduction="sum")  # summed, then divided by pieces
    loss, n = 0.0, 0
    for src, mask, tgt_in, tgt_out in batches(pairs, 128):
        logits = model(src.to(device), mask.to(device), tgt_in.to(device))
        loss += loss_fn(logits.flatten(0, 1), tgt_out.to(device).flatten()).item()
        n += int((tgt_out != PAD_ID).sum())
    hyps = [h for i in range(0, len(sources), 128) for h in translate_batch(model, tokenizers, sources[i : i + 128])]
    return {"val_loss": loss / n, "val_bleu": sacrebleu.corpus_bleu(hyps, [targets]).score}


def record_alignments(out: Path, model: nn.Module, tokenizers: TokenizerPair, record: dict, source: str) -> None:
    """Append this point's greedy traces of the curated examples of the ``source`` language (none where there are
    none) to the alignment timeline (decoded as one batch: an early model writes each to its length limit)."""
    examples = [e.text for e in load_examples(examples_file(source))]
    if not examples:
        return
    traces = greedy_batch(model, tokenizers, examples)
    append_point(out, examples, traces, timeline_entry(record, traces))
