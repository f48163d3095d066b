"""Beam search that keeps the full trace of every finished hypothesis, and the search tree.

Each step extends the alive hypotheses by every target piece and keeps the
``beam − len(finished)`` best by summed log-probability; a hypothesis that
emits EOS is finished and the beam shrinks. Finished hypotheses are ranked by
log-probability per piece, so short outputs are not favoured. With
``beam=1`` this is exactly greedy decoding.

The search is recorded as data (:class:`BeamNode`): at every step the pieces
that were kept and, beside them, the ``beam`` best that were pruned — where
the beam chose (Seq2Seq-Vis's beam view).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from ..network.tokenization import TokenizerPair
from ..network.translator import Step, Translator, select_rows
from .greedy import MAX_SOURCE_TOKENS, encode_batch, max_target_len
from .trace import Trace, trace_row


@dataclass(frozen=True)
class BeamNode:
    """One candidate piece of the search."""

    step: int  # 0-based decoding step that proposed it
    piece: str
    parent: int | None  # index in BeamResult.nodes of the piece before it (None at step 0)
    score: float  # summed log-probability of the hypothesis ending with this piece
    kept: bool  # kept in the beam (or finished); False: the best of those pruned
    finished: bool  # the piece is EOS


@dataclass(frozen=True, eq=False)
class BeamResult:
    hypotheses: tuple[Trace, ...]  # every final hypothesis, best (log-probability per piece) first
    nodes: tuple[BeamNode, ...]  # the search tree
    ends: tuple[int, ...]  # the node each hypothesis ends with, in the order of ``hypotheses``


@dataclass(frozen=True)
class _Hypothesis:
    tokens: tuple[int, ...]
    logprob: float
    history: tuple[Step, ...]  # one [1, ...] step per token
    node: int | None  # its last piece in the tree


def _extend(alive, step: Step, keep: int, t: int, tokenizers: TokenizerPair, eos: int, nodes: list) -> list[tuple]:
    """The ``keep`` best extensions of ``alive`` as ``(hypothesis, parent row)``; records them and the best pruned."""
    scores = torch.tensor([h.logprob for h in alive], device=step.logits.device)[:, None]
    scores = scores + step.logits.log_softmax(-1)  # [n, V]
    V = scores.shape[1]
    pruned = min(keep, scores.numel() - keep)  # show as many pruned candidates as the beam is wide
    values, flat = scores.view(-1).topk(keep + pruned)
    kept = []
    for rank, (value, index) in enumerate(zip(values.tolist(), flat.tolist())):
        parent, token = divmod(index, V)
        h = alive[parent]
        nodes.append(BeamNode(t, tokenizers.target.pieces([token])[0], h.node, value, rank < keep, token == eos))
        if rank < keep:
            row = select_rows(step, torch.tensor([parent], device=step.logits.device))
            kept.append((_Hypothesis((*h.tokens, token), value, (*h.history, row), len(nodes) - 1), parent))
    return kept


@torch.inference_mode()
def beam_search(model: Translator, tokenizers: TokenizerPair, text: str, beam: int) -> BeamResult:
    """All ``beam`` final hypotheses of ``text``, best first, each with its trace, and the search tree."""
    if beam < 1:
        raise ValueError("beam size must be at least 1")
    model.eval()
    source = tokenizers.source.encode(text, MAX_SOURCE_TOKENS)
    memory, specials = encode_batch(model, [source]), model.specials
    alive, nodes, finished = [_Hypothesis((), 0.0, (), None)], [], []
    cache = model.start(memory)
    for t in range(max_target_len(source)):
        prev = torch.tensor([h.tokens[-1] if h.tokens else specials.start for h in alive], device=model.device)
        copies = select_rows(memory, torch.zeros(len(alive), dtype=torch.long, device=model.device))
        step, cache = model.decode_step(prev, cache, copies)
        vocabulary = step.logits.shape[1] * len(alive)
        extended = _extend(alive, step, min(beam - len(finished), vocabulary), t, tokenizers, specials.eos, nodes)
        finished += [h for h, _ in extended if h.tokens[-1] == specials.eos]
        going = [(h, row) for h, row in extended if h.tokens[-1] != specials.eos]
        if not going:
            break
        alive = [h for h, _ in going]
        cache = model.reorder(cache, torch.tensor([row for _, row in going], device=model.device))
    else:
        finished.extend(alive)  # ran out of length: keep the unfinished too
    finished.sort(key=lambda h: h.logprob / len(h.tokens), reverse=True)
    traces = tuple(trace_row(tokenizers, source, h.history, torch.tensor([h.tokens]), 0, memory, specials.eos)
                   for h in finished)
    return BeamResult(traces, tuple(nodes), tuple(h.node for h in finished))
