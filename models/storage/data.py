"""Multi30k-style parallel text: ``{split}.{lang}.gz`` (or plain) files, one sentence a line.

Several corpora can be mixed for training (:class:`Corpus`, :func:`mix`), and a
split may come with every reference translation (``{split}.refs.jsonl.gz``, one
``{"en": …, "fr": [ … ]}`` object a line) for multi-reference scores.
"""
from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..network.tokenization import BOS_ID, EOS_ID, PAD_ID
from .pieces import Pair, TokenizedPairs


def split_file(data_dir: str | Path, split: str, lang: str) -> Path:
    """``{split}.{lang}.gz`` under ``data_dir``, else the plain ``{split}.{lang}``."""
    base = Path(data_dir) / f"{split}.{lang}"
    gz = base.with_name(base.name + ".gz")
    for path in (gz, base):
        if path.exists():
            return path
    raise FileNotFoundError(f"no {gz.name} or {base.name} in {data_dir}")


def read_split(data_dir: str | Path, split: str, lang: str) -> list[str]:
    """Lines of ``{split}.{lang}.gz`` (or ``{split}.{lang}``) under ``data_dir``."""
    path = split_file(data_dir, split, lang)
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return [line.rstrip("\n") for line in f]
    return path.read_text(encoding="utf-8").splitlines()


def read_parallel(data_dir: str | Path, split: str, src: str, tgt: str) -> tuple[list[str], list[str]]:
    sources, targets = read_split(data_dir, split, src), read_split(data_dir, split, tgt)
    if len(sources) != len(targets):
        raise ValueError(f"{split}: {len(sources)} {src} lines but {len(targets)} {tgt} lines")
    return sources, targets


def read_references(data_dir: str | Path, split: str, src: str, tgt: str) -> tuple[list[str], list[list[str]]]:
    """Sources and, for each, every reference: from ``{split}.refs.jsonl.gz`` if present and written in this
    direction (one source, a list of references), else the one line of the parallel files (the other way round, a
    source of several lines would be no one sentence)."""
    refs_file = Path(data_dir) / f"{split}.refs.jsonl.gz"
    rows = []
    if refs_file.exists():
        with gzip.open(refs_file, "rt", encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
    if not rows or not isinstance(rows[0][src], str):
        sources, targets = read_parallel(data_dir, split, src, tgt)
        return sources, [[t] for t in targets]
    return [r[src] for r in rows], [list(r[tgt]) for r in rows]


def reference_streams(references: list[list[str]]) -> list[list[str | None]]:
    """sacreBLEU's layout: stream k holds every sentence's k-th reference (None where a sentence has fewer)."""
    width = max(len(r) for r in references)
    return [[r[k] if k < len(r) else None for r in references] for k in range(width)]


@dataclass(frozen=True)
class Corpus:
    """One training source: a folder of ``{split}.{lang}.gz`` files and its share of each epoch."""

    path: Path
    train_split: str = "train"
    val_split: str = "val"
    weight: float = 1.0  # an epoch takes each pair this many times on average

    @property
    def name(self) -> str:
        return self.path.name

    @classmethod
    def parse(cls, spec: str, train_split: str = "train", val_split: str = "val") -> Corpus:
        """``DIR`` or ``DIR:weight=2,train=train,val=val`` (keys optional, in any order)."""
        path, _, options = spec.partition(":")
        values = dict(item.split("=", 1) for item in options.split(",") if item)
        unknown = set(values) - {"weight", "train", "val"}
        if unknown or not path:
            raise ValueError(f"bad corpus {spec!r}: expected DIR[:weight=W,train=SPLIT,val=SPLIT]")
        weight = float(values.get("weight", 1.0))
        if weight <= 0:
            raise ValueError(f"bad corpus {spec!r}: the weight must be positive")
        return cls(Path(path), values.get("train", train_split), values.get("val", val_split), weight)


def mix(parts: Sequence[TokenizedPairs], weights: Sequence[float], rng: np.random.Generator) -> TokenizedPairs:
    """One epoch's pairs: each part repeated ``int(weight)`` times plus a random ``weight % 1`` share of it."""
    taken = []
    for part, weight in zip(parts, weights):
        whole, fraction = divmod(weight, 1.0)
        share = rng.choice(len(part), round(fraction * len(part)), replace=False)
        taken.append(part.take(np.concatenate([np.tile(np.arange(len(part)), int(whole)), share])))
    return TokenizedPairs.concat(taken)


def batches(pairs: TokenizedPairs, batch_size: int, rng: np.random.Generator | None = None) -> Iterator[tuple]:
    """Padded ``(src [B,S], src_mask [B,S], tgt_in [B,T], tgt_out [B,T])`` batches, in :func:`batch_order`."""
    for rows in batch_order(pairs, batch_size, rng):
        yield pad([pairs[j] for j in rows])


def batch_order(pairs: TokenizedPairs, batch_size: int, rng: np.random.Generator | None = None,
                max_tokens: int | None = None) -> list[np.ndarray]:
    """Indices of ``pairs``, batch by batch, batched by length.

    Pairs are sorted by length inside windows of ``50 * batch_size`` so little is padded; with ``rng`` the windows
    and the batch order are shuffled. Batches hold ``batch_size`` pairs, or with ``max_tokens`` as many as fit in
    that many padded pieces (source + target with its EOS): long parliament sentences then come a few at a time,
    short captions many, and every step costs about the same.
    """
    order = np.arange(len(pairs))
    if rng is not None:
        rng.shuffle(order)
    src_len, tgt_len = pairs.source_lengths, pairs.target_lengths + 1
    window = 50 * batch_size
    chunks = []
    for i in range(0, len(order), window):
        part = order[i : i + window]
        part = part[np.lexsort((tgt_len[part], src_len[part]))]  # by source length, then target length
        cuts = range(0, len(part), batch_size) if max_tokens is None else _token_cuts(
            src_len[part], tgt_len[part], max_tokens)
        chunks += [part[a:b] for a, b in zip(cuts, [*cuts[1:], len(part)])]
    if rng is not None:
        chunks = [chunks[k] for k in rng.permutation(len(chunks))]
    return chunks


def _token_cuts(src_len: np.ndarray, tgt_len: np.ndarray, max_tokens: int) -> list[int]:
    """Where each batch starts among length-sorted pairs so that rows × (longest source + longest target) stays
    within ``max_tokens`` (a pair longer than that alone is a batch of its own)."""
    cuts, longest_src, longest_tgt = [0], 0, 0
    for i, (s, t) in enumerate(zip(src_len.tolist(), tgt_len.tolist())):
        longest_src, longest_tgt = max(longest_src, s), max(longest_tgt, t)
        if i > cuts[-1] and (i - cuts[-1] + 1) * (longest_src + longest_tgt) > max_tokens:
            cuts.append(i)
            longest_src, longest_tgt = s, t
    return cuts


def pad(group: Sequence[Pair]) -> tuple:
    S = max(len(s) for s, _ in group)
    T = max(len(t) for _, t in group) + 1
    src = torch.full((len(group), S), PAD_ID, dtype=torch.long)
    tgt_in = torch.full((len(group), T), PAD_ID, dtype=torch.long)
    tgt_out = torch.full((len(group), T), PAD_ID, dtype=torch.long)
    for b, (s, t) in enumerate(group):
        src[b, : len(s)] = torch.tensor(s)
        tgt_in[b, : len(t) + 1] = torch.tensor([BOS_ID, *t])
        tgt_out[b, : len(t) + 1] = torch.tensor([*t, EOS_ID])
    return src, src != PAD_ID, tgt_in, tgt_out
