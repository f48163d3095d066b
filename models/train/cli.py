"""The training command's line and what it sets up: data, tokenizers, model, optimizer, schedule, average."""
from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from pathlib import Path

import torch
from torch.nn.parallel import DistributedDataParallel

from ..network.architectures import ARCHITECTURES, build_model
from ..network.attention import SCORES
from ..network.device import pick_device
from ..network.schedule import SHAPES, Budget, averaged, planned_schedule
from ..network.seq2seq import RNNConfig
from ..network.tokenization import SubwordTokenizer, TokenizerPair, train_tokenizer
from ..network.training import (
    DEFAULT_LR,
    PRECISIONS,
    Replicas,
    from_main,
    join_replicas,
    leave_replicas,
    native_bfloat16,
    replica_device,
    replicas_agree,
)
from ..network.transformer import TransformerConfig
from ..storage.card import write_card
from ..storage.data import Corpus, read_parallel, tokenize_pairs
from ..storage.hub import save_checkpoint
from .loop import Run, RunClock, epoch_batches, fit
from .state import STATE_DIR, fresh_state, load_state

MAX_TRAIN_PIECES = 64


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m models.train", description=sys.modules[__package__].__doc__)
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("--data", required=True, nargs="+", metavar="DIR[:weight=W,train=SPLIT,val=SPLIT]",
                   help="folders of {split}.{lang}.gz files, each with an optional sampling weight and split names")
    p.add_argument("--src", default="en")
    p.add_argument("--tgt", default="fr")
    p.add_argument("--arch", choices=list(ARCHITECTURES), default="rnn",
                   help="rnn: the attentional RNN of Bahdanau et al. (2015); transformer: Vaswani et al. (2017)")
    p.add_argument("--score", choices=list(SCORES), default=RNNConfig.score, help="the RNN's attention score")
    p.add_argument("--out", required=True, help="checkpoint directory to write")
    p.add_argument("--tokenizers", help="reuse source/target tokenizers from this checkpoint directory")
    p.add_argument("--vocab-size", type=int, default=8000)
    rnn = p.add_argument_group("the RNN's sizes")
    rnn.add_argument("--emb-dim", type=int, default=RNNConfig.emb_dim)
    rnn.add_argument("--enc-hidden", type=int, default=RNNConfig.enc_hidden)
    rnn.add_argument("--dec-hidden", type=int, default=RNNConfig.dec_hidden)
    rnn.add_argument("--attn-dim", type=int, default=RNNConfig.attn_dim)
    t = p.add_argument_group("the Transformer's sizes")
    t.add_argument("--d-model", type=int, default=TransformerConfig.d_model)
    t.add_argument("--heads", type=int, default=TransformerConfig.heads)
    t.add_argument("--enc-layers", type=int, default=TransformerConfig.enc_layers)
    t.add_argument("--dec-layers", type=int, default=TransformerConfig.dec_layers)
    t.add_argument("--ffn-dim", type=int, default=TransformerConfig.ffn_dim)
    p.add_argument("--dropout", type=float, help=f"default: {RNNConfig.dropout} (rnn), {TransformerConfig.dropout} "
                                                 "(transformer)")
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--precision", choices=list(PRECISIONS), default="float32",
                   help="dtype of the forward's matrix products (bfloat16: autocast; pays on CPUs with AVX512-BF16/AMX "
                        "and on recent GPUs — `python -m bench throughput --precision …`)")
    p.add_argument("--lr", type=float, default=DEFAULT_LR, help="the learning rate after warm-up")
    p.add_argument("--schedule", choices=list(SHAPES), default="wsd",
                   help="how the rate falls to zero over the budget: wsd holds it until the last 20 %%, linear and "
                        "cosine fall from the start (measured: docs/results.md)")
    p.add_argument("--warmup-steps", type=int, default=300)
    p.add_argument("--ema-decay", type=float, default=0.999, help="decay of the weights' moving average")
    p.add_argument("--epochs", type=int, default=20, help="budget: passes over the mixed corpora")
    p.add_argument("--steps", type=int, help="budget: optimizer steps")
    p.add_argument("--minutes", type=float, help="budget: wall-clock minutes of training and validation")
    p.add_argument("--validate-every", type=int, default=0, metavar="STEPS",
                   help="validate every STEPS steps (and at a quarter and half of that, early) instead of at epoch "
                        "ends: for long epochs")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--device", help="cpu, cuda, cuda:1 … (default: cuda if available)")
    p.add_argument("--threads", type=int, help="torch CPU threads")
    p.add_argument("--train-split", default="train", help="default train split of every --data folder")
    p.add_argument("--val-split", default="val", help="default validation split of every --data folder")
    p.add_argument("--resume", action="store_true", help="continue from --out/train_state")
    p.add_argument("--push-to-hub", metavar="REPO_ID", help="upload the checkpoint to this Hub model repo")
    return p.parse_args(argv)


def build_tokenizers(args, sources, targets) -> TokenizerPair:
    if args.tokenizers:
        return TokenizerPair.load(args.tokenizers)
    return TokenizerPair(
        SubwordTokenizer(train_tokenizer(sources, args.vocab_size)),
        SubwordTokenizer(train_tokenizer(targets, args.vocab_size)),
    )


def read_corpora(args) -> tuple[list[Corpus], list[tuple[list[str], list[str]]]]:
    """The ``--data`` folders and their training text; names must differ (scores are reported by folder name)."""
    corpora = [Corpus.parse(spec, args.train_split, args.val_split) for spec in args.data]
    if len({c.name for c in corpora}) < len(corpora):
        raise SystemExit("error: two --data folders share a name; validation scores are reported by folder name")
    return corpora, [read_parallel(c.path, c.train_split, args.src, args.tgt) for c in corpora]


def validation_sets(corpora: list[Corpus], tokenizers: TokenizerPair, args) -> dict:
    """Each corpus's validation split as ``(pairs, sources, targets)``, by folder name."""
    sets = {}
    for c in corpora:
        sources, targets = read_parallel(c.path, c.val_split, args.src, args.tgt)
        sets[c.name] = (tokenize_pairs(tokenizers, sources, targets, 10 * MAX_TRAIN_PIECES), sources, targets)
    return sets


def shared_tokenizers(args, out: Path, train_text, resuming: bool, replicas: Replicas) -> TokenizerPair:
    """Reloaded when resuming, else built by the main process from every corpus; the others read what it saved."""
    if resuming:
        return TokenizerPair.load(out)
    if replicas.main:
        tokenizers = build_tokenizers(args, [s for src, _ in train_text for s in src],
                                      [t for _, tgt in train_text for t in tgt])
        out.mkdir(parents=True, exist_ok=True)
        tokenizers.save(out)
    from_main(None, replicas)  # wait until they are on disk
    return tokenizers if replicas.main else TokenizerPair.load(out)


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


def build_run(args, replicas: Replicas, device, tokenizers, corpora, parts, state: dict) -> Run:
    """The model, its optimizer, the schedule planned from the budget and the weights' average."""
    model = build_model(model_config(args, tokenizers)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    budget = Budget(planned_steps(args, corpora, parts, replicas), 60 * args.minutes if args.minutes else None)
    clock = RunClock(state["elapsed_s"], replicas)
    scheduler = planned_schedule(optimizer, budget, args.schedule, args.warmup_steps, lambda: clock.elapsed_s)
    trained = DistributedDataParallel(model) if replicas.world > 1 else model
    validation = validation_sets(corpora, tokenizers, args) if replicas.main else {}
    return Run(model, trained, optimizer, scheduler, averaged(model, args.ema_decay), clock, budget, tokenizers,
               corpora, parts, validation, args, replicas)


def main(argv=None) -> None:
    args = parse_args(argv)
    replicas, device = start(args)
    out = Path(args.out)
    corpora, train_text = read_corpora(args)
    resuming = args.resume and (out / STATE_DIR / "state.json").exists()
    tokenizers = shared_tokenizers(args, out, train_text, resuming, replicas)
    parts = [tokenize_pairs(tokenizers, src, tgt, MAX_TRAIN_PIECES) for src, tgt in train_text]
    state = json.loads((out / STATE_DIR / "state.json").read_text()) if resuming else fresh_state()
    run = build_run(args, replicas, device, tokenizers, corpora, parts, state)
    if resuming:
        state = load_state(out, run.model, run.optimizer, run.scheduler, run.average)
        if replicas.main:
            print(f"resuming at step {state['step']}", file=sys.stderr)
    elif replicas.main:
        save_checkpoint(out, run.model, tokenizers)
    launcher = "python" if replicas.world == 1 else f"torchrun --nproc_per_node {replicas.world}"
    command = f"{launcher} -m models.train " + shlex.join(sys.argv[1:] if argv is None else argv)
    state["commands"] = [*state["commands"], command]  # an interrupted run is the sum of its invocations
    state = fit(run, state)
    if not replicas_agree(run.model, replicas):
        raise SystemExit("error: the processes ended with different weights: gradients were not synchronised")
    if replicas.main:
        data = [{"name": c.name, "train_split": c.train_split, "val_split": c.val_split, "weight": c.weight,
                 "train_pairs": len(p)} for c, p in zip(corpora, parts)]
        write_training_record(out, args, run, state, data)
        if args.push_to_hub:
            push(out, args.push_to_hub)
    leave_replicas(replicas)


def write_training_record(out: Path, args, run: Run, state: dict, data: list[dict]) -> None:
    """``training.json``: the commands, data, schedule, time, sizes and curve, read by the model card."""
    record = {
        "commands": state["commands"],
        "data": data,
        "architecture": args.arch,
        **({"score": args.score} if args.arch == "rnn" else {}),
        "languages": [args.src, args.tgt],
        "parameters": sum(p.numel() for p in run.model.parameters()),
        "schedule": {"shape": args.schedule, "lr": args.lr, "warmup_steps": args.warmup_steps,
                     "planned_steps": run.budget.steps, "minutes": args.minutes, "ema_decay": args.ema_decay},
        "wall_clock_s": round(state["elapsed_s"], 1),
        "steps": state["step"],
        "epochs": state["history"][-1]["epoch"] if state["history"] else 0,
        "best_val_bleu": state["best_bleu"],
        "threads": torch.get_num_threads(),
        "processes": run.replicas.world,
        "device": str(run.model.device),
        "history": state["history"],
    }
    (out / "training.json").write_text(json.dumps(record, indent=1))
    write_card(out)


def push(out: Path, repo_id: str) -> None:
    """Upload the checkpoint (not its training state) to the Hub; needs a token."""
    from huggingface_hub import HfApi

    api = HfApi()
    api.create_repo(repo_id, exist_ok=True)
    api.upload_folder(folder_path=out, repo_id=repo_id, ignore_patterns=[f"{STATE_DIR}/*"])
    print(f"pushed to https://huggingface.co/{repo_id}", file=sys.stderr)


if __name__ == "__main__":
    main()
