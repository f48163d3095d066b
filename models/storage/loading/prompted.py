"""Reading a decoder-only translator's folder (Llama, Qwen2, Gemma2 with a chat template): its model, the prompt it
is asked with, and what sets it to any pair of languages (:class:`Prompted`, as :class:`.hf_checkpoint.ManyToMany`
sets a many-to-many model). Its tokenizer must be a fast one (``tokenizer.json``: the offsets that find the
sentence in the prompt) with a chat template; a model without one is refused, since nothing says how to ask it."""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import torch

from ...network.contract import Specials
from ...network.hf.decoder_only import DecoderOnlyTranslator
from ...network.hf.language_tags import unknown_code
from ...network.hf.prompt import (
    CARD_INSTRUCTIONS,
    INSTRUCTION,
    LANGUAGES,
    Prompt,
    PromptTokenizer,
    ReplyTokenizer,
    controls,
)
from ...network.tokenization import TokenizerPair
from ..languages import EN_FR, MAX_INSTRUCTION_CHARS, language_name
from .limits import read_in


def cannot_read(path: Path, error: Exception) -> ValueError:
    """What a library's failure to read the folder at ``path`` says to users, whatever its type: one line, naming
    the folder and never where it lies on this machine (a public server's paths are its own)."""
    said = (str(error).strip().splitlines() or [""])[0].replace(str(path.resolve()), path.name)
    said = said.replace(str(path), path.name)
    return ValueError(f"{path.name} cannot be read ({said[:300] or type(error).__name__}).")


def instruction_for(name: str) -> str:
    """The instruction a model is asked with: its card's own (EuroLLM's, Tower's), else :data:`INSTRUCTION`."""
    lowered = name.lower()
    return next((found for family, found in CARD_INSTRUCTIONS.items() if family in lowered), INSTRUCTION)


@dataclass(frozen=True, eq=False)
class Prompted:
    """What a decoder-only model keeps to be asked for any pair: its tokenizer, instruction, the start token (the
    prompt's last) and end of turn, and the prompt tokens its positions allow."""

    tokenizer: object
    instruction: str  # with {source}, {target} and {sentence}
    name: str  # the model's, for messages
    start: int
    eos: int
    room: int

    @property
    def codes(self) -> tuple[str, ...]:
        return LANGUAGES

    def default_pair(self) -> tuple[str, str]:
        return EN_FR

    def asking(self, instruction: str) -> Prompted:
        """The same model asked with ``instruction``; ValueError (for users) where it lacks the sentence's field,
        is longer than :data:`MAX_INSTRUCTION_CHARS` or holds a control token (it would end the turn)."""
        if "{sentence}" not in instruction:
            raise ValueError("An instruction must say where the sentence goes: {sentence} (and may name {source} "
                             "and {target}, the languages).")
        if len(instruction) > MAX_INSTRUCTION_CHARS:
            raise ValueError(f"An instruction is at most {MAX_INSTRUCTION_CHARS} characters long.")
        control = next((t for t in controls(self.tokenizer).values() if t in instruction), None)
        if control is not None:
            raise ValueError(f"The instruction holds {control}, one of this model's control tokens: take it out.")
        return replace(self, instruction=instruction)

    def pair(self, model: DecoderOnlyTranslator, source: str, target: str
             ) -> tuple[DecoderOnlyTranslator, TokenizerPair]:
        """The model and tokenizers asking for ``source`` → ``target``; ValueError for a language not offered."""
        for code in (source, target):
            if code not in LANGUAGES:
                raise ValueError(unknown_code(code, LANGUAGES, self.name))
        prompt = Prompt(self.instruction, language_name(source, source), language_name(target, target))
        return model, TokenizerPair(PromptTokenizer(self.tokenizer, prompt, self.start, self.room),
                                    ReplyTokenizer(self.tokenizer, self.eos))


def chat_specials(tokenizer, model) -> Specials:
    """The start token (the generation prompt's last), the end of turn — of the generation config's stop tokens, the
    one the template closes a turn with (Llama 3 lists <|end_of_text|> first, but ends turns with <|eot_id|>; the
    others end a translation too, as in ``generate``) — and
    an id to pad with that no prompt holds: the tokenizer's or the config's pad, else another of its control tokens
    (a sentence may hold none: :class:`~models.network.hf.prompt.PromptTokenizer`), where the template never writes
    it; else an embedding row the tokenizer names no token for."""
    text, _ = Prompt(INSTRUCTION, "English", "French").render(tokenizer, "x")
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    stop = model.generation_config.eos_token_id
    stops = [i for i in (stop if isinstance(stop, list) else [stop]) if i is not None] or [tokenizer.eos_token_id]
    eos = next((i for i in stops if i in ids), stops[0])
    candidates = [tokenizer.pad_token_id, model.config.pad_token_id, *sorted(controls(tokenizer))]
    pad = next((i for i in candidates if i is not None and i not in ids and i != eos), None)
    if pad is None and model.config.vocab_size > len(tokenizer):
        pad = model.config.vocab_size - 1
    if pad is None:
        raise ValueError("it has no token to pad with that its prompts never hold")
    unk = tokenizer.unk_token_id
    return Specials(pad=pad, eos=eos, start=ids[-1], unk=-1 if unk is None else unk,
                    also_end=tuple(i for i in stops if i != eos))


def load_decoder_only(path: Path, name: str, dtype: torch.dtype
                      ) -> tuple[DecoderOnlyTranslator, TokenizerPair, tuple[str, str], Prompted]:
    """The model, its tokenizers set to English→French, that pair, and what sets it to others; ValueError (for
    users) where its tokenizer cannot find a sentence in its prompt."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=False)
        if not getattr(tokenizer, "is_fast", False):
            raise ValueError("its tokenizer gives no offsets (a fast tokenizer, tokenizer.json, is needed to find "
                             "the sentence in the prompt)")
        if not tokenizer.chat_template:
            raise ValueError("its tokenizer has no chat template, so nothing says how to ask it to translate")
        model = AutoModelForCausalLM.from_pretrained(path, attn_implementation="eager", use_safetensors=True,
                                                     trust_remote_code=False, dtype=dtype)
        specials = chat_specials(tokenizer, model)
    except Exception as e:  # noqa: BLE001 — a damaged file raises whatever its library's parser raises
        raise cannot_read(path, e) from e
    read_in(model)
    return prompted_translator(model, tokenizer, specials, name, path.name)


def prompted_translator(model, tokenizer, specials: Specials, name: str, label: str
                        ) -> tuple[DecoderOnlyTranslator, TokenizerPair, tuple[str, str], Prompted]:
    """A causal LM and its tokenizer behind the interface, set to English→French (``name``: the reference, which may
    choose its card's instruction; ``label``: the model's name in messages)."""
    translator = DecoderOnlyTranslator(model, specials)
    prompted = Prompted(tokenizer, instruction_for(name), label, specials.start, specials.eos,
                        translator.max_positions)
    return (*prompted.pair(translator, *EN_FR), EN_FR, prompted)
