"""Where each ``transformers`` encoder–decoder family keeps what :class:`.translator.HFTranslator` reads: its
decoder stack, each layer's three attentions, the projections inside them, the modules around each attention
sub-layer (:class:`.parts.Site`), how the decoder's output becomes logits, and its sizes.

- **BART's layout** (Marian, so every opus-mt-*; M2M100 and NLLB-200; mBART-50): ``model.decoder.layers``, each
  with ``self_attn`` and ``encoder_attn`` (``q_proj`` … ``out_proj``), learned or sinusoidal positions with an end,
  a ``final_logits_bias`` in Marian and mBART. Marian normalises after each residual sum, the others before.
- **T5's layout** (T5, Flan-T5, MADLAD-400): ``decoder.block``, each a list of sub-layers (``layer[0].SelfAttention``,
  ``layer[1].EncDecAttention``, the feed-forward last; ``q`` … ``o``, no biases), pre-norm with an RMS norm,
  relative position biases (no end to its positions) and unscaled dot products — all inside the library's modules,
  so nothing here changes them; the decoder's output is scaled by d_model^-½ before the tied output layer.
"""
from __future__ import annotations

from dataclasses import dataclass

from torch import Tensor, nn

from ...nouns.attention_map import Kind
from ..parts import Site, Where


@dataclass(frozen=True)
class Projections:
    """The names of an attention module's value, output and query projections, and of its head width."""

    value: str
    out: str
    query: str
    head_dim: str


class Layout:
    """A family's names: where each attention sits (:class:`~..parts.Where`, declared once), from which its
    attention modules, sites and shapes follow; its decoder, positions and logits its own."""

    model_types: tuple[str, ...]
    projections: Projections
    where: dict[Kind, Where]
    post_norm: tuple[str, ...] = ()  # the families whose layer norm comes after each residual sum

    def attentions(self, hf: nn.Module) -> dict[Kind, list[nn.Module]]:
        """Each attention kind's modules, layer by layer."""
        return {kind: where.modules(hf) for kind, where in self.where.items()}

    def sites(self, hf: nn.Module) -> dict[Kind, list[Site]]:
        """Each attention sub-layer's :class:`~..parts.Site`, pre- or post-norm as the model's type is."""
        names, post = self.projections, hf.config.model_type in self.post_norm
        return {kind: where.sites(hf, names.value, names.out, names.query, post) for kind, where in self.where.items()}

    def shapes(self, config) -> dict[Kind, tuple[int, int]]:
        return {kind: where.shape(config) for kind, where in self.where.items()}


class BartLayout(Layout):
    """Marian, M2M100 (NLLB-200) and mBART: BART's names."""

    model_types = ("marian", "m2m_100", "mbart")
    projections = Projections("v_proj", "out_proj", "q_proj", "head_dim")
    post_norm = ("marian",)  # its layer norm comes after each residual sum, as the original's
    where = {Kind.CROSS: Where("model.decoder.layers", "encoder_attn", "encoder_attn_layer_norm", "final_layer_norm",
                               "decoder_layers", "decoder_attention_heads", after_post="fc1"),
             Kind.ENCODER: Where("model.encoder.layers", "self_attn", "self_attn_layer_norm", "final_layer_norm",
                                 "encoder_layers", "encoder_attention_heads", after_post="fc1"),
             Kind.DECODER: Where("model.decoder.layers", "self_attn", "self_attn_layer_norm", "encoder_attn_layer_norm",
                                 "decoder_layers", "decoder_attention_heads", after_post="encoder_attn.q_proj")}

    def decoder(self, hf: nn.Module) -> nn.Module:
        return hf.model.decoder

    def positions(self, config) -> int | None:
        return config.max_position_embeddings

    def logits(self, hf: nn.Module, state: Tensor) -> Tensor:
        """[B, V] from the decoder's output ``state`` [B, d], as the library's forward computes them."""
        bias = getattr(hf, "final_logits_bias", None)  # Marian and mBART have one; M2M100 has none
        logits = hf.lm_head(state)
        return logits if bias is None else logits + bias[0]


class T5Layout(Layout):
    """T5, Flan-T5 and MADLAD-400: T5's names (a block's sub-layers in order: self-attention, the decoder's
    cross-attention, the feed-forward; each with its own pre-norm)."""

    model_types = ("t5",)
    projections = Projections("v", "o", "q", "key_value_proj_dim")
    where = {Kind.CROSS: Where("decoder.block", "layer.1.EncDecAttention", "layer.1.layer_norm", "layer.2.layer_norm",
                               "num_decoder_layers", "num_heads"),
             Kind.ENCODER: Where("encoder.block", "layer.0.SelfAttention", "layer.0.layer_norm", "layer.1.layer_norm",
                                 "num_layers", "num_heads"),
             Kind.DECODER: Where("decoder.block", "layer.0.SelfAttention", "layer.0.layer_norm", "layer.1.layer_norm",
                                 "num_decoder_layers", "num_heads")}

    def decoder(self, hf: nn.Module) -> nn.Module:
        return hf.decoder

    def positions(self, config) -> int | None:
        return None  # relative position biases: any length

    def logits(self, hf: nn.Module, state: Tensor) -> Tensor:
        scale = hf.model_dim**-0.5 if hf.config.scale_decoder_outputs else 1.0  # the tied output layer's rescaling
        return hf.lm_head(state * scale)

#: Each family's layout, by ``model_type``.
LAYOUTS = {kind: layout for layout in (BartLayout(), T5Layout()) for kind in layout.model_types}
