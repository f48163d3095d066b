"""Which heads matter: a Transformer's heads switched off, one or several, and what the translation loses.

Michel et al. (2019, "Are sixteen heads really better than one?") remove a head by zeroing its output before the
output projection W^O, and find most heads of a translator can go with little loss; Voita et al. (2019) find the
few that matter confident — a high mean of their largest attention weight — with readable jobs. Here:

- :func:`without_heads` — a copy of the model with a set of heads switched off (the shared one is never touched);
- :func:`confidence` — Voita et al.'s measure of every head, from the sentences' attentions;
- :func:`importance` — each head's BLEU drop when it alone is removed, on given sentences, with its confidence;
- :func:`pruning` — heads removed most unimportant first, BLEU after each, until it has dropped by ``budget``.

A head is ``(kind, layer, head)``: kind ``encoder`` (self-attention), ``decoder`` (masked self-attention) or
``cross``; layer and head 0-based.
"""
from __future__ import annotations

import copy
import difflib
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import sacrebleu

from ..decoding.every_attention import attention_kinds
from ..decoding.greedy import greedy, translate_batch
from ..network.contract import Head
from ..network.tokenization import TokenizerPair
from ..network.translator import Translator
from ..nouns.attention_map import KINDS, Reading


def every_head(model: Translator) -> list[Head]:
    """Every head the model can switch off, kind by kind, layer by layer (none for an RNN)."""
    return [(kind, n, h) for kind, (layers, heads) in model.switchable_heads.items() for n in range(layers)
            for h in range(heads)]


def without_heads(model: Translator, heads: Iterable[Head]) -> Translator:
    """A copy of ``model`` with ``heads`` switched off; ValueError for a head it does not have."""
    found = copy.deepcopy(model).eval()
    found.switch_off(set(heads))
    return found


def confidence(model: Translator, tokenizers: TokenizerPair, sources: Sequence[str]) -> dict[Head, float]:
    """Voita et al.'s confidence of every head: its largest weight, averaged over every reading position of the
    sentences' greedy translations."""
    sums: dict[Head, float] = {}
    count = {kind: 0 for kind in KINDS}
    for text in sources:
        kinds = attention_kinds(model, greedy(model, tokenizers, text))
        for kind in KINDS:
            largest = kinds[kind].weights.max(-1)  # [L, heads, rows]
            count[kind] += largest.shape[-1]
            for (n, h), value in np.ndenumerate(largest.sum(-1)):
                sums[kind, n, h] = sums.get((kind, n, h), 0.0) + float(value)
    return {head: total / count[head[0]] for head, total in sums.items()}


def bleu(model: Translator, tokenizers: TokenizerPair, sources: Sequence[str], references: Sequence[str]) -> float:
    """Greedy cased sacreBLEU of ``sources`` against one reference each."""
    hyps = [h for i in range(0, len(sources), 64) for h in translate_batch(model, tokenizers, sources[i : i + 64])]
    return sacrebleu.corpus_bleu(hyps, [list(references)]).score


def importance(model: Translator, tokenizers: TokenizerPair, sources: Sequence[str], references: Sequence[str],
               progress: Callable[[int, int], None] = lambda done, total: None) -> list[dict]:
    """One row per head: BLEU without it (and the drop from the whole model's) and its confidence."""
    base, heads = bleu(model, tokenizers, sources, references), every_head(model)
    sure = confidence(model, tokenizers, sources)
    rows = []
    for i, head in enumerate(heads):
        without = bleu(without_heads(model, [head]), tokenizers, sources, references)
        rows.append({"kind": head[0], "layer": head[1] + 1, "head": head[2] + 1, "bleu_without": round(without, 2),
                     "drop": round(base - without, 2), "confidence": round(sure[head], 4)})
        progress(i + 1, len(heads))
    return rows


def pruning(model: Translator, tokenizers: TokenizerPair, sources: Sequence[str], references: Sequence[str],
            rows: list[dict], budget: float = 1.0) -> dict:
    """Heads removed most unimportant first (smallest drop alone), BLEU after each, until BLEU has fallen by more
    than ``budget``: how many can go."""
    base = bleu(model, tokenizers, sources, references)
    order = sorted(rows, key=lambda r: r["drop"])
    removed: list[Head] = []
    curve = [{"removed": 0, "bleu": round(base, 2)}]
    for r in order:
        trial = [*removed, (r["kind"], r["layer"] - 1, r["head"] - 1)]
        score = bleu(without_heads(model, trial), tokenizers, sources, references)
        curve.append({"removed": len(trial), "bleu": round(score, 2)})
        if base - score > budget:
            break
        removed = trial
    return {"base_bleu": round(base, 2), "budget": budget, "can_go": len(removed), "of": len(rows), "curve": curve,
            "removed": [f"{k} {n + 1}.{h + 1}" for k, n, h in removed]}


def head_key(head: Head) -> str:
    """A head's name in URLs and cards, as every reading is named (:attr:`Reading.key`): ``2.1`` (cross-attention,
    layer 2, head 1), ``encoder.1.3``."""
    kind, layer, h = head
    return Reading(layer, h, kind=kind).key


def parse_head(key: str, model: Translator) -> Head:
    """The head ``key`` names (``cross.2.1`` too); ValueError if it names no head the model can switch off."""
    reading = Reading.parse(key, model.switchable_heads)
    if reading.head is None or reading.shifted:
        raise ValueError(f"{key!r} is not one head: expected [KIND.]LAYER.HEAD, e.g. 2.1 or encoder.1.3")
    return reading.kind, reading.layer, reading.head


def changed_words(before: Sequence[str], after: Sequence[str]) -> list[bool]:
    """For each word of ``after``, whether it differs from ``before`` (inserted or replaced, by difflib's
    alignment of the two word sequences)."""
    changed = [True] * len(after)
    for block in difflib.SequenceMatcher(a=list(before), b=list(after), autojunk=False).get_matching_blocks():
        changed[block.b : block.b + block.size] = [False] * block.size
    return changed
