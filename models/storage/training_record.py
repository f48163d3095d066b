"""What a training record (``training.json``, written by :mod:`models.train`) says, in words and rows: how long
the run took and from where it started, the validation point kept and its weights, the learning rate's course, and
quality per minute — for the model card and the Models page.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..network.training import DEFAULT_LR

TRAINING_FILE = "training.json"


def variant(training: dict) -> str:
    """What a model this project trained is called: the RNN's score, or its architecture (``transformer``,
    ``decoder-only``) — from ``training.json`` or an own ``config.json``, which both name the architecture (absent:
    an RNN) and an RNN's score."""
    architecture = training.get("architecture", "rnn")
    return training["score"] if architecture == "rnn" else architecture


def trained_variant(directory: str | Path) -> str | None:
    """The :func:`variant` a checkpoint's training record names; None where it has none (trained elsewhere)."""
    record = Path(directory) / TRAINING_FILE
    return variant(json.loads(record.read_text(encoding="utf-8"))) if record.is_file() else None


def training_summary(training: dict) -> str:
    """'11,200 steps (3.26 epochs) in 150.0 min on cpu (1 thread(s))': for the card and the Models page."""
    runs = len(training["commands"])
    threads = f"{training['threads']} thread(s)"
    if runs > 1:
        threads = f"{runs} invocations, the last with {threads}"
    if "steps" not in training:  # records from before validation inside epochs counted whole epochs
        partial = " (the last partial)" if training["history"] and training["history"][-1].get("partial") else ""
        done = f"{training['epochs']} epochs{partial}"
    else:
        done = f"{training['steps']:,} steps ({training['epochs']:.2f} epochs)"
    machine = f"{training['device']}" + (f", {training['cpu']}" if training.get("cpu") else "")
    return f"{done} in {training['wall_clock_s'] / 60:.1f} min on {machine} ({threads}){lineage(training)}"


def lineage(training: dict) -> str:
    """'; continued from en-fr-additive (150.0 min of its own): 310.0 min in all' for a run started from a
    checkpoint (``--init-from``), following each start back to a run from scratch."""
    starts, total, record = [], training["wall_clock_s"], training
    while "started_from" in record:
        record = record["started_from"]
        starts.append(f"{Path(record['checkpoint']).name} ({record.get('wall_clock_s', 0) / 60:.1f} min of its own)")
        total += record.get("wall_clock_s", 0)
    if not starts:
        return ""
    return f"; continued from {', itself from '.join(starts)}: {total / 60:.1f} min in all"


def best_point(training: dict) -> dict:
    """The validation point the checkpoint was taken at: the best mean BLEU (the first of equals), or the last
    where the run kept its last (``--keep last``)."""
    if training.get("kept") == "last":
        return training["history"][-1]
    return max(training["history"], key=lambda r: r["val_bleu"])


def best_validation(training: dict) -> str:
    """'38.1 (step 9,000, epoch 2.6; multi30k 45.0, tatoeba-en-fr 31.2)': the chosen point's validation BLEU."""
    best = best_point(training)
    where = f"step {best['step']:,}, epoch {best['epoch']:.2f}" if "step" in best else f"epoch {best['epoch']}"
    by_corpus = best.get("by_corpus", {})
    if len(by_corpus) > 1:
        where += "; " + ", ".join(f"{name} {v['val_bleu']:.1f}" for name, v in by_corpus.items())
    return f"{best['val_bleu']:.1f} ({where})"


def learning_rate(training: dict) -> str:
    """How the learning rate went: the planned schedule, or the halving rule of records from before it."""
    plan = training.get("schedule")
    start = plan["lr"] if plan else training["history"][0]["lr"]
    default = "the default" if start == DEFAULT_LR else f"not the default {DEFAULT_LR:g}"
    if plan is None:
        return (f"Adam from learning rate {start:g} ({default}), halved whenever validation BLEU stalls and after "
                "the epochs `--halve-lr-after` names")
    budget = f"{plan['planned_steps']:,} steps" + (f" or {plan['minutes']:g} minutes, whichever came first"
                                                   if plan["minutes"] else "")
    return (f"Adam; learning rate {start:g} ({default}) after a {plan['warmup_steps']}-step warm-up, then "
            f"{plan['shape']} to zero over the budget ({budget})")


def kept_weights(training: dict) -> str:
    """Which weights the checkpoint holds, the raw ones or their moving average, and what each validated."""
    best = best_point(training)
    if "weights" not in best:
        return "the raw weights (no average was kept)"
    decay = training["schedule"]["ema_decay"]
    wins = sum(r["weights"] == "average" for r in training["history"])
    won = f"the average won at {wins} of {len(training['history'])} points"
    if best["weights"] == "average":
        return (f"the moving average of the weights (decay {decay:g}): validation BLEU {best['average_val_bleu']:.1f} "
                f"against {best['raw_val_bleu']:.1f} for the raw weights at that point; {won}")
    return (f"the raw weights: validation BLEU {best['raw_val_bleu']:.1f} against {best['average_val_bleu']:.1f} for "
            f"their moving average (decay {decay:g}) at that point; {won}")


def quality_per_minute(training: dict) -> list[dict]:
    """One row per validation point and corpus (and their mean): training minutes and validation BLEU."""
    return [{"minutes": r["minutes"], "step": r["step"], "validation set": name, "BLEU": bleu}
            for r in training["history"] if "minutes" in r
            for name, bleu in [("mean", r["val_bleu"]), *((n, v["val_bleu"]) for n, v in r["by_corpus"].items())]]


def validation_table(training: dict) -> str:
    """Quality per minute: each validation point's time, rate and BLEU (mean and by corpus)."""
    history = [r for r in training["history"] if "minutes" in r]
    if not history:
        return "Not recorded: this model was trained before validation points carried their time."
    names = list(history[0].get("by_corpus", {}))
    rows = ["| minutes | step | epochs | learning rate | weights | val BLEU | " + " | ".join(names) + " |",
            "|---:|---:|---:|---:|---|---:|" + "---:|" * len(names)]
    rows += [f"| {r['minutes']:.1f} | {r['step']:,} | {r['epoch']:.2f} | {r['lr']:.2e} | {r['weights']} | "
             f"{r['val_bleu']:.1f} | " + " | ".join(f"{r['by_corpus'][n]['val_bleu']:.1f}" for n in names) + " |"
             for r in history]
    return "\n".join(rows)
