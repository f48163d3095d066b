"""Human word alignments by name: ``gold:en-fr`` (the Hansards of Och & Ney 2000), ``gold:ro-en``, ``gold:ja-en``,
``gold:zh-en``, as awesome-align publishes them (Dou & Neubig 2021, its ``examples/`` folder at a pinned commit).

Each set is two files: ``{stem}.src-tgt``, one pair a line, ``source ||| target`` in whitespace-separated words,
and ``{stem}.gold``, that pair's links, 1-based, source word first, ``i-j`` Sure and ``ipj`` Possible. They are
fetched once from ``ATLAS_GOLD_URL`` (default: the pinned commit's raw files; a mirror or a test's loopback server
may stand in), checked against their SHA-256 and kept in the cache folder (``gold/`` of ``ATLAS_CACHE``), from
which they are read offline ever after.

A model reads a set in its own direction: an English→Romanian model reads ``gold:ro-en`` turned round. Where rules
and readings are chosen, a *trial* split stands apart from the *test* split scored: the Hansards have their own
37-pair trial set (the NAACL 2003 workshop's, on which the bundled models' choices were made), not published with
awesome-align's files but with the Berkeley Aligner's example data (``trial.e``, ``trial.f``: ``<s snum=N> … </s>``
a line, lowercased; ``trial.align``: 0-based ``french-english`` links, ``-P`` marking a Possible one), fetched the
same way from ``ATLAS_GOLD_TRIAL_URL`` (default: the pinned commit's raw files), so ``gold:en-fr``'s test split is
all 447 pairs, as everyone reports it; for the other sets the first tenth of the pairs is the trial split, held out
of the test split.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..storage.gold import GoldPair, parse_links, read_gold
from ..storage.languages import EN_FR, Languages, language_key, may_translate, pair_name
from ..storage.pieces import default_cache_dir
from .fetch import FetchError, fetch_pinned

PREFIX = "gold:"
COMMIT = "5f150d45bbe51e167daf0a84abebaeb07c3323d1"  # neulab/awesome-align
DEFAULT_URL = f"https://raw.githubusercontent.com/neulab/awesome-align/{COMMIT}/examples"
URL_SETTING = "ATLAS_GOLD_URL"
TRIAL_COMMIT = "b074394daa36d256ced5edcd30d0850ac0614899"  # mhajiloo/berkeleyaligner (the Berkeley Aligner)
TRIAL_URL = f"https://raw.githubusercontent.com/mhajiloo/berkeleyaligner/{TRIAL_COMMIT}/resources/example/dev"
TRIAL_URL_SETTING = "ATLAS_GOLD_TRIAL_URL"
TRIAL_SHARE = 10  # the first 1/TRIAL_SHARE of a set's pairs are its trial split (sets without one of their own)


class GoldSetError(ValueError):
    """A gold set that cannot be had or read; the message says why, for users."""


@dataclass(frozen=True)
class TrialFiles:
    """A set's own trial split, published apart in the Berkeley Aligner's layout: English, French, links."""

    sha256: tuple[str, str, str]  # of trial.e, trial.f and trial.align
    files: tuple[str, str, str] = ("trial.e", "trial.f", "trial.align")


@dataclass(frozen=True)
class GoldSet:
    """One published set: its pair (the source language, the one the links count first), file stem and digests."""

    languages: tuple[str, str]
    stem: str
    sha256: tuple[str, str]  # of {stem}.src-tgt and {stem}.gold
    who: str
    trial: TrialFiles | None = None  # a trial set of its own, published elsewhere: then none is cut from these pairs

    @property
    def name(self) -> str:
        return PREFIX + "-".join(self.languages)

    @property
    def files(self) -> tuple[str, str]:
        return f"{self.stem}.src-tgt", f"{self.stem}.gold"


GOLD_SETS = (
    GoldSet(("en", "fr"), "enfr", ("19d56c3de3634ab8420d553df4d9dfd849502b18225f1599382e98a6de9cfc72",
                                   "0a11b51cba8a92a7608fb00884cb3cf50fe0fcc4e4aa92d70624fd11451c4ddd"),
            "Canadian Hansards, Och & Ney (2000)",
            TrialFiles(("bb5fb2ed59d535df2ec022d7a0b466f1315df7a3fe3261b2552158aca209d522",
                        "b4fc275ae7b5f4cd4996e34be44d352d8478cf2cf493ba7e61ad1775d736945a",
                        "1bfcf3340bba6153153ef9c515d70f6acd2547e207cffc74ab63dc17ded1ce39"))),
    GoldSet(("ro", "en"), "roen", ("e3ae360038e44813c27ebd470e359bf2d2a2a10e4697129060b3cbafbd2742a7",
                                   "12c3ae50f32817ce27edbd272c90b91ac8156823505d25ecd34266804ed65b10"),
            "Romanian–English, Mihalcea & Pedersen (2003)"),
    GoldSet(("ja", "en"), "jaen", ("64471c1189a30979966078c1172e264558d2aefb376553f7fb1a629d585f5a18",
                                   "05cace5aad9ee118dca8f73d9a98434c80fa5d6531e83a2b27b16057b583afa6"),
            "Kyoto Free Translation Task, Neubig (2011)"),
    GoldSet(("zh", "en"), "zhen", ("2a35fb66ad1631587cd00fbd11255dd9a8f4c11413b90aaa10f20d7f1a1cd9a9",
                                   "39e4de909481013653a9bf2b3b0520d9b75c728eff4ff769bd8d11f9cc703a5d"),
            "Tsinghua Chinese–English, Liu & Sun (2015)"),
)


def find_gold(name: str) -> GoldSet:
    """The set called ``gold:SRC-TGT`` (either direction: ``gold:en-ro`` is ``gold:ro-en``)."""
    wanted = {language_key(code) for code in name.removeprefix(PREFIX).split("-")}
    for gold_set in GOLD_SETS:
        if set(gold_set.languages) == wanted:
            return gold_set
    known = ", ".join(g.name for g in GOLD_SETS)
    raise GoldSetError(f"There is no human-aligned set {name!r}; the sets by name are {known} (either direction).")


def gold_for(languages: Languages) -> GoldSet | None:
    """The set a model of ``languages`` can be scored on, in either direction, or None."""
    if None in languages:
        return None
    keys = tuple(language_key(code) for code in languages)
    return next((g for g in GOLD_SETS if set(g.languages) == set(keys) and len(set(keys)) == 2), None)


# Where each source's files come from: (the setting naming a mirror, the pinned default, the cache's folder, who).
_SOURCES = {"test": (URL_SETTING, DEFAULT_URL, COMMIT[:12], "awesome-align's examples"),
            "trial": (TRIAL_URL_SETTING, TRIAL_URL, f"trial-{TRIAL_COMMIT[:12]}", "the Berkeley Aligner's example")}


def _path(filename: str, source: str = "test") -> Path:
    return default_cache_dir() / "gold" / _SOURCES[source][2] / filename


def is_cached(gold_set: GoldSet) -> bool:
    """Whether every file of the set is in the cache (read offline, no fetch)."""
    return all(_path(f).is_file() for f in gold_set.files) and (
        gold_set.trial is None or all(_path(f, "trial").is_file() for f in gold_set.trial.files))


def _cached_lines(gold_set: GoldSet, filename: str, digest: str, source: str = "test") -> list[str]:
    """The lines of a file in the cache, fetched and checked first if it is not there."""
    setting, default, _, who = _SOURCES[source]
    url = f"{os.environ.get(setting, '').strip() or default}/{filename}"
    try:
        path = fetch_pinned(url, digest, _path(filename, source), gold_set.name, f"{setting} ({who})")
    except FetchError as e:
        raise GoldSetError(str(e)) from e
    return path.read_text(encoding="utf-8").splitlines()


def _checked(pair: GoldPair, where: str) -> GoldPair:
    if any(i >= len(pair.source) or j >= len(pair.target) for i, j in pair.possible):
        raise GoldSetError(f"{where}: a link points past the end of its sentence")
    return pair


def _published_pairs(gold_set: GoldSet) -> list[GoldPair]:
    """awesome-align's pairs of the set: ``source ||| target`` and 1-based links, source word first."""
    texts, links = (_cached_lines(gold_set, f, d) for f, d in zip(gold_set.files, gold_set.sha256))
    if len(texts) != len(links):
        raise GoldSetError(f"{gold_set.name}: {len(texts)} sentence pairs but {len(links)} lines of links")
    pairs = []
    for n, (text, line) in enumerate(zip(texts, links), 1):
        source, _, target = text.partition(" ||| ")
        pairs.append(_checked(GoldPair(tuple(source.split()), tuple(target.split()), *parse_links(line)),
                              f"{gold_set.files[1]} line {n}"))
    return pairs


_SENTENCE = re.compile(r"^<s snum=\d+>(.*)</s>$")


def _trial_pairs(gold_set: GoldSet, trial: TrialFiles) -> list[GoldPair]:
    """The Berkeley Aligner's trial pairs: ``<s snum=N> words </s>`` lines, and 0-based ``target-source`` links
    (``-P``: Possible)."""
    english, french, links = (_cached_lines(gold_set, f, d, "trial") for f, d in zip(trial.files, trial.sha256))
    if not len(english) == len(french) == len(links):
        raise GoldSetError(f"{gold_set.name} trial: {len(english)}, {len(french)} and {len(links)} lines")
    pairs = []
    for n, (e, f, line) in enumerate(zip(english, french, links), 1):
        words = [m.group(1).split() if (m := _SENTENCE.match(text.strip())) else None for text in (e, f)]
        if None in words:
            raise GoldSetError(f"{trial.files[0]} or {trial.files[1]} line {n} is not a <s snum=N> … </s> sentence")
        sure, possible = set(), set()
        for token in line.split():
            target, source = map(int, token.removesuffix("-P").split("-"))
            possible.add((source, target))
            if not token.endswith("-P"):
                sure.add((source, target))
        pairs.append(_checked(GoldPair(*map(tuple, words), frozenset(sure), frozenset(possible)),
                              f"{trial.files[2]} line {n}"))
    return pairs


def read_gold_set(gold_set: GoldSet, languages: Languages, split: str) -> list[GoldPair]:
    """The pairs of ``split`` (``test`` or ``trial``), in the direction of a model of ``languages``: its source
    words first."""
    if split not in ("test", "trial"):
        raise GoldSetError(f"{gold_set.name} has no split {split!r}: its splits are test and trial.")
    if gold_set.trial is not None:
        pairs = _trial_pairs(gold_set, gold_set.trial) if split == "trial" else _published_pairs(gold_set)
    else:
        every = _published_pairs(gold_set)
        cut = len(every) // TRIAL_SHARE
        pairs = every[:cut] if split == "trial" else every[cut:]
    if None not in languages and language_key(languages[0]) != gold_set.languages[0]:
        pairs = [p.reversed() for p in pairs]
    return pairs


def load_gold(spec: str, languages: Languages, split: str) -> tuple[list[GoldPair], Languages]:
    """The pairs of ``split`` that ``spec`` names for a model of ``languages``, and their pair (source, target):
    ``gold:SRC-TGT``, fetched once and read in the model's direction, or a folder of the Hansards gold
    (``{split}.en``, ``{split}.fr``, ``{split}.gold``: English→French; read turned round for French→English).
    GoldSetError when the model translates neither way between the set's languages; OSError or ValueError when a
    folder cannot be read."""
    if spec.startswith(PREFIX):
        gold_set = find_gold(spec)
        pair = gold_set.languages
        if None not in languages and language_key(languages[0]) == pair[1]:
            pair = pair[::-1]
        if not may_translate(languages, pair):
            raise GoldSetError(f"{gold_set.name} links {pair_name(gold_set.languages)} words; this model translates "
                               f"{pair_name(languages)}.")
        return read_gold_set(gold_set, pair, split), pair
    if may_translate(languages, EN_FR):
        return read_gold(spec, split), EN_FR
    if may_translate(languages, EN_FR[::-1]):  # one folder serves both directions: each pair read the other way
        return [pair.reversed() for pair in read_gold(spec, split)], EN_FR[::-1]
    raise GoldSetError(f"The links in {Path(spec).name} join English and French words; this model translates "
                       f"{pair_name(languages)}.")


def check_gold(spec: str, splits: tuple[str, ...]) -> None:
    """GoldSetError, saying why, unless ``spec`` names a set or a folder that has each of ``splits``: checked
    before a command loads a model or reads a pair."""
    if spec.startswith(PREFIX):
        find_gold(spec)
        if wrong := [s for s in splits if s not in ("test", "trial")]:
            raise GoldSetError(f"{spec} has no split {wrong[0]!r}: its splits are test and trial.")
        return
    folder = Path(spec)
    if not folder.is_dir():
        raise GoldSetError(f"{spec} is neither a human-aligned set by name (gold:en-fr, …) nor a folder.")
    for split in splits:
        missing = [f"{split}.{ext}" for ext in ("en", "fr", "gold") if not (folder / f"{split}.{ext}").is_file()]
        if missing:
            why = (" (rules, readings and fits are chosen on the trial split: give a folder that has one, or "
                   "gold:en-fr)" if split == "trial" else "")
            raise GoldSetError(f"{folder.name} has no {split} split: {', '.join(missing)} missing{why}.")


def gold_title(spec: str) -> str:
    """A gold set as people know it ("Canadian Hansards, Och & Ney (2000)"), a folder by its name: never a path."""
    return find_gold(spec).who if spec.startswith(PREFIX) else Path(spec).name


def gold_name(spec: str) -> str:
    """What a record calls the human links ``spec`` names: a set by its name (``gold:en-fr``, either direction
    written as published), a folder by its own name."""
    return find_gold(spec).name if spec.startswith(PREFIX) else Path(spec).name
