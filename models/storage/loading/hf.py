"""Reading a Hugging Face translator's folder (a Hub snapshot or a local one): what it is, whether it may be loaded,
and the model and tokenizers behind the project's interface.

A folder is in Hugging Face's format when its ``config.json`` names a ``model_type``. The encoder–decoder
translators this project can read (:data:`~models.network.hf.translator.MODEL_TYPES`: Marian, so every opus-mt-*
model; M2M100 and NLLB-200; mBART-50; T5, told its task by its config's prefix, or MADLAD-400, by a tag of the
target language in front of the source) are loaded, each with the tokenizer its family is read with
(:data:`TOKENIZERS`), and so are chat models that translate (Llama, Qwen2, Gemma2: :mod:`.prompted`); every other
kind of model is refused with what it is and why. A many-to-many model is loaded
once and set to a language pair by :class:`ManyToMany` (a copy that shares its weights). Weights are read from
``model.safetensors`` only — a repo with only a pickle (``pytorch_model.bin``) is refused with how to convert it —
and code in a repo is never run (``trust_remote_code`` stays off). The parameters are counted from the config on
the meta device before any weight is read. ``transformers`` is imported here, when such a model is loaded, and
never on the way to this project's own models.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import torch

from ...network.hf.decoder_only import DECODER_ONLY_TYPES
from ...network.hf.language_tags import check_layout, language_tags, unknown_code
from ...network.hf.tokenizer import HFTokenizer
from ...network.hf.translator import MODEL_TYPES, HFTranslator
from ...network.tokenization import TokenizerPair
from ..languages import EN_FR, Languages, hub_languages, language_key, pair_name
from .limits import read_in, too_many_parameters
from .prompted import Prompted, cannot_read, load_decoder_only

#: The tokenizer classes each model type is read with: others lay a sentence out differently (mBART-25's language
#: tag comes after its EOS), so they are refused rather than misread.
TOKENIZERS = {"marian": ("MarianTokenizer",), "m2m_100": ("M2M100Tokenizer", "NllbTokenizer"),
              "mbart": ("MBart50Tokenizer",), "t5": ("T5Tokenizer",)}
#: The files without which a family's tokenizer cannot be built.
TOKENIZER_FILES = {"marian": ("source.spm", "target.spm", "vocab.json"), "m2m_100": ("tokenizer_config.json",),
                   "mbart": ("tokenizer_config.json",), "t5": ("spiece.model",),
                   **{kind: ("tokenizer.json",) for kind in DECODER_ONLY_TYPES}}
#: A T5 model's translation tasks in its config: ``task_specific_params["translation_en_to_fr"]["prefix"]``.
T5_TASK = re.compile(r"translation_([a-z]{2,3})_to_([a-z]{2,3})")
#: MADLAD-400's way instead: the target language's tag, ``<2fr>``, written in front of the source sentence.
MADLAD_TAG = re.compile(r"<2([A-Za-z_-]+)>")
PICKLES = ("pytorch_model.bin",)
CONVERT = ("convert it once where you trust it: AutoModelForSeq2SeqLM.from_pretrained(folder).save_pretrained("
           "folder, safe_serialization=True), or with the Hub's safetensors conversion")

#: What a refused model is, by ``model_type``, for the message.
KNOWN = {"gpt2": "a language model without a chat template: nothing says how to ask it to translate",
         "bert": "an encoder without a decoder: it writes no translation",
         "roberta": "an encoder without a decoder: it writes no translation"}


def is_hf_config(config: dict) -> bool:
    """Whether a ``config.json`` is Hugging Face's (it names a ``model_type``; this project's name none)."""
    return "model_type" in config


def refusal(config: dict, path: Path) -> str | None:
    """Why the folder at ``path`` with this ``config.json`` cannot be loaded, or None."""
    kind = str(config.get("model_type"))
    if kind not in MODEL_TYPES + DECODER_ONLY_TYPES:
        causal = any(str(a).endswith("ForCausalLM") for a in config.get("architectures") or ())
        what = KNOWN.get(kind) or ("an encoder–decoder this app does not read yet" if config.get("is_encoder_decoder")
                                   else "a language model of a family this app does not read yet" if causal
                                   else "not an encoder–decoder translator")
        return (f"{path.name} is a {kind!r} model — {what}. This app shows Marian models such as "
                f"Helsinki-NLP/opus-mt-en-fr, M2M100, NLLB-200, mBART-50 and T5, and chat models that translate: "
                f"Llama, Qwen2 and Gemma2 (EuroLLM, Qwen2.5-Instruct, Tower+).")
    if not (path / "model.safetensors").is_file():
        pickled = [name for name in PICKLES if (path / name).is_file()]
        return (f"{path.name} has its weights only as a pickle ({pickled[0]}), which this app never loads (unpickling "
                f"can run code); {CONVERT}." if pickled else f"{path.name} has no model.safetensors.")
    missing = [name for name in TOKENIZER_FILES[kind] if not (path / name).is_file()]
    if missing:
        return f"{path.name} has no tokenizer to go with it (missing {', '.join(missing)})."
    return None


def listing_refusal(repo_id: str, files: set[str]) -> str | None:
    """Why a Hub repo whose files are ``files`` cannot be loaded, known before anything is downloaded: weights only
    as a pickle; None otherwise."""
    pickled = sorted(files & set(PICKLES))
    if "model.safetensors" not in files and pickled:
        return (f"Hub repo {repo_id} has its weights only as a pickle ({pickled[0]}), which this app never loads "
                f"(unpickling can run code); {CONVERT}.")
    return None


def parameters(path: Path) -> int:
    """The number of parameters the folder's config describes, counted on the meta device (nothing allocated)."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM

    config = AutoConfig.from_pretrained(path, trust_remote_code=False)
    kind = AutoModelForCausalLM if config.model_type in DECODER_ONLY_TYPES else AutoModelForSeq2SeqLM
    with torch.device("meta"):
        model = kind.from_config(config, trust_remote_code=False)
    return sum(p.numel() for p in model.parameters())


def _tokenizer(path: Path, model_type: str):
    """The folder's tokenizer, of a class its model type is read with; ValueError (for users) otherwise."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=False)
    if type(tokenizer).__name__ not in TOKENIZERS[model_type]:
        raise ValueError(f"{path.name}'s tokenizer is a {type(tokenizer).__name__}; a {model_type!r} model is read "
                         f"here with {' or '.join(TOKENIZERS[model_type])} only.")
    return tokenizer


def load_hf(path: Path, config: dict, name: str, max_parameters: int, dtype: torch.dtype = torch.float32
            ) -> tuple[HFTranslator, TokenizerPair, Languages, ManyToMany | T5Tasks | Prompted | None]:
    """The model, tokenizers and languages of the folder (``name``: the reference it was asked for, a Hub id names
    its languages), and for a many-to-many model what sets it to other languages (set to
    :meth:`ManyToMany.default_pair`); ValueError (its message for users) when they cannot be loaded or have over
    ``max_parameters``. ``dtype``: the weights' (bfloat16 halves a large model's memory)."""
    _check_size(path, config, max_parameters)
    if config["model_type"] in DECODER_ONLY_TYPES:
        return load_decoder_only(path, name, dtype)
    from transformers import AutoModelForSeq2SeqLM

    try:
        tokenizer = _tokenizer(path, config["model_type"])
        model = AutoModelForSeq2SeqLM.from_pretrained(path, attn_implementation="eager", use_safetensors=True,
                                                      trust_remote_code=False, dtype=dtype)
    except Exception as e:  # noqa: BLE001 — a damaged file raises whatever its library's parser raises
        raise cannot_read(path, e) from e
    read_in(model)
    return _asked(HFTranslator(model, tokenizer.unk_token_id), tokenizer, config, path, name)


def _check_size(path: Path, config: dict, max_parameters: int) -> None:
    """ValueError, its message for users, for a folder that is not a translator read here or is too large."""
    if reason := refusal(config, path):
        raise ValueError(reason)
    try:
        count = parameters(path)
    except Exception as e:  # noqa: BLE001 — a damaged config.json raises whatever the library's reader raises
        raise cannot_read(path, e) from e
    if count > max_parameters:
        raise ValueError(too_many_parameters(path.name, count, max_parameters))


def _asked(translator: HFTranslator, tokenizer, config: dict, path: Path, name: str
           ) -> tuple[HFTranslator, TokenizerPair, Languages, ManyToMany | T5Tasks | None]:
    """The encoder–decoder asked its default pair: a T5's tasks, a many-to-many model's tags, else its own pair."""
    if config["model_type"] == "t5" and not (tags := target_tags(tokenizer)):
        tasks = T5Tasks(tokenizer, t5_tasks(config, path.name), path.name)
        return (*tasks.pair(translator, *tasks.default_pair()), tasks.default_pair(),
                tasks if len(tasks.tasks) > 1 else None)
    if config["model_type"] == "t5":  # MADLAD-400: the target language's tag in front of the source
        many = ManyToMany(tokenizer, tags, path.name, tag_in_source=True)
        return (*many.pair(translator, *many.default_pair()), many.default_pair(), many)
    tags = language_tags(tokenizer)
    if not tags:
        return (translator, TokenizerPair(HFTokenizer(tokenizer, "source"), HFTokenizer(tokenizer, "target")),
                hub_languages(name, tokenizer.source_lang, tokenizer.target_lang), None)
    check_layout(tokenizer, tags, path.name)
    many = ManyToMany(tokenizer, tags, path.name)
    return (*many.pair(translator, *many.default_pair()), many.default_pair(), many)


def target_tags(tokenizer) -> dict[str, int]:
    """A MADLAD-400 tokenizer's target-language tags, ``{code: id}`` (``<2fr>`` → ``fr``); {} for any other T5's."""
    return {found[1]: i for piece, i in tokenizer.get_vocab().items() if (found := MADLAD_TAG.fullmatch(piece))}


def t5_tasks(config: dict, name: str) -> dict[tuple[str, str], str]:
    """A T5 model's translation tasks, ``{(source, target): prefix}`` ("translate English to French: "), from its
    config; ValueError (for users) where it names none (a T5 model does what its prefix says, and nothing says what
    to write here)."""
    tasks = {(found[1], found[2]): params.get("prefix", "")
             for key, params in (config.get("task_specific_params") or {}).items() if (found := T5_TASK.fullmatch(key))}
    if not tasks:
        raise ValueError(f"{name} names no translation task in its config (task_specific_params such as "
                         "translation_en_to_fr with its prefix): a T5 model translates only when its prefix asks.")
    return tasks


@dataclass(frozen=True, eq=False)
class T5Tasks:
    """What sets a T5 model of several translation tasks (t5-small: English into French, German, Romanian) to one:
    the prefix that asks for it, in front of the source."""

    tokenizer: object
    tasks: dict[tuple[str, str], str]  # {(source, target): prefix}
    name: str  # the model's, for messages

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(code for pair in self.tasks for code in pair))

    def default_pair(self) -> tuple[str, str]:
        """English→French where it has that task, else its first."""
        return EN_FR if EN_FR in self.tasks else next(iter(self.tasks))

    def pair(self, model: HFTranslator, source: str, target: str) -> tuple[HFTranslator, TokenizerPair]:
        """The model and tokenizers asking for ``source`` → ``target``; ValueError for a pair it has no task for."""
        if (source, target) not in self.tasks:
            raise ValueError(f"{self.name} translates {', '.join(map(pair_name, self.tasks))} only: its prefixes ask "
                             "for nothing else.")
        return model, TokenizerPair(HFTokenizer(self.tokenizer, "source", prefix=self.tasks[source, target]),
                                    HFTokenizer(self.tokenizer, "target"))


@dataclass(frozen=True, eq=False)
class ManyToMany:
    """What a many-to-many model keeps to be set to any pair of its languages: its tokenizer (shared by every pair,
    never switched) and its languages' tags by its own codes. M2M100, NLLB and mBART force the target's tag as the
    first written piece; MADLAD-400 (``tag_in_source``) reads it in front of the source sentence, which may be in
    any language."""

    tokenizer: object
    tags: dict[str, int]  # {code: tag id}, the model's own codes (fr, fra_Latn, fr_XX)
    name: str  # the model's, for messages
    tag_in_source: bool = False

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(self.tags)

    def default_pair(self) -> tuple[str, str]:
        """The tokenizer's own source language (English in all four families) into this project's target
        language, French (else the first other language it knows)."""
        if self.tag_in_source:  # the source may be any language: English, as this project's
            source = next((c for c in self.tags if language_key(c) == EN_FR[0]), next(iter(self.tags)))
        else:
            source = self.tokenizer.src_lang
        target = next((c for c in self.tags if language_key(c) == EN_FR[1]),
                      next(c for c in self.tags if c != source))
        return source, target

    def pair(self, model: HFTranslator, source: str, target: str) -> tuple[HFTranslator, TokenizerPair]:
        """The model writing in ``target`` and tokenizers set to the pair; ValueError for a code it does not know,
        with the close matches."""
        for code in (source, target):
            if code not in self.tags:
                raise ValueError(unknown_code(code, self.tags, self.name))
        if self.tag_in_source:
            return model, TokenizerPair(HFTokenizer(self.tokenizer, "source", prefix=f"<2{target}> "),
                                        HFTokenizer(self.tokenizer, "target"))
        by_id = {i: code for code, i in self.tags.items()}
        return model.writing(self.tags[target]), TokenizerPair(
            HFTokenizer(self.tokenizer, "source", by_id, self.tags[source]),
            HFTokenizer(self.tokenizer, "target", by_id, self.tags[target]))
