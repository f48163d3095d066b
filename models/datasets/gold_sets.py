"""Human word alignments by name: ``gold:en-fr`` (the Hansards of Och & Ney 2000), ``gold:ro-en``, ``gold:ja-en``,
``gold:zh-en``, as awesome-align publishes them (Dou & Neubig 2021, its ``examples/`` folder at a pinned commit).

Each set is two files: ``{stem}.src-tgt``, one pair a line, ``source ||| target`` in whitespace-separated words,
and ``{stem}.gold``, that pair's links, 1-based, source word first, ``i-j`` Sure and ``ipj`` Possible. They are
fetched once from ``ATLAS_GOLD_URL`` (default: the pinned commit's raw files; a mirror or a test's loopback server
may stand in), checked against their SHA-256 and kept in the cache folder (``gold/`` of ``ATLAS_CACHE``), from
which they are read offline ever after.

A model reads a set in its own direction: an English→Romanian model reads ``gold:ro-en`` turned round. Where rules
and readings are chosen, a *trial* split stands apart from the *test* split scored: the Hansards have their own
37-pair trial set (beside the bundled models' choices, in the data folder), not published with these files, so
``gold:en-fr`` is all test, as everyone reports it; for the other sets the first tenth of the pairs is the trial
split, held out of the test split.
"""
from __future__ import annotations

import os
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
TRIAL_SHARE = 10  # the first 1/TRIAL_SHARE of a set's pairs are its trial split (sets without one of their own)


class GoldSetError(ValueError):
    """A gold set that cannot be had or read; the message says why, for users."""


@dataclass(frozen=True)
class GoldSet:
    """One published set: its pair (the source language, the one the links count first), file stem and digests."""

    languages: tuple[str, str]
    stem: str
    sha256: tuple[str, str]  # of {stem}.src-tgt and {stem}.gold
    who: str
    own_trial: bool = False  # has a trial set of its own elsewhere: then none is cut from these pairs

    @property
    def name(self) -> str:
        return PREFIX + "-".join(self.languages)

    @property
    def files(self) -> tuple[str, str]:
        return f"{self.stem}.src-tgt", f"{self.stem}.gold"


GOLD_SETS = (
    GoldSet(("en", "fr"), "enfr", ("19d56c3de3634ab8420d553df4d9dfd849502b18225f1599382e98a6de9cfc72",
                                   "0a11b51cba8a92a7608fb00884cb3cf50fe0fcc4e4aa92d70624fd11451c4ddd"),
            "Canadian Hansards, Och & Ney (2000)", own_trial=True),
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


def _path(filename: str) -> Path:
    return default_cache_dir() / "gold" / COMMIT[:12] / filename


def is_cached(gold_set: GoldSet) -> bool:
    """Whether both files are in the cache (read offline, no fetch)."""
    return all(_path(f).is_file() for f in gold_set.files)


def _cached(gold_set: GoldSet, filename: str, digest: str) -> Path:
    """The file in the cache, fetched and checked first if it is not there."""
    url = f"{os.environ.get(URL_SETTING, '').strip() or DEFAULT_URL}/{filename}"
    try:
        return fetch_pinned(url, digest, _path(filename), gold_set.name, f"{URL_SETTING} (awesome-align's examples)")
    except FetchError as e:
        raise GoldSetError(str(e)) from e


def read_gold_set(gold_set: GoldSet, languages: Languages, split: str) -> list[GoldPair]:
    """The pairs of ``split`` (``test``, or ``trial`` where the set has one here), in the direction of a model of
    ``languages``: its source words first."""
    texts, links = (_cached(gold_set, f, d).read_text(encoding="utf-8").splitlines()
                    for f, d in zip(gold_set.files, gold_set.sha256))
    if len(texts) != len(links):
        raise GoldSetError(f"{gold_set.name}: {len(texts)} sentence pairs but {len(links)} lines of links")
    pairs = []
    for n, (text, line) in enumerate(zip(texts, links), 1):
        source, _, target = text.partition(" ||| ")
        sure, possible = parse_links(line)
        pair = GoldPair(tuple(source.split()), tuple(target.split()), sure, possible)
        if any(i >= len(pair.source) or j >= len(pair.target) for i, j in possible):
            raise GoldSetError(f"{gold_set.files[1]} line {n}: a link points past the end of its sentence")
        pairs.append(pair)
    if None not in languages and language_key(languages[0]) != gold_set.languages[0]:
        pairs = [p.reversed() for p in pairs]
    return _split(gold_set, pairs, split)


def _split(gold_set: GoldSet, pairs: list[GoldPair], split: str) -> list[GoldPair]:
    cut = 0 if gold_set.own_trial else len(pairs) // TRIAL_SHARE
    if split == "test":
        return pairs[cut:]
    if split == "trial" and cut:
        return pairs[:cut]
    why = ("its trial set (37 pairs) is not published with it: give the data folder that holds it"
           if gold_set.own_trial else "its splits are test and trial")
    raise GoldSetError(f"{gold_set.name} has no split {split!r}: {why}.")


def load_gold(spec: str, languages: Languages, split: str) -> tuple[list[GoldPair], Languages]:
    """The pairs of ``split`` that ``spec`` names for a model of ``languages``, and their pair (source, target):
    ``gold:SRC-TGT``, fetched once and read in the model's direction, or a folder of the Hansards gold
    (``{split}.en``, ``{split}.fr``, ``{split}.gold``: English→French). GoldSetError when the model translates
    neither way between the set's languages; OSError or ValueError when a folder cannot be read."""
    if spec.startswith(PREFIX):
        gold_set = find_gold(spec)
        pair = gold_set.languages
        if None not in languages and language_key(languages[0]) == pair[1]:
            pair = pair[::-1]
        if not may_translate(languages, pair):
            raise GoldSetError(f"{gold_set.name} links {pair_name(gold_set.languages)} words; this model translates "
                               f"{pair_name(languages)}.")
        return read_gold_set(gold_set, pair, split), pair
    if not may_translate(languages, EN_FR):
        raise GoldSetError(f"The links in {Path(spec).name} join English and French words; this model translates "
                           f"{pair_name(languages)}.")
    return read_gold(spec, split), EN_FR
