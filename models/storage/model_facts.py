"""What the Models page says of the model in use: where it came from, what it is, its languages, its size, its
licence, and the head trained to align where its card says one was. Read from the loaded model, its folder and its
card; what none of them says is left unsaid."""
from __future__ import annotations

from dataclasses import dataclass

from ..nouns.attention_map import Kind, Reading
from .cards.render import load_records, model_description
from .languages import Languages
from .loaded import LoadedModel


@dataclass(frozen=True)
class ModelFacts:
    origin: str  # "bundled with the app", "the Hugging Face Hub: owner/name, commit 1a2b3c4", "the folder …"
    bundled: bool
    description: str  # what the model is, in a sentence
    parameters: int
    languages: Languages
    licence: str | None  # as its card's metadata names it; None where it names none
    supervised: Reading | None  # the head trained to align (guided alignment), where its card says so


def _description(loaded: LoadedModel) -> str:
    """The card's sentence for a model this project trained (it has a training record); else what the model's
    attention shapes and width say."""
    if loaded.origin.trained:
        return model_description(load_records(loaded.path)[0])
    shapes, vocabulary = loaded.model.attention_shapes, loaded.tokenizers.target.vocab_size
    (layers, heads) = shapes[Kind.CROSS]
    size = f"width {loaded.model.state_size}, a vocabulary of {vocabulary:,} pieces"
    if loaded.model.continues_prompt:  # one stack: it reads the prompt and what it wrote with the same heads
        return (f"A {loaded.variant} decoder-only model: {layers} layers of {heads} heads reading the prompt and the "
                f"translation so far together, {size}.")
    if Kind.ENCODER in shapes:
        return (f"A {loaded.variant.capitalize()} encoder–decoder: {shapes['encoder'][0]} encoder and {layers} "
                f"decoder layers of {heads} heads, {size}.")
    return f"A {loaded.variant} encoder–decoder with {layers} layer(s) of {heads} cross-attention head(s), {size}."


def model_facts(loaded: LoadedModel) -> ModelFacts:
    """The facts of ``loaded``."""
    return ModelFacts(loaded.origin.said(loaded.path), loaded.origin.bundled, _description(loaded),
                      sum(p.numel() for p in loaded.model.parameters()), loaded.languages,
                      loaded.card.licence, loaded.supervised)
