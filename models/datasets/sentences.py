"""A set of sentences to translate at once: a test split of a data folder, a pasted text or an uploaded file.

What the Corpus page and ``python -m models.corpus`` read. Text comes one source sentence a line, or ``source TAB
reference`` a line; a human-aligned folder (``{split}.en``, ``{split}.fr``, ``{split}.gold``) brings its links, and
an uploaded links file (the gold's format, a line per pair) can bring them to a TSV. Anyone may upload anything, so
every way a file can be unusable has its own :class:`SentencesError` message, and blank or over-long lines are
skipped and counted rather than refused.
"""
from __future__ import annotations

import codecs
from dataclasses import dataclass, replace
from pathlib import Path

from ..storage.data import read_references
from ..storage.gold import GoldPair, parse_links, read_gold
from ..storage.languages import EN_FR, Languages, may_translate, pair_name
from .gold_sets import PREFIX as GOLD_PREFIX, load_gold
from .test_sets import PREFIX as SACREBLEU_PREFIX, find, read_test_set

MAX_BYTES = 10_000_000  # the largest text or links file read (the 3,000 lines of newstest2013 take 0.4 MB)
MAX_LINE_CHARS = 1_000  # a longer line is skipped and counted (the longest of the test sets: 507)

#: Test splits a data folder may hold, by folder name: how people know them, and the split.
KNOWN = {
    "multi30k": ("image captions (Multi30k test_2016_flickr)", "test_2016_flickr"),
    "tatoeba-en-fr": ("everyday sentences (Tatoeba test)", "test"),
    "hansard-en-fr": ("parliament (Hansard test)", "test"),
    "newstest-en-fr": ("news (newstest2013)", "test"),
    "hansards-en-fr-align": ("human-aligned parliament (Hansards gold test)", "test"),
}


class SentencesError(ValueError):
    """A file or text that cannot be read as sentences; the message says why, for users."""


@dataclass(frozen=True)
class Sentences:
    """Source sentences, each with every reference translation (none without) and human links (gold sets)."""

    name: str
    sources: tuple[str, ...]
    references: tuple[tuple[str, ...], ...] | None  # [N][k], or None when no line has one
    gold: tuple[GoldPair, ...] | None = None  # [N] the links people drew, English words first
    blank: int = 0  # blank lines skipped
    too_long: int = 0  # lines over MAX_LINE_CHARS skipped
    languages: Languages = (None, None)  # (source, references) codes, None where nobody said

    def __len__(self) -> int:
        return len(self.sources)

    def first(self, n: int) -> Sentences:
        """The first ``n`` sentences (a public server's cap)."""
        cut = slice(0, n)
        return replace(self, sources=self.sources[cut], references=self.references and self.references[cut],
                       gold=self.gold and self.gold[cut])

    @property
    def skipped(self) -> str:
        """What was left out, in words ("" when nothing)."""
        parts = [f"{n} {what} line{'s' * (n != 1)}" for n, what in ((self.blank, "blank"),
                 (self.too_long, f"over-long (> {MAX_LINE_CHARS:,} characters)")) if n]
        return f"Skipped {' and '.join(parts)}." if parts else ""


def as_text(data: bytes, what: str = "The file") -> str:
    """``data`` as text: UTF-8 (a byte-order mark allowed) or UTF-16 with its mark; SentencesError otherwise."""
    if len(data) > MAX_BYTES:
        raise SentencesError(f"{what} is {len(data) / 1e6:.1f} MB; the most read is {MAX_BYTES / 1e6:.0f} MB. "
                             "Split it, or use the command line for a whole corpus.")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass
    elif b"\x00" not in data:
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError:
            pass
    raise SentencesError(f"{what} is not text in UTF-8 (or UTF-16 with a byte-order mark): it looks binary or is "
                         "in another encoding. Save it as UTF-8 plain text, one sentence a line.")


def parse_lines(text: str, name: str) -> Sentences:
    """One source sentence a line, or ``source TAB reference`` on every line; blank and over-long lines skipped."""
    kept, blank, too_long = [], 0, 0
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            blank += 1
        elif len(line) > MAX_LINE_CHARS:
            too_long += 1
        else:
            kept.append((number, line.strip("\r\n")))
    if not kept:
        raise SentencesError("There is no sentence to translate: every line is blank or over-long.")
    if not any("\t" in line for _, line in kept):
        return Sentences(name, tuple(line.strip() for _, line in kept), None, blank=blank, too_long=too_long)
    wrong = [n for n, line in kept if len(fields := line.split("\t")) != 2 or not all(f.strip() for f in fields)]
    if wrong:
        where = ", ".join(map(str, wrong[:3])) + (f" and {len(wrong) - 3} more" if len(wrong) > 3 else "")
        raise SentencesError(f"Line {where}: expected two columns, the source sentence TAB its reference, on every "
                             "line (or no TAB at all for sources alone).")
    pairs = [line.split("\t") for _, line in kept]
    return Sentences(name, tuple(s.strip() for s, _ in pairs), tuple((r.strip(),) for _, r in pairs),
                     blank=blank, too_long=too_long)


def with_links(sentences: Sentences, data: bytes) -> Sentences:
    """``sentences`` with human links read from ``data``: a line per pair, ``i-j`` (Sure) or ``ipj`` (Possible),
    1-based, source word first, words being the whitespace tokens of the source and its reference."""
    if sentences.references is None:
        raise SentencesError("Links need a reference for each sentence: upload source TAB reference lines.")
    lines = as_text(data, "The links file").splitlines()
    if len(lines) != len(sentences):
        raise SentencesError(f"The links file has {len(lines)} lines but there are {len(sentences)} sentence "
                             "pairs: give one line of links per pair, in the same order.")
    gold = []
    for n, (line, source, refs) in enumerate(zip(lines, sentences.sources, sentences.references), 1):
        try:
            sure, possible = parse_links(line)
        except ValueError:
            raise SentencesError(f"Links line {n} is not in the gold's format (e.g. 1-1 2-3 3p2).") from None
        english, french = tuple(source.split()), tuple(refs[0].split())
        if any(i >= len(english) or j >= len(french) for i, j in possible):
            raise SentencesError(f"Links line {n} points past the end of its sentence ({len(english)} source "
                                 f"words, {len(french)} reference words): the links do not match the sentences.")
        gold.append(GoldPair(english, french, sure, possible))
    return replace(sentences, gold=tuple(gold))


def read_file(path: str | Path) -> Sentences:
    """A text or TSV file (:func:`parse_lines`)."""
    path = Path(path)
    if path.stat().st_size > MAX_BYTES:
        raise SentencesError(f"{path.name} is over {MAX_BYTES / 1e6:.0f} MB; give a test split's folder instead.")
    return parse_lines(as_text(path.read_bytes(), path.name), path.name)


def read_folder(folder: str | Path, split: str, src: str = "en", tgt: str = "fr") -> Sentences:
    """A data folder's split: a human-aligned set when ``{split}.gold`` is there, else ``{split}.{src}`` with every
    reference of ``{split}.{tgt}`` (or ``{split}.refs.jsonl.gz``). Lines are kept as they are, as
    ``models.evaluate`` reads them."""
    folder = Path(folder)
    if (folder / f"{split}.gold").exists():
        return _linked(f"{folder.name} {split}", read_gold(folder, split), EN_FR)
    sources, refs = read_references(folder, split, src, tgt)
    return Sentences(f"{folder.name} {split}", tuple(sources), tuple(map(tuple, refs)), languages=(src, tgt))


def _linked(name: str, pairs: list[GoldPair], languages: Languages) -> Sentences:
    """Human-aligned pairs as sentences: each source's words joined, its target the one reference, its links kept."""
    return Sentences(name, tuple(" ".join(p.source) for p in pairs), tuple((" ".join(p.target),) for p in pairs),
                     tuple(pairs), languages=languages)


def read_named(spec: str, languages: Languages, split: str, max_mb: float | None = None,
               strict: bool = True) -> Sentences:
    """The sentences ``spec`` names for a model of ``languages``: ``sacrebleu:NAME`` (a sacreBLEU test set, that
    pair's direction, fetched into its cache if need be, within ``max_mb`` if given), ``gold:SRC-TGT`` (human links
    by name, its test split unless ``split`` is trial, read in the model's direction), a data folder's split
    (``DIR[:split=SPLIT]``, ``split`` when it names none; its files say its languages) or a file (which says none).
    ``strict``: refuse sentences of another pair (a caller with its own refusal reads them as they are). Raises
    ValueError (SentencesError, :class:`~.test_sets.TestSetError`) or OSError, each with its message."""
    if spec.startswith(GOLD_PREFIX):
        pairs, pair = load_gold(spec, languages, "test" if split not in ("test", "trial") else split)
        return _linked(spec, pairs, pair)
    if spec.startswith(SACREBLEU_PREFIX):
        test_set = find(spec.removeprefix(SACREBLEU_PREFIX), languages)
        sources, references = read_test_set(test_set, max_mb)
        return Sentences(f"{test_set.spec} {test_set.langpair}", tuple(sources), tuple(map(tuple, references)),
                         languages=languages)
    folder, _, named = spec.partition(":split=")
    if not Path(folder).is_dir():
        if named or not Path(spec).is_file():
            raise SentencesError(f"{spec} is neither a data folder, a file, nor a set by name "
                                 f"({SACREBLEU_PREFIX}NAME).")
        return read_file(spec)
    try:
        found = read_folder(folder, named or split, *languages)
    except FileNotFoundError as e:
        raise SentencesError(f"{Path(folder).name} has no {pair_name(languages)} text ({e}).") from e
    if strict and not may_translate(found.languages, languages):
        raise SentencesError(f"{found.name} is {pair_name(found.languages)}, not {pair_name(languages)}.")
    return found


def found_test_sets(data: str | Path) -> dict[str, tuple[Path, str]]:
    """The known test splits present under the data folder ``data``: {label: (folder, split)}."""
    found = {}
    for name, (label, split) in KNOWN.items():
        folder = Path(data) / name
        if any(folder.glob(f"{split}.*")):
            found[label] = (folder, split)
    return found
