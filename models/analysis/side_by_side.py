"""One sentence's matrices side by side, each with how far this translation depends on what it points at — what the
"Which matrix to believe?" view draws (:mod:`.recipes` for the matrices, :mod:`.deletion` for the scores)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


from ..decoding.trace import Trace
from ..network.translator import Fitted, Translator
from ..nouns.attention_map import Reading
from ..nouns.matrix import RANDOM, Matrix
from .contributions import Sentence
from .deletion import faithfulness, random_matrix
from .heatmaps import Heatmap, steps_heatmap
from .recipes import read

@dataclass(frozen=True, eq=False)
class Panel:
    """One matrix of one sentence at one reading, with its deletion scores on this sentence."""

    matrix: Matrix  # of the registry, or the random ranking every panel is scored beside (:data:`RANDOM`)
    reading: Reading | None  # None: an attribution, or the random floor
    steps: Heatmap  # [T, S] a row a step, a column a source piece; rows sum to 1
    comprehensiveness: float | None  # nats, this sentence's mean over its steps; None: nothing could be masked
    sufficiency: float | None


def side_by_side(model: Translator, trace: Trace, chosen: Mapping[Matrix, Reading | None],
                 scored: bool = True, fitted: Fitted = Fitted()) -> list[Panel]:
    """Each matrix of ``chosen`` at its reading (read at the step that writes each piece, so deleting by row t
    scores step t), then the random floor, all scored on ``trace``'s own translation unless not ``scored`` (a
    server that cannot afford the masked passes). The hooked pass is made once, whatever the matrices."""
    sentence = Sentence(model, trace, fitted=fitted)
    weights = {m: read(m, sentence, [r])[0] for m, r in chosen.items()}
    weights[RANDOM] = random_matrix(trace, seed=0)
    scores = faithfulness(model, trace, weights) if scored else {}
    panels = []
    for matrix, w in weights.items():
        found = scores.get(matrix)
        panels.append(Panel(matrix, chosen.get(matrix), steps_heatmap(trace, w),
                            None if found is None else float(found.comprehensiveness.mean()),
                            None if found is None else float(found.sufficiency.mean())))
    return panels
