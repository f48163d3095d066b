"""Where a decoder-only model's attention goes while it writes: to the sentence inside its prompt, to the rest of the
prompt (the template, the instruction, the first token every row leans on), or to the translation so far. An
encoder–decoder's cross-attention sends all of it to the source; a chat model's one stack shares each row out."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..decoding.trace import Trace
from ..network.tokenization import PROMPT


@dataclass(frozen=True)
class PromptShare:
    """Each layer's mean share of a written token's attention, over every head and step of some traces."""

    sentence: np.ndarray  # [L]  to the sentence's own tokens
    rest_of_prompt: np.ndarray  # [L]  to the prompt's other tokens
    translation: np.ndarray  # [L]  to what the model had written (each row's remainder: nothing is renormalised)
    steps: int  # the written tokens averaged over


def prompt_share(traces: Sequence[Trace]) -> PromptShare:
    """The shares of ``traces``' cross-attention rows (each step's row over the prompt, [L, heads, T, S]), every
    step weighing the same."""
    sentence, rest, steps = [], [], 0
    for trace in traces:
        columns = np.array([piece != PROMPT for piece in trace.source.pieces])  # [S] True on the sentence
        rows = trace.attention.weights.mean(1)  # [L, T, S] the heads' mean
        sentence.append(rows[..., columns].sum(-1).sum(-1))  # [L] summed over steps
        rest.append(rows[..., ~columns].sum(-1).sum(-1))
        steps += rows.shape[1]
    to_sentence, to_rest = np.sum(sentence, 0) / steps, np.sum(rest, 0) / steps
    return PromptShare(to_sentence, to_rest, 1 - to_sentence - to_rest, steps)
