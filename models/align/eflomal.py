"""eflomal (Östling & Tiedemann 2017) run on the gold's sentences and training corpora, tokenised the gold's way: the
statistical aligner's links, read by ``python -m models.align.statistical`` (its AER) and by a probe fit with
``--external eflomal`` (its links as features). eflomal and sacremoses are the ``aligner`` extra.
"""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

from ..datasets.named_corpora import resolve
from ..extras import require
from ..storage.data import Corpus, read_parallel
from ..storage.gold import GoldPair, Link
from ..storage.languages import EN_FR

_ELIDED = {"l'": "le", "d'": "de", "qu'": "que", "n'": "ne", "s'": "se", "j'": "je", "m'": "me", "t'": "te",
           "c'": "ce", "jusqu'": "jusque", "lorsqu'": "lorsque", "puisqu'": "puisque"}
_CONTRACTED = {"au": "à le", "aux": "à les", "du": "de le", "des": "de les"}
_HYPHEN = re.compile(r"(?<=\w)-(?=\w)")
Shares = dict[Link, float]  # one pair's links, each with the share of eflomal's runs that found it


class GoldStyle:
    """Raw sentences → the gold's whitespace tokens, one tokeniser per language."""

    def __init__(self):
        moses = require("sacremoses")
        self._moses = {lang: moses.MosesTokenizer(lang) for lang in ("en", "fr")}

    def __call__(self, text: str, lang: str) -> str:
        words = self._moses[lang].tokenize(_HYPHEN.sub(" - ", text.lower()), escape=False)
        if lang == "fr":
            words = [_CONTRACTED.get(w, _ELIDED.get(w, w)) for w in words]
        return " ".join(words)


def read_links(path: Path, last: int) -> list[set[Link]]:
    """The last ``last`` lines of an eflomal links file (Pharaoh ``i-j``, 0-based, source = English first)."""
    lines = path.read_text(encoding="utf-8").splitlines()[-last:]
    return [{tuple(int(x) for x in token.split("-")) for token in line.split()} for line in lines]


def align_with_eflomal(english: list[str], french: list[str], workdir: Path) -> tuple[Path, Path]:
    """Align tokenised sentence pairs; returns the forward and reverse links files."""
    forward, reverse = workdir / "forward.links", workdir / "reverse.links"
    aligner = require("eflomal").Aligner()
    aligner.align(english, french, links_filename_fwd=str(forward), links_filename_rev=str(reverse))
    return forward, reverse


def eflomal_links(sets: list[list[GoldPair]], corpora: list[tuple[list[str], list[str]]], runs: int = 1,
                  french_first: bool = False) -> list[tuple[list[Shares], list[Shares]]]:
    """eflomal's forward (English→French) and reverse links of each set of gold pairs, each link with its share of
    ``runs`` independent runs (eflomal samples, so one run's links differ from the next's), learnt with the
    ``corpora`` (English, French sentences) and every set's sentences — never their links — all tokenised the
    gold's way; each link (source word, target word) of the pairs as given: ``french_first`` where they read
    French→English. MissingExtra without eflomal or sacremoses."""
    style = GoldStyle()
    require("eflomal")
    gold = [q.reversed() if french_first else q for pairs in sets for q in pairs]  # English first, as the corpora
    english = [style(e, "en") for en, _ in corpora for e in en] + [" ".join(q.source).lower() for q in gold]
    french = [style(f, "fr") for _, fr in corpora for f in fr] + [" ".join(q.target).lower() for q in gold]
    drawn = []  # [runs] of (forward, reverse), each [len(gold)] sets
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            drawn.append([read_links(path, len(gold)) for path in align_with_eflomal(english, french, Path(tmp))])
    forward, reverse = ([shares([run[k][i] for run in drawn], french_first) for i in range(len(gold))] for k in (0, 1))
    found, first = [], 0
    for pairs in sets:
        found.append((forward[first : first + len(pairs)], reverse[first : first + len(pairs)]))
        first += len(pairs)
    return found


def shares(runs: list[set[Link]], turned: bool = False) -> Shares:
    """Each link found by any of ``runs`` (one pair's links in each), with the share of them that found it; each
    link turned round (target word first) where ``turned``."""
    return {link[::-1] if turned else link: sum(link in run for run in runs) / len(runs)
            for link in set().union(*runs)}


def read_corpora(specs: list[str]) -> list[tuple[list[str], list[str]]]:
    """Parallel English–French training corpora by folder or name (their ``train`` split)."""
    return [read_parallel(Corpus.parse(resolve(spec, EN_FR)).path, "train", "en", "fr") for spec in specs]
