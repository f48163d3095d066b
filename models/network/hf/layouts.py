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

from ..contract import Kind
from ..parts import Site


@dataclass(frozen=True)
class Projections:
    """The names of an attention module's value, output and query projections, and of its head width."""

    value: str
    out: str
    query: str
    head_dim: str


class BartLayout:
    """Marian, M2M100 (NLLB-200) and mBART: BART's names."""

    model_types = ("marian", "m2m_100", "mbart")
    projections = Projections("v_proj", "out_proj", "q_proj", "head_dim")
    post_norm = ("marian",)  # the families whose layer norm comes after each residual sum, as the original's

    def decoder(self, hf: nn.Module) -> nn.Module:
        return hf.model.decoder

    def attentions(self, hf: nn.Module) -> dict[Kind, list[nn.Module]]:
        """Each attention kind's modules, layer by layer."""
        return {Kind.CROSS: [layer.encoder_attn for layer in hf.model.decoder.layers],
                Kind.ENCODER: [layer.self_attn for layer in hf.model.encoder.layers],
                Kind.DECODER: [layer.self_attn for layer in hf.model.decoder.layers]}

    def sites(self, hf: nn.Module) -> dict[Kind, list[Site]]:
        """Post-norm (Marian): the residual is the query projection's input, the norm's output the next module's
        input. Pre-norm: the residual is the sub-layer's norm's input, the sum the next norm's input."""
        post = hf.config.model_type in self.post_norm

        def site(attn, norm, after: nn.Module, layer: nn.Module) -> Site:
            return Site(attn.v_proj, attn.out_proj, attn.q_proj if post else norm, after, layer, norm if post else None)

        encoder, decoder = hf.model.encoder.layers, hf.model.decoder.layers
        return {Kind.ENCODER: [site(n.self_attn, n.self_attn_layer_norm, n.fc1 if post else n.final_layer_norm, n)
                            for n in encoder],
                Kind.DECODER: [site(n.self_attn, n.self_attn_layer_norm,
                                 n.encoder_attn.q_proj if post else n.encoder_attn_layer_norm, n) for n in decoder],
                Kind.CROSS: [site(n.encoder_attn, n.encoder_attn_layer_norm, n.fc1 if post else n.final_layer_norm, n)
                          for n in decoder]}

    def shapes(self, config) -> dict[Kind, tuple[int, int]]:
        return {Kind.CROSS: (config.decoder_layers, config.decoder_attention_heads),
                Kind.ENCODER: (config.encoder_layers, config.encoder_attention_heads),
                Kind.DECODER: (config.decoder_layers, config.decoder_attention_heads)}

    def positions(self, config) -> int | None:
        return config.max_position_embeddings

    def logits(self, hf: nn.Module, state: Tensor) -> Tensor:
        """[B, V] from the decoder's output ``state`` [B, d], as the library's forward computes them."""
        bias = getattr(hf, "final_logits_bias", None)  # Marian and mBART have one; M2M100 has none
        logits = hf.lm_head(state)
        return logits if bias is None else logits + bias[0]


class T5Layout:
    """T5, Flan-T5 and MADLAD-400: T5's names."""

    model_types = ("t5",)
    projections = Projections("v", "o", "q", "key_value_proj_dim")

    def decoder(self, hf: nn.Module) -> nn.Module:
        return hf.decoder

    def attentions(self, hf: nn.Module) -> dict[Kind, list[nn.Module]]:
        return {Kind.CROSS: [block.layer[1].EncDecAttention for block in hf.decoder.block],
                Kind.ENCODER: [block.layer[0].SelfAttention for block in hf.encoder.block],
                Kind.DECODER: [block.layer[0].SelfAttention for block in hf.decoder.block]}

    def sites(self, hf: nn.Module) -> dict[Kind, list[Site]]:
        """Pre-norm: each sub-layer adds to the stream its own norm reads; the next sub-layer's norm reads the sum."""
        def site(block: nn.Module, n: int, attn: nn.Module) -> Site:
            return Site(attn.v, attn.o, block.layer[n].layer_norm, block.layer[n + 1].layer_norm, block)

        return {Kind.ENCODER: [site(b, 0, b.layer[0].SelfAttention) for b in hf.encoder.block],
                Kind.DECODER: [site(b, 0, b.layer[0].SelfAttention) for b in hf.decoder.block],
                Kind.CROSS: [site(b, 1, b.layer[1].EncDecAttention) for b in hf.decoder.block]}

    def shapes(self, config) -> dict[Kind, tuple[int, int]]:
        return {Kind.CROSS: (config.num_decoder_layers, config.num_heads),
                Kind.ENCODER: (config.num_layers, config.num_heads),
                Kind.DECODER: (config.num_decoder_layers, config.num_heads)}

    def positions(self, config) -> int | None:
        return None  # relative position biases: any length

    def logits(self, hf: nn.Module, state: Tensor) -> Tensor:
        scale = hf.model_dim**-0.5 if hf.config.scale_decoder_outputs else 1.0  # the tied output layer's rescaling
        return hf.lm_head(state * scale)


#: Each family's layout, by ``model_type``.
LAYOUTS = {kind: layout for layout in (BartLayout(), T5Layout()) for kind in layout.model_types}
