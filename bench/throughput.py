"""Training throughput: the training CLI's sentences and target pieces per second on real data."""
from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

import torch

from models.network.learning.step import DEFAULT_LR, PRECISIONS

from .kernels import sync


def training_pairs(data: list[str]):
    """The bundled tokenizers and one epoch's mix of the corpora ``DIR[:weight=W]``, as ``models.train`` reads them."""
    import numpy as np

    from models.network.tokenization import TokenizerPair
    from models.storage.data import Corpus, mix, read_parallel
    from models.storage.hub import BUNDLED_DIR
    from models.storage.pieces import tokenize_pairs

    tokenizers = TokenizerPair.load(BUNDLED_DIR / "en-fr-additive")
    corpora = [Corpus.parse(spec) for spec in data]
    parts = [tokenize_pairs(tokenizers, *read_parallel(c.path, c.train_split, "en", "fr"), 64) for c in corpora]
    return tokenizers, mix(parts, [c.weight for c in corpora], np.random.default_rng(0))


def trainer(tokenizers, pairs, batch_size: int, device: str, precision: str) -> Callable[[], tuple[int, int]]:
    """The training CLI's step on a default-size model, one of its batches per call, after 3 warm-up steps.

    Each call returns the sentences and target pieces (padding not counted) it trained on.
    """
    import itertools

    import numpy as np

    from models.network.seq2seq import RNNConfig, Seq2Seq
    from models.network.tokenization import PAD_ID
    from models.network.learning.step import loss_function, train_step
    from models.storage.data import batches

    torch.manual_seed(0)
    model = Seq2Seq(RNNConfig(tokenizers.source.vocab_size, tokenizers.target.vocab_size)).to(device).train()
    optimizer = torch.optim.Adam(model.parameters(), lr=DEFAULT_LR)
    stream = (b for epoch in itertools.count() for b in batches(pairs, batch_size, np.random.default_rng(epoch)))
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
        sync(device)
        start = time.perf_counter()
        for _ in range(steps):
            done = step()
            sentences, pieces = sentences + done[0], pieces + done[1]
        sync(device)
        seconds = time.perf_counter() - start
        print(f"| {batch_size} | {sentences / seconds:.0f} | {pieces / seconds:,.0f} |", flush=True)
