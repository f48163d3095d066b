"""Which languages a model translates between, and what people call them.

This project's checkpoints say so in ``training.json`` (``languages``: source, target); a Hugging Face Marian
model in its tokenizer (``source_lang``, ``target_lang``), or, failing that, in its name (``opus-mt-SRC-TGT``).
A model that says nothing has unknown languages (None), and the pages then say "source" and "target".
"""
from __future__ import annotations

import json
import re
from pathlib import Path

#: ISO 639-1 codes (and opus-mt's three-letter ones for the same languages) people know by name.
NAMES = {"en": "English", "eng": "English", "fr": "French", "fra": "French", "de": "German", "deu": "German",
         "es": "Spanish", "spa": "Spanish", "it": "Italian", "ita": "Italian", "pt": "Portuguese", "nl": "Dutch",
         "pl": "Polish", "ru": "Russian", "uk": "Ukrainian", "cs": "Czech", "sv": "Swedish", "fi": "Finnish",
         "da": "Danish", "ro": "Romanian", "el": "Greek", "tr": "Turkish", "ar": "Arabic", "he": "Hebrew",
         "zh": "Chinese", "ja": "Japanese", "ko": "Korean", "hi": "Hindi", "vi": "Vietnamese"}

Languages = tuple[str | None, str | None]  # (source, target) codes
EN_FR: Languages = ("en", "fr")  # the bundled models', the test sets' and the human links'


def language_name(code: str | None, unknown: str) -> str:
    """``"French"`` for ``"fr"``; the code itself when it has no name here; ``unknown`` for None."""
    return unknown if code is None else NAMES.get(code, code)


def pair_name(languages: Languages) -> str:
    """``English→French``; ``source`` or ``target`` for a side that is not named."""
    source, target = languages
    return f"{language_name(source, 'source')}→{language_name(target, 'target')}"


def may_translate(languages: Languages, pair: Languages) -> bool:
    """Whether a model of ``languages`` may translate ``pair``: on each side the two name the same language, or
    one names none (a model that does not say may well be English→French)."""
    return all(a is None or b is None or language_name(a, a) == language_name(b, b) for a, b in zip(languages, pair))


def own_languages(directory: str | Path) -> Languages:
    """A checkpoint of this project's: its training record's languages, (None, None) without one."""
    record = Path(directory) / "training.json"
    if not record.exists():
        return None, None
    found = json.loads(record.read_text(encoding="utf-8")).get("languages") or [None, None]
    return found[0], found[1]


def hub_languages(name: str, source: str | None, target: str | None) -> Languages:
    """A Hugging Face model's: its tokenizer's ``source_lang`` / ``target_lang``, else ``opus-mt-SRC-TGT``."""
    if source and target:
        return source, target
    found = re.search(r"opus-mt-([a-z]{2,3})-([a-z]{2,3})(?:$|[^a-z])", name)
    return (found[1], found[2]) if found else (None, None)
