"""Parallel text as piece ids, tokenised once: flat arrays in memory, cached on disk.

A million pairs of 19-word sentences as Python lists of ints would take about 1.7 GB and a minute to tokenise on
two cores (measured on the Hansard: 58 s, 1.67 GB peak). :class:`TokenizedPairs` holds every sentence's ids end to
end in one int32 array with its start offsets (Hansard: 46 M ids, 190 MB), and :func:`cached_pairs` stores it as a
safetensors file keyed on the tokenizers, the length cap and the corpus files' bytes, so a restart, a resumed run
or a second model on the same tokenizers reads it back in about a second instead of tokenising again.
"""
from __future__ import annotations

import hashlib
import os
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file, save_file

from ..network.tokenization import SubwordTokenizer, TokenizerPair

Pair = tuple[list[int], list[int]]  # source ids (EOS included), target ids (no specials)
CACHE_FORMAT = "1"  # part of every key: bump it when the arrays' layout or the filtering changes
LINK_BASE = 256  # a link's code is s * LINK_BASE + t: pieces of a training pair are fewer (MAX_TRAIN_PIECES)
_CHUNK = 20_000  # lines handed to the tokenizer at once: its batch runs on every core, memory stays bounded


def _starts(lengths: np.ndarray) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])


def _gather(flat: np.ndarray, starts: np.ndarray, rows: np.ndarray,
            chunk: int = 50_000) -> tuple[np.ndarray, np.ndarray]:
    """The ``rows`` of a ragged array (flat values + starts [N+1]) as a new ragged array, in that order.

    Gathered ``chunk`` rows at a time: the int64 index arrays of a whole epoch at once (three of them, 46 M ids
    each) took over a gigabyte beside the ids themselves."""
    lengths = starts[rows + 1] - starts[rows]
    new_starts = _starts(lengths)
    out = np.empty(new_starts[-1], dtype=flat.dtype)
    for a in range(0, len(rows), chunk):
        part, n = rows[a : a + chunk], lengths[a : a + chunk]
        where = np.repeat(starts[part] - new_starts[a : a + len(part)], n) + np.arange(new_starts[a],
                                                                                      new_starts[a + len(part)])
        out[new_starts[a] : new_starts[a + len(part)]] = flat[where]
    return out, new_starts


@dataclass(frozen=True, eq=False)
class TokenizedPairs(Sequence):
    """N sentence pairs as ids: ``pairs[i]`` is a :data:`Pair`; the lengths are arrays for batching by length."""

    source: np.ndarray  # [pieces] int32: every source sentence's ids and its EOS, end to end
    source_starts: np.ndarray  # [N + 1] int64: sentence i is source[source_starts[i] : source_starts[i + 1]]
    target: np.ndarray  # [pieces] int32: every target sentence's ids (no specials)
    target_starts: np.ndarray  # [N + 1] int64
    #: Guided alignment's piece links of each pair, end to end, each ``s * LINK_BASE + t`` (source piece s, target
    #: piece t, 0-based); None for pairs trained without links (:mod:`models.train.alignment_links`).
    links: np.ndarray | None = None  # [links] int32
    links_starts: np.ndarray | None = None  # [N + 1] int64

    def __len__(self) -> int:
        return len(self.source_starts) - 1

    def __getitem__(self, i: int) -> Pair:
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        i %= len(self)
        s, t = self.source_starts, self.target_starts
        return self.source[s[i] : s[i + 1]].tolist(), self.target[t[i] : t[i + 1]].tolist()

    @property
    def source_lengths(self) -> np.ndarray:  # [N]
        return np.diff(self.source_starts)

    @property
    def target_lengths(self) -> np.ndarray:  # [N]
        return np.diff(self.target_starts)

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.source, self.source_starts, self.target, self.target_starts))

    def links_of(self, i: int) -> np.ndarray:
        """Pair ``i``'s piece links as rows ``(source piece, target piece)`` [n, 2]."""
        codes = self.links[self.links_starts[i] : self.links_starts[i + 1]]
        return np.stack([codes // LINK_BASE, codes % LINK_BASE], axis=1)

    def with_links(self, links: np.ndarray, links_starts: np.ndarray) -> TokenizedPairs:
        if len(links_starts) != len(self.source_starts):
            raise ValueError(f"links for {len(links_starts) - 1} pairs, but there are {len(self)}")
        return replace(self, links=links, links_starts=links_starts)

    def take(self, rows: np.ndarray) -> TokenizedPairs:
        """The pairs at ``rows`` (repeats allowed), in that order, with their links if they have them."""
        rows = np.asarray(rows, dtype=np.int64)
        links = (None, None) if self.links is None else _gather(self.links, self.links_starts, rows)
        return TokenizedPairs(*_gather(self.source, self.source_starts, rows),
                              *_gather(self.target, self.target_starts, rows), *links)

    @classmethod
    def concat(cls, parts: Sequence[TokenizedPairs]) -> TokenizedPairs:
        """The parts end to end: pair ``i`` of part ``k`` is pair ``sum(len(parts[:k])) + i``."""
        def joined(flat: str, starts: str) -> tuple[np.ndarray, np.ndarray]:
            lengths = np.concatenate([np.diff(getattr(p, starts)) for p in parts])
            return np.concatenate([getattr(p, flat) for p in parts]).astype(np.int32, copy=False), _starts(lengths)

        links = joined("links", "links_starts") if all(p.links is not None for p in parts) else (None, None)
        return cls(*joined("source", "source_starts"), *joined("target", "target_starts"), *links)

    def arrays(self) -> dict[str, np.ndarray]:
        return {"source": self.source, "source_starts": self.source_starts, "target": self.target,
                "target_starts": self.target_starts}


def _ids(tokenizer: SubwordTokenizer, lines: Sequence[str]) -> Iterator[list[int]]:
    """Each line's piece ids, a chunk of lines at a time (``encode_batch`` parallelises inside the chunk)."""
    for i in range(0, len(lines), _CHUNK):
        for encoding in tokenizer.backend.encode_batch(list(lines[i : i + _CHUNK]), add_special_tokens=False):
            yield encoding.ids


def tokenize_pairs(tokenizers: TokenizerPair, sources: Sequence[str], targets: Sequence[str],
                   max_len: int) -> TokenizedPairs:
    """Id pairs, dropping empty lines and pairs of ``max_len`` pieces or more on either side (the source's frame
    aside: its EOS, or a chat model's prompt around the sentence)."""
    src_flat, tgt_flat, src_lengths, tgt_lengths = array("i"), array("i"), array("q"), array("q")
    head, tail = tokenizers.source.frame
    for src, tgt in zip(_ids(tokenizers.source, sources), _ids(tokenizers.target, targets)):
        if 0 < len(src) < max_len and 0 < len(tgt) < max_len:
            src_flat.extend(head)
            src_flat.extend(src)
            src_flat.extend(tail)
            tgt_flat.extend(tgt)
            src_lengths.append(len(head) + len(src) + len(tail))
            tgt_lengths.append(len(tgt))
    as_numpy = lambda a, dtype: np.frombuffer(a, dtype=dtype).copy() if len(a) else np.zeros(0, dtype)  # noqa: E731
    return TokenizedPairs(as_numpy(src_flat, np.int32), _starts(as_numpy(src_lengths, np.int64)),
                          as_numpy(tgt_flat, np.int32), _starts(as_numpy(tgt_lengths, np.int64)))


def default_cache_dir() -> Path:
    """``$ATLAS_CACHE``, else ``$XDG_CACHE_HOME/attention-atlas``, else ``~/.cache/attention-atlas``."""
    if os.environ.get("ATLAS_CACHE"):
        return Path(os.environ["ATLAS_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "attention-atlas"


def cache_key(tokenizers: TokenizerPair, files: Sequence[Path], max_len: int) -> str:
    """A digest of everything the ids depend on: both tokenizers, the length cap and the text files' bytes."""
    digest = hashlib.sha256(f"pieces {CACHE_FORMAT} {max_len}".encode())
    for tokenizer in (tokenizers.source, tokenizers.target):
        digest.update(tokenizer.backend.to_str().encode())
    if tokenizers.source.frame != SubwordTokenizer.frame:  # a prompt around the sentence (keys made before stay)
        digest.update(repr(tokenizers.source.frame).encode())
    for file in files:
        with open(file, "rb") as f:
            digest.update(hashlib.file_digest(f, "sha256").digest())
    return digest.hexdigest()[:24]


def cached_pairs(tokenizers: TokenizerPair, name: str, files: Sequence[Path], read, max_len: int,
                 cache_dir: Path | None) -> TokenizedPairs:
    """The tokenised pairs of ``files`` (read into (sources, targets) by ``read()``), from the cache when there.

    ``name`` only makes the cache file readable (``{name}-{key}.safetensors``); ``cache_dir=None`` turns caching
    off. The file is written under a temporary name and renamed, so a run stopped mid-write leaves no half file.
    """
    if cache_dir is None:
        return tokenize_pairs(tokenizers, *read(), max_len)
    path = Path(cache_dir) / f"{name}-{cache_key(tokenizers, files, max_len)}.safetensors"
    if path.exists():
        return TokenizedPairs(**load_file(path))
    pairs = tokenize_pairs(tokenizers, *read(), max_len)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    save_file(pairs.arrays(), partial, metadata={"pairs": str(len(pairs)), "max_len": str(max_len)})
    os.replace(partial, path)
    return pairs
