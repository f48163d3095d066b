"""Kernel and call timings: the attention scorers, a training step, a greedy trace, a neighbour query.

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

import os
import statistics
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import torch

from models import ROOT
from models.network.attention import build_attention

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


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def time_ms(impl: str, score: str, B: int, T: int, S: int, device: str, repeats: int) -> float:
    scorer, query, keys = _setup(score, B, T, S, device)
    _run(impl, scorer, query, keys)  # warm-up
    times = []
    for _ in range(repeats):
        sync(device)
        start = time.perf_counter()
        _run(impl, scorer, query, keys)
        sync(device)
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
    code = f"from bench.kernels import cpu_peak; print(cpu_peak({impl!r}, {score!r}, {B}, {T}, {S}))"
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
    from models.decoding.greedy import greedy
    from models.storage.examples import load_examples
    from models.storage.hub import load_model

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


#: One sentence each, growing: a pool cut to length stops being translated after its first full stop.
ATTRIBUTION_SENTENCES = (
    "A dog runs on the beach.",
    "Two young men in blue shirts are sitting on a wooden bench in the park and reading the newspaper together.",
    "The committee said on Tuesday that the new rules for the harbour, which were written after the storm of last "
    "winter, would be discussed again by the members of the council before the end of the month, and that nobody "
    "should expect a decision soon.",
)


def bench_attribution(model_ref: str, device: str | None, repeats: int) -> None:
    """Seconds per whole-sentence attribution, and the process's peak memory so far (sentences grow, so each row's
    peak is that row's)."""
    import resource

    from models.analysis.attribution import ATTRIBUTIONS, attribution_matrix, work
    from models.decoding.greedy import greedy
    from models.storage.hub import load_model

    loaded = load_model(model_ref, device=device)
    runs = max(1, min(repeats, 3))
    print(f"attribution of every written piece, {model_ref} on {loaded.device}, {torch.get_num_threads()} threads, "
          f"median of {runs}")
    print("| words | pieces S × T | " + " | ".join(f"{m} s | cells/s" for m in ATTRIBUTIONS) + " | peak RSS MiB |")
    print("|---|---|" + "---|---|" * len(ATTRIBUTIONS) + "---|")
    for text in ATTRIBUTION_SENTENCES:
        trace = greedy(loaded.model, loaded.tokenizers, text)
        seconds = []
        for method in ATTRIBUTIONS:
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                attribution_matrix(loaded.model, trace, method)
                times.append(time.perf_counter() - start)
            seconds.append(statistics.median(times))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB
        rates = [work(trace, m) / x for m, x in zip(ATTRIBUTIONS, seconds)]  # what CELLS_PER_SECOND is set from
        print(f"| {len(text.split())} | {len(trace.source.ids)} × {len(trace.target_ids)} | "
              + " | ".join(f"{x:.2f} | {r:,.0f}" for x, r in zip(seconds, rates)) + f" | {peak:.0f} |", flush=True)


TRAIN_SHAPE = (64, 20, 24, 8000)  # B, S, T, vocabulary size


def stepwise_log_probs(model, src, mask, tgt_in, keep):
    """Teacher-forced log-probabilities [N, V] of the ``keep`` positions, from one ``decode_step`` per position
    (as logits they give the loss the model's own logits give: the softmax of a log-softmax is itself)."""
    memory = model.encode(src, mask)
    cache, log_probs = model.start(memory), []
    for t in range(tgt_in.shape[1]):
        step, cache = model.decode_step(tgt_in[:, t], cache, memory)
        log_probs.append(step.log_probs)
    return torch.stack(log_probs, dim=1)[keep]  # [B, T, V] → [N, V]


def train_step_ms(score: str, impl: str, device: str, repeats: int) -> float:
    """Median ms of :func:`train_step` (the training CLI's) with the read-out over all steps or per step."""
    from models.network.seq2seq import RNNConfig, Seq2Seq
    from models.network.learning.step import loss_function, train_step

    torch.manual_seed(0)
    B, S, T, V = TRAIN_SHAPE
    model = Seq2Seq(RNNConfig(V, V, score=score)).to(device).train()
    optimizer, loss_fn = torch.optim.Adam(model.parameters()), loss_function(0.1)
    src, tgt = (torch.randint(4, V, shape, device=device) for shape in ((B, S), (B, T + 1)))
    batch = (src, torch.ones_like(src, dtype=torch.bool), tgt[:, :-1], tgt[:, 1:])
    forward = None if impl == "all steps" else partial(stepwise_log_probs, model)
    times = []
    for _ in range(repeats + 1):  # the first is a warm-up
        sync(device)
        start = time.perf_counter()
        train_step(model, batch, optimizer, loss_fn, forward)
        sync(device)
        times.append(1000 * (time.perf_counter() - start))
    return statistics.median(times[1:])


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
    from models.analysis.nearest_states import INDEX_FILE, load_index, nearest
    from models.decoding.greedy import greedy
    from models.storage.examples import load_examples
    from models.storage.hub import load_model

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
