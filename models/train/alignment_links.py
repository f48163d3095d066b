"""Guided alignment's links for every training pair: eflomal (Östling & Tiedemann 2016) run over the run's training
corpora, its two directions symmetrised grow-diag-final, then mapped from words to the model's pieces — as
OPUS-MT-train prepares Marian's ``transformer-align`` and Garg et al. (2019) their supervised head.

Words are cut by the model's own tokenizer (its normaliser and pre-tokenizer: spaces and punctuation), lower-cased
for the aligner, so each piece's word is known exactly from the encoding and a link between two words becomes a
link between each of their pieces. The links are cached beside the pieces, keyed on the same tokenizers and text,
with the seconds they took.
"""
from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file, save_file

from ..extras import require
from ..network.tokenization import SubwordTokenizer, TokenizerPair
from ..nouns.link_rule import Links, grow_diag_final
from ..storage.pieces import LINK_BASE, TokenizedPairs, cache_key

_FORMAT = "1"


@dataclass(frozen=True)
class LinkRecipe:
    """How a run's links are made: eflomal's two directions, symmetrised by ``combine``."""

    name: str  # --guided-alignment's value
    words: str  # in the card's words; part of the cache key
    combine: Callable[[Links, Links], Links]  # (forward, reverse) → links


#: The links ``--guided-alignment`` names. grow-diag-final is what OPUS-MT-train gives Marian; the intersection
#: keeps only the links both directions agree on (eflomal's most precise: test AER 6.3 against 7.0, docs/results.md).
RECIPES = {r.name: r for r in (
    LinkRecipe("eflomal", "eflomal, grow-diag-final, over the training corpora", grow_diag_final),
    LinkRecipe("eflomal-intersection", "eflomal, intersection, over the training corpora", lambda f, r: f & r),
)}


@dataclass(frozen=True)
class Sentence:
    """One side of a pair as the aligner sees it: its words, and each piece's word (−1: a bare word marker)."""

    words: tuple[str, ...]
    piece_words: tuple[int, ...]


def sentences(tokenizer: SubwordTokenizer, lines: Sequence[str], chunk: int = 20_000) -> list[tuple[int, Sentence]]:
    """Each line's piece count and :class:`Sentence`, its words as the tokenizer's pre-tokenizer cuts them (read
    from the line through the pieces' offsets, so a piece the vocabulary lacks still brings its word)."""
    out = []
    for a in range(0, len(lines), chunk):
        for line, enc in zip(lines[a : a + chunk], tokenizer.tokenizer.encode_batch(list(lines[a : a + chunk]),
                                                                                   add_special_tokens=False)):
            spans: dict[int, tuple[int, int]] = {}  # each word's characters in the line (an unknown piece's too)
            for (start, end), w in zip(enc.offsets, enc.word_ids):
                first, last = spans.get(w, (start, end))
                spans[w] = (min(first, start), max(last, end))
            index, words = {}, []
            for w, (start, end) in spans.items():
                text = "".join(line[start:end].lower().split())
                if text:
                    index[w] = len(words)
                    words.append(text)
            out.append((len(enc.ids), Sentence(tuple(words), tuple(index.get(w, -1) for w in enc.word_ids))))
    return out


def piece_links(word_links: set[tuple[int, int]], source: Sentence, target: Sentence) -> np.ndarray:
    """Word links ``(english, french)`` as piece links, each coded ``s * LINK_BASE + t``."""
    src, tgt = ({}, {})
    for pieces, sentence in ((src, source), (tgt, target)):
        for k, w in enumerate(sentence.piece_words):
            pieces.setdefault(w, []).append(k)
    codes = [s * LINK_BASE + t for e, f in word_links for s in src.get(e, ()) for t in tgt.get(f, ())]
    return np.array(sorted(codes), dtype=np.int32)


def read_pharaoh(path: Path) -> list[set[tuple[int, int]]]:
    with open(path, encoding="utf-8") as f:
        return [{(int(a), int(b)) for a, b in (token.split("-") for token in line.split())} for line in f]


def align_corpus(tokenizers: TokenizerPair, texts: Sequence[tuple[list[str], list[str]]], max_len: int,
                 recipe: LinkRecipe) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each corpus's piece links (flat codes, starts [N + 1]) for the pairs :func:`~..storage.pieces.tokenize_pairs`
    keeps of it (the same filter), all corpora aligned together by eflomal and combined by ``recipe``."""
    kept = []  # per corpus: the kept pairs' (source, target) sentences
    for sources, targets in texts:
        pairs = zip(sentences(tokenizers.source, sources), sentences(tokenizers.target, targets))
        kept.append([(s, t) for (ns, s), (nt, t) in pairs if 0 < ns < max_len and 0 < nt < max_len])
    every = [pair for corpus in kept for pair in corpus]
    both = [n for n, (s, t) in enumerate(every) if s.words and t.words]  # the aligner takes no empty side
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        forward, reverse = Path(tmp) / "forward", Path(tmp) / "reverse"
        require("eflomal").Aligner().align([" ".join(every[n][0].words) for n in both],
                                           [" ".join(every[n][1].words) for n in both],
                                           links_filename_fwd=str(forward), links_filename_rev=str(reverse))
        print(f"eflomal: {len(both):,} pairs aligned in {time.monotonic() - started:.0f} s", file=sys.stderr)
        words = dict(zip(both, map(recipe.combine, read_pharaoh(forward), read_pharaoh(reverse))))
    links = [piece_links(words.get(n, set()), *pair) for n, pair in enumerate(every)]
    out, start = [], 0
    for corpus in kept:
        part = links[start : start + len(corpus)]
        start += len(corpus)
        lengths = np.array([len(x) for x in part], dtype=np.int64)
        flat = np.concatenate(part) if part else np.zeros(0, np.int32)
        out.append((flat.astype(np.int32), np.concatenate([[0], np.cumsum(lengths)])))
    return out


def linked_parts(parts: list[TokenizedPairs], tokenizers: TokenizerPair, files: Sequence[Sequence[Path]],
               read, max_len: int, cache_dir: Path | None,
               recipe: LinkRecipe) -> tuple[list[TokenizedPairs], float]:
    """``parts`` (each corpus's pairs) with guided alignment's links made by ``recipe``, from the cache when there;
    and the seconds making them took (when they were made, for the card)."""
    digest = hashlib.sha256(f"links {_FORMAT} {recipe.words}".encode())
    for corpus_files in files:
        digest.update(cache_key(tokenizers, corpus_files, max_len).encode())
    path = None if cache_dir is None else Path(cache_dir) / f"links-{digest.hexdigest()[:24]}.safetensors"
    if path is not None and path.exists():
        arrays = load_file(path)
        seconds = float(arrays.pop("seconds")[0])
        found = [(arrays[f"{k}.links"], arrays[f"{k}.starts"]) for k in range(len(parts))]
    else:
        started = time.monotonic()
        found = align_corpus(tokenizers, read(), max_len, recipe)
        seconds = time.monotonic() - started
        if path is not None:
            arrays = {f"{k}.{name}": a for k, pair in enumerate(found) for name, a in zip(("links", "starts"), pair)}
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
            save_file({**arrays, "seconds": np.array([seconds])}, partial)
            os.replace(partial, path)
    return [part.with_links(*pair) for part, pair in zip(parts, found)], seconds
