"""The records of the translator contract (:mod:`.translator`): what a decoding step returns (:class:`Step`) and
what may steer it (:class:`Focus`), a sentence's attentions (:class:`Attentions`) and the names an encoder–decoder
gives them (:data:`ENCODER_DECODER_KINDS`), the special ids it was trained with and the rules its generation config
sets. Frozen records of tensors and numbers: every architecture, decoding, analysis and storage read them.

Dimension names: B batch, S source pieces, T target steps, V target vocabulary, H decoder state width,
L decoder layers with cross-attention, heads per layer.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass

import torch
from torch import Tensor

from ..nouns.attention_map import Kind, NamedKind
from .tokenization import BOS_ID, EOS_ID, PAD_ID, UNK_ID

Head = tuple[str, int, int]  # (kind, layer, head), 0-based: one head that can be switched off


#: An encoder–decoder's three attentions (bertviz's).
ENCODER_DECODER_KINDS = (
    NamedKind(Kind.CROSS, "cross-attention", "cross", "Rows: the pieces the decoder wrote, one a step; columns: the "
              "source pieces each step read."),
    NamedKind(Kind.ENCODER, "encoder self-attention", "encoder", "Rows: each source piece as the encoder rebuilds it; "
              "columns: the source pieces it read to do so."),
    NamedKind(Kind.DECODER, "decoder self-attention", "decoder", "Rows: the pieces the decoder wrote, one a step; "
              "columns: its inputs, <s> and each piece written before — a step never reads a later one."),
)


@dataclass(frozen=True)
class Specials:
    """The special token ids a model was trained with: what decoding pads with, starts from and stops at."""

    pad: int
    eos: int
    start: int  # the decoder's first input: <s> for this project's models; Marian's is its <pad>
    unk: int
    also_end: tuple[int, ...] = ()  # other ids that end a translation as ``eos`` does: a chat model's other stops

    @property
    def ends(self) -> tuple[int, ...]:
        """Every id that ends a translation, ``eos`` first: what ``generate`` stops at (its ``eos_token_id``)."""
        return (self.eos, *self.also_end)


#: This project's checkpoints: the first four ids of both tokenizers (:data:`.tokenization.SPECIALS`).
OWN_SPECIALS = Specials(pad=PAD_ID, eos=EOS_ID, start=BOS_ID, unk=UNK_ID)


@dataclass(frozen=True)
class RNNStep:
    """What only the attentional RNN has at a step: the query it asked and the context it read (2015, §3.1)."""

    query: Tensor  # [B, H]  s_{t-1}, the attention query of this step
    context: Tensor  # [B, Dv]  c_t = Σ_s α_ts h_s


@dataclass(frozen=True)
class GenerationRules:
    """What a model's generation config asks every search to do to the scores beside its banned pieces, as
    ``generate``'s logits processors do: a repetition penalty over every token read so far (a chat model's prompt
    too), and a ban on writing an n-gram again. The defaults ask nothing."""

    repetition_penalty: float = 1.0  # a seen token's score s becomes s / p where s > 0, else s · p
    no_repeat_ngram: int = 0  # n: no n-gram of the tokens read so far is written twice; 0: any may be

    @property
    def any(self) -> bool:
        return self.repetition_penalty != 1.0 or self.no_repeat_ngram > 0

    @classmethod
    def of(cls, generation) -> GenerationRules:
        """The rules a ``transformers`` generation config sets (unset: none)."""
        return cls(float(generation.repetition_penalty or 1.0), int(generation.no_repeat_ngram_size or 0))


@dataclass(frozen=True)
class Step:
    """One decoding step for a batch, the same for every architecture."""

    log_probs: Tensor  # [B, V]  log-probabilities of the next piece, after the model's generation rules (-inf: never)
    attention: Tensor | None  # [B, L, heads, S]  each layer's heads' weights over the source; None without
    energies: Tensor | None  # [B, L, heads, S]  the scores before the softmax
    state: Tensor  # [B, H]  the decoder's output that writes this piece (RNN: s_t; Transformer: its last layer)
    rnn: RNNStep | None = None  # the RNN's query and context; None for other architectures
    #: [B, V] the scores before the softmax (banned pieces at −∞), which greedy search penalises as ``generate`` does
    #: where the model has :class:`GenerationRules`; None for a model without any
    logits: Tensor | None = None


@dataclass(frozen=True)
class Attentions:
    """Every attention of one teacher-forced pass over a batch (bertviz's three, layer-first)."""

    encoder: Tensor  # [B, L_enc, heads, S, S]  row: the source position that reads
    decoder: Tensor  # [B, L_dec, heads, T, T]  causal: row t reads the target inputs ≤ t
    cross: Tensor  # [B, L_dec, heads, T, S]
    values: Tensor  # [B, L_dec, heads, S, d_k]  the cross-attention's value vectors W_v h_s, head by head


@dataclass(frozen=True)
class Focus:
    """A what-if: at a step, one layer's heads read the given source pieces alone, equally, instead of where they
    would have looked. It names where to look; the weights are made where they are used (:meth:`weights`)."""

    layer: int  # 0-based decoder layer; every head of it reads the same pieces
    pieces: tuple[int, ...]  # 0-based source positions, each read with weight 1 / len(pieces)

    def weights(self, mask: Tensor) -> Tensor:
        """The weights [B, S] it sets, for a batch whose source ``mask`` is [B, S]; rows sum to 1."""
        weights = torch.zeros(mask.shape, dtype=torch.float32, device=mask.device)  # [B, S]
        weights[:, list(self.pieces)] = 1 / len(self.pieces)
        return weights


def select_rows(x, index: Tensor):
    """Rows ``index`` of a batch-first tensor, or of every tensor inside a (frozen) dataclass or tuple; other
    values (None, ints) pass through unchanged."""
    if isinstance(x, Tensor):
        return x.index_select(0, index)
    if isinstance(x, tuple):
        return tuple(select_rows(v, index) for v in x)
    if is_dataclass(x):
        return type(x)(**{f.name: select_rows(getattr(x, f.name), index) for f in fields(x)})
    return x
