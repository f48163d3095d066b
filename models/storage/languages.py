"""Which languages a model translates between, and what people call them.

This project's checkpoints say so in ``training.json`` (``languages``: source, target); a Hugging Face Marian
model in its tokenizer (``source_lang``, ``target_lang``), or, failing that, in its name (``opus-mt-SRC-TGT``).
A model that says nothing has unknown languages (None), and the pages then say "source" and "target". Codes are
named and compared through langcodes (IETF / ISO 639 tags and their English names).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import langcodes

from .records.training import read_training

Languages = tuple[str | None, str | None]  # (source, target) codes
EN_FR: Languages = ("en", "fr")  # the bundled models', the data folder's test sets' and the Hansards gold's


#: The longest instruction of one's own a chat model is asked with: a few sentences around the one translated.
MAX_INSTRUCTION_CHARS = 500


@dataclass(frozen=True)
class Asking:
    """What a model of several pairs is asked: translate ``languages`` (its own codes; None on a side: as it loads)
    and, for a chat model, with ``instruction`` of one's own (None: its card's, or the default)."""

    languages: Languages = (None, None)
    instruction: str | None = None


def _parsed(code: str) -> langcodes.Language | None:
    """The language a code names (ISO 639-1 or -3, a BCP 47 tag, NLLB's ``fra_Latn``), or None if none."""
    try:
        found = langcodes.Language.get(code)
    except (langcodes.LanguageTagError, ValueError):
        return None
    return found if found.is_valid() and found.language else None


def assumed(languages: Languages) -> tuple[str, str]:
    """``languages`` with a side the model does not name taken as this project's (:data:`EN_FR`): a model that
    does not say may well be English→French, and data by name needs a pair."""
    return languages[0] or EN_FR[0], languages[1] or EN_FR[1]


def language_key(code: str) -> str:
    """The code's language as its shortest standard code (``fr`` for ``fra`` and ``fra_Latn``), to compare codes
    written differently; an unknown code, lowercased, stands for itself."""
    found = _parsed(code)
    return found.language if found else code.lower()


def language_name(code: str | None, unknown: str) -> str:
    """``"Malagasy"`` for ``"mg"`` (langcodes' English names); the code itself when it names no language;
    ``unknown`` for None."""
    if code is None:
        return unknown
    found = _parsed(code)  # its territory left out: mBART-50's codes carry fairseq's guesses (ar_AR, fr_XX)
    return langcodes.Language.make(language=found.language, script=found.script).display_name() if found else code


def pair_name(languages: Languages) -> str:
    """``English→French``; ``source`` or ``target`` for a side that is not named."""
    source, target = languages
    return f"{language_name(source, 'source')}→{language_name(target, 'target')}"


def may_translate(languages: Languages, pair: Languages) -> bool:
    """Whether a model of ``languages`` may translate ``pair``: on each side the two name the same language, or
    one names none (a model that does not say may well be English→French)."""
    return all(a is None or b is None or language_key(a) == language_key(b) for a, b in zip(languages, pair))


def own_languages(directory: str | Path) -> Languages:
    """A checkpoint of this project's: its training record's languages, (None, None) without one."""
    record = read_training(directory)
    return (None, None) if record is None else (record.languages[0], record.languages[1])


def hub_languages(name: str, source: str | None, target: str | None) -> Languages:
    """A Hugging Face model's: its tokenizer's ``source_lang`` / ``target_lang``, else ``opus-mt-SRC-TGT``."""
    if source and target:
        return source, target
    found = re.search(r"opus-mt-([a-z]{2,3})-([a-z]{2,3})(?:$|[^a-z])", name)
    return (found[1], found[2]) if found else (None, None)
