"""What one decoded sentence leaves behind: a :class:`Trace`.

Its cross-attention is an :class:`~.attention_map.AttentionMap`, ``[L, heads, T, S]`` — every decoder layer's
every head, at each target step, over the source (bertviz's layout, never a model). The attentional RNN fills one
layer of one head; a Transformer fills all of them. What only the RNN has — its queries, contexts and the
annotations they combine — is an optional :class:`RNNRecord` that the RNN-only views ask for.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..network.contract import Step
from ..network.tokenization import Encoded, TokenizerPair
from ..nouns.attention_map import AttentionMap, Kind, Reading

TOP_K = 5


@dataclass(frozen=True, eq=False)
class RNNRecord:
    """The attentional RNN's inside of a trace (the Context vectors and Score anatomy pages)."""

    queries: np.ndarray  # [T, H]  s_{t-1}, what step t's attention was asked with
    contexts: np.ndarray  # [T, Dv]  c_t
    annotations: np.ndarray  # [S, Dv]  h_s, the keys and values c_t combines


@dataclass(frozen=True, eq=False)
class Trace:
    """One decoded sentence. Arrays are float32 numpy."""

    source: Encoded
    target_ids: tuple[int, ...]  # [T], EOS included when produced
    target_pieces: tuple[str, ...]  # [T]
    translation: str
    attention: AttentionMap | None  # the cross-attention [L, heads, T, S], with its energies; None without attention
    states: np.ndarray  # [T, H]  the decoder output that wrote piece t (RNN: s_t; Transformer: last layer)
    top_k: tuple[tuple[tuple[str, float], ...], ...]  # [T][k] (piece, probability)
    token_logprobs: np.ndarray  # [T]
    rnn: RNNRecord | None = None  # the RNN's queries, contexts and annotations; None for other architectures
    top_ids: tuple[tuple[int, ...], ...] = ()  # [T][k] the ids of top_k's pieces (a contrast's foil is one)

    @property
    def logprob(self) -> float:
        return float(self.token_logprobs.sum())

    def read(self, reading: Reading) -> np.ndarray:
        """The attention matrix [T, S] of ``reading``."""
        if self.attention is None:
            raise ValueError("this model has no attention")
        return self.attention.read(reading)



def written(ids: Sequence[int], ends: Sequence[int]) -> int:
    """How many of ``ids`` come before the first of ``ends`` (all of them where none ends them)."""
    return next((t for t, i in enumerate(ids) if i in ends), len(ids))


def trace_row(tokenizers: TokenizerPair, source: Encoded, steps: Sequence[Step], tokens: torch.Tensor, row: int,
              memory, ends: Sequence[int]) -> Trace:
    """Cut sentence ``row`` out of batched steps, up to and including its end (the first of the ids ``ends``).
    ``tokens`` [B, T]; ``memory`` is the model's encoding of the batch (an RNN's steps are recorded with its
    annotations)."""
    ids = tokens[row].tolist()
    T = min(written(ids, ends) + 1, len(ids))  # its end kept, where it has one
    ids, steps, S = ids[:T], steps[:T], len(source.ids)
    logprobs = torch.stack([s.log_probs[row] for s in steps])  # [T, V]
    top = logprobs.topk(TOP_K, dim=-1)

    def stack(get) -> np.ndarray | None:
        if get(steps[0]) is None:
            return None
        return torch.stack([get(s)[row] for s in steps]).float().cpu().numpy()  # [T, …]

    def heads(x: np.ndarray | None) -> np.ndarray | None:
        return None if x is None else np.ascontiguousarray(x[..., :S].transpose(1, 2, 0, 3))  # [L, heads, T, S]

    pieces, attention, energies = tuple(tokenizers.target.pieces(ids)), heads(stack(lambda s: s.attention)), \
        heads(stack(lambda s: s.energies))
    rnn = None
    if steps[0].rnn is not None:
        rnn = RNNRecord(stack(lambda s: s.rnn.query), stack(lambda s: s.rnn.context),
                        memory.annotations[row, :S].float().cpu().numpy())  # [S, Dv]
    return Trace(
        source=source,
        target_ids=tuple(ids),
        target_pieces=pieces,
        translation=tokenizers.target.decode(ids[: written(ids, ends)]),  # its end left out, whichever it is
        attention=None if attention is None else AttentionMap(Kind.CROSS, attention, pieces, source.pieces,
                                                              energies=energies),
        states=stack(lambda s: s.state),
        top_k=tuple(
            tuple((p, float(np.exp(v))) for p, v in zip(tokenizers.target.pieces(i.tolist()), vals.tolist()))
            for i, vals in zip(top.indices, top.values)
        ),
        token_logprobs=logprobs.gather(1, torch.tensor(ids, device=logprobs.device)[:, None]).squeeze(1).cpu().numpy(),
        rnn=rnn,
        top_ids=tuple(tuple(i.tolist()) for i in top.indices),
    )
