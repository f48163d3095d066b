"""Beam search that keeps the full trace of every finished hypothesis.

Each step extends the alive hypotheses by every target piece and keeps the
``beam − len(finished)`` best by summed log-probability; a hypothesis that
emits EOS is finished and the beam shrinks. Finished hypotheses are ranked by
log-probability per piece, so short outputs are not favoured. With
``beam=1`` this is exactly greedy decoding.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import torch

from ..network.seq2seq import EncoderOutput, Seq2Seq, StepOutput
from ..network.tokenization import BOS_ID, EOS_ID, TokenizerPair
from .greedy import MAX_SOURCE_TOKENS, Trace, encode_batch, max_target_len, trace_row


@dataclass(frozen=True)
class _Hypothesis:
    tokens: tuple[int, ...]
    logprob: float
    history: tuple[StepOutput, ...]  # one [1, ...] step per token


def _rows(x, index: torch.Tensor):
    """Select batch rows of a tensor, or of every tensor field of a dataclass."""
    if x is None:
        return None
    if isinstance(x, torch.Tensor):
        return x.index_select(0, index)
    return type(x)(**{f.name: _rows(getattr(x, f.name), index) for f in fields(x)})


@torch.inference_mode()
def beam_search(model: Seq2Seq, tokenizers: TokenizerPair, text: str, beam: int) -> list[Trace]:
    """All ``beam`` final hypotheses of ``text``, best first, each with its trace."""
    if beam < 1:
        raise ValueError("beam size must be at least 1")
    model.eval()
    source = tokenizers.source.encode(text, MAX_SOURCE_TOKENS)
    enc: EncoderOutput = encode_batch(model, [source])
    alive = [_Hypothesis((), 0.0, ())]
    state, finished = enc.init_state, []
    for _ in range(max_target_len(source)):
        parents = torch.zeros(len(alive), dtype=torch.long, device=model.device)
        prev = torch.tensor([h.tokens[-1] if h.tokens else BOS_ID for h in alive], device=model.device)
        step = model.decode_step(prev, state, _rows(enc, parents))
        scores = torch.tensor([h.logprob for h in alive], device=model.device)[:, None]
        scores = scores + step.logits.log_softmax(-1)  # [n, V]
        values, flat = scores.view(-1).topk(min(beam - len(finished), scores.numel()))  # tiny vocabularies
        V = scores.shape[1]
        next_alive, next_rows = [], []
        for value, index in zip(values.tolist(), flat.tolist()):
            parent, token = divmod(index, V)
            row = _rows(step, torch.tensor([parent], device=model.device))
            h = alive[parent]
            hyp = _Hypothesis((*h.tokens, token), value, (*h.history, row))
            if token == EOS_ID:
                finished.append(hyp)
            else:
                next_alive.append(hyp)
                next_rows.append(parent)
        if not next_alive:
            break
        alive = next_alive
        state = step.state.index_select(0, torch.tensor(next_rows, device=model.device))
    else:
        finished.extend(alive)  # ran out of length: keep the unfinished too
    finished.sort(key=lambda h: h.logprob / len(h.tokens), reverse=True)
    return [
        trace_row(tokenizers, source, h.history, torch.tensor([h.tokens]), 0, enc.annotations) for h in finished
    ]
