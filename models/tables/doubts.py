"""What a reader should doubt in one translation, in plain words: a source cut to the model's positions, pieces it
does not know, a translation that ran to the length limit without ending, one that writes a phrase over and over
(the model has lost its place: long sentences, unseen words), and a text that looks like another language than the
model reads.

The language is told by Lingua (``lingua-language-detector``: n-gram models of each language, kept up to date, made
for short text; nothing fetched at run time), asked to choose only between the model's two languages, so a sentence
of the target language typed into the source box is said as such ("this looks like French"); a language it does not
know, or a text of under three words, gets no hint rather than a guess.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from ..decoding.trace import Trace
from ..storage.languages import Languages, language_key, language_name

REPEATS = 3  # a phrase written this many times in a row is a loop, not a translation
LONGEST_PHRASE = 8  # words
LEAST_WORDS = 3  # a shorter text gets no language hint: a word or two is too little to tell
LEAST_CONFIDENCE = 0.7  # Lingua's share for the other language, between the two, before a hint is given


def repeated_phrase(words: Sequence[str], times: int = REPEATS) -> tuple[str, int] | None:
    """The longest phrase (up to :data:`LONGEST_PHRASE` words) written ``times`` or more times in a row, and how many
    times; None where there is none."""
    for n in range(min(LONGEST_PHRASE, len(words) // times), 0, -1):
        for start in range(len(words) - n * times + 1):
            phrase, count = words[start : start + n], 1
            while words[start + count * n : start + (count + 1) * n] == phrase:
                count += 1
            if count >= times:
                return " ".join(phrase), count
    return None


@functools.lru_cache(maxsize=8)
def _detector(pair: tuple[str, str]):
    """Lingua's detector for the two languages (their models loaded once: about 80 MB for English and French), or
    None where Lingua knows either not."""
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    try:
        languages = [Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper())) for code in pair]
    except (AttributeError, ValueError):
        return None
    return LanguageDetectorBuilder.from_languages(*languages).build()


def looks_like(text: str, languages: Languages) -> str | None:
    """The target language's key where ``text`` looks like it rather than the source's, by Lingua choosing between
    the two; None otherwise, or where it cannot tell."""
    if None in languages or len(text.split()) < LEAST_WORDS:
        return None
    source, target = (language_key(code) for code in languages)
    if source == target or (detector := _detector((source, target))) is None:
        return None
    found = {v.language.iso_code_639_1.name.lower(): v.value for v in detector.compute_language_confidence_values(text)}
    return target if found.get(target, 0.0) >= LEAST_CONFIDENCE else None


@dataclass(frozen=True)
class Notices:
    """The doubts about one translation, as plain text (a page escapes it for its markup); ``warnings`` are said
    above it, ``caption`` under them."""

    warnings: tuple[str, ...]
    caption: str | None  # the source's pieces unknown to the model
    looks_like: str | None = None  # the target language's key where the text looks like it (a direction to offer)


def notices(trace: Trace, ends: Sequence[int], languages: Languages, text: str) -> Notices:
    """What to say of ``trace``, the translation of ``text`` by a model of ``languages`` that ends with ``ends``."""
    said = []
    if trace.source.truncated:
        said.append(f"The sentence is longer than the {len(trace.source.ids)} pieces this model reads at once: only "
                    "the beginning was translated.")
    other = looks_like(text, languages)
    if other is not None:
        said.append(f"This looks like {language_name(other, 'another language')}, not "
                    f"{language_name(languages[0], 'the source language')}: the model reads "
                    f"{language_name(languages[0], 'its source language')}, so its translation is a guess.")
    if trace.target_ids and trace.target_ids[-1] not in ends:
        said.append(f"The translation stopped at the model's length limit ({len(trace.target_ids)} pieces) before "
                    "it ended: it may be cut short.")
    if repeat := repeated_phrase(trace.translation.split()):
        said.append(f"The translation repeats “{repeat[0]}” {repeat[1]} times in a row: the model "
                    "has lost its place, as it does on sentences longer or stranger than those it learned from.")
    unknown = [s for s, u in zip(trace.source.surfaces, trace.source.unknown) if u]
    caption = "Unknown to the model (marked ⁇ in the charts): " + ", ".join(dict.fromkeys(unknown)) if unknown else None
    return Notices(tuple(said), caption, other)
