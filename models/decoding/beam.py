"""Beam search that keeps the full trace of every finished hypothesis, and the search tree.

The search is the one ``transformers``' ``generate`` runs with ``num_beams`` (its defaults: length penalty 1,
``early_stopping=False``), so a Hugging Face translator writes here what it writes there, token for token:

- each step extends the ``beam`` alive hypotheses by every target piece and ranks the candidates by summed
  log-probability; of the ``2·beam`` best, those among the first ``beam`` that end with EOS finish, and the
  ``beam`` best that do not go on — the beam stays full;
- the finished are kept ``beam`` at a time, ranked by log-probability per piece (EOS counted), so short outputs
  are not favoured;
- a generation config's repetition penalty and n-gram ban (:mod:`.penalties`) are applied to each step's
  log-probabilities before the ranking, as ``generate``'s beam search applies them, so a hypothesis's score is the
  sum of what it ranked by; its trace keeps the model's own log-probabilities;
- the search stops once ``beam`` have finished and the best alive hypothesis, per piece so far, scores no better
  than the worst of them; or at the length cap, where the ``beam`` best candidates finish as they stand.

One difference from ``generate``, stated: at the cap ``generate`` forces EOS (Marian's ``forced_eos_token_id``);
here, as in greedy decoding, a hypothesis that reaches it ends with what the model wrote. With ``beam=1`` this is
exactly greedy decoding.

The search is recorded as data (:class:`BeamNode`): at every step the ``2·beam`` candidates, kept (going on or
finished) or pruned — where the beam chose (Seq2Seq-Vis's beam view).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from ..network.contract import Step, select_rows
from ..network.tokenization import TokenizerPair
from ..network.translator import Translator
from .greedy import encode_batch, max_target_len, source_limit
from .penalties import read_before_writing, ruled
from .trace import Trace, trace_row


@dataclass(frozen=True)
class BeamNode:
    """One candidate piece of the search."""

    step: int  # 0-based decoding step that proposed it
    piece: str
    parent: int | None  # index in BeamResult.nodes of the piece before it (None at step 0)
    score: float  # summed log-probability of the hypothesis ending with this piece
    kept: bool  # went on in the beam, or finished among the best so far; False: pruned
    finished: bool  # the piece is EOS


@dataclass(frozen=True, eq=False)
class BeamResult:
    hypotheses: tuple[Trace, ...]  # every final hypothesis, best (log-probability per piece) first
    nodes: tuple[BeamNode, ...]  # the search tree
    ends: tuple[int, ...]  # the node each hypothesis ends with, in the order of ``hypotheses``


@dataclass(frozen=True, eq=False)
class _Hypothesis:
    tokens: tuple[int, ...]
    logprob: float
    history: tuple[Step, ...]  # one [1, ...] step per token
    node: int | None  # its last piece in the tree; None before the first

    @property
    def per_piece(self) -> float:
        return self.logprob / len(self.tokens)


@dataclass(frozen=True)
class _Candidate:
    parent: int  # row of the alive hypothesis it extends
    token: int
    logprob: float


def _candidates(alive: list[_Hypothesis], log_probs: Tensor, k: int) -> list[_Candidate]:
    """The ``k`` best one-piece extensions of ``alive`` by summed log-probability (``log_probs`` [n, V]: the step's,
    under the model's generation rules), best first."""
    scores = torch.tensor([h.logprob for h in alive], device=log_probs.device)[:, None]
    scores = scores + log_probs  # [n, V]
    V = scores.shape[1]
    values, flat = scores.view(-1).topk(min(k, scores.numel()))
    return [_Candidate(*divmod(index, V), value) for index, value in zip(flat.tolist(), values.tolist())]


class _Search:
    """One search: the alive hypotheses (best first), the finished (at most ``beam``, best first) and the tree."""

    def __init__(self, tokenizers: TokenizerPair, beam: int, ends: tuple[int, ...]):
        self.tokenizers, self.beam, self.ends = tokenizers, beam, ends
        self.alive, self.finished, self.nodes = [_Hypothesis((), 0.0, (), None)], [], []

    def advance(self, step: Step, log_probs: Tensor, t: int, last: bool) -> list[int]:
        """Take step ``t``'s candidates by ``log_probs`` [n, V] (at the length cap, ``last``, the ``beam`` best all
        finish) and record them in the tree; returns the rows of the old alive hypotheses that the new ones
        extend."""
        found = _candidates(self.alive, log_probs, 2 * self.beam)
        ending = [i for i, c in enumerate(found[: self.beam]) if last or c.token in self.ends]
        going = [] if last else [i for i, c in enumerate(found) if c.token not in self.ends][: self.beam]
        first = len(self.nodes)  # found[i] becomes node first + i
        made = {i: self._extend(found[i], step, first + i) for i in (*ending, *going)}
        self.finished = sorted(self.finished + [made[i] for i in ending], key=lambda h: -h.per_piece)[: self.beam]
        kept = set(going) | {i for i in ending if any(h is made[i] for h in self.finished)}
        pieces = self.tokenizers.target.pieces([c.token for c in found])
        self.nodes += [BeamNode(t, piece, self.alive[c.parent].node, c.logprob, i in kept, c.token in self.ends)
                       for i, (c, piece) in enumerate(zip(found, pieces))]
        self.alive = [made[i] for i in going]
        return [found[i].parent for i in going]

    def _extend(self, c: _Candidate, step: Step, node: int) -> _Hypothesis:
        h = self.alive[c.parent]
        row = select_rows(step, torch.tensor([c.parent], device=step.log_probs.device))
        return _Hypothesis((*h.tokens, c.token), c.logprob, (*h.history, row), node)

    def done(self) -> bool:
        """Nothing alive, or ``beam`` finished and the best alive, per piece so far, no better than the worst."""
        if not self.alive:
            return True
        return len(self.finished) == self.beam and self.alive[0].per_piece <= self.finished[-1].per_piece


@torch.inference_mode()
def beam_search(model: Translator, tokenizers: TokenizerPair, text: str, beam: int) -> BeamResult:
    """The ``beam`` final hypotheses of ``text``, best first, each with its trace, and the search tree."""
    if beam < 1:
        raise ValueError("beam size must be at least 1")
    model.eval()
    source = tokenizers.source.encode(text, source_limit(model))
    memory, specials = encode_batch(model, [source]), model.specials
    search, cache = _Search(tokenizers, beam, specials.ends), model.start(memory)
    cap, read = max_target_len(model, source), read_before_writing(model, [source])[0]
    for t in range(cap):
        prev = torch.tensor([h.tokens[-1] if h.tokens else specials.start for h in search.alive], device=model.device)
        copies = select_rows(memory, torch.zeros(len(search.alive), dtype=torch.long, device=model.device))
        step, cache = model.decode_step(prev, cache, copies)
        ruling = ruled(step.log_probs, [[*read, *h.tokens] for h in search.alive], model.generation_rules)
        rows = search.advance(step, ruling, t, last=t == cap - 1)
        if search.done():
            break
        cache = model.reorder(cache, torch.tensor(rows, device=model.device))
    traces = tuple(trace_row(tokenizers, source, h.history, torch.tensor([h.tokens]), 0, memory, specials.ends)
                   for h in search.finished)
    return BeamResult(traces, tuple(search.nodes), tuple(h.node for h in search.finished))
