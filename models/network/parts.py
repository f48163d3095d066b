"""What each attention sub-layer adds to the residual stream — the parts of a model that readings beyond its
weights α need (attention norms, ALTI, value zeroing), handed over by :meth:`.translator.Translator.attention_parts`.

An attention sub-layer of one layer writes, for each query position n (a source piece of the encoder, a decoder
step of the decoder), from the positions m it reads:

    a_n = Σ_m Σ_h α^h_nm (v^h_m W^O_h) + b^O                 v^h_m = x_m W^V_h + b^V_h, one head's value
    y_n = r_n + a_n              pre-norm (this project's Transformer, M2M100, NLLB, mBART): x_m was normalised first
    y_n = LN(r_n + a_n)          post-norm (Marian): the norm comes after the residual sum

so ``y_n`` is a sum of one vector per position read, the residual ``r_n`` and a bias — the decomposition of
Kobayashi et al. (2020) and Ferrando et al. (2022), whose terms the readings measure. Nothing here edits a
model's code: forward hooks on its value projection, its output projection and the modules around the sub-layer
record what passes (:func:`recording`), while the model runs its own teacher-forced pass. A :class:`Site` says
where those modules are in one architecture; every architecture declares, once a kind of attention, where that
attention sits (:class:`Where`), and its shapes, modules and sites follow.

Shapes: B batch, heads, N query positions, M positions read, d the model's width, d_k = d / heads.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass
from operator import attrgetter

import torch
from torch import Tensor, nn

from ..nouns.attention_map import Kind


@dataclass(frozen=True)
class Sublayer:
    """One attention sub-layer of one layer, in the parts whose sum is its output."""

    weights: Tensor  # [B, heads, N, M]  α
    values: Tensor  # [B, heads, M, d_k]  v^h_m = x_m W^V_h + b^V_h
    out_weight: Tensor  # [heads, d_k, d]  W^O_h, each head's rows of the output projection
    out_bias: Tensor  # [d]  b^O
    residual: Tensor | None  # [B, N, d]  r_n, what the sub-layer adds to; None: no residual stream (the RNN)
    output: Tensor | None  # [B, N, d]  y_n, the stream after the sub-layer (post-norm: after its norm)
    norm: nn.LayerNorm | None = None  # post-norm only: the norm applied to r_n + a_n

    def terms(self) -> Tensor:
        """Σ_h α^h_nm v^h_m W^O_h: what each position read adds to each query's output, [B, N, M, d]."""
        moved = torch.einsum("bhmk,hkd->bhmd", self.values, self.out_weight)  # [B, heads, M, d]
        return torch.einsum("bhnm,bhmd->bnmd", self.weights, moved)


@dataclass(frozen=True)
class AttentionParts:
    """Every attention sub-layer of one teacher-forced pass, layer by layer, and each whole decoder layer's output
    (the representation value zeroing compares)."""

    encoder: tuple[Sublayer, ...]  # L_enc  the source reading itself: N = M = S
    decoder: tuple[Sublayer, ...]  # L_dec  masked self-attention: N = M = T
    cross: tuple[Sublayer, ...]  # L_dec  the decoder reading the source: N = T, M = S
    decoder_layers: tuple[Tensor, ...] = ()  # L_dec × [B, T, d]  each decoder layer's output


@dataclass(frozen=True)
class Site:
    """Where one attention sub-layer's parts are in a model: the modules whose inputs or outputs are them."""

    values: nn.Linear  # W^V: its output is the value vectors, heads side by side
    out: nn.Linear  # W^O
    residual_at: nn.Module  # its first input is r, the stream the sub-layer adds to
    output_at: nn.Module  # its first input is y, the stream after the sub-layer
    layer: nn.Module  # the whole layer the sub-layer belongs to: its output is the layer's
    norm: nn.LayerNorm | None = None  # post-norm: the norm after the residual sum


@dataclass(frozen=True)
class Where:
    """Where one kind of attention sits in a family, declared once (as transformers' ``_can_record_outputs``): the
    stack of layers that holds it, the module in each layer, the norm before it and what reads the stream after it,
    and the config's fields that count them. Paths are dotted attributes (``layer.1.EncDecAttention``: a module
    list's items by index)."""

    layers: str  # the model's stack: "decoder", "model.decoder.layers", "decoder.block"
    attention: str  # in each layer: "cross_attn", "encoder_attn", "layer.1.EncDecAttention"
    norm: str  # in each layer: the sub-layer's own norm
    after: str  # in each layer: what reads the stream after the sub-layer (pre-norm: the next norm)
    count: str  # the config's number of those layers
    heads: str  # the config's heads per layer
    after_post: str = ""  # post-norm (Marian): what reads the normalised stream after it

    def shape(self, config) -> tuple[int, int]:
        """``(L, heads)`` from ``config``."""
        return getattr(config, self.count), getattr(config, self.heads)

    def modules(self, model: nn.Module) -> list[nn.Module]:
        """The attention module of each layer."""
        return [attrgetter(self.attention)(layer) for layer in attrgetter(self.layers)(model)]

    def sites(self, model: nn.Module, value: str, out: str, query: str, post: bool = False) -> list[Site]:
        """Each layer's :class:`Site`, its projections named ``value``, ``out``, ``query``. Pre-norm: the residual
        is the sub-layer's norm's input and the sum the next module's. Post-norm: the residual is the query
        projection's input, the norm's output what reads after."""
        found = []
        for layer in attrgetter(self.layers)(model):
            attn, norm = attrgetter(self.attention)(layer), attrgetter(self.norm)(layer)
            residual, after = (getattr(attn, query), self.after_post) if post else (norm, self.after)
            found.append(Site(getattr(attn, value), getattr(attn, out), residual, attrgetter(after)(layer), layer,
                              norm if post else None))
        return found


@dataclass(frozen=True)
class Zeroed:
    """Value vectors to zero in one pass (value zeroing, Mohebbi et al. 2023): row b's value of position
    ``positions[b]`` in the cross-attention of decoder layer ``layers[b]``."""

    layers: Tensor  # [B] long
    positions: Tensor  # [B] long


def _first(args: tuple) -> Tensor:
    return args[0]


def _whole(args: tuple, out) -> Tensor:
    return out[0] if isinstance(out, tuple) else out  # a library's layer may return (hidden, …)


def _this_thread_only(hook):
    """``hook``, acting only on passes of the thread that made it. A server's model is shared: a visitor's
    translation running beside the recording must neither land in it nor have its own values zeroed (seen: a
    decoding step's [1, d] residual recorded in place of the pass's [T, d])."""
    me = threading.get_ident()
    return lambda module, args, *out: hook(module, args, *out) if threading.get_ident() == me else None


def _zeroing(zeroed: Zeroed, layer: int):
    """A forward hook on a value projection that zeroes the value vectors ``zeroed`` names in ``layer``."""
    @_this_thread_only
    def hook(module, args, out):
        rows = (zeroed.layers == layer).nonzero().squeeze(1)
        if not len(rows):
            return None
        out = out.clone()
        out[rows, zeroed.positions[rows]] = 0
        return out
    return hook


@contextmanager
def recording(sites: dict[Kind, list[Site]], zeroed: Zeroed | None = None):
    """Hooks on every site while the body runs one teacher-forced pass; yields a dict that then holds, per
    ``(kind, layer)``, the ``values``, ``residual`` and ``output`` tensors, and per ``("layer", module id)`` each
    decoder layer's output. With ``zeroed``, the cross-attention's values it names are zeroed as they are made. The
    hooks see only this thread's passes, and are removed on leaving, whatever happens."""
    found, handles = {}, []

    def keep(key, take):
        return _this_thread_only(lambda module, args, *out: found.__setitem__(key, take(args, *out)))

    try:
        for kind, layers in sites.items():
            for n, site in enumerate(layers):
                if kind == Kind.CROSS:  # a decoder layer's output is what value zeroing compares
                    if zeroed is not None:
                        handles.append(site.values.register_forward_hook(_zeroing(zeroed, n)))
                    handles.append(site.layer.register_forward_hook(keep(("layer", id(site.layer)), _whole)))
                handles += [site.values.register_forward_hook(keep((kind, n, "values"), lambda a, out: out)),
                            site.residual_at.register_forward_pre_hook(keep((kind, n, "residual"), _first)),
                            site.output_at.register_forward_pre_hook(keep((kind, n, "output"), _first))]
        yield found
    finally:
        for handle in handles:
            handle.remove()


def _split(x: Tensor, heads: int) -> Tensor:
    B, M, _ = x.shape
    return x.view(B, M, heads, -1).transpose(1, 2)  # [B, heads, M, d_k]


def assemble(sites: dict[Kind, list[Site]], found: dict, weights: dict[str, Tensor]) -> AttentionParts:
    """The :class:`AttentionParts` of what :func:`recording` found, with each kind's weights [B, L, heads, N, M]
    (the pass's own, as :class:`.translator.Attentions` holds them)."""
    def sublayer(kind: Kind, n: int, site: Site) -> Sublayer:
        heads = weights[kind].shape[2]
        out = site.out.weight.T.reshape(heads, -1, site.out.weight.shape[0])  # [heads, d_k, d]
        bias = site.out.bias if site.out.bias is not None else out.new_zeros(out.shape[-1])  # [d]
        return Sublayer(weights[kind][:, n], _split(found[kind, n, "values"], heads), out, bias,
                        found[kind, n, "residual"], found[kind, n, "output"], site.norm)

    parts = {kind: tuple(sublayer(kind, n, s) for n, s in enumerate(layers)) for kind, layers in sites.items()}
    return AttentionParts(parts[Kind.ENCODER], parts[Kind.DECODER], parts[Kind.CROSS],
                          tuple(found["layer", id(s.layer)] for s in sites[Kind.CROSS]))
