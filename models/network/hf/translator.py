"""Hugging Face encoder–decoder translators behind the one translator interface — Marian (every
Helsinki-NLP/opus-mt-* model), the many-to-many M2M100, NLLB-200 and mBART-50, and T5 (t5-small, Flan-T5), each
family's module names in :mod:`.layouts` — so every decoder, analysis and page works on them as on this
project's own models.

The wrapped ``transformers`` model runs with eager attention, the only implementation that returns its weights
(under SDPA transformers 5 returns none). Decoding goes one step at a time through the model's own decoder and
cache: the cross-attention's keys and values are projected once, at the first step, and kept. The cache is held as
a frozen dataclass of batch-first tensors (:class:`HFCache`), rebuilt into the library's ``EncoderDecoderCache``
for each step, so picking rows for beam search is the interface's generic :func:`.translator.select_rows` and
really reorders. Each step reports its cross-attention ``[B, L, heads, S]``; the library exposes no energies.

What the library's ``generate`` does and this wrapper does too: a piece its generation config bans
(``bad_words_ids``: Marian's ``<pad>``) is never written, its log-probability set to −∞ after the softmax, so the
others keep the values ``generate`` scores beams with; a many-to-many model's first piece is the target language's
tag, forced as ``forced_bos_token_id`` forces it (every other piece at −∞, the tag at 0), so the trace shows the
attention of a step whose piece the model did not choose, and says so by the tag's piece. What it does not: the
what-if (forcing a layer's weights) is refused, as the library offers no place to set them. A head is switched off
by the project's definition, its output zeroed before the output projection, by a hook on that projection's input
(transformers 5 removed ``head_mask``).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from ...nouns.attention_map import Kind
from ..contract import Attentions, Focus, GenerationRules, Specials, Step
from ..hardware import float32_arithmetic
from ..parts import Site
from ..translator import Translator
from .layouts import LAYOUTS

#: ``model_type`` values of the encoder–decoder translators this wrapper reads (:mod:`.layouts`).
MODEL_TYPES = tuple(LAYOUTS)


@dataclass(frozen=True)
class HFMemory:
    """The encoded source."""

    hidden: Tensor  # [B, S, d]  the encoder's last layer
    mask: Tensor  # [B, S] bool, True on tokens


@dataclass(frozen=True)
class HFCache:
    """Every decoder layer's keys and values so far: of its self-attention (the positions decoded) and of its
    cross-attention (the source, projected at the first step; empty before it)."""

    keys: tuple[Tensor, ...]  # L × [B, heads, t, d_k]
    values: tuple[Tensor, ...]
    cross_keys: tuple[Tensor, ...]  # L × [B, heads, S, d_k]
    cross_values: tuple[Tensor, ...]


@dataclass(frozen=True)
class HFConfig:
    """What the interface asks of a wrapped model's configuration."""

    model_type: str
    attention_shapes: dict  # {kind: (L, heads)}
    d_model: int
    specials: Specials
    banned: tuple[int, ...]  # the pieces generate never writes (its generation config's one-piece bad_words_ids)
    rules: GenerationRules  # its generation config's repetition penalty and n-gram ban
    positions: int | None  # the positions its embeddings have: the longest source, and target, it can read (None: any)


def hf_config(config, generation, unk_id: int) -> HFConfig:
    """The facts of a ``transformers`` encoder–decoder config and its generation config; ``unk_id``: the
    tokenizer's (the config does not name it)."""
    layout = LAYOUTS[config.model_type]
    start = config.decoder_start_token_id
    specials = Specials(pad=config.pad_token_id, eos=config.eos_token_id,
                        start=config.pad_token_id if start is None else start, unk=unk_id)
    banned = tuple(words[0] for words in generation.bad_words_ids or () if len(words) == 1)
    return HFConfig(config.model_type, layout.shapes(config), config.d_model, specials, banned,
                    GenerationRules.of(generation), layout.positions(config))


def zero_removed_heads(projection: nn.Linear, args: tuple):
    """A forward pre-hook of an attention's output projection W^O: its input is the heads' outputs side by side,
    [B, T, heads · d_k]; the slices of the heads switched off (``projection.removed_heads``) become zero. The state
    lives on the projection, so a deep copy of the model switches heads off on its own."""
    if not projection.removed_heads:
        return None
    x, d = args[0].clone(), projection.head_dim
    for h in projection.removed_heads:
        x[..., h * d : (h + 1) * d] = 0
    return (x, *args[1:])


class LibraryTranslator(Translator):
    """What every wrapped ``transformers`` model shares, encoder–decoder (:class:`HFTranslator`) or decoder-only
    (:class:`.decoder_only.DecoderOnlyTranslator`): its config's facts, no place to force its attention, and the
    log-probability of a step's own piece from one teacher-forced pass."""

    architecture = "hf"
    attention_can_be_forced = False  # transformers offers no place to set a layer's weights

    @property
    def specials(self) -> Specials:
        return self.config.specials

    @property
    def generation_rules(self) -> GenerationRules:
        return self.config.rules

    def _with_logits(self, logits: Tensor) -> Tensor | None:
        """A step's logits [B, V] where the search penalises them (:class:`.translator.GenerationRules`), else None:
        a kept trace holds no second [B, V] for nothing."""
        return logits if self.generation_rules.any else None

    def own_step_log_probs(self, src: Tensor, mask: Tensor, tgt_in: Tensor, tgt_out: Tensor,
                           steps: Tensor) -> Tensor:
        logits = self(src, mask, tgt_in[:, : int(steps.max()) + 1])  # [B, T', V]
        rows = torch.arange(len(steps), device=steps.device)
        return logits[rows, steps].float().log_softmax(-1).gather(1, tgt_out[rows, steps][:, None]).squeeze(1)  # [B]

    @property
    def state_size(self) -> int:
        return self.config.d_model

    def widened(self):
        """The context a pass over many tokens runs in: float32 products where the weights are bfloat16 on a device
        without bfloat16 units (:mod:`..hardware`). A step, bound by reading the weights, runs without."""
        return float32_arithmetic(self.hf.get_input_embeddings().weight)


class HFTranslator(LibraryTranslator):
    """A ``transformers`` encoder–decoder translator (``MarianMTModel``, ``M2M100ForConditionalGeneration``,
    ``MBartForConditionalGeneration``, ``T5ForConditionalGeneration``) as a :class:`~.translator.Translator`; a
    many-to-many one writes in the language :meth:`writing` sets."""

    target_tag: int | None = None  # the tag id forced as the first piece (a many-to-many model's target language)

    def __init__(self, model: nn.Module, unk_id: int):
        super().__init__()
        if model.config.model_type not in MODEL_TYPES:
            raise ValueError(f"{model.config.model_type!r} models are not read here; expected one of {MODEL_TYPES}")
        model.set_attn_implementation("eager")  # the only implementation that returns attention weights
        self.hf, self.layout = model.eval(), LAYOUTS[model.config.model_type]
        self.config = hf_config(model.config, model.generation_config, unk_id)
        for layers in self.attention_modules().values():
            for attn in layers:
                out = self._out(attn)
                out.removed_heads, out.head_dim = frozenset(), getattr(attn, self.layout.projections.head_dim)
                out.register_forward_pre_hook(zero_removed_heads)

    def _out(self, attn: nn.Module) -> nn.Linear:
        """An attention module's output projection W^O."""
        return getattr(attn, self.layout.projections.out)

    def writing(self, tag: int | None) -> HFTranslator:
        """This model with ``tag`` (a target language's tag id) forced as every sentence's first piece, as
        ``generate``'s ``forced_bos_token_id``: a shallow copy sharing the weights, so a server holds one model
        for all the pairs its visitors pick."""
        found = copy.copy(self)
        found.target_tag = tag
        return found

    @property
    def max_positions(self) -> int:
        return self.config.positions

    @property
    def source_embedding(self) -> nn.Embedding:
        return self.hf.get_encoder().embed_tokens

    def attention_modules(self) -> dict[Kind, list[nn.Module]]:
        """Each attention kind's modules, layer by layer (as the Transformer's own method of that name)."""
        return self.layout.attentions(self.hf)

    @property
    def switchable_heads(self) -> dict[Kind, tuple[int, int]]:
        return self.attention_shapes

    def sublayer_sites(self) -> dict[Kind, list[Site]]:
        return self.layout.sites(self.hf)

    def _switch_off_in(self, kind: Kind, layer: int, heads: frozenset[int]) -> None:
        self._out(self.attention_modules()[kind][layer]).removed_heads = heads

    def encode(self, src: Tensor, mask: Tensor) -> HFMemory:
        with self.widened():
            hidden = self.hf.get_encoder()(input_ids=src, attention_mask=mask.long()).last_hidden_state
        return HFMemory(hidden, mask)

    def start(self, memory: HFMemory) -> HFCache:
        return HFCache((), (), (), ())

    def _library_cache(self, cache: HFCache):
        from transformers import DynamicCache, EncoderDecoderCache

        found = EncoderDecoderCache(DynamicCache(list(zip(cache.keys, cache.values))),
                                    DynamicCache(list(zip(cache.cross_keys, cache.cross_values))))
        for n in range(len(cache.cross_keys)):
            found.is_updated[n] = True  # the source's keys and values are there: reuse them
        return found

    def decode_step(self, prev: Tensor, cache: HFCache, memory: HFMemory,
                    focus: Focus | None = None) -> tuple[Step, HFCache]:
        if focus is not None:
            raise ValueError("this model's attention cannot be forced: transformers offers no place to set it")
        library = self._library_cache(cache)
        out = self.layout.decoder(self.hf)(input_ids=prev[:, None], encoder_hidden_states=memory.hidden,
                                    encoder_attention_mask=memory.mask.long(), cache=library, use_cache=True,
                                    output_attentions=True)
        state = out.last_hidden_state[:, 0]  # [B, d]
        logits = self.layout.logits(self.hf, state).float()  # [B, V]
        log_probs, logits = self._banned(logits.log_softmax(-1)), self._banned(logits)  # as generate's searches do
        if not cache.keys:
            log_probs, logits = self._tag_first(log_probs), self._tag_first(logits)
        attention = torch.stack([a[:, :, 0] for a in out.cross_attentions], 1)  # [B, L, heads, S]
        new = out.cache
        layers = range(len(new.self_attention_cache.layers))
        step = Step(log_probs, attention, None, state, logits=self._with_logits(logits))
        return step, HFCache(
            tuple(new.self_attention_cache.layers[n].keys for n in layers),
            tuple(new.self_attention_cache.layers[n].values for n in layers),
            tuple(new.cross_attention_cache.layers[n].keys for n in layers),
            tuple(new.cross_attention_cache.layers[n].values for n in layers))

    def _log_probs(self, state: Tensor) -> Tensor:
        """The next piece's log-probabilities [..., V] from the decoder's output ``state`` [..., d], after generate's
        rules: the banned pieces at −∞."""
        return self._banned(self.layout.logits(self.hf, state).float().log_softmax(-1))

    def _banned(self, scores: Tensor) -> Tensor:
        """``scores`` [..., V] with the pieces ``generate`` never writes at −∞, set after the softmax as its beam
        search sets them (the others keep the values it ranks by), on the logits where its greedy search reads
        them."""
        scores[..., list(self.config.banned)] = float("-inf")
        return scores

    def _tag_first(self, scores: Tensor) -> Tensor:
        """The first step's scores [B, V] (logits or log-probabilities): for a model writing in a set language, its
        tag alone, at 0 (``ForcedBOSTokenLogitsProcessor``); else as they are."""
        if self.target_tag is None:
            return scores
        forced = torch.full_like(scores, float("-inf"))
        forced[:, self.target_tag] = 0.0
        return forced

    def forced_steps(self, src: Tensor, mask: Tensor, tgt_in: Tensor) -> list[Step]:
        memory = self.encode(src, mask)
        with self.widened():
            out = self.layout.decoder(self.hf)(input_ids=tgt_in, encoder_hidden_states=memory.hidden,
                                               encoder_attention_mask=mask.long(), use_cache=False,
                                               output_attentions=True)
            states = out.last_hidden_state  # [B, T, d]
            log_probs = self._log_probs(states)  # [B, T, V]
        attention = torch.stack(out.cross_attentions, 1)  # [B, L, heads, T, S]
        return [Step(self._tag_first(log_probs[:, t]) if t == 0 else log_probs[:, t], attention[:, :, :, t], None,
                     states[:, t]) for t in range(tgt_in.shape[1])]

    def forward(self, src: Tensor, src_mask: Tensor, tgt_in: Tensor, keep: Tensor | None = None) -> Tensor:
        with self.widened():
            logits = self.hf(input_ids=src, attention_mask=src_mask.long(), decoder_input_ids=tgt_in).logits
        return logits if keep is None else logits[keep]  # [B, T, V] or [N, V]

    def attention_kinds(self, src: Tensor, mask: Tensor, tgt_in: Tensor) -> Attentions:
        with self.widened():
            out = self.hf(input_ids=src, attention_mask=mask.long(), decoder_input_ids=tgt_in,
                          output_attentions=True)
        hidden = out.encoder_last_hidden_state  # [B, S, d]
        names = self.layout.projections
        values = [getattr(attn, names.value)(hidden).view(*hidden.shape[:2], -1, getattr(attn, names.head_dim))
                  .transpose(1, 2) for attn in self.attention_modules()[Kind.CROSS]]  # L × [B, heads, S, d_k]
        return Attentions(*(torch.stack(found, 1) for found in (out.encoder_attentions, out.decoder_attentions,
                                                                 out.cross_attentions, values)))
