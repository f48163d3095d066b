"""Whole files of sentences: batched greedy decoding or beam search, blank lines kept in place."""
from __future__ import annotations

from tqdm import tqdm

from ..network.tokenization import TokenizerPair
from ..network.translator import Translator
from .beam import beam_search
from .greedy import translate_batch

BATCH = 64  # sentences per greedy batch


def translate_lines(model: Translator, tokenizers: TokenizerPair, lines: list[str], beam: int) -> list[str]:
    """Translations of ``lines`` in order; blank lines give blank outputs."""
    texts = [(i, line) for i, line in enumerate(lines) if line.strip()]
    out = [""] * len(lines)
    if beam == 1:
        for k in range(0, len(texts), BATCH):
            chunk = texts[k : k + BATCH]
            for (i, _), hyp in zip(chunk, translate_batch(model, tokenizers, [t for _, t in chunk])):
                out[i] = hyp
    else:
        for i, text in tqdm(texts, desc=f"beam {beam}", unit="sentence", disable=None):
            out[i] = beam_search(model, tokenizers, text, beam).hypotheses[0].translation
    return out
