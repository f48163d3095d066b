"""The attention map: one attention (of a :class:`Kind`) of one decoded sentence as bertviz carries it — plain
``[L, heads, R, C]`` weights, layer first, with the labels of its rows (what reads) and columns (what is read) — and
the :class:`Reading` that names one ``[R, C]`` matrix of it: one head, or one layer's heads read as one
(:data:`WHOLES`: their mean, or another registered).

One type for every attention a page, a record or an analysis holds: a trace's cross-attention (its rows the
decoding steps), a Transformer's two self-attentions, a timeline point's. What a model *has* (its ``(L, heads)``
per kind) is the model's fact (:attr:`..network.translator.Translator.attention_shapes`); what one sentence's map
holds is the map's.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum

import numpy as np


class Kind(StrEnum):
    """The attentions an encoder–decoder can have (bertviz's three): the decoder reading the source, the encoder
    reading the source, the decoder reading what it has written. A string too, so a record, a URL and a dict keyed
    by its value read it as it is written."""

    CROSS = "cross"
    ENCODER = "encoder"
    DECODER = "decoder"

    @property
    def stepwise(self) -> bool:
        """Whether its rows are the decoding steps, each over what the step reads of the source (the trace's own
        attention): a click opens a step, a row can be read one step later."""
        return self is Kind.CROSS


#: Every kind, cross first (every attentional model has it).
KINDS = tuple(Kind)


@dataclass(frozen=True)
class NamedKind:
    """One of a model's attentions as the model names it for people (a chat model's cross-attention is "the
    translation reading the prompt"); the interface reads it by ``key``."""

    key: Kind  # where the interface holds it (the cross-attention is each decoding step's row)
    name: str  # in a sentence: "cross-attention", "the translation reading the prompt"
    word: str  # on the kind switch, a word or two
    what: str  # its rows and its columns, one sentence

    def __post_init__(self):
        object.__setattr__(self, "key", Kind(self.key))  # a family may name its kinds by their strings

    @property
    def named(self) -> str:
        """Its name to begin a sentence with."""
        return self.name[:1].upper() + self.name[1:]

    @property
    def stepwise(self) -> bool:
        """Whether its rows are the decoding steps (:attr:`Kind.stepwise`)."""
        return self.key.stepwise


@dataclass(frozen=True)
class Whole:
    """One way to read a layer's heads as one matrix (the mean of them; a registered other): its key in a reading's
    name, its words for people, and what it makes of the heads."""

    key: str  # in a reading's key: "2.mean"
    label: str  # for people: "mean of its heads"
    of: Callable[[np.ndarray], np.ndarray]  # the layer's heads [heads, R, C] → one matrix [R, C]


#: Every way a layer's heads are read as one, by key: each is offered wherever a layer's heads are (the pickers,
#: ``--reading all``, the AER tables), after the heads themselves (:func:`register_whole` adds one).
WHOLES: dict[str, Whole] = {"mean": Whole("mean", "mean of its heads", lambda heads: heads.mean(axis=0))}


def register_whole(whole: Whole) -> None:
    """Offer ``whole`` wherever a layer's heads are read."""
    WHOLES[whole.key] = whole


@dataclass(frozen=True)
class Reading:
    """Which attention matrix to read: of an attention ``kind`` (cross, encoder or decoder), a layer's head or its
    heads read as one (their mean, or another of :data:`WHOLES`); of the cross-attention, at the step that wrote
    each piece or ``shifted`` one step later. One name and one key grammar for every "which attention" of the
    project: ``[KIND.]LAYER.(HEAD|WHOLE)[.shifted]``, 1-based, the kind left out for the cross-attention (``2.3``,
    ``1.mean.shifted``, ``encoder.1.2``).

    Row t of the attention is the step that *writes* piece y_t, from what was decoded before it. Read one step
    later (SHIFT-ATT, Chen et al. 2020), y_t's row is the step where y_t is the decoder's *input*: the step that
    has seen the word, which is where attention lines up with word alignment in their Transformers. The shifted
    matrix drops the first step's row (its input is BOS) and has no row for the last piece (usually EOS).
    """

    layer: int  # 0-based layer
    head: int | None = None  # 0-based head; None: the layer's heads read as one (``whole``)
    shifted: bool = False  # True: piece t is read at step t + 1, where it is the decoder's input (cross only)
    kind: Kind = Kind.CROSS
    whole: str = "mean"  # how the heads are read as one, a key of WHOLES (a head's reading: "mean", unused)

    def __post_init__(self):
        object.__setattr__(self, "kind", Kind(self.kind))  # a record's or a URL's string read as the kind it names

    @property
    def plain(self) -> Reading:
        """The same head (or mean) read at the step that writes each piece."""
        return replace(self, shifted=False)

    def rows(self, matrix: np.ndarray) -> np.ndarray:
        """``matrix``'s rows [R, …] as this reading takes them: every one, or, one step later, every one but the
        first ([R − 1, …]: the step that read the input <s> wrote no piece). Where "one step later" is written."""
        return matrix[1:] if self.shifted else matrix

    @property
    def key(self) -> str:
        """Its name in URLs, cards and on the command line, 1-based: ``"2.3"`` (cross-attention, layer 2, head 3),
        ``"2.mean"``, ``"2.mean.shifted"``, ``"encoder.1.2"``."""
        kind = "" if self.kind.stepwise else f"{self.kind}."
        head = self.whole if self.head is None else self.head + 1
        return f"{kind}{self.layer + 1}.{head}" + ".shifted" * self.shifted

    @property
    def label(self) -> str:
        kind = "" if self.kind.stepwise else f"{self.kind} self-attention, "
        return (f"{kind}layer {self.layer + 1}, " + (WHOLES[self.whole].label if self.head is None else
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
            whole = head if head in WHOLES else "mean"
            reading = cls(int(layer) - 1, None if head in WHOLES else int(head) - 1, shifted, kind, whole)
        except ValueError:
            raise ValueError(f"{key!r} is not a reading: expected [KIND.]LAYER.HEAD or LAYER.{'|'.join(WHOLES)}, "
                             "optionally followed by .shifted, e.g. 2.3, 2.mean.shifted or encoder.1.2") from None
        if reading.shifted and not reading.kind.stepwise:
            raise ValueError(f"{key!r}: only the cross-attention is read one step later")
        return reading

    @classmethod
    def parse(cls, key: str, shapes: tuple[int, int] | dict[Kind, tuple[int, int]]) -> Reading:
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
    """Every reading of attention shaped ``(L, heads)``: each layer's heads, then each way of reading them as one
    (:data:`WHOLES`; one head: just it); with ``shifted``, each of them read one step later too."""
    layers, heads = shape
    plain = [r for n in range(layers) for r in [Reading(n, h) for h in range(heads)]
             + ([Reading(n, None, whole=w) for w in WHOLES] if heads > 1 else [])]
    return plain + [replace(r, shifted=True) for r in plain] if shifted else plain


#: How the attentional RNN's only attention is read (one layer of one head).
RNN_READING = Reading(0, 0)


@dataclass(frozen=True, eq=False)
class AttentionMap:
    """One attention of one sentence, float32, layer-first; each row's weights over the columns sum to 1 (a
    decoder-only model's cross rows less: they read what it wrote too). Its arrays are checked against its labels
    as it is made (bertviz's attention and tokens likewise), so a map never reads rows it has no label for."""

    kind: Kind
    weights: np.ndarray  # [L, heads, R, C]
    rows: tuple[str, ...]  # [R] what reads: the pieces written (cross, decoder) or the source pieces (encoder)
    columns: tuple[str, ...]  # [C] what is read
    values: np.ndarray | None = None  # [L, heads, C, d_k] what the cross-attention mixes: each head's W_v h_c
    energies: np.ndarray | None = None  # [L, heads, R, C] the scores before the softmax, where the model keeps them
    # (the steps' own attention of a trace)

    def __post_init__(self):
        L, H, R, C = self.weights.shape if self.weights.ndim == 4 else (None,) * 4
        if (R, C) != (len(self.rows), len(self.columns)):
            raise ValueError(f"a {self.kind} attention map's weights {self.weights.shape} do not fit its labels: "
                             f"[L, heads, {len(self.rows)}, {len(self.columns)}]")
        if self.energies is not None and self.energies.shape != self.weights.shape:
            raise ValueError(f"energies {self.energies.shape} beside weights {self.weights.shape}")
        if self.values is not None and self.values.shape[:3] != (L, H, C):
            raise ValueError(f"values {self.values.shape} beside weights {self.weights.shape}: [L, heads, C, d_k]")

    @property
    def shape(self) -> tuple[int, int]:
        """``(L, heads)``."""
        return self.weights.shape[:2]

    @property
    def several_heads(self) -> bool:
        """Whether a layer has heads to tell apart (and a mean of them to read)."""
        return self.shape[1] > 1

    def read(self, reading: Reading) -> np.ndarray:
        """``reading``'s matrix [R, C] ([R − 1, C] one step later: its first row, read at the input <s>, dropped;
        rows still sum as they did)."""
        layer = self.weights[reading.layer]  # [heads, R, C]
        return reading.rows(WHOLES[reading.whole].of(layer) if reading.head is None else layer[reading.head])

    def read_energies(self, reading: Reading) -> np.ndarray | None:
        """The energies [R, C] behind a single head ([R − 1, C] one step later); None for a mean of several heads
        (no one score made it) or a map kept without its scores."""
        if self.energies is None or reading.head is None and self.several_heads:
            return None
        return reading.rows(self.energies[reading.layer, reading.head or 0])

    def readings(self, shifted: bool = False) -> list[Reading]:
        """Every reading of this map (:func:`readings`), of its kind; ``shifted`` where its rows are steps."""
        return [replace(r, kind=self.kind) for r in readings(self.shape, shifted and self.kind.stepwise)]

    def first(self, T: int) -> AttentionMap:
        """Its first ``T`` decoding steps only (what a step reads never depends on later ones): rows cut where
        they are steps, and the decoder's columns (its inputs) too."""
        if self.kind is Kind.ENCODER:
            return self
        cut = slice(None, T) if self.kind is Kind.DECODER else slice(None)
        energies = None if self.energies is None else self.energies[..., :T, cut]
        return AttentionMap(self.kind, self.weights[..., :T, cut], self.rows[:T], self.columns[cut], self.values,
                            energies)

    def head_outputs(self, layer: int, head: int) -> np.ndarray:
        """Head ``head`` of ``layer`` at every row, before W^O: Σ_c α_rc (W_v h_c)_head, [R, d_k] — a convex
        combination of the head's value vectors, as an RNN's c_t is of the annotations."""
        if self.values is None:
            raise ValueError(f"this {self.kind} attention was read without its value vectors")
        return self.weights[layer, head] @ self.values[layer, head]  # [R, C] @ [C, d_k]
