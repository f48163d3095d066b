"""The training command's line and what it sets up: data, tokenizers, model, optimizer, schedule, average."""
from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path

import torch
from torch.nn.parallel import DistributedDataParallel

from ..decoding.trace import Reading
from ..network.architectures import ARCHITECTURES, build_model
from ..network.arithmetic import native_bfloat16
from ..network.attention import SCORES
from ..network.device import pick_device
from ..network.guided import DEFAULT_WEIGHT, GuidedAlignment
from ..network.schedule import SHAPES, Budget, averaged, planned_schedule
from ..network.seq2seq import RNNConfig
from ..network.tokenization import TokenizerPair
from ..network.training import (
    DEFAULT_LR,
    PRECISIONS,
    Replicas,
    join_replicas,
    leave_replicas,
    replica_device,
    replicas_agree,
)
from ..network.transformer import TransformerConfig
from ..storage.card import write_card
from ..storage.hub import load_model, save_checkpoint
from ..storage.pieces import default_cache_dir
from . import decoder_only
from .alignment_links import RECIPES
from .corpora import Corpora, guided_parts, parse_corpora, shared_tokenizers, training_parts, validation_sets
from .loop import Run, RunClock, epoch_batches, fit
from .state import STATE_DIR, fresh_state, load_state


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m models.train", description=sys.modules[__package__].__doc__)
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("--data", required=True, nargs="+", metavar="(DIR | opus:CORPUS | multi30k)[:weight=W,…]",
                   help="folders of {split}.{lang}.gz files, or corpora by name (opus:Tatoeba, opus:Europarl, …: "
                        "OPUS's latest release of the run's pair; multi30k: its captions), fetched once; each with "
                        "an optional sampling weight and split names (weight=W,train=SPLIT,val=SPLIT)")
    p.add_argument("--src", default="en")
    p.add_argument("--tgt", default="fr")
    p.add_argument("--arch", choices=[*ARCHITECTURES, decoder_only.ARCH], default="rnn",
                   help="rnn: the attentional RNN of Bahdanau et al. (2015); transformer: Vaswani et al. (2017); "
                        "decoder-only: a GPT-style LlamaForCausalLM asked through a chat template, saved in "
                        "transformers' format")
    p.add_argument("--score", choices=list(SCORES), default=RNNConfig.score, help="the RNN's attention score")
    p.add_argument("--out", required=True, help="checkpoint directory to write")
    p.add_argument("--val-data", nargs="+", metavar="DIR[:val=SPLIT] | sacrebleu:NAME",
                   help="folders or test sets by name validated on but not trained on (e.g. sacrebleu:wmt13, the "
                        "news of the paper's validation year)")
    p.add_argument("--tokenizers", help="reuse source/target tokenizers from this checkpoint directory")
    p.add_argument("--init-from", metavar="CHECKPOINT",
                   help="continue training this checkpoint (a folder): its architecture, sizes, weights and "
                        "tokenizers; the card records it as the run's start")
    p.add_argument("--vocab-size", type=int, default=8000)
    p.add_argument("--shared-vocab", action="store_true",
                   help="one BPE vocabulary for both languages, trained on both sides of every corpus")
    p.add_argument("--cache-dir", type=Path, default=default_cache_dir(),
                   help="where tokenised corpora are kept, keyed on the tokenizers and the text (default: %(default)s)")
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
    decoder_only.add_arguments(p)
    p.add_argument("--dropout", type=float, help=f"default: {RNNConfig.dropout} (rnn), {TransformerConfig.dropout} "
                                                 "(transformer)")
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--batch-size", type=int, default=64, help="sentences a batch")
    p.add_argument("--batch-tokens", type=int,
                   help="instead of --batch-size: as many length-sorted pairs as fit in this many padded pieces")
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
    g = p.add_argument_group("guided alignment (Garg et al. 2019): one cross-attention head trained toward word links")
    g.add_argument("--guided-alignment", choices=list(RECIPES),
                   help="train a Transformer's head toward eflomal's links of the training pairs, made once over the "
                        "training corpora and cached: eflomal's two directions grow-diag-final, or their intersection")
    g.add_argument("--guided-reading", metavar="LAYER.HEAD[.shifted]",
                   help="the guided head, 1-based, and with .shifted trained at the step that reads each piece (one "
                        "step later) rather than the step that writes it (default: the last layer's first head, "
                        "Marian's)")
    g.add_argument("--guided-weight", type=float, default=DEFAULT_WEIGHT, help="the alignment loss's weight λ")
    g.add_argument("--full-context", action="store_true",
                   help="read the guided head in a second pass with the decoder's future mask lifted, every position "
                        "seeing the whole translation (Garg et al.'s full context; the app reads it as the matrix "
                        "'full-context attention')")
    p.add_argument("--keep", choices=["best", "last"], default="best",
                   help="the checkpoint: the validation point of best mean BLEU, or the last (the budget's end, the "
                        "learning rate annealed: for an aim BLEU does not see, such as guided alignment's head)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--device", help="cpu, cuda, cuda:1 … (default: cuda if available)")
    p.add_argument("--threads", type=int, help="torch CPU threads")
    p.add_argument("--train-split", default="train", help="default train split of every --data folder")
    p.add_argument("--val-split", default="val", help="default validation split of every --data folder")
    p.add_argument("--val-sentences", type=int,
                   help="validate on the first N sentences of each validation split (default: all): bounds the "
                        "time a validation point takes on long sets such as a news year's 3,000 sentences")
    p.add_argument("--resume", action="store_true", help="continue from --out/train_state")
    p.add_argument("--push-to-hub", metavar="REPO_ID", help="upload the checkpoint to this Hub model repo")
    return p.parse_args(argv)


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
    shape = model.attention_shapes["cross"]
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
        model = load_model(args.init_from, device=str(device)).model.train()
    elif args.arch == decoder_only.ARCH:
        model = decoder_only.as_translator(decoder_only.build_chat_model(args, tokenizers.target.tokenizer),
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


def saver(args):
    """How the run's checkpoint is written: a decoder-only model in its family's format, others in this project's."""
    return decoder_only.save_chat_checkpoint if args.arch == decoder_only.ARCH else save_checkpoint


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
    command = f"{launcher} -m models.train " + shlex.join(sys.argv[1:] if argv is None else argv)
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
    record = {
        "commands": state["commands"],
        **({"started_from": lineage(args.init_from)} if args.init_from else {}),
        "data": data,
        "validated_only_on": [{"name": c.name, "val_split": c.val_split} for c in corpora.validate_only]
        + [{"name": spec} for spec in corpora.named],
        "architecture": run.model.architecture if run.model.architecture in ARCHITECTURES else args.arch,
        **({"score": run.model.config.score} if run.model.architecture == "rnn" else {}),
        "languages": [args.src, args.tgt],
        "parameters": sum(p.numel() for p in run.model.parameters()),
        "kept": args.keep,
        "schedule": {"shape": args.schedule, "lr": args.lr, "warmup_steps": args.warmup_steps,
                     "planned_steps": run.budget.steps, "minutes": args.minutes, "ema_decay": args.ema_decay},
        "wall_clock_s": round(state["elapsed_s"], 1),
        "steps": state["step"],
        "epochs": state["history"][-1]["epoch"] if state["history"] else 0,
        "best_val_bleu": state["best_bleu"],
        "threads": torch.get_num_threads(),
        "cpu": cpu_name(),
        "first_step_s": state["first_step_s"],
        "peak_memory_mib": state["peak_memory_mib"],
        "processes": run.replicas.world,
        "device": str(run.model.device),
        "history": state["history"],
        **({"guided_alignment": {"reading": Reading(run.guide.layer, run.guide.head, run.guide.shifted).key,
                                 "weight": run.guide.weight, "links": RECIPES[args.guided_alignment].words,
                                 "full_context": run.guide.full_context,
                                 "links_seconds": round(links_seconds, 1)}} if run.guide else {}),
    }
    (out / "training.json").write_text(json.dumps(record, indent=1))
    write_card(out)


def lineage(checkpoint: str) -> dict:
    """What a continued run started from: the checkpoint and its own training record's commands, data and time
    (and, nested, what that one started from), so the card can give the whole lineage and its total minutes."""
    path = Path(checkpoint) / "training.json"
    if not path.exists():
        return {"checkpoint": checkpoint}
    before = json.loads(path.read_text())
    keep = ("commands", "started_from", "data", "architecture", "score", "wall_clock_s", "steps", "epochs", "cpu",
            "threads", "device")
    return {"checkpoint": checkpoint, **{k: before[k] for k in keep if k in before}}


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
