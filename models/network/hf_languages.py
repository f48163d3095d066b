"""The language tags of many-to-many translators — M2M100, NLLB-200, mBART-50 — as their tokenizers know them.

Such a model translates between any two of its languages. Its source sentence starts with the source language's
tag (``__en__``, ``eng_Latn``, ``en_XX``: the tokenizer's ``src_lang`` puts it there), and its decoder is made to
write the target language's tag first (``generate``'s ``forced_bos_token_id``). A tokenizer switches languages by
changing itself (``src_lang`` rewrites its special tokens), so one shared by every visitor of a server is never
switched: :func:`speaking` gives a copy that only ever speaks one language, on both of its sides, so that no mode
switch inside ``transformers`` (``text_target`` flips the tokenizer to its target mode and back) can change what
another thread's sentence gets.
"""
from __future__ import annotations

import copy
import difflib
from importlib import import_module

#: The tokenizer classes of the many-to-many families read here; each keeps its codes in its own way.
MANY_TO_MANY = ("M2M100Tokenizer", "NllbTokenizer", "MBart50Tokenizer")


def language_tags(tokenizer) -> dict[str, int]:
    """``{code: tag id}`` of every language the tokenizer knows, by the model's own codes (``fr``, ``fra_Latn``,
    ``fr_XX``); ``{}`` for a tokenizer of one language pair (Marian)."""
    kind = type(tokenizer).__name__
    if kind == "M2M100Tokenizer":
        return {code: tokenizer.get_lang_id(code) for code in tokenizer.lang_code_to_id}
    if kind not in MANY_TO_MANY:
        return {}
    codes = import_module(type(tokenizer).__module__).FAIRSEQ_LANGUAGE_CODES  # NLLB's and mBART-50's own lists
    found = {code: tokenizer.convert_tokens_to_ids(code) for code in codes}
    return {code: i for code, i in found.items() if i is not None and i != tokenizer.unk_token_id}


def unknown_code(code: str, codes, what: str) -> str:
    """The message for a code the model does not know, with the close matches among ``codes``."""
    close = difflib.get_close_matches(code, list(codes), n=5, cutoff=0.5)
    close += [c for c in codes if c.lower().startswith(code.lower()[:2]) and c not in close][: 5 - len(close)]
    hint = f" Close matches: {', '.join(close)}." if close else ""
    return f"{what} has no language {code!r}.{hint}"


def speaking(tokenizer, code: str):
    """A copy of the tokenizer set to language ``code`` on both sides (``src_lang`` and ``tgt_lang``), through its
    own setters, so its source and its target mode both start a sentence with that language's tag."""
    found = copy.deepcopy(tokenizer)
    found.src_lang = code  # the setter rewrites the special tokens (and a fast tokenizer's post-processor)
    found.tgt_lang = code
    if hasattr(found, "set_src_lang_special_tokens"):
        found.set_src_lang_special_tokens(code)
    return found
