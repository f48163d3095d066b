"""A sentence's attention handed to bertviz (Vig 2019), the way its users know: the HTML its ``model_view`` or
``head_view`` writes for an encoder–decoder model.

bertviz takes, per kind, a tuple with one tensor ``[batch=1, heads, rows, columns]`` a layer (what Hugging Face
models return with ``output_attentions=True``), and the tokens of each side: ``encoder_tokens`` (the source pieces)
and ``decoder_tokens`` (the decoder's inputs, ``<s>`` first, as Hugging Face's ``decoder_input_ids``: position t
reads with input t and writes piece t). bertviz is an optional extra (:mod:`models.extras`): the app and the
commands run without it. The HTML it writes loads require.js and d3 from their CDNs when it is opened.
"""
from __future__ import annotations

import torch

from ..extras import require
from ..nouns.attention_map import AttentionMap, Kind

VIEWS = ("model", "head")


def bertviz_arguments(kinds: dict[Kind, AttentionMap]) -> dict:
    """The keyword arguments of bertviz's ``model_view`` / ``head_view`` for an encoder–decoder."""
    def layers(kind: Kind) -> tuple[torch.Tensor, ...]:
        return tuple(torch.from_numpy(layer[None].copy()) for layer in kinds[kind].weights)  # L × [1, heads, R, C]

    return {"encoder_attention": layers(Kind.ENCODER), "decoder_attention": layers(Kind.DECODER),
            "cross_attention": layers(Kind.CROSS), "encoder_tokens": list(kinds[Kind.ENCODER].columns),
            "decoder_tokens": list(kinds[Kind.DECODER].columns)}


def bertviz_html(kinds: dict[Kind, AttentionMap], view: str = "model") -> str:
    """The page bertviz writes for these attentions: its ``model_view`` (every layer × head) or ``head_view``.

    Raises :class:`~models.extras.MissingExtra`, with how to install it, when bertviz is missing."""
    if view not in VIEWS:
        raise ValueError(f"unknown bertviz view {view!r}; expected one of {VIEWS}")
    bertviz = require("bertviz")
    draw = bertviz.model_view if view == "model" else bertviz.head_view
    return draw(**bertviz_arguments(kinds), html_action="return").data
