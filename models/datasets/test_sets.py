"""Test sets by name, through sacreBLEU: ``sacrebleu:NAME`` names a set as ``sacrebleu -t NAME`` does (``wmt14``,
``multi30k/2016``, ``iwslt17``, …), and the language pair comes from the model.

The files are sacreBLEU's own: its downloader fetches a set once into its cache (the folder ``SACREBLEU``, else
``~/.sacrebleu``; sacreBLEU reads the variable when it is imported) and reads it from there ever after, offline
too. A set that is not cached and cannot be fetched, a name sacreBLEU does not know, a pair a set does not have
and a set over a server's size cap each get a :class:`TestSetError` that says so in a sentence.
"""
from __future__ import annotations

import difflib
import re
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from sacrebleu.dataset import DATASETS
from sacrebleu.utils import SACREBLEU_DIR

from ..storage.languages import Languages, language_key, pair_name

PREFIX = "sacrebleu:"
SIZE_TIMEOUT_S = 10.0  # asking a set's size never holds a request longer


class TestSetError(ValueError):
    """A named test set that cannot be read; the message says why, for users."""

    __test__ = False  # a name pytest would otherwise collect


@dataclass(frozen=True)
class TestSet:
    """One sacreBLEU set for one direction: its name, its language pair as sacreBLEU writes it, and its label."""

    __test__ = False

    name: str
    langpair: str  # "en-fr"

    @property
    def spec(self) -> str:
        return PREFIX + self.name

    @property
    def label(self) -> str:
        return label(self.name)


def label(name: str) -> str:
    """What a person calls a set: "news: WMT newstest2014" for wmt14, "captions: Multi30k 2016 Flickr" for
    multi30k/2016, "talks: IWSLT 2017 TED" for iwslt17; other sets by their name and sacreBLEU's description."""
    base, _, part = name.partition("/")
    if found := re.fullmatch(r"wmt(\d\d)", base):
        year = 2000 + int(found[1])
        if part == "europarl":
            return f"parliament: WMT {year} Europarl"
        kind, test = ("general", "generaltest") if year >= 2022 else ("news", "newstest")
        return f"{kind}: WMT {test}{year}" + (f" ({part})" if part else "")
    if base == "multi30k":
        return f"captions: Multi30k {part} Flickr"
    if base.startswith("iwslt"):
        return f"talks: IWSLT 20{base[5:]} TED" + (f" {part}" if part else "")
    if base == "mtedx":
        return f"talks: mTEDx {part}"
    if base.startswith("mtnt"):
        return f"Reddit: MTNT {base[4:]}" + (f" {part}" if part else "")
    return f"{name}: {DATASETS[name].description.split('.')[0]}" if name in DATASETS else name


def sets_for_pair(languages: Languages) -> list[TestSet]:
    """Every sacreBLEU set with this pair, newest first (none when a side's language is not known)."""
    if None in languages:
        return []
    found = []
    for name in sorted(DATASETS, reverse=True):
        if pair := _langpair(name, languages):
            found.append(TestSet(name, pair))
    return found


def _langpair(name: str, languages: Languages) -> str | None:
    """The set's language pair that is ``languages``' (the codes compared as languages: fra is fr), or None."""
    wanted = tuple(language_key(code) for code in languages)
    for pair in DATASETS[name].langpairs:
        sides = pair.split("-")
        if len(sides) == 2 and tuple(language_key(code) for code in sides) == wanted:
            return pair
    return None


def find(name: str, languages: Languages) -> TestSet:
    """The set ``name`` for ``languages``; TestSetError when sacreBLEU has no such set, or not for that pair."""
    if name not in DATASETS:
        close = difflib.get_close_matches(name, list(DATASETS), n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else " `sacrebleu --list` lists them."
        raise TestSetError(f"sacreBLEU has no test set named {name!r}.{hint}")
    if None in languages:
        raise TestSetError(f"{name} has several language pairs, and this model does not say which it translates.")
    pair = _langpair(name, languages)
    if pair is None:
        pairs = ", ".join(sorted(DATASETS[name].langpairs))
        raise TestSetError(f"{name} has no {pair_name(languages)} text (its pairs: {pairs}).")
    return TestSet(name, pair)


def is_cached(test_set: TestSet) -> bool:
    """Whether sacreBLEU's cache holds the set's download, so reading it needs no network: each file it fetches is
    there and not empty, sacreBLEU's own test before it downloads (a failed try leaves only its lock file)."""
    dataset = DATASETS[test_set.name]
    raw = Path(SACREBLEU_DIR) / test_set.name / "raw"
    tarballs = [raw / dataset._get_tarball_filename(url) for url in dataset.data]  # sacreBLEU's own naming
    return all(t.is_file() and t.stat().st_size > 0 for t in tarballs)


def download_bytes(test_set: TestSet) -> int | None:
    """What fetching the set would download, from the servers' Content-Length (0 when cached; None when a server
    does not say or cannot be asked)."""
    if is_cached(test_set):
        return 0
    total = 0
    for url in DATASETS[test_set.name].data:
        try:
            with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=SIZE_TIMEOUT_S) as r:
                size = r.headers.get("Content-Length")
        except OSError:
            return None
        if size is None:
            return None
        total += int(size)
    return total


def read_test_set(test_set: TestSet, max_mb: float | None = None) -> tuple[list[str], list[list[str]]]:
    """The set's sources and, for each, every reference, fetched into sacreBLEU's cache first if need be (and only
    when its download is known to be within ``max_mb``, if given)."""
    if max_mb is not None and not is_cached(test_set):
        size = download_bytes(test_set)
        if size is None or size > max_mb * 1e6:
            said = "does not say its size" if size is None else f"is {size / 1e6:,.0f} MB to download"
            raise TestSetError(f"{test_set.label} ({test_set.name}) {said}; this server fetches test sets of at "
                               f"most {max_mb:g} MB.")
    dataset = DATASETS[test_set.name]
    if not is_cached(test_set):  # said where it happens: a command's terminal, a server's log
        print(f"Fetching {test_set.label} ({test_set.name}, {len(dataset.data)} file{'s' * (len(dataset.data) > 1)}) "
              f"into sacreBLEU's cache at {SACREBLEU_DIR} (once)…", file=sys.stderr, flush=True)
    try:
        sources = list(dataset.source(test_set.langpair))
        references = [[r.strip() for r in refs] for refs in dataset.references(test_set.langpair)]
    except (OSError, SystemExit) as e:  # a download that failed (sacreBLEU exits on a bad checksum)
        raise TestSetError(f"{test_set.name} is not in sacreBLEU's cache ({SACREBLEU_DIR}) and could not be "
                           f"downloaded ({e or 'see the log above'}). Connect to the internet once, or set SACREBLEU "
                           "to a cache that holds it.") from e
    if len(sources) != len(references) or not sources:
        raise TestSetError(f"{test_set.name} {test_set.langpair} in sacreBLEU's cache is incomplete; delete "
                           f"{Path(SACREBLEU_DIR) / test_set.name} and fetch it again.")
    return sources, references
