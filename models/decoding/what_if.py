"""What if the decoder had looked elsewhere? One step's attention forced onto one source word, and the greedy
translation that follows (Seq2Seq-Vis's "what-if" on attention).

The step is clamped to the greedy translation's length: the what-if always decodes greedily, whatever the
decoding the page shows (a beam's best can be longer than the greedy output).
"""
from __future__ import annotations

from dataclasses import dataclass


from ..network.tokenization import TokenizerPair, word_groups
from ..network.translator import Translator
from .greedy import greedy
from .trace import Trace


@dataclass(frozen=True, eq=False)
class WhatIf:
    base: Trace  # the greedy translation, as decoded
    changed: Trace  # the same, with step ``step``'s attention forced onto the word
    step: int  # 0-based, clamped to the base's length


def focus_on_word(trace: Trace, word: int) -> tuple[int, ...]:
    """The source pieces of word ``word``: where a what-if puts every step's attention, spread over them."""
    return tuple(word_groups(trace.source.pieces)[word])


def what_if(model: Translator, tokenizers: TokenizerPair, text: str, step: int, word: int, layer: int) -> WhatIf:
    """Greedy decoding of ``text`` with every head of decoder layer ``layer`` (the RNN's: 0) reading only source
    word ``word`` at ``step``, beside the greedy decoding without it."""
    base = greedy(model, tokenizers, text)
    step = min(step, len(base.target_ids) - 1)
    changed = greedy(model, tokenizers, text, overrides={step: focus_on_word(base, word)}, layer=layer)
    return WhatIf(base, changed, step)
