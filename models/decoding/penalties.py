"""What a model's generation config asks of every search beside its scores (:class:`~models.network.translator.
GenerationRules`: a repetition penalty, an n-gram ban), applied where ``generate``'s logits processors apply them:
greedy search to the logits, beam search to the log-probabilities, each over every id the model has read so far —
``generate``'s ``input_ids``: a chat model's whole prompt and its start token, an encoder–decoder's start token —
and what it has written since."""
from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from ..network.contract import GenerationRules
from ..network.tokenization import Encoded
from ..network.translator import Translator


def read_before_writing(model: Translator, sources: Sequence[Encoded]) -> list[list[int]]:
    """Each row's ids before its first written one, as ``generate``'s ``input_ids`` holds them."""
    start = model.specials.start
    return [[*source.ids, start] if model.continues_prompt else [start] for source in sources]


def banned_ngrams(ids: Sequence[int], n: int) -> list[int]:
    """The ids that would write an ``n``-gram of ``ids`` again: those that followed each earlier occurrence of the
    last ``n`` − 1 ids (none before ``ids`` holds ``n`` − 1)."""
    if len(ids) + 1 < n:
        return []
    tail = tuple(ids[len(ids) - n + 1 :]) if n > 1 else ()
    return [ids[i + n - 1] for i in range(len(ids) - n + 1) if tuple(ids[i : i + n - 1]) == tail]


def ruled(scores: Tensor, history: Sequence[Sequence[int]], rules: GenerationRules) -> Tensor:
    """``scores`` [B, V] under ``rules``, row b having read ``history[b]``: a seen id's score s made s / p where
    positive, else s · p; an id that would repeat an n-gram at −∞. ``scores`` itself is left as it is."""
    if not rules.any:
        return scores
    scores = scores.clone()
    for b, ids in enumerate(history):
        if rules.repetition_penalty != 1.0 and ids:
            seen = torch.tensor(sorted(set(ids)), device=scores.device)
            found = scores[b, seen]
            scores[b, seen] = torch.where(found < 0, found * rules.repetition_penalty, found / rules.repetition_penalty)
        if rules.no_repeat_ngram:
            scores[b, banned_ngrams(ids, rules.no_repeat_ngram)] = float("-inf")
    return scores
