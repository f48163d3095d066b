"""The word-by-word matrices links are read from: attention, or an attribution of each forced French piece."""
from __future__ import annotations

import numpy as np

from ..analysis.alignment import word_view
from ..analysis.attribution import ATTRIBUTIONS, attributed
from ..decoding.greedy import forced
from ..network.tokenization import EOS
from ..storage.gold import GoldPair
from ..storage.hub import LoadedModel

#: ``--matrix`` choices.
MATRICES = ("attention", *ATTRIBUTIONS)

#: The least weight ``--method threshold`` links, per matrix: chosen on the trial set (docs/results.md).
THRESHOLDS = {"attention": 0.2, "gradient×input": 0.2, "integrated gradients": 0.2}


def word_matrix(loaded: LoadedModel, pair: GoldPair, matrix: str = "attention") -> np.ndarray:
    """Weights [F, E] between the pair's own words under forced decoding (end of sentence left out; a sentence
    cut at the model's length limit has fewer columns than the gold has words)."""
    trace = forced(loaded.model, loaded.tokenizers, " ".join(pair.english), " ".join(pair.french))
    if matrix != "attention":
        trace = attributed(loaded.model, trace, matrix)
    view = word_view(trace)
    english = [s for s, word in enumerate(view.columns) if word != EOS][: len(pair.english)]
    french = [t for t, word in enumerate(view.rows) if word != EOS][: len(pair.french)]
    return view.weights[french][:, english]
