"""Hugging Face encoder–decoder translators (MarianMT first: every Helsinki-NLP/opus-mt-* model) behind the one
translator interface, so every decoder, analysis and page works on them as on this project's own models.

The wrapped ``transformers`` model runs with eager attention, the only implementation that returns its weights
(under SDPA transformers 5 returns none). Decoding goes one step at a time through the model's own decoder and
cache: the cross-attention's keys and values are projected once, at the first step, and kept. The cache is held as
a frozen dataclass of batch-first tensors (:class:`HFCache`), rebuilt into the library's ``EncoderDecoderCache``
for each step, so picking rows for beam search is the interface's generic :func:`.translator.select_rows` and
really reorders. Each step reports its cross-attention ``[B, L, heads, S]``; the library exposes no energies.

What the library's ``generate`` does and this wrapper does too: ``<pad>`` is never written (Marian's generation
config bans it: ``bad_words_ids``), its log-probability set to −∞ after the softmax, so the others keep the values
``generate`` scores beams with. What it does not: the what-if (forcing a layer's weights) is refused, as the
library offers no place to set them. A head is switched off by the project's definition, its output zeroed
before the output projection, by a hook on that projection's input (transformers 5 removed ``head_mask``).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from .tokenization import EOS, WORD_MARK, Encoded, InputError
from .translator import Attentions, Focus, Specials, Step, Translator

#: ``model_type`` values of the encoder–decoder translators this wrapper reads (their layers' names are Marian's).
MODEL_TYPES = ("marian",)


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


def hf_config(config, unk_id: int) -> HFConfig:
    """The facts of a ``transformers`` encoder–decoder config (``MarianConfig``); ``unk_id``: the tokenizer's (the
    config does not name it)."""
    shapes = {"cross": (config.decoder_layers, config.decoder_attention_heads),
              "encoder": (config.encoder_layers, config.encoder_attention_heads),
              "decoder": (config.decoder_layers, config.decoder_attention_heads)}
    start = config.decoder_start_token_id
    specials = Specials(pad=config.pad_token_id, eos=config.eos_token_id,
                        start=config.pad_token_id if start is None else start, unk=unk_id)
    return HFConfig(config.model_type, shapes, config.d_model, specials)


def _zero_removed_heads(projection: nn.Linear, args: tuple):
    """A forward pre-hook of an attention's output projection W^O: its input is the heads' outputs side by side,
    [B, T, heads · d_k]; the slices of the heads switched off (``projection.removed_heads``) become zero. The state
    lives on the projection, so a deep copy of the model switches heads off on its own."""
    if not projection.removed_heads:
        return None
    x, d = args[0].clone(), projection.head_dim
    for h in projection.removed_heads:
        x[..., h * d : (h + 1) * d] = 0
    return (x, *args[1:])


class HFTranslator(Translator):
    """A ``transformers`` Marian model (``MarianMTModel``) as a :class:`~.translator.Translator`."""

    architecture = "hf"
    attention_can_be_forced = False  # transformers offers no place to set a layer's weights

    def __init__(self, model: nn.Module, unk_id: int):
        super().__init__()
        if model.config.model_type not in MODEL_TYPES:
            raise ValueError(f"{model.config.model_type!r} models are not read here; expected one of {MODEL_TYPES}")
        model.set_attn_implementation("eager")  # the only implementation that returns attention weights
        self.hf = model.eval()
        self.config = hf_config(model.config, unk_id)
        for layers in self.attention_modules().values():
            for attn in layers:
                attn.out_proj.removed_heads, attn.out_proj.head_dim = frozenset(), attn.head_dim
                attn.out_proj.register_forward_pre_hook(_zero_removed_heads)

    @property
    def variant(self) -> str:
        return self.config.model_type

    @property
    def specials(self) -> Specials:
        return self.config.specials

    @property
    def source_embedding(self) -> nn.Embedding:
        return self.hf.get_encoder().embed_tokens

    def attention_modules(self) -> dict[str, list[nn.Module]]:
        """Each attention kind's modules, layer by layer (as the Transformer's own method of that name)."""
        return {"cross": [layer.encoder_attn for layer in self.hf.model.decoder.layers],
                "encoder": [layer.self_attn for layer in self.hf.model.encoder.layers],
                "decoder": [layer.self_attn for layer in self.hf.model.decoder.layers]}

    @property
    def switchable_heads(self) -> dict[str, tuple[int, int]]:
        return self.attention_shapes

    def _switch_off_in(self, kind: str, layer: int, heads: frozenset[int]) -> None:
        self.attention_modules()[kind][layer].out_proj.removed_heads = heads

    def encode(self, src: Tensor, mask: Tensor) -> HFMemory:
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
        out = self.hf.model.decoder(input_ids=prev[:, None], encoder_hidden_states=memory.hidden,
                                    encoder_attention_mask=memory.mask.long(), cache=library, use_cache=True,
                                    output_attentions=True)
        state = out.last_hidden_state[:, 0]  # [B, d]
        log_probs = (self.hf.lm_head(state) + self.hf.final_logits_bias[0]).log_softmax(-1)  # [B, V]
        log_probs[:, self.specials.pad] = float("-inf")  # generate's bad_words_ids, after the softmax as there
        attention = torch.stack([a[:, :, 0] for a in out.cross_attentions], 1)  # [B, L, heads, S]
        new = out.cache
        layers = range(len(new.self_attention_cache.layers))
        return Step(log_probs, attention, None, state), HFCache(
            tuple(new.self_attention_cache.layers[n].keys for n in layers),
            tuple(new.self_attention_cache.layers[n].values for n in layers),
            tuple(new.cross_attention_cache.layers[n].keys for n in layers),
            tuple(new.cross_attention_cache.layers[n].values for n in layers))

    def forward(self, src: Tensor, src_mask: Tensor, tgt_in: Tensor, keep: Tensor | None = None) -> Tensor:
        logits = self.hf(input_ids=src, attention_mask=src_mask.long(), decoder_input_ids=tgt_in).logits
        return logits if keep is None else logits[keep]  # [B, T, V] or [N, V]

    def own_step_log_probs(self, src: Tensor, mask: Tensor, tgt_in: Tensor, tgt_out: Tensor,
                           steps: Tensor) -> Tensor:
        logits = self(src, mask, tgt_in[:, : int(steps.max()) + 1])  # [B, T', V]
        rows = torch.arange(len(steps), device=steps.device)
        return logits[rows, steps].log_softmax(-1).gather(1, tgt_out[rows, steps][:, None]).squeeze(1)  # [B]

    def attention_kinds(self, src: Tensor, mask: Tensor, tgt_in: Tensor) -> Attentions:
        out = self.hf(input_ids=src, attention_mask=mask.long(), decoder_input_ids=tgt_in, output_attentions=True)
        hidden = out.encoder_last_hidden_state  # [B, S, d]
        values = [attn.v_proj(hidden).view(*hidden.shape[:2], -1, attn.head_dim).transpose(1, 2)
                  for attn in self.attention_modules()["cross"]]  # L × [B, heads, S, d_k]
        return Attentions(*(torch.stack(found, 1) for found in (out.encoder_attentions, out.decoder_attentions,
                                                                 out.cross_attentions, values)))

    @property
    def state_size(self) -> int:
        return self.config.d_model


class HFTokenizer:
    """One side (source or target) of a ``transformers`` Marian tokenizer as a :class:`.tokenization.PieceTokenizer`:
    pieces with SentencePiece's ``▁`` word marker, so words join as ours do.
    The library's slow SentencePiece tokenizer gives no character offsets: a piece's surface is its own text."""

    def __init__(self, tokenizer, side: str):
        self.tokenizer, self.side = tokenizer, side

    @property
    def vocab_size(self) -> int:
        return len(self.tokenizer)

    def _encode(self, text: str) -> list[int]:
        found = self.tokenizer(text, add_special_tokens=False) if self.side == "source" else self.tokenizer(
            text_target=text, add_special_tokens=False)
        return list(found["input_ids"])

    def encode(self, text: str, max_tokens: int) -> Encoded:
        """Pieces of ``text`` plus EOS, at most ``max_tokens`` in all."""
        if not text.strip():
            raise InputError("Type a sentence to translate.")
        found = self._encode(text)
        ids = found[: max_tokens - 1]
        pieces = self.pieces(ids)
        eos, unk = self.tokenizer.eos_token_id, self.tokenizer.unk_token_id
        return Encoded(ids=(*ids, eos), pieces=(*pieces, EOS), surfaces=(*(p.replace(WORD_MARK, "") or p
                                                                            for p in pieces), EOS),
                       unknown=(*(i == unk for i in ids), False), truncated=len(found) > len(ids))

    def ids(self, text: str) -> list[int]:
        """Piece ids without specials."""
        return self._encode(text)

    def pieces(self, ids) -> list[str]:
        return [EOS if i == self.tokenizer.eos_token_id else p for i, p in
                zip(ids, self.tokenizer.convert_ids_to_tokens(list(ids)))]

    def decode(self, ids) -> str:
        """Normal text for piece ids; specials are dropped."""
        return self.tokenizer.decode(list(ids), skip_special_tokens=True)
