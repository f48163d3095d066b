"""A small Transformer translator (Vaswani et al. 2017, §3), behind the same interface as the attentional RNN.

Encoder (§3.1): N layers of self-attention and a position-wise feed-forward network. Decoder: N layers of masked
self-attention ("to prevent positions from attending to subsequent positions"), cross-attention over the
encoder's output ("every position in the decoder [attends] over all positions in the input sequence. This mimics
the typical encoder-decoder attention mechanisms in sequence-to-sequence models such as [Bahdanau et al.]"), and
the feed-forward network. Where the RNN has one additive or dot-product reading per step, this has L × heads.

Choices, each the common one for small translators:
- pre-norm residual blocks, ``x + Dropout(Sublayer(LayerNorm(x)))``, and a final LayerNorm on each stack
  (Xiong et al. 2020: trains without the paper's long warm-up being critical); dropout where the paper puts it
  (§5.4, "Residual Dropout"): on each sub-layer's output and on the embeddings plus positions, nowhere inside;
- sinusoidal positions (§3.5), computed for any length, so no length is baked into the weights;
- embeddings scaled by √d_model (§3.4); the target embedding is also the output layer ("we share the same weight
  matrix between the two embedding layers and the pre-softmax linear transformation"; here only target and
  output, since the two languages have their own tokenizers).

Decoding keeps a key/value cache: each step projects only the new position, so a sentence of T pieces costs T
small steps, and the cross-attention's keys and values are projected once per sentence (the memory).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ..nouns.attention_map import Kind
from .contract import Attentions, Focus, Step
from .multihead import MultiHeadAttention
from .parts import Site, Where
from .translator import FORMAT_VERSION, Translator, check_identity

#: Where each of its attentions sits, pre-norm (its shapes, modules and sites follow from this one table).
WHERE = {Kind.CROSS: Where("decoder", "cross_attn", "norm_cross", "norm_ffn", "dec_layers", "heads"),
         Kind.ENCODER: Where("encoder", "self_attn", "norm_self", "norm_ffn", "enc_layers", "heads"),
         Kind.DECODER: Where("decoder", "self_attn", "norm_self", "norm_cross", "dec_layers", "heads")}


@dataclass(frozen=True)
class TransformerConfig:
    """Everything that fixes a Transformer's shape: saved as ``config.json``."""

    src_vocab_size: int
    tgt_vocab_size: int
    d_model: int = 256
    heads: int = 4
    enc_layers: int = 3
    dec_layers: int = 3
    ffn_dim: int = 1024
    dropout: float = 0.1
    pad_id: int = 0
    architecture: str = "transformer"
    format_version: int = FORMAT_VERSION

    def __post_init__(self):
        check_identity(self, "transformer")
        if self.d_model % self.heads:
            raise ValueError(f"d_model {self.d_model} must be divisible by heads {self.heads}")

    @property
    def attention_shapes(self) -> dict[Kind, tuple[int, int]]:
        """``{kind: (L, heads)}``: cross-attention and the decoder's self-attention in every decoder layer, the
        encoder's in every encoder layer."""
        return {kind: where.shape(self) for kind, where in WHERE.items()}


@dataclass(frozen=True)
class TransformerMemory:
    """The encoded source, projected once for every decoder layer's cross-attention."""

    mask: Tensor  # [B, S] bool, True = real token
    keys: tuple[Tensor, ...]  # L × [B, heads, S, d_k]
    values: tuple[Tensor, ...]  # L × [B, heads, S, d_k]


@dataclass(frozen=True)
class TransformerCache:
    """Every decoder layer's self-attention keys and values of the positions decoded so far."""

    keys: tuple[Tensor, ...]  # L × [B, heads, t, d_k]
    values: tuple[Tensor, ...]  # L × [B, heads, t, d_k]


def sinusoids(n: int, d: int, device, start: int = 0) -> Tensor:
    """``PE(pos, 2i) = sin(pos / 10000^{2i/d})``, ``PE(pos, 2i+1) = cos(…)`` for positions start … start+n−1,
    [n, d] (§3.5)."""
    pos = torch.arange(start, start + n, device=device, dtype=torch.float32)[:, None]  # [n, 1]
    rate = torch.exp(torch.arange(0, d, 2, device=device, dtype=torch.float32) * (-math.log(10000.0) / d))
    pe = torch.zeros(n, d, device=device)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * rate), torch.cos(pos * rate)
    return pe  # [n, d]


class FeedForward(nn.Sequential):
    """``FFN(x) = max(0, x W_1 + b_1) W_2 + b_2`` (§3.3), applied to each position alike."""

    def __init__(self, d_model: int, ffn_dim: int):
        super().__init__(nn.Linear(d_model, ffn_dim), nn.ReLU(), nn.Linear(ffn_dim, d_model))


def attend(attn: MultiHeadAttention, x: Tensor, source: Tensor | tuple[Tensor, Tensor], mask: Tensor | None,
           causal: bool, record: list[Tensor] | None) -> Tensor:
    """``attn`` of queries ``x`` [B, N, d] over ``source`` ([B, S, d] to project, or projected keys and values):
    the fused kernel, or with a ``record`` list the written-out softmax, its weights [B, heads, N, S] appended."""
    keys, values = source if isinstance(source, tuple) else attn.project_kv(source)
    if record is None:
        return attn(x, keys, values, mask=mask, causal=causal)
    out, weights, _ = attn.read(x, keys, values, mask=mask, causal=causal)
    record.append(weights)
    return out


class EncoderLayer(nn.Module):
    def __init__(self, c: TransformerConfig):
        super().__init__()
        self.norm_self, self.norm_ffn = nn.LayerNorm(c.d_model), nn.LayerNorm(c.d_model)
        self.self_attn = MultiHeadAttention(c.d_model, c.heads)
        self.ffn = FeedForward(c.d_model, c.ffn_dim)
        self.drop = nn.Dropout(c.dropout)

    def forward(self, x: Tensor, mask: Tensor, record: list[Tensor] | None = None) -> Tensor:
        """[B, S, d] → [B, S, d]; with a ``record`` list, the self-attention's weights [B, heads, S, S] are written
        out (not the fused kernel) and appended to it."""
        h = self.norm_self(x)  # [B, S, d]
        x = x + self.drop(attend(self.self_attn, h, h, mask, False, record))
        return x + self.drop(self.ffn(self.norm_ffn(x)))  # [B, S, d]


class DecoderLayer(nn.Module):
    def __init__(self, c: TransformerConfig):
        super().__init__()
        self.norm_self, self.norm_cross, self.norm_ffn = (nn.LayerNorm(c.d_model) for _ in range(3))
        self.self_attn = MultiHeadAttention(c.d_model, c.heads)
        self.cross_attn = MultiHeadAttention(c.d_model, c.heads)
        self.ffn = FeedForward(c.d_model, c.ffn_dim)
        self.drop = nn.Dropout(c.dropout)

    def forward(self, y: Tensor, keys: Tensor, values: Tensor, mask: Tensor,
                record: tuple[list[Tensor], list[Tensor]] | None = None, causal: bool = True) -> Tensor:
        """Teacher forcing: all T positions at once, each reading only those before it (every one, with
        ``causal`` False); [B, T, d]. With ``record`` (two lists), the self-attention's weights [B, heads, T, T]
        and the cross-attention's [B, heads, T, S] are appended to them."""
        h = self.norm_self(y)
        y = y + self.drop(attend(self.self_attn, h, h, None, causal, record and record[0]))
        y = y + self.drop(attend(self.cross_attn, self.norm_cross(y), (keys, values), mask, False,
                                 record and record[1]))
        return y + self.drop(self.ffn(self.norm_ffn(y)))  # [B, T, d]

    def step(self, y: Tensor, past_k: Tensor, past_v: Tensor, keys: Tensor, values: Tensor, mask: Tensor,
             override: Tensor | None) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        """One new position ``y`` [B, 1, d] after the cached ``past_k``/``past_v`` [B, heads, t, d_k].

        Returns the position's output [B, 1, d], the cache with it [B, heads, t+1, d_k] twice, and the
        cross-attention's weights and energies [B, heads, S].
        """
        h = self.norm_self(y)
        k, v = self.self_attn.project_kv(h)  # [B, heads, 1, d_k]
        past_k, past_v = torch.cat([past_k, k], dim=2), torch.cat([past_v, v], dim=2)
        y = y + self.drop(self.self_attn(h, past_k, past_v))  # the newest position may read every cached one
        out, weights, energies = self.cross_attn.read(self.norm_cross(y), keys, values, mask=mask, override=override)
        y = y + self.drop(out)
        y = y + self.drop(self.ffn(self.norm_ffn(y)))
        return y, past_k, past_v, weights[:, :, 0], energies[:, :, 0]  # [B, 1, d], …, [B, heads, S] × 2


class TransformerTranslator(Translator):
    """Encoder–decoder Transformer; a step's attention is ``[B, dec_layers, heads, S]``."""

    architecture = "transformer"

    def __init__(self, config: TransformerConfig):
        super().__init__()
        c = self.config = config
        self.src_embed = nn.Embedding(c.src_vocab_size, c.d_model, padding_idx=c.pad_id)
        self.tgt_embed = nn.Embedding(c.tgt_vocab_size, c.d_model, padding_idx=c.pad_id)  # also the output layer
        self.encoder = nn.ModuleList(EncoderLayer(c) for _ in range(c.enc_layers))
        self.decoder = nn.ModuleList(DecoderLayer(c) for _ in range(c.dec_layers))
        self.enc_norm, self.dec_norm = nn.LayerNorm(c.d_model), nn.LayerNorm(c.d_model)
        self.drop = nn.Dropout(c.dropout)
        for name, p in self.named_parameters():
            if p.dim() > 1 and "embed" not in name:
                nn.init.xavier_uniform_(p)
        for embed in (self.src_embed, self.tgt_embed):  # unit-variance inputs after the √d scale; logits O(1)
            nn.init.normal_(embed.weight, std=c.d_model**-0.5)
            nn.init.zeros_(embed.weight[c.pad_id])

    def _embed(self, embed: nn.Embedding, ids: Tensor, start: int = 0) -> Tensor:
        """``E x · √d + PE`` for ids [B, N] at positions start … start+N−1, [B, N, d]."""
        x = embed(ids) * math.sqrt(self.config.d_model)
        return self.drop(x + sinusoids(ids.shape[1], self.config.d_model, ids.device, start))

    def encode(self, src: Tensor, mask: Tensor) -> TransformerMemory:
        """Encode ``src`` [B, S] (``mask`` True on tokens) and project every cross-attention's keys and values."""
        x = self._embed(self.src_embed, src)
        for layer in self.encoder:
            x = layer(x, mask)
        x = self.enc_norm(x)  # [B, S, d]
        keys, values = zip(*(layer.cross_attn.project_kv(x) for layer in self.decoder))
        return TransformerMemory(mask, tuple(keys), tuple(values))

    def start(self, memory: TransformerMemory) -> TransformerCache:
        """An empty cache: no position decoded yet."""
        empty = memory.keys[0][:, :, :0]  # [B, heads, 0, d_k]
        return TransformerCache((empty,) * len(self.decoder), (empty,) * len(self.decoder))

    def decode_step(self, prev: Tensor, cache: TransformerCache, memory: TransformerMemory,
                    focus: Focus | None = None) -> tuple[Step, TransformerCache]:
        """One step from the previous tokens ``prev`` [B]; ``focus`` sets one layer's heads' weights."""
        if focus is not None and not 0 <= focus.layer < len(self.decoder):
            raise ValueError(f"this Transformer has decoder layers 0…{len(self.decoder) - 1}, not {focus.layer}")
        y = self._embed(self.tgt_embed, prev[:, None], start=cache.keys[0].shape[2])  # [B, 1, d]
        keys, values, weights, energies = [], [], [], []
        for n, layer in enumerate(self.decoder):
            override = focus.weights(memory.mask) if focus is not None and focus.layer == n else None
            y, k, v, w, e = layer.step(y, cache.keys[n], cache.values[n], memory.keys[n], memory.values[n],
                                       memory.mask, override)
            keys.append(k), values.append(v), weights.append(w), energies.append(e)
        state = self.dec_norm(y[:, 0])  # [B, d]
        log_probs = F.linear(state, self.tgt_embed.weight).log_softmax(-1)  # [B, V]
        step = Step(log_probs, torch.stack(weights, 1), torch.stack(energies, 1), state)
        return step, TransformerCache(tuple(keys), tuple(values))  # attention [B, L, heads, S]

    def forward(self, src: Tensor, src_mask: Tensor, tgt_in: Tensor, keep: Tensor | None = None,
                watch: int | None = None, full_context: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """Teacher-forced logits [B, T, V] for ``tgt_in`` [B, T], or [N, V] of the ``keep`` [B, T] positions.

        With ``watch``, a decoder layer (0-based), also that layer's cross-attention weights [B, heads, T, S],
        written out with their gradient (guided alignment trains a head on them); the other layers keep the fused
        kernel. With ``full_context`` too, those weights come from a second pass up to that layer with the future
        mask lifted (Garg et al. 2019: the aligning head sees the whole translation; the logits never do). A
        keyword of ``forward`` rather than a method of its own, so DistributedDataParallel sees the call.
        """
        memory = self.encode(src, src_mask)
        y, watched = self._embed(self.tgt_embed, tgt_in), []
        causal_watch = None if full_context else watch
        for n, (layer, keys, values) in enumerate(zip(self.decoder, memory.keys, memory.values)):
            y = layer(y, keys, values, memory.mask, (None, watched) if n == causal_watch else None)
        y = self.dec_norm(y)  # [B, T, d]
        logits = F.linear(y if keep is None else y[keep], self.tgt_embed.weight)  # [B, T, V] or [N, V]
        if watch is not None and full_context:
            y = self._embed(self.tgt_embed, tgt_in)
            for n in range(watch + 1):
                layer = self.decoder[n]
                y = layer(y, memory.keys[n], memory.values[n], memory.mask, (None, watched) if n == watch else None,
                          causal=False)
        return logits if watch is None else (logits, watched[0])

    reads_full_context = True

    def full_context_attention(self, src: Tensor, mask: Tensor, tgt_in: Tensor) -> Tensor:
        return self.attention_kinds(src, mask, tgt_in, causal=False).cross  # [B, L, heads, T, S]

    def attention_kinds(self, src: Tensor, mask: Tensor, tgt_in: Tensor, causal: bool = True) -> Attentions:
        """Every attention of one teacher-forced pass over ``tgt_in`` [B, T], weights written out; with ``causal``
        False, the decoder's future mask lifted."""
        x, encoder = self._embed(self.src_embed, src), []
        for layer in self.encoder:
            x = layer(x, mask, encoder)
        x = self.enc_norm(x)  # [B, S, d]
        y, decoder, cross, values = self._embed(self.tgt_embed, tgt_in), [], [], []
        for layer in self.decoder:
            k, v = layer.cross_attn.project_kv(x)  # [B, heads, S, d_k] each
            y = layer(y, k, v, mask, (decoder, cross), causal)
            values.append(v)
        return Attentions(*(torch.stack(found, 1) for found in (encoder, decoder, cross, values)))

    def own_step_log_probs(self, src: Tensor, mask: Tensor, tgt_in: Tensor, tgt_out: Tensor,
                           steps: Tensor) -> Tensor:
        """``log p(y_t | y_<t, x)`` [B] of row b's own step ``t = steps[b]`` (one teacher-forced pass)."""
        last = int(steps.max()) + 1
        rows = torch.arange(len(steps), device=steps.device)
        keep = torch.zeros(len(steps), last, dtype=torch.bool, device=steps.device)
        keep[rows, steps] = True  # one position a row: the output layer runs on it alone, in row order
        logits = self(src, mask, tgt_in[:, :last], keep)  # [B, V]
        return logits.log_softmax(-1).gather(1, tgt_out[rows, steps][:, None]).squeeze(1)  # [B]

    @property
    def switchable_heads(self) -> dict[Kind, tuple[int, int]]:
        return self.attention_shapes

    def attention_modules(self) -> dict[Kind, list[MultiHeadAttention]]:
        """Each kind's multi-head attention, layer by layer."""
        return {kind: where.modules(self) for kind, where in WHERE.items()}

    def sublayer_sites(self) -> dict[Kind, list[Site]]:
        """Pre-norm: each sub-layer adds to the stream its own norm reads; the next norm reads the sum."""
        return {kind: where.sites(self, "W_v", "W_o", "W_q") for kind, where in WHERE.items()}

    def _switch_off_in(self, kind: Kind, layer: int, heads: frozenset[int]) -> None:
        self.attention_modules()[kind][layer].removed = heads

    @property
    def state_size(self) -> int:
        return self.config.d_model
