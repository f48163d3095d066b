"""What a model is, declared once a family: the name people know it by, a page's few words, its card's sentence
and Hub tags. The project's own families are here — each attention score of the RNN (:data:`.attention.SCORES`),
the Transformer, the decoder-only model; a Hub model's family is its ``model_type``, named from it. A model says
which it is as it loads (:attr:`models.storage.loaded.LoadedModel.variant`: its training record's, :func:`variant_of`
this project's architecture, else a Hub model's type); pages, cards and tables ask :func:`family` what that means.
"""
from __future__ import annotations

from dataclasses import dataclass

from .attention import SCORES


@dataclass(frozen=True)
class Family:
    """One family of translators, as people are told about it."""

    variant: str  # its key in cards, records and commands: "additive", "transformer", a Hub model's "marian"
    label: str  # how people know it, short: "Additive (Bahdanau)", "Transformer (multi-head)"
    about: str  # a page's first line: "a small Transformer (Vaswani et al. 2017)"
    description: str  # its card's sentence on what it is
    tags: tuple[str, ...]  # its card's Hub tags beside "translation" and "attention"
    generation: str  # which generation of translator it is, as the answer groups them: "RNN", "Transformer" …
    several_heads: bool = False  # multi-head: its card ranks which heads matter (``models.heads``)


def _rnn(score: str) -> Family:
    about = ("the paper's RNN encoder–decoder without attention" if score == "none" else
             "an RNN with attention (Bahdanau, Cho & Bengio 2015)")
    return Family(score, SCORES[score].label, about,
                  "A small RNN encoder–decoder (bidirectional GRU encoder, GRU decoder) after\nBahdanau, Cho & Bengio "
                  f"(2015), with {SCORES[score].description}.", ("seq2seq", "gru", score), "RNN")


#: The project's own families, by variant.
FAMILIES = {**{score: _rnn(score) for score in SCORES},
            "transformer": Family(
                "transformer", "Transformer (multi-head)", "a small Transformer (Vaswani et al. 2017)",
                "A small Transformer encoder–decoder after Vaswani et al. (2017): pre-norm layers, sinusoidal "
                "positions, multi-head scaled dot-product attention, the target embedding tied to the output layer.",
                ("seq2seq", "transformer"), "Transformer", several_heads=True),
            "decoder-only": Family(
                "decoder-only", "Decoder-only (GPT-style)",
                "a small decoder-only Transformer asked through a chat prompt, GPT-style (Radford et al. 2018)",
                "A small decoder-only (GPT-style) Transformer, transformers' own `LlamaForCausalLM` (pre-norm RMSNorm "
                "layers, rotary positions, grouped-query attention, SwiGLU feed-forward, the embedding tied to the "
                "output layer): the sentence sits in a chat prompt and the translation is its answer, so it loads as "
                "any Hub chat model does.", ("decoder-only", "llama", "chat"), "decoder-only", several_heads=True)}


def variant_of(architecture: str, score: str | None = None) -> str:
    """The family of a model of this project's ``architecture``: an RNN is known by its attention ``score``, any other
    model by its architecture (``transformer``, ``decoder-only``)."""
    return score if architecture == "rnn" else architecture


def family(variant: str) -> Family:
    """``variant``'s family: the project's own, else a Hugging Face model's, named by its type."""
    if variant in FAMILIES:
        return FAMILIES[variant]
    label = f"{variant.capitalize()} (Hugging Face)"
    return Family(variant, label, label, f"A Hugging Face `{variant}` translator.", ("seq2seq", variant),
                  "a Hugging Face model")
