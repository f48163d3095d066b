"""What one decoded sentence leaves behind: a :class:`Trace`, and the named readings of its cross-attention.

Attention is kept as plain data, ``[L, heads, T, S]`` — every decoder layer's every head, at each target step,
over the source (bertviz's layout, never a model). The attentional RNN fills one layer of one head; a Transformer
fills all of them. A :class:`Reading` names the ``[T, S]`` matrix a view draws: one head, or the mean of one
layer's heads. What only the RNN has — its queries, contexts and the annotations they combine — is an optional
:class:`RNNRecord` that the RNN-only views ask for.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import torch

from ..network.contract import KINDS, Kind, Step
from ..network.tokenization import Encoded, TokenizerPair

TOP_K = 5
#: The two matrices a :class:`Reading` reads head by head from a pass's weights (named here, beneath the analysis
#: that registers every matrix, so the stored records can name them too): the steps' own attention, and the
#: attention of one pass with the decoder's future mask lifted (Garg et al. 2019's full context).
ATTENTION, FULL_CONTEXT = "attention", "full-context attention"


@dataclass(frozen=True)
class Reading:
    """Which attention matrix to read: of an attention ``kind`` (cross, encoder or decoder), a layer's head or its
    heads' mean; of the cross-attention, at the step that wrote each piece or ``shifted`` one step later. One
    name and one key grammar for every "which attention" of the project: ``[KIND.]LAYER.(HEAD|mean)[.shifted]``,
    1-based, the kind left out for the cross-attention (``2.3``, ``1.mean.shifted``, ``encoder.1.2``).

    Row t of the attention is the step that *writes* piece y_t, from what was decoded before it. Read one step
    later (SHIFT-ATT, Chen et al. 2020), y_t's row is the step where y_t is the decoder's *input*: the step that
    has seen the word, which is where attention lines up with word alignment in their Transformers. The shifted
    matrix drops the first step's row (its input is BOS) and has no row for the last piece (usually EOS).
    """

    layer: int  # 0-based layer
    head: int | None = None  # 0-based head; None: the mean of the layer's heads
    shifted: bool = False  # True: piece t is read at step t + 1, where it is the decoder's input (cross only)
    kind: Kind = Kind.CROSS

    def __post_init__(self):
        object.__setattr__(self, "kind", Kind(self.kind))  # a record's or a URL's string read as the kind it names

    def of(self, attention: np.ndarray) -> np.ndarray:
        """This reading of ``attention`` [L, heads, T, S] → [T, S] ([T − 1, S] shifted; rows still sum to 1)."""
        layer = attention[self.layer]  # [heads, T, S]
        matrix = layer.mean(axis=0) if self.head is None else layer[self.head]
        return matrix[1:] if self.shifted else matrix

    @property
    def plain(self) -> Reading:
        """The same head (or mean) read at the step that writes each piece."""
        return Reading(self.layer, self.head, kind=self.kind)

    @property
    def key(self) -> str:
        """Its name in URLs, cards and on the command line, 1-based: ``"2.3"`` (cross-attention, layer 2, head 3),
        ``"2.mean"``, ``"2.mean.shifted"``, ``"encoder.1.2"``."""
        kind = "" if self.kind.stepwise else f"{self.kind}."
        return f"{kind}{self.layer + 1}.{'mean' if self.head is None else self.head + 1}" + ".shifted" * self.shifted

    @property
    def label(self) -> str:
        kind = "" if self.kind.stepwise else f"{self.kind} self-attention, "
        return (f"{kind}layer {self.layer + 1}, " + ("mean of its heads" if self.head is None else
                                                       f"head {self.head + 1}")
                + (", read one step later" if self.shifted else ""))

    @classmethod
    def from_key(cls, key: str) -> Reading:
        """The reading ``key`` names, as :attr:`key` writes it (``cross.`` may be written too); ValueError if it
        follows no such form. Whether a model has it is :meth:`parse`'s question."""
        parts = str(key).strip().split(".")
        kind = parts.pop(0) if parts and parts[0] in KINDS else Kind.CROSS
        shifted = bool(parts) and parts[-1] == "shifted"
        parts = parts[:-1] if shifted else parts
        try:
            layer, head = parts
            reading = cls(int(layer) - 1, None if head == "mean" else int(head) - 1, shifted, kind)
        except ValueError:
            raise ValueError(f"{key!r} is not a reading: expected [KIND.]LAYER.HEAD or LAYER.mean, optionally "
                             "followed by .shifted, e.g. 2.3, 2.mean.shifted or encoder.1.2") from None
        if reading.shifted and not reading.kind.stepwise:
            raise ValueError(f"{key!r}: only the cross-attention is read one step later")
        return reading

    @classmethod
    def parse(cls, key: str, shapes: tuple[int, int] | dict[str, tuple[int, int]]) -> Reading:
        """The reading named ``key`` of a model whose attentions are ``shapes`` (``{kind: (L, heads)}``, or the
        cross-attention's ``(L, heads)`` alone); ValueError if it names no layer or head there."""
        shapes = shapes if isinstance(shapes, dict) else {Kind.CROSS: shapes}
        reading = cls.from_key(key)
        shape = shapes.get(reading.kind, (0, 0))
        if replace(reading, kind=Kind.CROSS) not in readings(shape, shifted=True):
            raise ValueError(f"{key!r} names no layer or head of this model ({reading.kind}: {shape[0]} layers × "
                             f"{shape[1]} heads)")
        return reading


def readings(shape: tuple[int, int], shifted: bool = False) -> list[Reading]:
    """Every reading of attention shaped ``(L, heads)``: each layer's heads, then its mean (one head: just it);
    with ``shifted``, each of them read one step later too."""
    layers, heads = shape
    plain = [r for n in range(layers) for r in
             [Reading(n, h) for h in range(heads)] + ([Reading(n, None)] if heads > 1 else [])]
    return plain + [Reading(r.layer, r.head, True) for r in plain] if shifted else plain


#: How the attentional RNN's only attention is read (one layer of one head).
RNN_READING = Reading(0, 0)


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
    cross_attention: np.ndarray | None  # [L, heads, T, S]; None without attention
    energies: np.ndarray | None  # [L, heads, T, S]  the scores before the softmax
    states: np.ndarray  # [T, H]  the decoder output that wrote piece t (RNN: s_t; Transformer: last layer)
    top_k: tuple[tuple[tuple[str, float], ...], ...]  # [T][k] (piece, probability)
    token_logprobs: np.ndarray  # [T]
    rnn: RNNRecord | None = None  # the RNN's queries, contexts and annotations; None for other architectures
    top_ids: tuple[tuple[int, ...], ...] = ()  # [T][k] the ids of top_k's pieces (a contrast's foil is one)

    @property
    def logprob(self) -> float:
        return float(self.token_logprobs.sum())

    @property
    def attention_shape(self) -> tuple[int, int]:
        """``(L, heads)``, (0, 0) without attention."""
        return (0, 0) if self.cross_attention is None else self.cross_attention.shape[:2]

    def read(self, reading: Reading) -> np.ndarray:
        """The attention matrix [T, S] of ``reading``."""
        if self.cross_attention is None:
            raise ValueError("this model has no attention")
        return reading.of(self.cross_attention)

    def read_energies(self, reading: Reading) -> np.ndarray | None:
        """The energies [T, S] behind a single head ([T − 1, S] shifted); None for a mean of heads (no one score
        made it)."""
        if self.energies is None or reading.head is None and self.energies.shape[1] > 1:
            return None
        return self.energies[reading.layer, reading.head or 0][1 if reading.shifted else 0:]


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

    rnn = None
    if steps[0].rnn is not None:
        rnn = RNNRecord(stack(lambda s: s.rnn.query), stack(lambda s: s.rnn.context),
                        memory.annotations[row, :S].float().cpu().numpy())  # [S, Dv]
    return Trace(
        source=source,
        target_ids=tuple(ids),
        target_pieces=tuple(tokenizers.target.pieces(ids)),
        translation=tokenizers.target.decode(ids[: written(ids, ends)]),  # its end left out, whichever it is
        cross_attention=heads(stack(lambda s: s.attention)),
        energies=heads(stack(lambda s: s.energies)),
        states=stack(lambda s: s.state),
        top_k=tuple(
            tuple((p, float(np.exp(v))) for p, v in zip(tokenizers.target.pieces(i.tolist()), vals.tolist()))
            for i, vals in zip(top.indices, top.values)
        ),
        token_logprobs=logprobs.gather(1, torch.tensor(ids, device=logprobs.device)[:, None]).squeeze(1).cpu().numpy(),
        rnn=rnn,
        top_ids=tuple(tuple(i.tolist()) for i in top.indices),
    )
