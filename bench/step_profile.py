"""Where a training step's time goes, and how close its matrix products come to what the processor can do.

    python -m bench profile --data ../shared/data/multi30k:weight=2 ../shared/data/tatoeba-en-fr

Profiles ``--steps`` training steps (the training CLI's batches, step and default sizes, after a warm-up)
with ``torch.profiler`` and prints each operator's share of the time and, for the matrix products, the rate
they ran at (``with_flops``: FLOPs from their recorded shapes, over their own time). Beside it, the rate of
one large square product on the same threads: about the best this processor does. Matrix products already
near that rate leave faster code little to win; only less arithmetic (smaller layers, a sampled softmax) or
other hardware (bfloat16 units, a GPU) would.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile

#: The operators that do a training step's matrix products (linear layers, GRU cells, attention).
MATMULS = ("aten::mm", "aten::addmm", "aten::bmm")


@dataclass(frozen=True)
class OpTime:
    """One operator's own time (children excluded) over the profiled steps."""

    name: str
    calls: int
    seconds: float
    flops: int  # counted for matrix products only

    @property
    def gflops_per_s(self) -> float:
        return self.flops / self.seconds / 1e9 if self.seconds else 0.0


def op_times(run: Callable[[], None], device: str) -> list[OpTime]:
    """Profile one call of ``run``; each operator's own time and FLOPs, slowest first."""
    cuda = device.startswith("cuda")
    activities = [ProfilerActivity.CPU, *([ProfilerActivity.CUDA] if cuda else [])]
    with profile(activities=activities, with_flops=True) as prof:
        run()
        if cuda:
            torch.cuda.synchronize()
    # Operators only: on CUDA a kernel's time is also counted in the self device time of the operator that
    # launched it, so the kernels' own rows would count it twice.
    ops = [OpTime(e.key, e.count, (e.self_device_time_total if cuda else e.self_cpu_time_total) / 1e6, e.flops)
           for e in prof.key_averages() if e.device_type == DeviceType.CPU]
    return sorted((o for o in ops if o.seconds > 0), key=lambda o: o.seconds, reverse=True)


def square_rate(device: str, size: int = 2048, repeats: int = 5) -> float:
    """GFLOP/s of a ``size``³ float32 matrix product, the median of ``repeats``."""
    a, b = torch.randn(size, size, device=device), torch.randn(size, size, device=device)
    rates = []
    for _ in range(repeats + 1):  # the first warms up
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        start = time.perf_counter()
        a @ b
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        rates.append(2 * size**3 / (time.perf_counter() - start) / 1e9)
    return sorted(rates[1:])[repeats // 2]


def print_profile(step: Callable[[], tuple[int, int]], steps: int, device: str, top: int = 12) -> None:
    """Profile ``steps`` calls of ``step`` (which returns the sentences and pieces it trained on) and print."""
    pieces, seconds = [], []

    def run() -> None:  # timed inside: the profiler's own bookkeeping on exit is not the step's
        start = time.perf_counter()
        pieces.extend(step()[1] for _ in range(steps))
        seconds.append(time.perf_counter() - start)

    ops = op_times(run, device)
    total = sum(o.seconds for o in ops)
    matmul = [o for o in ops if o.name in MATMULS]
    matmul_s, matmul_flops = sum(o.seconds for o in matmul), sum(o.flops for o in matmul)
    print(f"{steps} steps, {sum(pieces) / seconds[0]:,.0f} target pieces/s under the profiler; {device}, "
          f"{torch.get_num_threads()} thread(s)")
    print(f"matrix products: {100 * matmul_s / total:.0f} % of the operators' time at "
          f"{matmul_flops / matmul_s / 1e9:.1f} GFLOP/s, {matmul_flops / sum(pieces) / 1e6:.0f} MFLOP per target "
          f"piece; one 2048³ product: {square_rate(device):.1f} GFLOP/s")
    print("| operator | calls | share of time | GFLOP/s |\n|---|---|---|---|")
    for o in ops[:top]:
        rate = f"{o.gflops_per_s:.1f}" if o.name in MATMULS else ""
        print(f"| {o.name} | {o.calls:,} | {100 * o.seconds / total:.1f} % | {rate} |")
