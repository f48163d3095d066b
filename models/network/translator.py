"""The one translator interface: what every architecture gives decoding, analysis, storage and the app.

An architecture (the attentional RNN of :mod:`.seq2seq`, the Transformer of :mod:`.transformer`) is a
:class:`Translator`, which declares every verb the rest of the project uses, each with its shapes:

    memory        = model.encode(src, mask)               the source, once per batch
    cache         = model.start(memory)                   the decoder before its first step
    step, cache   = model.decode_step(prev, cache, memory, focus)   one target piece for every row
    cache         = model.reorder(cache, index)           rows picked (beam search keeps its best)
    logits        = model(src, mask, tgt_in, keep)        teacher forcing: training and validation
    steps         = model.forced_steps(src, mask, tgt_in)   a given translation's steps from one pass (None: no)
    log_probs     = model.own_step_log_probs(…)           one step of each row's own target: attribution
    found         = model.attention_kinds(src, mask, tgt_in)   every attention of one pass (None: cross only)
    cross         = model.full_context_attention(src, mask, tgt_in)   the same, the decoder's future mask lifted
    parts         = model.attention_parts(src, mask, tgt_in)   what each attention sub-layer adds (:mod:`.parts`)
    model.switch_off(heads)                                heads zeroed before their output projection

and the facts callers ask instead of its class: :attr:`~Translator.attention_shapes` (which attentions it has,
each ``(L, heads)``) and :attr:`~Translator.switchable_heads`. A :class:`Step` reports the step's cross-attention
as ``[B, L, heads, S]`` — every decoder layer's every head reading the source; the RNN has one layer of one head —
so greedy and beam search, the what-if, attribution, evaluation, alignment and the app never ask which
architecture they hold. Memory and cache are frozen dataclasses of batch-first tensors (or tuples of them), so
picking rows is one generic function, :func:`select_rows`.

Dimension names: B batch, S source pieces, T target steps, V target vocabulary, H decoder state width,
L decoder layers with cross-attention, heads per layer.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from ..nouns.attention_map import KINDS, Kind, NamedKind
from ..nouns.probe import Probe
from .contract import (
    ENCODER_DECODER_KINDS,
    OWN_SPECIALS,
    Attentions,
    Focus,
    GenerationRules,
    Head,
    Specials,
    Step,
    select_rows,
)
from .parts import AttentionParts, Site, Zeroed, assemble, recording
from .tokenization import TokenizerPair

#: Bumped whenever the meaning of a saved config or weight changes.
FORMAT_VERSION = 1

def check_identity(config, architecture: str) -> None:
    """What every config checks first: that it describes ``architecture`` in the format this code reads."""
    if config.architecture != architecture:
        raise ValueError(f"a {architecture} config cannot describe architecture {config.architecture!r}")
    if config.format_version != FORMAT_VERSION:
        raise ValueError(f"checkpoint format {config.format_version} is not supported (this code reads "
                         f"{FORMAT_VERSION})")


@dataclass(frozen=True, eq=False)
class ReversePartner:
    """A model translating the other way, read on a pair with the roles swapped (its target forced to the source)."""

    model: Translator
    tokenizers: TokenizerPair
    name: str  # as it was asked for: a bundled name, a folder


@dataclass(frozen=True)
class Fitted:
    """What was fit to people's links beside a model's weights and is read with them — not part of the network, so
    the loader keeps it beside the model (``LoadedModel.fitted``) and passes it wherever a matrix is read."""

    probe: Probe | None = None  # its heads weighed as human links taught (the matrix "fit to human links")
    floor: Probe | None = None  # where the words sit alone, fit on the same links: read beside every reading
    partner: ReversePartner | None = None  # the model its probe reads the other way, where the probe weighs any


class Translator(nn.Module, ABC):
    """Base class of every architecture: the verbs every caller uses, and the facts it asks instead of a class.

    Abstract: a family that lacks one of the verbs every caller needs (:meth:`encode`, :meth:`start`,
    :meth:`decode_step`, :meth:`forward`, :meth:`own_step_log_probs`, :attr:`state_size`) cannot be built, so it
    fails where it is written, not on the page that first calls the missing verb."""

    config: object  # the architecture's frozen config dataclass (saved as config.json)

    #: How the architecture is named in ``config.json`` and on the command line.
    architecture: str = ""

    @property
    def specials(self) -> Specials:
        """The ids decoding pads with, starts from and stops at (from the model's config; this project's are
        :data:`OWN_SPECIALS`)."""
        return OWN_SPECIALS

    @property
    def max_positions(self) -> int | None:
        """The longest source, and the longest target, the model can read, in pieces; None: any (the RNN, and the
        Transformer's sinusoids, which are computed for any length). A library model's position table has an end:
        decoding cuts what would run past it (:mod:`..decoding.greedy`)."""
        return None

    @property
    def source_embedding(self) -> nn.Embedding:
        """The source's embedding layer: what attribution (Captum) explains the output by."""
        return self.src_embed

    @abstractmethod
    def encode(self, src: Tensor, mask: Tensor):
        """The memory of ``src`` [B, S] (``mask`` [B, S] True on tokens): a frozen dataclass of batch-first
        tensors that every step reads."""

    @abstractmethod
    def start(self, memory):
        """The decoder's cache before its first step."""

    @abstractmethod
    def decode_step(self, prev: Tensor, cache, memory, focus: Focus | None = None) -> tuple[Step, object]:
        """One step for every row from the previous pieces ``prev`` [B]: the :class:`Step` and the next cache;
        ``focus`` makes one layer's heads read given weights (the what-if)."""

    def reorder(self, cache, index: Tensor):
        """The cache of rows ``index`` [B'] (beam search's surviving hypotheses, or a sentence copied B' times)."""
        return select_rows(cache, index)

    @abstractmethod
    def forward(self, src: Tensor, src_mask: Tensor, tgt_in: Tensor, keep: Tensor | None = None) -> Tensor:
        """Teacher-forced logits [B, T, V] for ``tgt_in`` [B, T], or [N, V] of the ``keep`` [B, T] positions."""

    def forced_steps(self, src: Tensor, mask: Tensor, tgt_in: Tensor) -> list[Step] | None:
        """The :class:`Step` of each position of ``tgt_in`` [B, T] (the start, then a given translation), as
        :meth:`decode_step` would report them fed one at a time, from one teacher-forced pass: T steps cost one pass
        where a step is bound by reading the weights (a large library model). None where the model offers no such
        pass; decoding then feeds the translation step by step."""
        return None

    @abstractmethod
    def own_step_log_probs(self, src: Tensor, mask: Tensor, tgt_in: Tensor, tgt_out: Tensor,
                           steps: Tensor) -> Tensor:
        """``log p(y_t | y_<t, x)`` [B] of row b's own step ``t = steps[b]`` (attribution's target)."""

    def attention_kinds(self, src: Tensor, mask: Tensor, tgt_in: Tensor) -> Attentions | None:
        """Every attention of one teacher-forced pass over ``tgt_in`` [B, T]; None for an architecture whose
        only attention is the cross-attention its steps report (the RNN)."""
        return None

    #: Whether the source is a prompt the model continues (a decoder-only model): its cross-attention is the rows of
    #: its one stack's written tokens over the prompt, so a row sums to less than 1.
    continues_prompt: bool = False

    #: What its generation config asks of a search beside the scores (:class:`GenerationRules`): nothing, for this
    #: project's own models.
    generation_rules: GenerationRules = GenerationRules()

    #: Whether :meth:`attention_parts` takes apart what the attention adds (not where a model normalises its
    #: attention's output before the residual sum: Gemma2).
    parts_readable: bool = True

    #: Whether :meth:`full_context_attention` reads anything: a decoder that can run with its future mask lifted.
    reads_full_context: bool = False

    def full_context_attention(self, src: Tensor, mask: Tensor, tgt_in: Tensor) -> Tensor | None:
        """The cross-attention [B, L, heads, T, S] of one teacher-forced pass over ``tgt_in`` [B, T] with the
        decoder's future mask lifted, so every position reads the whole translation: where Garg et al. (2019) read
        and train their aligning head ("full context"). None where the decoder cannot run so."""
        return None

    def sublayer_sites(self) -> dict[Kind, list[Site]]:
        """Where each attention sub-layer's parts are, ``{kind: [Site per layer]}`` for every kind of
        :data:`KINDS`; ``{}`` for an architecture without a residual stream (the RNN)."""
        return {}

    def attention_parts(self, src: Tensor, mask: Tensor, tgt_in: Tensor,
                        zeroed: Zeroed | None = None) -> AttentionParts | None:
        """What every attention sub-layer adds to the residual stream in one teacher-forced pass over ``tgt_in``
        [B, T]: its weights, value vectors, W^O, residual, output and post-norm, layer by layer (recorded by hooks
        while :meth:`attention_kinds` runs, so the pass is the model's own); ``zeroed`` zeroes value vectors of the
        cross-attention as the pass makes them. None for a model without attention."""
        sites = self.sublayer_sites()
        if not sites:
            return None
        with recording(sites, zeroed) as found:
            attentions = self.attention_kinds(src, mask, tgt_in)
        return assemble(sites, found, {kind: getattr(attentions, kind) for kind in KINDS})

    @property
    def attention_shapes(self) -> dict[Kind, tuple[int, int]]:
        """``{kind: (L, heads)}`` of each attention it has, in :data:`KINDS` order; ``{}`` without attention —
        worked out by its config, the one place an architecture's facts come from."""
        return self.config.attention_shapes

    @property
    def steps_kind(self) -> NamedKind:
        """What its decoding steps read, row by row, as it names it: its cross-attention (a model without attention
        still writes a step at a time: an attribution's rows are its steps)."""
        return next((k for k in self.named_kinds if k.stepwise), ENCODER_DECODER_KINDS[0])

    @property
    def several_heads(self) -> bool:
        """Whether a layer of its attention has more than one head (a grid of them to draw and to switch off)."""
        return self.attention_shape[1] > 1

    @property
    def named_kinds(self) -> tuple[NamedKind, ...]:
        """Its attentions as it names them for people, in :data:`KINDS` order: an encoder–decoder's by default."""
        return tuple(k for k in ENCODER_DECODER_KINDS if k.key in self.attention_shapes)

    @property
    def switchable_heads(self) -> dict[Kind, tuple[int, int]]:
        """``{kind: (L, heads)}`` of the attentions whose heads :meth:`switch_off` can zero; ``{}`` when none (an
        RNN's one attention is not a head a layer can do without)."""
        return {}

    #: Whether :meth:`decode_step` takes a :class:`Focus` (the what-if); a wrapped library model may not.
    attention_can_be_forced: bool = True

    def switch_off(self, heads: Collection[Head]) -> None:
        """Switch ``heads`` off in place — each one's output zeroed before its layer's output projection
        (Michel et al. 2019) — and every other head on; only ever on a copy of a shared model."""
        shapes = self.switchable_heads
        if heads and not shapes:
            raise ValueError("this model has no heads to switch off")
        unknown = {h for h in heads if h[0] not in shapes or not (0 <= h[1] < shapes[h[0]][0]
                                                                 and 0 <= h[2] < shapes[h[0]][1])}
        if unknown:
            raise ValueError(f"this model has no head {min(unknown)} (kind, layer, head; 0-based)")
        for kind, (layers, _) in shapes.items():
            for n in range(layers):
                self._switch_off_in(kind, n, frozenset(h for k, m, h in heads if (k, m) == (kind, n)))

    def _switch_off_in(self, kind: Kind, layer: int, heads: frozenset[int]) -> None:
        """Switch exactly ``heads`` of one attention off (every other head of it on)."""
        raise NotImplementedError

    @property
    def has_attention(self) -> bool:
        """Whether decoding reads the source through attention weights (False: the paper's RNNencdec baseline)."""
        return self.attention_shape != (0, 0)

    @property
    def attention_shape(self) -> tuple[int, int]:
        """``(L, heads)``: the cross-attention layers and heads per layer a step reports; (0, 0) without."""
        return self.attention_shapes.get(Kind.CROSS, (0, 0))

    @property
    @abstractmethod
    def state_size(self) -> int:
        """H, the width of :attr:`Step.state` (what the nearest-state index holds)."""

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device
