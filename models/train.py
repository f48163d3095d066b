"""Train an English→French translator on one or more Multi30k-style corpora.

    python -m models.train --data ../shared/data/multi30k --score additive \\
        --out my-model --epochs 16 --halve-lr-after 11 14 15
    python -m models.train --data ../shared/data/multi30k:weight=2 ../shared/data/tatoeba-en-fr …

Each epoch mixes the corpora by their weights (:func:`models.storage.data.mix`)
and ends with a validation pass on each corpus's validation split
(teacher-forced loss, greedy sacreBLEU); the best epoch by the corpora's mean
BLEU is the checkpoint in ``--out``. After every epoch the greedy traces of the curated examples are appended to
``--out/alignment_timeline.json`` (alignment as it is learned). Training state (weights,
Adam moments, epoch, learning rate) is kept in ``--out/train_state`` as
safetensors + JSON, so ``--resume`` continues an interrupted run exactly at the
last finished epoch. Deterministic on CPU for a given ``--seed``.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import sys
import time
from pathlib import Path

import sacrebleu
import torch
from safetensors.torch import load_file, save_file
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from tqdm import tqdm

from .decoding.greedy import greedy, translate_batch
from .network.attention import SCORES
from .network.device import pick_device
from .network.seq2seq import ModelConfig, Seq2Seq
from .network.tokenization import PAD_ID, SubwordTokenizer, TokenizerPair, train_tokenizer
from .network.training import (
    DEFAULT_LR,
    PRECISIONS,
    Replicas,
    any_replica,
    from_main,
    join_replicas,
    leave_replicas,
    loss_function,
    native_bfloat16,
    replicas_agree,
    shard,
    train_step,
)
from .storage.card import write_card
from .storage.data import Corpus, batches, mix, read_parallel, tokenize_pairs
from .storage.examples import load_examples
from .storage.hub import save_checkpoint
from .storage.timeline import append_epoch, epoch_entry

STATE_DIR = "train_state"
MAX_TRAIN_PIECES = 64


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m models.train", description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True, nargs="+", metavar="DIR[:weight=W,train=SPLIT,val=SPLIT]",
                   help="folders of {split}.{lang}.gz files, each with an optional sampling weight and split names")
    p.add_argument("--src", default="en")
    p.add_argument("--tgt", default="fr")
    p.add_argument("--score", choices=list(SCORES), default=ModelConfig.score)
    p.add_argument("--out", required=True, help="checkpoint directory to write")
    p.add_argument("--tokenizers", help="reuse source/target tokenizers from this checkpoint directory")
    p.add_argument("--vocab-size", type=int, default=8000)
    p.add_argument("--emb-dim", type=int, default=ModelConfig.emb_dim)
    p.add_argument("--enc-hidden", type=int, default=ModelConfig.enc_hidden)
    p.add_argument("--dec-hidden", type=int, default=ModelConfig.dec_hidden)
    p.add_argument("--attn-dim", type=int, default=ModelConfig.attn_dim)
    p.add_argument("--dropout", type=float, default=ModelConfig.dropout)
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--precision", choices=list(PRECISIONS), default="float32",
                   help="dtype of the forward's matrix products (bfloat16: autocast; pays on CPUs with AVX512-BF16/AMX "
                        "and on recent GPUs — `python -m models.bench throughput --precision …`)")
    p.add_argument("--lr", type=float, default=DEFAULT_LR)
    p.add_argument("--halve-lr-after", type=int, nargs="+", default=[], metavar="EPOCH",
                   help="also halve the learning rate after these epochs (it is always halved when val BLEU stalls)")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--minutes", type=float, help="wall-clock budget; training stops when it is spent")
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


def train_epoch(model, optimizer, pairs, args, rng, deadline, device, replicas: Replicas) -> tuple[float, bool]:
    """One pass over ``pairs`` (this process's share of the batches); returns mean loss and whether time ran out."""
    model.train()
    loss_fn = loss_function(args.label_smoothing)
    total, count = 0.0, 0
    stream = batches(pairs, args.batch_size, rng)  # padded tensors, made as they are needed …
    if replicas.world > 1:
        stream = shard(list(stream), replicas)  # … except that N processes need the count to share them evenly
    length = len(stream) if replicas.world > 1 else -(-len(pairs) // args.batch_size)
    bar = tqdm(stream, total=length, unit="batch", disable=not replicas.main)
    for batch in bar:
        loss = train_step(model, tuple(x.to(device) for x in batch), optimizer, loss_fn,
                          precision=PRECISIONS[args.precision])
        total, count = total + loss, count + 1
        bar.set_postfix(loss=f"{total / count:.3f}")
        if deadline and any_replica(time.monotonic() > deadline, replicas):
            return total / count, True
    return total / max(count, 1), False


@torch.inference_mode()
def validate(model, tokenizers, pairs, sources, targets, device) -> dict:
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


def save_state(out: Path, model, optimizer, state: dict) -> None:
    d = out / STATE_DIR
    d.mkdir(parents=True, exist_ok=True)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, d / "model.safetensors")
    opt = optimizer.state_dict()
    tensors = {f"{i}.{k}": v for i, s in opt["state"].items() for k, v in s.items()}
    save_file(tensors, d / "optimizer.safetensors")
    (d / "state.json").write_text(json.dumps({**state, "param_groups": opt["param_groups"]}, indent=1))


def load_state(out: Path, model, optimizer) -> dict:
    d = out / STATE_DIR
    state = json.loads((d / "state.json").read_text())
    model.load_state_dict(load_file(d / "model.safetensors"), strict=True)
    per_param: dict[int, dict] = {}
    for key, value in load_file(d / "optimizer.safetensors").items():
        i, name = key.split(".", 1)
        per_param.setdefault(int(i), {})[name] = value
    optimizer.load_state_dict({"state": per_param, "param_groups": state.pop("param_groups")})
    return state


def record_alignments(out: Path, model, tokenizers, epoch: int, scores: dict) -> None:
    """Append this epoch's greedy traces of the curated examples to the alignment timeline."""
    examples = [e.text for e in load_examples()]
    traces = [greedy(model, tokenizers, text) for text in examples]
    append_epoch(out, examples, traces, epoch_entry(epoch, scores, traces))


def fit(model, optimizer, tokenizers, corpora: list[Corpus], parts, validation: dict, args, state: dict,
        replicas: Replicas) -> dict:
    """Train epoch by epoch until ``--epochs`` or ``--minutes``; keep the best checkpoint and the state.

    On several processes each trains through DDP on its share of the batches; the main one validates and
    writes, and every decision that follows from validation (best epoch, learning rate) is taken from it.
    """
    out, device = Path(args.out), model.device
    trained = DistributedDataParallel(model) if replicas.world > 1 else model
    start = time.monotonic() - state["elapsed_s"]
    deadline = start + 60 * args.minutes if args.minutes else None
    while state["epoch"] < args.epochs:
        epoch = state["epoch"] + 1
        torch.manual_seed(args.seed + epoch)
        rng = random.Random(args.seed + epoch)
        pairs = mix(parts, [c.weight for c in corpora], rng)
        loss, out_of_time = train_epoch(trained, optimizer, pairs, args, rng, deadline, device, replicas)
        by_corpus = from_main({name: validate(model, tokenizers, *v, device) for name, v in validation.items()}
                              if replicas.main else None, replicas)
        scores = {k: sum(s[k] for s in by_corpus.values()) / len(by_corpus) for k in ("val_loss", "val_bleu")}
        lr = optimizer.param_groups[0]["lr"]
        record = {"epoch": epoch, "train_loss": loss, **scores, "by_corpus": by_corpus, "lr": lr,
                  "partial": out_of_time}
        improved = scores["val_bleu"] > state["best_bleu"]
        if improved:
            state["best_bleu"] = scores["val_bleu"]
        if replicas.main:
            print(json.dumps(record), file=sys.stderr)
            record_alignments(out, model, tokenizers, epoch, scores)
            if improved:
                save_checkpoint(out, model, tokenizers)
        # A slow creep never trips the stall rule; the milestones make the decay explicit.
        if not improved or epoch in args.halve_lr_after:
            for group in optimizer.param_groups:
                group["lr"] = lr / 2
        state.update(epoch=epoch, elapsed_s=time.monotonic() - start, history=[*state["history"], record])
        if replicas.main:
            save_state(out, model, optimizer, state)
        if out_of_time:
            break
    return state


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


def main(argv=None) -> None:
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    device, out = pick_device(args.device), Path(args.out)
    replicas = join_replicas(device)
    if args.precision == "bfloat16" and not native_bfloat16(device) and replicas.main:
        print(f"warning: {device.type} has no native bfloat16 (AVX512-BF16, AMX or a recent GPU); it is emulated, "
              "far slower than --precision float32", file=sys.stderr)
    if replicas.world > 1 and device.type == "cuda":
        device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    corpora, train_text = read_corpora(args)
    resuming = args.resume and (out / STATE_DIR / "state.json").exists()
    tokenizers = shared_tokenizers(args, out, train_text, resuming, replicas)
    parts = [tokenize_pairs(tokenizers, src, tgt, MAX_TRAIN_PIECES) for src, tgt in train_text]
    validation = validation_sets(corpora, tokenizers, args) if replicas.main else {}
    model = Seq2Seq(ModelConfig(
        tokenizers.source.vocab_size, tokenizers.target.vocab_size, score=args.score, emb_dim=args.emb_dim,
        enc_hidden=args.enc_hidden, dec_hidden=args.dec_hidden, attn_dim=args.attn_dim, dropout=args.dropout,
    )).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    state = {"epoch": 0, "elapsed_s": 0.0, "best_bleu": -1.0, "history": [], "commands": []}
    if resuming:
        state = load_state(out, model, optimizer)
        if replicas.main:
            print(f"resuming after epoch {state['epoch']}", file=sys.stderr)
    elif replicas.main:
        save_checkpoint(out, model, tokenizers)
    launcher = "python" if replicas.world == 1 else f"torchrun --nproc_per_node {replicas.world}"
    command = f"{launcher} -m models.train " + shlex.join(sys.argv[1:] if argv is None else argv)
    state["commands"] = [*state["commands"], command]  # an interrupted run is the sum of its invocations
    state = fit(model, optimizer, tokenizers, corpora, parts, validation, args, state, replicas)
    if not replicas_agree(model, replicas):
        raise SystemExit("error: the processes ended with different weights: gradients were not synchronised")
    if replicas.main:
        data = [{"name": c.name, "train_split": c.train_split, "val_split": c.val_split, "weight": c.weight,
                 "train_pairs": len(p)} for c, p in zip(corpora, parts)]
        write_training_record(out, args, model, state, data, replicas.world)
        if args.push_to_hub:
            push(out, args.push_to_hub)
    leave_replicas(replicas)


def write_training_record(out: Path, args, model, state, data: list[dict], processes: int) -> None:
    """``training.json``: the commands, data, time, sizes and curve, read by the model card."""
    record = {
        "commands": state["commands"],
        "data": data,
        "score": args.score,
        "languages": [args.src, args.tgt],
        "parameters": sum(p.numel() for p in model.parameters()),
        "wall_clock_s": round(state["elapsed_s"], 1),
        "epochs": state["epoch"],
        "best_val_bleu": state["best_bleu"],
        "threads": torch.get_num_threads(),
        "processes": processes,
        "device": str(pick_device(args.device)),
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
