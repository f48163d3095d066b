"""What each matrix beyond the weights costs beside a plain heatmap: the greedy trace that draws the attention, then
the same trace plus one matrix, side by side in one process on one thread, by sentence length.

The norm, ALTI and the rollouts are one teacher-forced pass with hooks (:meth:`Translator.attention_parts`); value
zeroing is one pass per layer and source piece, batched. Every matrix of the registry is measured but the
attention itself and integrated gradients, whose own bench is ``python -m bench attribution``.
"""
from __future__ import annotations

import statistics
import time

from .kernels import ATTRIBUTION_SENTENCES

def matrices(loaded) -> list:
    """The matrices measured on ``loaded``: every one it has but those left to their own benches (the attention, the
    baseline itself; integrated gradients, ``bench attribution``)."""
    from models.analysis.recipes import applicable
    from models.nouns.matrix import ATTENTION, INTEGRATED_GRADIENTS

    return [m for m in applicable(loaded.model, loaded.fitted) if m not in (ATTENTION, INTEGRATED_GRADIENTS)]


def _median_ms(run, repeats: int) -> float:
    run()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(1000 * (time.perf_counter() - start))
    return statistics.median(times)


def bench_readings(model_ref: str, device: str | None, repeats: int) -> list[dict]:
    """Print one row per sentence and matrix: the plain heatmap's ms, the matrix's own ms, and their ratio
    (heatmap + matrix) / heatmap — what a visitor waits beside what the attention alone costs."""
    import torch

    from models.analysis.contributions import Sentence
    from models.analysis.recipes import read
    from models.decoding.greedy import greedy
    from models.storage.hub import load_model

    loaded = load_model(model_ref, device=device)
    print(f"{model_ref} on {loaded.device}, {torch.get_num_threads()} threads, median of {repeats} runs")
    print("| source pieces × written | plain heatmap ms | matrix | its ms | (heatmap + it) / heatmap |\n"
          "|---|---|---|---|---|")
    rows = []
    measured = matrices(loaded)
    for text in ATTRIBUTION_SENTENCES:
        trace = greedy(loaded.model, loaded.tokenizers, text)
        plain = _median_ms(lambda: greedy(loaded.model, loaded.tokenizers, text), repeats)
        size = f"{len(trace.source.ids)} × {len(trace.target_ids)}"
        for matrix in measured:  # each its own Sentence: the hooked pass is part of its cost
            sentence = Sentence(loaded.model, trace, fitted=loaded.fitted)
            own = _median_ms(lambda: read(matrix, sentence, [loaded.reading]), repeats)
            rows.append({"size": size, "plain": plain, "matrix": matrix.name, "own": own,
                         "ratio": (plain + own) / plain})
            print(f"| {size} | {plain:.1f} | {matrix.name} | {own:.1f} | {(plain + own) / plain:.2f} |", flush=True)
    return rows


def bench_which(model_ref: str, device: str | None, repeats: int) -> list[dict]:
    """One sentence read every way, as the “Which matrix to believe?” page reads it
    (:func:`models.views.matrix_views.panel_readings`:
    each matrix its time budget affords, at its chosen reading; :func:`models.analysis.side_by_side.side_by_side`
    with the deletion scores): the median seconds against the page's budget of about 10 s, the matrices left out, and
    the hooked passes over the whole sentence (value zeroing's zeroed passes apart), per sentence length."""
    import torch

    from models.analysis.side_by_side import side_by_side
    from models.decoding.greedy import greedy
    from models.storage.hub import load_model
    from models.views.matrix_views import panel_readings

    loaded = load_model(model_ref, device=device)
    passes, real = [], loaded.model.attention_parts

    def counting(src, mask, tgt_in, zeroed=None):
        passes.append(zeroed)
        return real(src, mask, tgt_in, zeroed)

    loaded.model.attention_parts = counting
    print(f"{model_ref} on {loaded.device}, {torch.get_num_threads()} threads, deletion scores included, median of "
          f"{repeats} runs\n| source pieces × written | matrices | seconds | left out | whole-sentence hooked passes |"
          "\n|---|---|---|---|---|")
    rows = []
    for text in ATTRIBUTION_SENTENCES:
        trace = greedy(loaded.model, loaded.tokenizers, text)
        chosen, slow = panel_readings(loaded, trace)
        passes.clear()
        side_by_side(loaded.model, trace, chosen, True, loaded.fitted)
        whole = sum(zeroed is None for zeroed in passes)
        seconds = _median_ms(lambda: side_by_side(loaded.model, trace, chosen, True, loaded.fitted), repeats) / 1000
        size = f"{len(trace.source.ids)} × {len(trace.target_ids)}"
        rows.append({"size": size, "matrices": len(chosen), "seconds": seconds, "passes": whole})
        print(f"| {size} | {len(chosen)} | {seconds:.3f} | {slow or ''} | {whole} |", flush=True)
    return rows
