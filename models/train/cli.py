"""The training command's line and what it sets up: data, tokenizers, model, optimizer, schedule, average."""
from __future__ import annotations

import json
import os
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path

import torch
from torch.nn.parallel import DistributedDataParallel

from ..network.architectures import ARCHITECTURES, build_model
from ..network.hardware import native_bfloat16, pick_device
from ..network.learning.guided import GuidedAlignment
from ..network.learning.schedule import Budget, averaged, planned_schedule
from ..network.learning.step import Replicas, join_replicas, leave_replicas, replica_device, replicas_agree
from ..network.seq2seq import RNNConfig
from ..network.tokenization import TokenizerPair
from ..network.transformer import TransformerConfig
from ..nouns.attention_map import Kind, Reading
from ..storage.cards.render import write_card
from ..storage.commands import command_line
from ..storage.hub import load_model, save_checkpoint
from ..storage.records.strict import read_record
from ..storage.records.training import (
    Guided,
    Schedule,
    Start,
    TrainedOn,
    TrainingRecord,
    ValidatedOn,
    ValidationPoint,
    read_training,
    write_training,
)
from .alignment_links import RECIPES
from .arguments import parse_args
from .chat_translator import ARCH as DECODER_ONLY, as_translator, build_chat_model, save_chat_checkpoint
from .corpora import Corpora, guided_parts, parse_corpora, shared_tokenizers, training_parts, validation_sets
from .loop import Run, RunClock, epoch_batches, fit
from .state import STATE_DIR, fresh_state, load_state


def start(args) -> tuple[Replicas, torch.device]:
    """Threads, seed, torchrun's group, this process's device and warnings, before anything is built."""
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    device = pick_device(args.device)
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        try:
            device = replica_device(device, int(os.environ["LOCAL_RANK"]), torch.cuda.device_count())
        except ValueError as e:
            raise SystemExit(f"error: {e}") from e
    replicas = join_replicas(device)
    if args.precision == "bfloat16" and not native_bfloat16(device) and replicas.main:
        print(f"warning: {device.type} has no native bfloat16 (AVX512-BF16, AMX or a recent GPU); it is emulated, "
              "far slower than --precision float32", file=sys.stderr)
    return replicas, device


def planned_steps(args, corpora, parts, replicas: Replicas) -> int:
    """``--steps``, or ``--epochs`` times this process's batches an epoch, whichever is fewer."""
    per_epoch = len(epoch_batches(parts, corpora, args, 1, replicas)[1])  # every epoch has as many
    return min(args.steps, args.epochs * per_epoch) if args.steps else args.epochs * per_epoch


def model_config(args, tokenizers: TokenizerPair):
    """The config of ``--arch`` with the command line's sizes."""
    vocab = (tokenizers.source.vocab_size, tokenizers.target.vocab_size)
    if args.arch == "transformer":
        return TransformerConfig(*vocab, d_model=args.d_model, heads=args.heads, enc_layers=args.enc_layers,
                                 dec_layers=args.dec_layers, ffn_dim=args.ffn_dim,
                                 dropout=TransformerConfig.dropout if args.dropout is None else args.dropout)
    return RNNConfig(*vocab, score=args.score, emb_dim=args.emb_dim, enc_hidden=args.enc_hidden,
                     dec_hidden=args.dec_hidden, attn_dim=args.attn_dim,
                     dropout=RNNConfig.dropout if args.dropout is None else args.dropout)


def guided(args, model) -> GuidedAlignment | None:
    """The head ``--guided-alignment`` trains, checked against the model; None without it."""
    if not args.guided_alignment:
        if args.full_context:
            raise SystemExit("error: --full-context says where the head --guided-alignment trains is read; give "
                             "--guided-alignment too")
        return None
    if model.config.architecture != "transformer":
        raise SystemExit("error: --guided-alignment trains one head of a Transformer's cross-attention; the RNN's "
                         "one attention is not guided here (--arch transformer, or --init-from a Transformer)")
    shape = model.attention_shapes[Kind.CROSS]
    try:
        reading = Reading.parse(args.guided_reading, shape) if args.guided_reading else Reading(shape[0] - 1, 0)
    except ValueError as e:
        raise SystemExit(f"error: --guided-reading: {e}") from e
    if reading.head is None:
        raise SystemExit("error: --guided-reading names one head (LAYER.HEAD), not a layer's mean")
    return GuidedAlignment(reading.layer, reading.head, args.guided_weight, reading.shifted, args.full_context)


def build_run(args, replicas: Replicas, device, tokenizers, corpora: Corpora, parts, state: dict) -> Run:
    """The model (new, or ``--init-from``'s), its optimizer, the schedule planned from the budget and the
    weights' average."""
    if args.init_from:
        model = with_dropout(load_model(args.init_from, device=str(device)).model, args.dropout).train()
    elif args.arch == DECODER_ONLY:
        model = as_translator(build_chat_model(args, tokenizers.target.tokenizer),
                                           tokenizers.target.tokenizer, args.out)[0].to(device)
    else:
        model = build_model(model_config(args, tokenizers)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    budget = Budget(planned_steps(args, corpora.train, parts, replicas), 60 * args.minutes if args.minutes else None)
    clock = RunClock(state["elapsed_s"], replicas)
    scheduler = planned_schedule(optimizer, budget, args.schedule, args.warmup_steps, lambda: clock.elapsed_s)
    trained = DistributedDataParallel(model) if replicas.world > 1 else model
    validation = validation_sets(corpora, tokenizers, args) if replicas.main else {}
    return Run(model, trained, optimizer, scheduler, averaged(model, args.ema_decay), clock, budget, tokenizers,
               corpora.train, parts, validation, args, replicas, saver(args), guided(args, model))


def with_dropout(model, dropout: float | None):
    """``--init-from``'s model, at ``--dropout``'s rate where one is given: its weights in a model built at the new
    rate, so the checkpoint's config says the rate it was fine-tuned with (a small corpus seen for many epochs
    over-fits at the rate a large mix was trained with)."""
    if dropout is None:  # a decoder-only model always comes here: its line was refused --dropout (arguments.py)
        return model
    rebuilt = build_model(replace(model.config, dropout=dropout)).to(next(model.parameters()).device)
    rebuilt.load_state_dict(model.state_dict())
    return rebuilt


def saver(args):
    """How the run's checkpoint is written: a decoder-only model in its family's format, others in this project's."""
    return save_chat_checkpoint if args.arch == DECODER_ONLY else save_checkpoint


def main(argv=None) -> None:
    started = time.monotonic()
    args = parse_args(argv)
    replicas, device = start(args)
    out = Path(args.out)
    corpora = parse_corpora(args)
    resuming = args.resume and (out / STATE_DIR / "state.json").exists()
    tokenizers = shared_tokenizers(args, out, corpora, resuming, replicas)
    parts = training_parts(corpora, tokenizers, args, replicas)
    links_seconds = None
    if args.guided_alignment:
        parts, links_seconds = guided_parts(parts, corpora, tokenizers, args, replicas)
    state = json.loads((out / STATE_DIR / "state.json").read_text()) if resuming else fresh_state()
    run = build_run(args, replicas, device, tokenizers, corpora, parts, state)
    if resuming:
        # a state saved before a counter existed resumes with that counter fresh
        state = {**fresh_state(), **load_state(out, run.model, run.optimizer, run.scheduler, run.average)}
        if replicas.main:
            print(f"resuming at step {state['step']}", file=sys.stderr)
    elif replicas.main:
        run.save(out, run.model, tokenizers)
    launcher = "python" if replicas.world == 1 else f"torchrun --nproc_per_node {replicas.world}"
    command = command_line("models.train", argv, launcher)
    state["commands"] = [*state["commands"], command]  # an interrupted run is the sum of its invocations
    state = fit(run, state, started)
    if not replicas_agree(run.model, replicas):
        raise SystemExit("error: the processes ended with different weights: gradients were not synchronised")
    if replicas.main:
        data = [{"name": c.name, "train_split": c.train_split, "val_split": c.val_split, "weight": c.weight,
                 "train_pairs": len(p)} for c, p in zip(corpora.train, parts)]
        write_training_record(out, args, run, state, data, corpora, links_seconds)
        if args.push_to_hub:
            push(out, args.push_to_hub)
    leave_replicas(replicas)


def write_training_record(out: Path, args, run: Run, state: dict, data: list[dict], corpora: Corpora,
                          links_seconds: float | None) -> None:
    """``training.json``: the commands, data, schedule, time, machine, sizes and curve, read by the model card."""
    rnn = run.model.architecture == "rnn"
    record = TrainingRecord(
        commands=tuple(state["commands"]), started_from=lineage(args.init_from) if args.init_from else None,
        data=tuple(TrainedOn(**d) for d in data),
        validated_only_on=tuple(ValidatedOn(c.name, c.val_split) for c in corpora.validate_only)
        + tuple(ValidatedOn(spec) for spec in corpora.named),
        architecture=run.model.architecture if run.model.architecture in ARCHITECTURES else args.arch,
        score=run.model.config.score if rnn else None, languages=(args.src, args.tgt),
        parameters=sum(p.numel() for p in run.model.parameters()), kept=args.keep,
        schedule=Schedule(args.schedule, args.lr, args.warmup_steps, run.budget.steps, args.minutes, args.ema_decay),
        wall_clock_s=round(state["elapsed_s"], 1), steps=state["step"],
        epochs=state["history"][-1]["epoch"] if state["history"] else 0.0, best_val_bleu=state["best_bleu"],
        threads=torch.get_num_threads(), cpu=cpu_name(), first_step_s=tuple(state["first_step_s"]),
        peak_memory_mib=state["peak_memory_mib"], processes=run.replicas.world, device=str(run.model.device),
        history=tuple(read_record(ValidationPoint, p, "a validation point") for p in state["history"]),
        guided_alignment=Guided(Reading(run.guide.layer, run.guide.head, run.guide.shifted).key, run.guide.weight,
                                RECIPES[args.guided_alignment].words, round(links_seconds, 1),
                                run.guide.full_context) if run.guide else None)
    write_training(record, out)
    write_card(out)


def lineage(checkpoint: str) -> Start:
    """What a continued run started from: the checkpoint and its own training record's commands, data and time
    (and, nested, what that one started from), so the card can give the whole lineage and its total minutes."""
    before = read_training(checkpoint)
    if before is None:
        return Start(checkpoint)
    return Start(checkpoint, before.commands, before.started_from, before.data, before.architecture, before.score,
                 before.wall_clock_s, before.steps, before.epochs, before.cpu, before.threads, before.device)


def cpu_name() -> str:
    """The processor's model name (Linux's /proc/cpuinfo, else what Python's platform module knows)."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def push(out: Path, repo_id: str) -> None:
    """Upload the checkpoint (not its training state) to the Hub; needs a token."""
    from huggingface_hub import HfApi

    api = HfApi()
    api.create_repo(repo_id, exist_ok=True)
    api.upload_folder(folder_path=out, repo_id=repo_id, ignore_patterns=[f"{STATE_DIR}/*"])
    print(f"pushed to https://huggingface.co/{repo_id}", file=sys.stderr)


if __name__ == "__main__":
    main()
