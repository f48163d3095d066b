"""Training throughput against a peer: ours and Joey NMT 2.3.0 on the same pieces and the same batches.

    python -m bench joey --data ../shared/data/multi30k ../shared/data/tatoeba-en-fr

Joey NMT (Kreutzer, Bastings & Riezler 2019) is the educational NMT toolkit of
the same RNN family: bidirectional GRU encoder, GRU decoder, Bahdanau attention.
It is installed into a virtual environment of its own (``.bench/joeynmt``, with
this environment's torch; it also needs ``importlib_metadata``, which it does
not declare), and run as its users run it (``python -m joeynmt train``).

Both train on the training CLI's pieces (our tokenizers; Joey reads them as
space-separated words with our vocabularies) with the default sizes, Adam at ``DEFAULT_LR``,
label smoothing 0.1, clipping 1.0 and dropout 0.2, 2 threads each, one after the
other. *Equal batching*: both step through the same batches of 64 sentences, in
the order ``models.train`` forms them (length-sorted windows), written out in
that order for Joey with its shuffling off. *Joey's default*: its own shuffled,
unsorted batches of 64. A rate is target pieces (EOS included, padding not) per
second over each interval of ``--steps / 10`` updates; the first interval is a
warm-up and dropped, and the median of the rest is reported.
"""
from __future__ import annotations

import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch

from models import ROOT
from models.network.learning.step import DEFAULT_LR, PRECISIONS, loss_function, train_step
from models.network.seq2seq import RNNConfig, Seq2Seq
from models.network.tokenization import PAD_ID, SPECIALS, TokenizerPair
from models.storage.data import batch_order, pad
from models.storage.pieces import Pair

JOEY = "joeynmt==2.3.0"
VENV = ROOT / ".bench" / "joeynmt"
INTERVALS = 10


def joey_python() -> Path:
    """The Python of Joey NMT's own virtual environment, created on first use."""
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"torch=={torch.__version__.split('+')[0]}",
                        JOEY, "importlib_metadata"], check=True)
    return python


def write_joey_data(tokenizers: TokenizerPair, pairs: list[Pair], rows: list[int], folder: Path) -> Path:
    """``pairs[rows]`` as space-separated pieces (``train``/``dev`` .en/.fr) and the two vocabularies, for Joey."""
    folder.mkdir(parents=True, exist_ok=True)
    for side, (lang, tok) in enumerate((("en", tokenizers.source), ("fr", tokenizers.target))):
        lines = [" ".join(tok.pieces(pairs[j][side][:-1] if side == 0 else pairs[j][side])) for j in rows]
        (folder / f"train.{lang}").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (folder / f"dev.{lang}").write_text("\n".join(lines[:64]) + "\n", encoding="utf-8")
        vocab = tok.pieces(range(len(SPECIALS), tok.vocab_size))  # Joey adds its own four specials
        (folder / f"vocab.{lang}").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    return folder


def joey_config(folder: Path, steps: int, shuffle: bool, config: RNNConfig) -> str:
    """Joey NMT's YAML for our sizes and recipe; no validation within ``steps`` updates."""
    side = "{{lang: {lang}, level: word, lowercase: false, normalize: false, max_length: 200, voc_file: {voc}}}"
    src = side.format(lang="en", voc=folder / "vocab.en")
    trg = side.format(lang="fr", voc=folder / "vocab.fr")
    return f"""name: atlas-peer-bench
data:
  train: {folder / "train"}
  dev: {folder / "dev"}
  dataset_type: plain
  src: {src}
  trg: {trg}
training:
  random_seed: 1
  optimizer: adam
  learning_rate: {DEFAULT_LR}
  scheduling: decaying  # StepLR after each epoch: constant within the one measured (2.3.0's "plateau" fails
  decaying_step_size: 1000  # on torch ≥ 2.7, which no longer takes its verbose= argument)
  label_smoothing: 0.1
  clip_grad_norm: 1.0
  batch_size: 64
  batch_type: sentence
  eval_batch_size: 64
  epochs: 100
  updates: {steps}
  validation_freq: {10 * steps}
  logging_freq: {steps // INTERVALS}
  shuffle: {str(shuffle).lower()}
  use_cuda: false
  model_dir: {folder / "model"}
  overwrite: true
  print_valid_sents: []
testing:
  beam_size: 1
  eval_metrics: [bleu]
model:
  encoder:
    type: recurrent
    rnn_type: gru
    embeddings: {{embedding_dim: {config.emb_dim}}}
    hidden_size: {config.enc_hidden}
    bidirectional: true
    dropout: {config.dropout}
    num_layers: 1
  decoder:
    type: recurrent
    rnn_type: gru
    embeddings: {{embedding_dim: {config.emb_dim}}}
    hidden_size: {config.dec_hidden}
    attention: bahdanau
    init_hidden: bridge
    input_feeding: true
    dropout: {config.dropout}
    hidden_dropout: {config.dropout}
    num_layers: 1
"""


def run_joey(folder: Path, steps: int, shuffle: bool, config: RNNConfig, threads: int) -> tuple[list[float], int]:
    """Joey's reported target tokens per second of each logging interval, and its parameter count."""
    (folder / "config.yaml").write_text(joey_config(folder, steps, shuffle, config), encoding="utf-8")
    env = {"OMP_NUM_THREADS": str(threads), "PATH": "/usr/bin:/bin", "HOME": str(folder)}
    done = subprocess.run([str(joey_python()), "-m", "joeynmt", "train", str(folder / "config.yaml"),
                           "--skip-test"], capture_output=True, text=True, env=env, cwd=folder, check=False)
    log = done.stdout + done.stderr
    rates = [float(r) for r in re.findall(r"Tokens per Sec:\s+([\d.]+)", log)]
    params = re.search(r"Total params: (\d+)", log)
    if done.returncode != 0 or not rates or params is None:
        raise SystemExit(f"Joey NMT failed (exit {done.returncode}):\n{log[-3000:]}")
    return rates, int(params.group(1))


def run_ours(pairs: list[Pair], order: list[list[int]], steps: int, config: RNNConfig,
             precision: str) -> tuple[list[float], int]:
    """Our training step's target pieces per second of each interval, over the same batches."""
    torch.manual_seed(1)
    model = Seq2Seq(config).train()
    optimizer = torch.optim.Adam(model.parameters(), lr=DEFAULT_LR)
    loss_fn, every = loss_function(0.1), steps // INTERVALS
    rates, pieces, start = [], 0, time.perf_counter()
    for step, chunk in enumerate(order[:steps], 1):
        batch = pad([pairs[j] for j in chunk])
        train_step(model, batch, optimizer, loss_fn, precision=PRECISIONS[precision])
        pieces += int((batch[3] != PAD_ID).sum())
        if step % every == 0:
            now = time.perf_counter()
            rates.append(pieces / (now - start))
            pieces, start = 0, now
    return rates, sum(p.numel() for p in model.parameters())


def bench_joey(tokenizers: TokenizerPair, pairs: list[Pair], steps: int, threads: int, workdir: Path) -> None:
    """Print both tools' rates on the first ``steps`` batches ``models.train`` would form from ``pairs``."""
    torch.set_num_threads(threads)
    config = RNNConfig(tokenizers.source.vocab_size, tokenizers.target.vocab_size)
    order = batch_order(pairs, 64, np.random.default_rng(1))[:steps]
    rows = [j for batch in order for j in batch]  # Joey reads them in this order, or shuffles them
    per_sentence = sum(len(pairs[j][1]) + 1 for j in rows) / len(rows)  # target pieces with EOS
    print(f"{len(rows):,} pairs, {per_sentence:.1f} target pieces a sentence; batches of 64; {steps} updates a "
          f"run, the median of {INTERVALS - 1} intervals after a warm-up; {threads} threads")
    print("| run | parameters | sentences/s | target pieces/s |\n|---|---|---|---|")
    runs = {
        "ours, float32, equal batching": lambda: run_ours(pairs, order, steps, config, "float32"),
        "ours, bfloat16, equal batching": lambda: run_ours(pairs, order, steps, config, "bfloat16"),
        "Joey NMT, equal batching": lambda: run_joey(
            write_joey_data(tokenizers, pairs, rows, workdir / "sorted"), steps, False, config, threads),
        "Joey NMT, its default (shuffled) batching": lambda: run_joey(
            write_joey_data(tokenizers, pairs, rows, workdir / "shuffled"), steps, True, config, threads),
    }
    rate = {}
    for name, run in runs.items():
        rates, params = run()
        rate[name] = statistics.median(rates[1:])
        print(f"| {name} | {params:,} | {rate[name] / per_sentence:.0f} | {rate[name]:,.0f} |", flush=True)
    for ours in ("ours, float32, equal batching", "ours, bfloat16, equal batching"):
        print(f"{ours} ÷ Joey NMT at equal batching: {rate[ours] / rate['Joey NMT, equal batching']:.2f}×; "
              f"÷ Joey NMT's default: {rate[ours] / rate['Joey NMT, its default (shuffled) batching']:.2f}×")
