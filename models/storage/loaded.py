"""A model as the project holds it once loaded: the translator, its tokenizers and what was read beside them (its
folder, languages, card), and what sets a model of several pairs to another pair or a chat model to another
instruction."""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import torch

from ..network.family import Family, family
from ..network.tokenization import TokenizerPair
from ..network.translator import Fitted, Translator
from ..nouns.attention_map import Reading
from .cards.metadata import CardFacts
from .languages import Asking, Languages, may_translate, pair_name
from .loading.hf import ManyToMany, T5Tasks
from .loading.prompted import Prompted


class CheckpointError(RuntimeError):
    """A model reference that cannot be loaded; the message says why, for users."""


#: Where a model is read from: a checkpoint bundled with the app, a folder on this machine, a Hub repo.
BUNDLED, FOLDER, HUB = "bundled", "folder", "hub"


@dataclass(frozen=True)
class Origin:
    """Where a loaded model came from and whether this project trained it: decided once, as it loads."""

    where: str  # BUNDLED, FOLDER or HUB
    ref: str  # what it was asked for as
    trained: bool  # this project trained it: it has a training record (and a card to refresh when measured)

    @property
    def bundled(self) -> bool:
        return self.where == BUNDLED

    def said(self, path: Path) -> str:
        """"bundled with the app", "the Hugging Face Hub: owner/name, commit 1a2b3c4" or "the folder …" (``path``: the
        folder read; a Hub snapshot's is named by its commit)."""
        if self.where == HUB:
            return f"the Hugging Face Hub: {self.ref}, commit {path.name[:7]}"
        return "bundled with the app" if self.bundled else f"the folder {path}"


@dataclass(frozen=True, eq=False)
class LoadedModel:
    model: Translator
    tokenizers: TokenizerPair
    path: Path  # the local directory the files were read from
    device: torch.device
    reading: Reading | None  # the reading of its attention shown first (None without attention)
    origin: Origin
    variant: str  # its family (:func:`~models.network.family.family`), decided as it loads: its training record's, this
    # project's architecture's (an RNN's score), else a Hub model's type
    languages: Languages = (None, None)  # (source, target) codes, None where the model does not say
    card: CardFacts = CardFacts(None, None)  # what its model card says (licence, guided alignment)
    pairs: ManyToMany | T5Tasks | Prompted | None = None  # what sets a many-to-many, T5 or chat model to another
    # pair; None: a model of one pair
    fitted: Fitted = Fitted()  # what was fit to people's links beside its weights: a probe, the floor, a partner

    @property
    def codes(self) -> tuple[str, ...]:
        """The languages a model of several pairs (many-to-many, T5 of several tasks, chat) can be set to, by its own
        codes; () for a model of one pair."""
        return self.pairs.codes if self.pairs else ()

    def speaking(self, source: str | None, target: str | None) -> LoadedModel:
        """This model translating ``source`` → ``target`` (its own codes; None: the side as it is): a many-to-many
        model set to that pair (sharing its weights), a model of one pair itself when the pair is its own;
        ValueError (for users) otherwise."""
        source, target = source or self.languages[0], target or self.languages[1]
        if self.pairs is None:
            if may_translate(self.languages, (source, target)):
                return self
            raise ValueError(f"{self.path.name} translates {pair_name(self.languages)} only; languages are picked "
                             "for a many-to-many model (M2M100, NLLB-200, mBART-50), a T5 of several tasks or a chat "
                             "model.")
        model, tokenizers = self.pairs.pair(self.model, source, target)
        return replace(self, model=model, tokenizers=tokenizers, languages=(source, target))

    def asked(self, asking: Asking) -> LoadedModel:
        """This model asked with ``asking``'s instruction (a chat model's), in its pair: the two below in one."""
        return self.instructed(asking.instruction).speaking(*asking.languages)

    @property
    def instruction(self) -> str | None:
        """What a chat model is asked with ({source}, {target}, {sentence}); None for any other model."""
        return self.pairs.instruction if isinstance(self.pairs, Prompted) else None

    def instructed(self, instruction: str | None) -> LoadedModel:
        """This decoder-only model asked with ``instruction`` (with ``{sentence}``, and ``{source}``, ``{target}``
        for the languages' names) for its pair; itself for None; ValueError (for users) for any other model."""
        if instruction is None:
            return self
        if not isinstance(self.pairs, Prompted):
            raise ValueError(f"{self.path.name} is not asked with an instruction: only a chat model (Llama, Qwen2, "
                             "Gemma2) reads one.")
        prompted = self.pairs.asking(instruction)
        return replace(self, pairs=prompted, tokenizers=prompted.pair(self.model, *self.languages)[1])

    @property
    def family(self) -> Family:
        """What the model is, as people are told (:func:`models.network.family.family` of its variant)."""
        return family(self.variant)

    @property
    def supervised(self) -> Reading | None:
        """The head trained to align (its card says guided alignment), or None."""
        return self.card.supervised_head(self.model.attention_shape)
