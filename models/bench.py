"""Speed and memory figures, printed as tables.

    python -m models.bench attention              # scorers vs a per-query textbook loop
    python -m models.bench translate --model additive
    python -m models.bench train                  # one training step: read-out over all steps vs per step
    python -m models.bench throughput --data ../shared/data/multi30k ../shared/data/tatoeba-en-fr
                                                  # the training CLI's sentences and target pieces per second
    python -m models.bench load --sessions 1 4 8  # the running app under concurrent browser sessions
    python -m models.bench step                   # the step slider in a browser: key press → settled
    python -m models.bench joey --steps 100       # ours against Joey NMT 2.3.0 on the same batches (models.joey_bench)
    python -m models.bench profile --steps 20     # where a training step's time goes (models.step_profile)
    python -m models.bench neighbours --model additive  # one nearest-neighbour query of a decoder state

``attention`` times the additive and dot-product scorers (median of repeats)
and measures their peak memory: on CUDA the allocator's peak, on CPU the
process's peak resident set (Linux ``VmHWM``) above its level before the call,
each measured in a fresh, plain Python process (every ``MALLOC_*`` setting
removed from its environment), as a user runs it.
The reference is the simplest textbook code: one query position at a time,
keys re-projected for each.

``train`` times one teacher-forced training step (forward, backward, Adam) of
the default-size model on a random batch shaped like Multi30k (B=64, 20 source
and 24 target pieces, 8,000-piece vocabularies): ``Seq2Seq.forward`` against
the same logits computed by calling ``decode_step`` once per target position.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import torch

from . import ROOT
from .network.attention import build_attention
from .network.device import pick_device
from .network.training import DEFAULT_LR, PRECISIONS

SIZES = (  # name, B, T, S
    ("decode step", 64, 1, 30),
    ("teacher forcing", 64, 30, 30),
    ("long", 1, 500, 500),
    ("very long", 1, 2000, 2000),
)
DIM, ATTN_DIM = 256, 128


def naive_forward(scorer, query, keys):
    """One query position at a time, as the simplest per-step implementations do."""
    outs = [scorer(query[:, t : t + 1], keys) for t in range(query.shape[1])]  # each ([B,1,Dv], [B,1,S], [B,1,S])
    return tuple(torch.cat(parts, 1) for parts in zip(*outs))  # context, weights, energies


def _setup(score: str, B: int, T: int, S: int, device: str):
    torch.manual_seed(0)
    scorer = build_attention(score, DIM, DIM, ATTN_DIM).to(device)
    return scorer, torch.randn(B, T, DIM, device=device), torch.randn(B, S, DIM, device=device)


def _run(impl: str, scorer, query, keys):
    with torch.inference_mode():
        return scorer(query, keys) if impl == "vectorised" else naive_forward(scorer, query, keys)


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def time_ms(impl: str, score: str, B: int, T: int, S: int, device: str, repeats: int) -> float:
    scorer, query, keys = _setup(score, B, T, S, device)
    _run(impl, scorer, query, keys)  # warm-up
    times = []
    for _ in range(repeats):
        _sync(device)
        start = time.perf_counter()
        _run(impl, scorer, query, keys)
        _sync(device)
        times.append(1000 * (time.perf_counter() - start))
    return statistics.median(times)


def _vm_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def cpu_peak(impl: str, score: str, B: int, T: int, S: int) -> float:
    """Peak resident memory (MiB) of one call above the level before it; run in a fresh process."""
    scorer, query, keys = _setup(score, B, T, S, "cpu")
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak to the current level
    before = _vm_kib("VmRSS")
    _run(impl, scorer, query, keys)
    return (_vm_kib("VmHWM") - before) / 1024


def peak_mib(impl: str, score: str, B: int, T: int, S: int, device: str) -> float:
    if device.startswith("cuda"):
        scorer, query, keys = _setup(score, B, T, S, device)
        torch.cuda.reset_peak_memory_stats()
        start = torch.cuda.memory_allocated()
        _run(impl, scorer, query, keys)
        return (torch.cuda.max_memory_allocated() - start) / 2**20
    code = f"from models.bench import cpu_peak; print(cpu_peak({impl!r}, {score!r}, {B}, {T}, {S}))"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}  # glibc's defaults
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=True, timeout=600)
    return float(done.stdout.split()[-1])


def bench_attention(device: str, repeats: int) -> None:
    print(f"attention scorers on {device}, {torch.get_num_threads()} threads; D={DIM}, A={ATTN_DIM}; "
          f"time = median of {repeats}")
    print("| size | B×T×S | score | vectorised ms | naive ms | speed-up | vectorised peak MiB | naive peak MiB |")
    print("|---|---|---|---|---|---|---|---|")
    for name, B, T, S in SIZES:
        for score in ("additive", "dot"):
            fast, slow = (time_ms(i, score, B, T, S, device, repeats) for i in ("vectorised", "naive"))
            mem_fast, mem_slow = (peak_mib(i, score, B, T, S, device) for i in ("vectorised", "naive"))
            print(f"| {name} | {B}×{T}×{S} | {score} | {fast:.2f} | {slow:.2f} | {slow / fast:.1f}× "
                  f"| {mem_fast:.1f} | {mem_slow:.1f} |", flush=True)


def sentence_of(words: int, pool: list[str]) -> str:
    """An in-domain sentence of exactly ``words`` words cut from the example pool."""
    tokens = " ".join(pool).split()
    return " ".join((tokens * (words // len(tokens) + 1))[:words])


def bench_translate(model_ref: str, device: str | None, repeats: int) -> None:
    from .decoding.greedy import greedy
    from .storage.examples import load_examples
    from .storage.hub import load_model

    loaded = load_model(model_ref, device=device)
    pool = [e.text for e in load_examples()]
    print(f"full greedy trace of {model_ref} on {loaded.device}, {torch.get_num_threads()} threads, {repeats} runs")
    print("| words | median ms | p95 ms |\n|---|---|---|")
    for words in (5, 20, 50):
        text = sentence_of(words, pool)
        greedy(loaded.model, loaded.tokenizers, text)  # warm-up
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            greedy(loaded.model, loaded.tokenizers, text)
            times.append(1000 * (time.perf_counter() - start))
        p95 = statistics.quantiles(times, n=20)[-1]
        print(f"| {words} | {statistics.median(times):.1f} | {p95:.1f} |", flush=True)


TRAIN_SHAPE = (64, 20, 24, 8000)  # B, S, T, vocabulary size


def stepwise_logits(model, src, mask, tgt_in, keep):
    """Teacher-forced logits [N, V] of the ``keep`` positions, from one ``decode_step`` per position."""
    enc = model.encode(src, mask)
    state, logits = enc.init_state, []
    for t in range(tgt_in.shape[1]):
        step = model.decode_step(tgt_in[:, t], state, enc)
        state = step.state
        logits.append(step.logits)
    return torch.stack(logits, dim=1)[keep]  # [B, T, V] → [N, V]


def train_step_ms(score: str, impl: str, device: str, repeats: int) -> float:
    """Median ms of :func:`train_step` (the training CLI's) with the read-out over all steps or per step."""
    from .network.seq2seq import ModelConfig, Seq2Seq
    from .network.training import loss_function, train_step

    torch.manual_seed(0)
    B, S, T, V = TRAIN_SHAPE
    model = Seq2Seq(ModelConfig(V, V, score=score)).to(device).train()
    optimizer, loss_fn = torch.optim.Adam(model.parameters()), loss_function(0.1)
    src, tgt = (torch.randint(4, V, shape, device=device) for shape in ((B, S), (B, T + 1)))
    batch = (src, torch.ones_like(src, dtype=torch.bool), tgt[:, :-1], tgt[:, 1:])
    forward = None if impl == "all steps" else partial(stepwise_logits, model)
    times = []
    for _ in range(repeats + 1):  # the first is a warm-up
        _sync(device)
        start = time.perf_counter()
        train_step(model, batch, optimizer, loss_fn, forward)
        _sync(device)
        times.append(1000 * (time.perf_counter() - start))
    return statistics.median(times[1:])


def training_pairs(data: list[str]):
    """The bundled tokenizers and one epoch's mix of the corpora ``DIR[:weight=W]``, as ``models.train`` reads them."""
    import random

    from .network.tokenization import TokenizerPair
    from .storage.data import Corpus, mix, read_parallel, tokenize_pairs
    from .storage.hub import BUNDLED_DIR

    tokenizers = TokenizerPair.load(BUNDLED_DIR / "en-fr-additive")
    corpora = [Corpus.parse(spec) for spec in data]
    parts = [tokenize_pairs(tokenizers, *read_parallel(c.path, c.train_split, "en", "fr"), 64) for c in corpora]
    return tokenizers, mix(parts, [c.weight for c in corpora], random.Random(0))


def trainer(tokenizers, pairs, batch_size: int, device: str, precision: str) -> Callable[[], tuple[int, int]]:
    """The training CLI's step on a default-size model, one of its batches per call, after 3 warm-up steps.

    Each call returns the sentences and target pieces (padding not counted) it trained on.
    """
    import itertools
    import random

    from .network.seq2seq import ModelConfig, Seq2Seq
    from .network.tokenization import PAD_ID
    from .network.training import loss_function, train_step
    from .storage.data import batches

    torch.manual_seed(0)
    model = Seq2Seq(ModelConfig(tokenizers.source.vocab_size, tokenizers.target.vocab_size)).to(device).train()
    optimizer = torch.optim.Adam(model.parameters(), lr=DEFAULT_LR)
    stream = (b for epoch in itertools.count() for b in batches(pairs, batch_size, random.Random(epoch)))
    step = partial(train_step, loss_fn=loss_function(0.1), precision=PRECISIONS[precision])

    def next_step() -> tuple[int, int]:
        batch = next(stream)  # counted on the CPU: no device sync inside the timed loop
        step(model, tuple(x.to(device) for x in batch), optimizer)
        return len(batch[0]), int((batch[3] != PAD_ID).sum())

    for _ in range(3):
        next_step()
    return next_step


def bench_throughput(data: list[str], batch_sizes: list[int], steps: int, device: str, precision: str) -> None:
    """The training CLI's speed on real data (its batching, step and default sizes; the bundled pieces)."""
    tokenizers, pairs = training_pairs(data)
    print(f"training throughput on {device}, {torch.get_num_threads()} threads, {precision}, {len(pairs):,} pairs "
          f"from {', '.join(data)}; {steps} steps after 3 warm-up steps, default sizes")
    print("| sentences per batch | sentences/s | target pieces/s |\n|---|---|---|")
    for batch_size in batch_sizes:
        step = trainer(tokenizers, pairs, batch_size, device, precision)
        sentences = pieces = 0
        _sync(device)
        start = time.perf_counter()
        for _ in range(steps):
            done = step()
            sentences, pieces = sentences + done[0], pieces + done[1]
        _sync(device)
        seconds = time.perf_counter() - start
        print(f"| {batch_size} | {sentences / seconds:.0f} | {pieces / seconds:,.0f} |", flush=True)


def bench_train(device: str, repeats: int) -> None:
    B, S, T, V = TRAIN_SHAPE
    print(f"one training step on {device}, {torch.get_num_threads()} threads; B={B}, S={S}, T={T}, V={V}; "
          f"median of {repeats}")
    print("| score | read-out over all steps ms | read-out per step ms | speed-up |\n|---|---|---|---|")
    for score in ("additive", "dot", "none"):
        fast, slow = (train_step_ms(score, impl, device, repeats) for impl in ("all steps", "per step"))
        print(f"| {score} | {fast:.0f} | {slow:.0f} | {slow / fast:.2f}× |", flush=True)


def bench_neighbours(model_ref: str, repeats: int) -> None:
    """Query time of the neighbour index beside ``model_ref``, for decoder states of the curated examples."""
    from .analysis.neighbours import INDEX_FILE, load_index, nearest
    from .decoding.greedy import greedy
    from .storage.examples import load_examples
    from .storage.hub import load_model

    loaded = load_model(model_ref, device="cpu")
    index = load_index(loaded.path, loaded.model)
    if index is None:
        raise SystemExit(f"error: {loaded.path} has no {INDEX_FILE}; build it with python -m models.neighbours")
    states = [s for e in load_examples() for s in greedy(loaded.model, loaded.tokenizers, e.text).states]
    times = []
    for _ in range(repeats):
        for state in states:
            start = time.perf_counter()
            nearest(index, state, k=8)
            times.append(1000 * (time.perf_counter() - start))
    size = (loaded.path / INDEX_FILE).stat().st_size / 1e6
    print(f"{loaded.path.name}: {len(index.vectors):,} states × {index.vectors.shape[1]} dimensions, {size:.1f} MB; "
          f"{len(times):,} queries (k=8), {torch.get_num_threads()} threads: median "
          f"{statistics.median(times):.2f} ms, p95 {statistics.quantiles(times, n=20)[-1]:.2f} ms")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m models.bench", description=__doc__.split("\n")[0])
    p.add_argument("what", choices=["attention", "translate", "train", "throughput", "joey", "profile", "load",
                                    "step", "neighbours"])
    p.add_argument("--model", default="additive", help="for translate, neighbours: bundled name, directory or Hub id")
    p.add_argument("--device", help="default: cuda if available, else cpu")
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--data", nargs="+", default=["../shared/data/multi30k", "../shared/data/tatoeba-en-fr"],
                   help="for throughput, joey, profile: corpora, DIR[:weight=W]")
    p.add_argument("--batch-sizes", type=int, nargs="+", default=[64, 128], help="for throughput: sentences a batch")
    p.add_argument("--steps", type=int, default=30,
                   help="for throughput: timed steps per batch size; for joey: updates a run (a multiple of 10); "
                        "for profile: profiled steps")
    p.add_argument("--precision", choices=list(PRECISIONS), default="float32",
                   help="for throughput, profile: the training CLI's --precision")
    p.add_argument("--threads-train", type=int, default=2, help="for joey: torch threads of both trainers")
    p.add_argument("--sessions", type=int, nargs="+", default=[1, 4, 8], help="for load: concurrent sessions")
    p.add_argument("--sentences", type=int, default=3, help="for load: sentences each session types")
    p.add_argument("--threads", help="for load: the server's ATLAS_TORCH_THREADS (default: the app's own)")
    p.add_argument("--cpus", help="for load: pin the server to these CPUs (taskset list, e.g. 0)")
    args = p.parse_args(argv)
    if args.what in ("load", "step"):
        from . import app_bench

        if args.what == "load":
            app_bench.bench_load(args.sessions, args.sentences, args.threads, args.cpus)
        else:
            app_bench.bench_step(args.repeats)
        return
    if args.what == "neighbours":
        bench_neighbours(args.model, args.repeats)
        return
    if args.what == "joey":
        import tempfile

        from .joey_bench import bench_joey

        tokenizers, pairs = training_pairs(args.data)
        with tempfile.TemporaryDirectory() as workdir:
            bench_joey(tokenizers, pairs, args.steps, args.threads_train, Path(workdir))
        return
    device = str(pick_device(args.device))
    if args.what == "profile":
        from .step_profile import print_profile

        print_profile(trainer(*training_pairs(args.data), 64, device, args.precision), args.steps, device)
        return
    if args.what == "attention":
        bench_attention(device, args.repeats)
    elif args.what == "train":
        bench_train(device, args.repeats)
    elif args.what == "throughput":
        bench_throughput(args.data, args.batch_sizes, args.steps, device, args.precision)
    else:
        bench_translate(args.model, args.device, args.repeats)


if __name__ == "__main__":
    main()
