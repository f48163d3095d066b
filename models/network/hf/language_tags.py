"""The language tags of many-to-many translators — M2M100, NLLB-200, mBART-50 — as their tokenizers know them.

Such a model translates between any two of its languages. Its source sentence starts with the source language's
tag (``__en__``, ``eng_Latn``, ``en_XX``: the tokenizer's ``src_lang`` puts it there), and its decoder is made to
write the target language's tag first (``generate``'s ``forced_bos_token_id``). A tokenizer switches languages by
changing itself (``src_lang`` rewrites its special tokens), and one is shared by every visitor of a server, so it is
never switched while it serves: :func:`check_layout` reads, once, where its own ``src_lang`` puts the tag, and the
sentences of any pair are then laid out that way around the pieces it cuts (a copy set to each language would cost
NLLB's tokenizer 87 MiB and 0.35 s a side, measured).
"""
from __future__ import annotations

import difflib
from importlib import import_module


def language_tags(tokenizer) -> dict[str, int]:
    """``{code: tag id}`` of every language the tokenizer knows, by the model's own codes (``fr``, ``fra_Latn``,
    ``fr_XX``); ``{}`` for a tokenizer of one language pair (Marian, whose module lists no language codes)."""
    if type(tokenizer).__name__ == "M2M100Tokenizer":
        return {code: tokenizer.get_lang_id(code) for code in tokenizer.lang_code_to_id}
    codes = getattr(import_module(type(tokenizer).__module__), "FAIRSEQ_LANGUAGE_CODES", ())  # NLLB's, mBART-50's
    found = {code: tokenizer.convert_tokens_to_ids(code) for code in codes}
    return {code: i for code, i in found.items() if i is not None and i != tokenizer.unk_token_id}


def unknown_code(code: str, codes, what: str) -> str:
    """The message for a code the model does not know, with the close matches among ``codes``."""
    close = difflib.get_close_matches(code, list(codes), n=5, cutoff=0.5)
    close += [c for c in codes if c.lower().startswith(code.lower()[:2]) and c not in close][: 5 - len(close)]
    hint = f" Close matches: {', '.join(close)}." if close else ""
    return f"{what} has no language {code!r}.{hint}"


def check_layout(tokenizer, tags: dict[str, int], name: str) -> None:
    """That the tokenizer, set by its own ``src_lang``, lays a sentence out as this project reads it — its language's
    tag, the pieces, EOS — so that the same layout can be written for any language without switching it; ValueError
    (for users) otherwise (NLLB's ``legacy_behaviour`` puts the tag after EOS)."""
    bare = tokenizer("a b", add_special_tokens=False)["input_ids"]
    if tokenizer("a b")["input_ids"] != [tags[tokenizer.src_lang], *bare, tokenizer.eos_token_id]:
        raise ValueError(f"{name}'s tokenizer does not start a sentence with its language's tag and end it with EOS "
                         "(an NLLB tokenizer with legacy_behaviour puts the tag last), which this app does not read.")
