"""Hugging Face decoder-only translators (Llama: EuroLLM, SalamandraTA; Qwen2: Qwen2.5-Instruct; Gemma2: Tower+)
behind the one translator interface, the source being the prompt (:mod:`.prompt`).

There is no cross-attention: each written token attends over the whole prompt and what has been written. The
three kinds are mapped onto the one stack, each layer's heads read at different rows and columns of one pass::

    cross     [B, L, heads, T, S]   each written token's row over the prompt (the sentence and the rest of it)
    encoder   [B, L, heads, S, S]   the prompt over itself, causal
    decoder   [B, L, heads, T, T]   the written tokens over each other (the start token, the prompt's last, first)

so a cross-attention row sums to less than 1: the rest went to what the model had written. Nothing is renormalised.

Decoding goes one step at a time through the model's own layers and cache: :meth:`encode` runs the prompt once
and keeps its keys and values, each step adds one token's. Prompts of a batch are padded on the right, so each
row's written tokens take positions from its own prompt's length, and the pads between are masked: a row reads
what ``generate`` gives it alone. Grouped-query attention (fewer key–value heads than query heads) is the library's;
every query head is reported and switched off on its own, before ``o_proj``.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from ...nouns.attention_map import Kind, NamedKind
from ..contract import Attentions, Focus, GenerationRules, Specials, Step
from ..parts import AttentionParts, Site, Sublayer, Zeroed, recording
from .translator import LibraryTranslator, zero_removed_heads

#: ``model_type`` values of the decoder-only translators read here: their layers are all named alike
#: (``model.layers[n].self_attn.{q,k,v,o}_proj``).
DECODER_ONLY_TYPES = ("llama", "qwen2", "gemma2")
#: The one stack's three readings, named for what they are: there is no encoder, and no source but the prompt; each
#: switch word short enough for three to sit in a laptop's column beside the other pickers.
PROMPT_KINDS = (
    NamedKind(Kind.CROSS, "the translation reading the prompt", "→ prompt", "Rows: the tokens the model "
              "wrote, one a step; columns: the prompt's tokens each step read (the rest of each row went to the "
              "translation so far)."),
    NamedKind(Kind.ENCODER, "the prompt reading itself", "in prompt", "Rows: each prompt token as the stack "
              "reads it; columns: the prompt tokens before it."),
    NamedKind(Kind.DECODER, "the translation reading itself", "→ itself", "Rows: the tokens the model "
              "wrote, one a step; columns: the prompt's last token and each token written before."),
)
#: Those whose attention adds to the residual stream as it is (``y = r + o_proj(…)``, the sum the post-attention norm
#: reads), so what it adds is taken apart term by term; Gemma2 normalises the attention's output before the sum.
PLAIN_RESIDUAL = ("llama", "qwen2")


@dataclass(frozen=True)
class PromptConfig:
    """What the interface asks of a decoder-only model's configuration."""

    model_type: str
    attention_shapes: dict  # {kind: (L, heads)}: one stack read three ways
    d_model: int
    specials: Specials  # start: the prompt's last token; eos: its chat template's end of turn
    rules: GenerationRules  # its generation config's repetition penalty and n-gram ban
    positions: int  # max_position_embeddings: the prompt's and the translation's together


@dataclass(frozen=True)
class PromptMemory:
    """The prompt, run once."""

    lengths: Tensor  # [B] each row's prompt tokens
    mask: Tensor  # [B, S] True on the prompt's tokens
    keys: tuple[Tensor, ...]  # L × [B, kv_heads, S, d_k]
    values: tuple[Tensor, ...]


@dataclass(frozen=True)
class PromptCache:
    """Every layer's keys and values so far: the prompt's, then each written token's."""

    keys: tuple[Tensor, ...]  # L × [B, kv_heads, S + t, d_k]
    values: tuple[Tensor, ...]
    mask: Tensor  # [B, S + t] True where a row has a token


class PromptEmbedding(nn.Module):
    """The model's token embedding as used for the prompt alone, so that attribution (which hooks this module)
    explains a step by the prompt's tokens, not by what the model wrote. The weights are the model's."""

    def __init__(self, embedding: nn.Module):
        super().__init__()
        self.embedding = embedding

    def forward(self, ids: Tensor) -> Tensor:
        return self.embedding(ids)


class DecoderOnlyTranslator(LibraryTranslator):
    """A ``transformers`` causal LM (``LlamaForCausalLM``, ``Qwen2ForCausalLM``, ``Gemma2ForCausalLM``) as a
    :class:`~.translator.Translator` over its prompt; ``specials``: ``start`` the prompt's last token, ``eos`` the end
    of turn (``also_end``: its other stop tokens), ``pad`` an id no prompt holds (decoding masks by it)."""

    continues_prompt = True
    named_kinds = PROMPT_KINDS

    def __init__(self, model: nn.Module, specials: Specials):
        super().__init__()
        config = model.config
        if config.model_type not in DECODER_ONLY_TYPES:
            raise ValueError(f"{config.model_type!r} models are not read here; expected one of {DECODER_ONLY_TYPES}")
        model.set_attn_implementation("eager")  # the only implementation that returns attention weights
        self.hf = model.eval()
        self.prompt_embedding = PromptEmbedding(model.get_input_embeddings())
        shape = (config.num_hidden_layers, config.num_attention_heads)
        self.config = PromptConfig(config.model_type, {Kind.CROSS: shape, Kind.ENCODER: shape, Kind.DECODER: shape},
                                   config.hidden_size, specials, GenerationRules.of(model.generation_config),
                                   config.max_position_embeddings)
        for attn in self._attentions():
            attn.o_proj.removed_heads, attn.o_proj.head_dim = frozenset(), attn.head_dim
            attn.o_proj.register_forward_pre_hook(zero_removed_heads)

    def _attentions(self) -> list[nn.Module]:
        return [layer.self_attn for layer in self.hf.model.layers]

    @property
    def max_positions(self) -> int:
        """Half the positions: the prompt and the translation share them."""
        return self.config.positions // 2

    @property
    def source_embedding(self) -> nn.Module:
        return self.prompt_embedding

    @property
    def switchable_heads(self) -> dict[Kind, tuple[int, int]]:
        """A head is switched off wherever it reads, so under one kind: the cross-attention's."""
        return {Kind.CROSS: self.attention_shapes[Kind.CROSS]}

    def _switch_off_in(self, kind: Kind, layer: int, heads: frozenset[int]) -> None:
        self._attentions()[layer].o_proj.removed_heads = heads

    def _library_cache(self, keys=(), values=()):
        """The library's cache of these keys and values, every layer whole: a sliding-window layer (Gemma2's) is
        masked to its window, not cut to it, so each step's attention has a column for every prompt token."""
        from transformers import DynamicCache

        return DynamicCache(list(zip(keys, values))) if keys else DynamicCache()

    def encode(self, src: Tensor, mask: Tensor) -> PromptMemory:
        out = self._pass(src, mask, src[:, :0], cache=self._library_cache(), use_cache=True)
        cache = out.cache
        return PromptMemory(mask.sum(1), mask, tuple(layer.keys for layer in cache.layers),
                            tuple(layer.values for layer in cache.layers))

    def start(self, memory: PromptMemory) -> PromptCache:
        return PromptCache(memory.keys, memory.values, memory.mask)

    def decode_step(self, prev: Tensor, cache: PromptCache, memory: PromptMemory,
                    focus: Focus | None = None) -> tuple[Step, PromptCache]:
        if focus is not None:
            raise ValueError("this model's attention cannot be forced: transformers offers no place to set it")
        S, t = memory.mask.shape[1], cache.mask.shape[1] - memory.mask.shape[1]
        mask = torch.cat([cache.mask, torch.ones_like(cache.mask[:, :1])], 1)  # [B, S + t + 1]
        library = self._library_cache(cache.keys, cache.values)
        positions = (memory.lengths + t)[:, None]  # [B, 1]: after each row's own prompt
        out = self.hf.model(input_ids=prev[:, None], attention_mask=mask.long(), position_ids=positions, cache=library,
                            use_cache=True, output_attentions=True)
        state = out.last_hidden_state[:, 0]  # [B, d]
        attention = torch.stack([a[:, :, 0, :S] for a in out.attentions], 1)  # [B, L, heads, S]
        layers = out.cache.layers
        logits = self._logits(state).float()  # [B, V]
        return (Step(logits.log_softmax(-1), attention, None, state, logits=self._with_logits(logits)),
                PromptCache(tuple(n.keys for n in layers), tuple(n.values for n in layers), mask))

    def _logits(self, state: Tensor) -> Tensor:
        """[..., V] from the last layer's output [..., d], as the library's forward computes them (Gemma2's
        final soft cap included)."""
        logits, cap = self.hf.lm_head(state), getattr(self.hf.config, "final_logit_softcapping", None)
        return logits if cap is None else torch.tanh(logits / cap) * cap

    def _pass(self, src: Tensor, mask: Tensor, tgt_in: Tensor, **options):
        """The stack over each row's prompt ``src`` [B, S] (``mask``: its tokens) and then ``tgt_in`` [B, T], the
        written tokens placed after the row's own prompt (its pads masked between)."""
        S, T = src.shape[1], tgt_in.shape[1]
        positions = torch.cat([torch.arange(S, device=src.device).expand(len(src), -1),
                               mask.sum(1, keepdim=True) + torch.arange(T, device=src.device)], 1)  # [B, S + T]
        embeds = torch.cat([self.prompt_embedding(src), self.hf.get_input_embeddings()(tgt_in)], 1)
        full = torch.cat([mask, torch.ones_like(tgt_in, dtype=torch.bool)], 1)
        with self.widened():
            return self.hf.model(inputs_embeds=embeds, attention_mask=full.long(), position_ids=positions, **options)

    def forced_steps(self, src: Tensor, mask: Tensor, tgt_in: Tensor) -> list[Step]:
        S = src.shape[1]
        out = self._pass(src, mask, tgt_in, output_attentions=True)
        states = out.last_hidden_state[:, S:]  # [B, T, d]
        with self.widened():
            log_probs = self._logits(states).float().log_softmax(-1)  # [B, T, V]
        attention = torch.stack([a[:, :, S:, :S] for a in out.attentions], 1)  # [B, L, heads, T, S]
        return [Step(log_probs[:, t], attention[:, :, :, t], None, states[:, t]) for t in range(tgt_in.shape[1])]

    def forward(self, src: Tensor, src_mask: Tensor, tgt_in: Tensor, keep: Tensor | None = None) -> Tensor:
        states = self._pass(src, src_mask, tgt_in).last_hidden_state[:, src.shape[1]:]  # [B, T, d]
        with self.widened():
            logits = self._logits(states if keep is None else states[keep])
        return logits  # [B, T, V] or [N, V]

    @property
    def parts_readable(self) -> bool:
        return self.config.model_type in PLAIN_RESIDUAL

    def attention_parts(self, src: Tensor, mask: Tensor, tgt_in: Tensor,
                        zeroed: Zeroed | None = None) -> AttentionParts | None:
        """The cross-attention's parts, layer by layer: each written token's row over every position it reads, the
        prompt's S first and then the T written ones (M = S + T), each query head's values (its key–value head's),
        its rows of ``o_proj``, and the stream before and after the attention at the written positions (the input
        of ``input_layernorm`` and of ``post_attention_layernorm``: pre-norm, so the parts sum to the second). None
        where the model normalises its attention's output first (Gemma2). The readings cut them to the prompt's
        columns, so a row's shares, as its weights, leave the rest to the translation so far."""
        if zeroed is not None:
            raise ValueError("value zeroing is not read over a decoder-only model's one stack here")
        if not self.parts_readable:
            return None
        layers = self.hf.model.layers
        sites = [Site(n.self_attn.v_proj, n.self_attn.o_proj, n.input_layernorm, n.post_attention_layernorm, n)
                 for n in layers]
        with recording({Kind.CROSS: sites}) as found:
            out = self._pass(src, mask, tgt_in, output_attentions=True)
        S, heads = src.shape[1], self.attention_shapes[Kind.CROSS][1]

        def sublayer(n: int, attn: nn.Module) -> Sublayer:
            v = found[Kind.CROSS, n, "values"]  # [B, S + T, kv · d_k]
            v = v.view(*v.shape[:2], -1, attn.head_dim).transpose(1, 2).repeat_interleave(
                attn.num_key_value_groups, 1)  # [B, heads, S + T, d_k]
            out_weight = attn.o_proj.weight.T.reshape(heads, attn.head_dim, -1)  # [heads, d_k, d]
            bias = attn.o_proj.bias if attn.o_proj.bias is not None else out_weight.new_zeros(out_weight.shape[-1])
            return Sublayer(out.attentions[n][:, :, S:], v, out_weight, bias, found[Kind.CROSS, n, "residual"][:, S:],
                            found[Kind.CROSS, n, "output"][:, S:])

        return AttentionParts((), (), tuple(sublayer(n, layer.self_attn) for n, layer in enumerate(layers)))

    def attention_kinds(self, src: Tensor, mask: Tensor, tgt_in: Tensor) -> Attentions:
        S, found = src.shape[1], []

        def keep(module, args, out):  # v_proj's output: every position's value vectors, [B, S + T, kv · d_k]
            found.append(out[:, :S])

        hooks = [attn.v_proj.register_forward_hook(keep) for attn in self._attentions()]
        try:
            out = self._pass(src, mask, tgt_in, output_attentions=True)
        finally:
            for hook in hooks:
                hook.remove()
        values = [v.view(*v.shape[:2], -1, attn.head_dim).transpose(1, 2).repeat_interleave(
            attn.num_key_value_groups, 1) for v, attn in zip(found, self._attentions())]  # L × [B, heads, S, d_k]
        every = torch.stack(out.attentions, 1)  # [B, L, heads, S + T, S + T]
        return Attentions(every[..., :S, :S], every[..., S:, S:], every[..., S:, :S], torch.stack(values, 1))
