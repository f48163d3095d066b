"""Reading a Hugging Face translator's folder (a Hub snapshot or a local one): what it is, whether it may be loaded,
and the model and tokenizers behind the project's interface.

A folder is in Hugging Face's format when its ``config.json`` names a ``model_type``. Only encoder–decoder
translators this project can read (:data:`~models.network.hf_translator.MODEL_TYPES`: Marian, so every opus-mt-*
model) are loaded; every other kind of model is refused with what it is and why. Weights are read from
``model.safetensors`` only — a repo with only a pickle (``pytorch_model.bin``) is refused with how to convert it —
and code in a repo is never run (``trust_remote_code`` stays off). The parameters are counted from the config on
the meta device before any weight is read. ``transformers`` is imported here, when such a model is loaded, and
never on the way to this project's own models.
"""
from __future__ import annotations

from pathlib import Path

import torch

from ..network.hf_translator import MODEL_TYPES, HFTokenizer, HFTranslator
from ..network.tokenization import TokenizerPair
from .languages import Languages, hub_languages
from .load_limits import too_many_parameters

TOKENIZER_FILES = ("source.spm", "target.spm", "vocab.json")
PICKLES = ("pytorch_model.bin",)
CONVERT = ("convert it once where you trust it: MarianMTModel.from_pretrained(folder).save_pretrained(folder, "
           "safe_serialization=True), or with the Hub's safetensors conversion")

#: What a refused model is, by ``model_type``, for the message.
KNOWN = {"gpt2": "a decoder-only language model: it continues a prompt and has no source sentence to attend over",
         "bert": "an encoder without a decoder: it writes no translation",
         "roberta": "an encoder without a decoder: it writes no translation"}


def is_hf_config(config: dict) -> bool:
    """Whether a ``config.json`` is Hugging Face's (it names a ``model_type``; this project's name none)."""
    return "model_type" in config


def refusal(config: dict, path: Path) -> str | None:
    """Why the folder at ``path`` with this ``config.json`` cannot be loaded, or None."""
    kind = str(config.get("model_type"))
    if kind not in MODEL_TYPES:
        what = KNOWN.get(kind) or ("an encoder–decoder this app does not read yet" if config.get("is_encoder_decoder")
                                   else "not an encoder–decoder translator")
        return (f"{path.name} is a {kind!r} model — {what}. This app shows translators whose decoder attends over "
                f"the source: Marian models such as Helsinki-NLP/opus-mt-en-fr.")
    if not (path / "model.safetensors").is_file():
        pickled = [name for name in PICKLES if (path / name).is_file()]
        return (f"{path.name} has its weights only as a pickle ({pickled[0]}), which this app never loads (unpickling "
                f"can run code); {CONVERT}." if pickled else f"{path.name} has no model.safetensors.")
    missing = [name for name in TOKENIZER_FILES if not (path / name).is_file()]
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
    from transformers import AutoConfig, AutoModelForSeq2SeqLM

    config = AutoConfig.from_pretrained(path, trust_remote_code=False)
    with torch.device("meta"):
        model = AutoModelForSeq2SeqLM.from_config(config, trust_remote_code=False)
    return sum(p.numel() for p in model.parameters())


def load_hf(path: Path, config: dict, name: str, max_parameters: int
            ) -> tuple[HFTranslator, TokenizerPair, Languages]:
    """The model, tokenizers and languages of the folder (``name``: the reference it was asked for, a Hub id names
    its languages); ValueError (its message for users) when they cannot be loaded or have over ``max_parameters``."""
    reason = refusal(config, path)
    if reason:
        raise ValueError(reason)
    if (count := parameters(path)) > max_parameters:
        raise ValueError(too_many_parameters(path.name, count, max_parameters))
    from transformers import AutoModelForSeq2SeqLM, MarianTokenizer

    try:
        tokenizer = MarianTokenizer.from_pretrained(path)
        model = AutoModelForSeq2SeqLM.from_pretrained(path, attn_implementation="eager", use_safetensors=True,
                                                      trust_remote_code=False, dtype=torch.float32)
    except (OSError, ValueError, RuntimeError) as e:
        raise ValueError(f"{path.name} cannot be read ({e}).") from e
    return (HFTranslator(model, tokenizer.unk_token_id),
            TokenizerPair(HFTokenizer(tokenizer, "source"), HFTokenizer(tokenizer, "target")),
            hub_languages(name, tokenizer.source_lang, tokenizer.target_lang))
