"""How many path points integrated gradients need: the completeness gap by number of points.

Integrated gradients approximate a path integral from the all-padding sentence with ``n`` points; exact ones add
up, for each written piece, to the change in its log-probability between that sentence and the real one
(completeness, Sundararajan et al. 2017). This prints, for one model, the largest gap over every written piece of
a short and a longer sentence (:func:`models.analysis.attribution.completeness`) at each number of points, beside
the largest change. The app and ``python -m models.align`` use ``IG_STEPS`` points.
"""
from __future__ import annotations

import numpy as np

from .kernels import ATTRIBUTION_SENTENCES

POINTS = (2, 8, 16, 32, 64, 128)


def bench_completeness(model_ref: str, device: str | None, points: tuple[int, ...] = POINTS) -> None:
    from models.nouns.matrix import IG_STEPS
    from models.analysis.attribution import completeness
    from models.decoding.greedy import greedy
    from models.storage.hub import load_model

    loaded = load_model(model_ref, device=device)
    texts = ATTRIBUTION_SENTENCES[:2]
    traces = [greedy(loaded.model, loaded.tokenizers, text) for text in texts]
    print(f"integrated gradients of {model_ref} on {loaded.device}: largest gap over every written piece of the "
          f"{' and '.join(str(len(t.split())) for t in texts)}-word sentences; the app uses {IG_STEPS} points")
    print("| path points | largest gap, nats | largest change, nats | gap / change |\n|---|---|---|---|")
    for n in points:
        results = [completeness(loaded.model, trace, n) for trace in traces]  # [(gap [T], change [T])]
        gap = max(float(g.max()) for g, _ in results)
        change = max(float(np.abs(c).max()) for _, c in results)
        print(f"| {n} | {gap:.3f} | {change:.2f} | {100 * gap / change:.1f} % |", flush=True)
