"""Multi30k-style parallel text: ``{split}.{lang}.gz`` (or plain) files, one sentence a line.

Several corpora can be mixed for training (:class:`Corpus`, :func:`mix`), and a
split may come with every reference translation (``{split}.refs.jsonl.gz``, one
``{"en": …, "fr": [ … ]}`` object a line) for multi-reference scores.
"""
from __future__ import annotations

import gzip
import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from ..network.tokenization import BOS_ID, EOS_ID, PAD_ID, TokenizerPair

Pair = tuple[list[int], list[int]]  # source ids (EOS included), target ids (no specials)


def read_split(data_dir: str | Path, split: str, lang: str) -> list[str]:
    """Lines of ``{split}.{lang}.gz`` (or ``{split}.{lang}``) under ``data_dir``."""
    base = Path(data_dir) / f"{split}.{lang}"
    gz = base.with_name(base.name + ".gz")
    if gz.exists():
        with gzip.open(gz, "rt", encoding="utf-8") as f:
            return [line.rstrip("\n") for line in f]
    if base.exists():
        return base.read_text(encoding="utf-8").splitlines()
    raise FileNotFoundError(f"no {gz.name} or {base.name} in {data_dir}")


def read_parallel(data_dir: str | Path, split: str, src: str, tgt: str) -> tuple[list[str], list[str]]:
    sources, targets = read_split(data_dir, split, src), read_split(data_dir, split, tgt)
    if len(sources) != len(targets):
        raise ValueError(f"{split}: {len(sources)} {src} lines but {len(targets)} {tgt} lines")
    return sources, targets


def read_references(data_dir: str | Path, split: str, src: str, tgt: str) -> tuple[list[str], list[list[str]]]:
    """Sources and, for each, every reference: from ``{split}.refs.jsonl.gz`` if present, else the one line."""
    refs_file = Path(data_dir) / f"{split}.refs.jsonl.gz"
    if not refs_file.exists():
        sources, targets = read_parallel(data_dir, split, src, tgt)
        return sources, [[t] for t in targets]
    with gzip.open(refs_file, "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
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


def mix(parts: Sequence[Sequence[Pair]], weights: Sequence[float], rng: random.Random) -> list[Pair]:
    """One epoch's pairs: each part repeated ``int(weight)`` times plus a random ``weight % 1`` share of it."""
    epoch: list[Pair] = []
    for pairs, weight in zip(parts, weights):
        whole, fraction = divmod(weight, 1.0)
        epoch += list(pairs) * int(whole) + rng.sample(list(pairs), round(fraction * len(pairs)))
    return epoch


def tokenize_pairs(
    tokenizers: TokenizerPair, sources: Sequence[str], targets: Sequence[str], max_len: int
) -> list[Pair]:
    """Id pairs, dropping empty lines and pairs longer than ``max_len`` pieces."""
    pairs = []
    for s, t in zip(sources, targets):
        src, tgt = tokenizers.source.ids(s), tokenizers.target.ids(t)
        if 0 < len(src) < max_len and 0 < len(tgt) < max_len:
            pairs.append((src + [EOS_ID], tgt))
    return pairs


def batches(pairs: Sequence[Pair], batch_size: int, rng: random.Random | None = None) -> Iterator[tuple]:
    """Padded ``(src [B,S], src_mask [B,S], tgt_in [B,T], tgt_out [B,T])`` batches, in :func:`batch_order`."""
    for chunk in batch_order(pairs, batch_size, rng):
        yield pad([pairs[j] for j in chunk])


def batch_order(pairs: Sequence[Pair], batch_size: int, rng: random.Random | None = None) -> list[list[int]]:
    """Indices of ``pairs``, batch by batch.

    Pairs are sorted by length inside windows of 50 batches so little is padded;
    with ``rng`` the windows and the batch order are shuffled.
    """
    order = list(range(len(pairs)))
    if rng is not None:
        rng.shuffle(order)
    window = 50 * batch_size
    chunks = []
    for i in range(0, len(order), window):
        part = sorted(order[i : i + window], key=lambda j: (len(pairs[j][0]), len(pairs[j][1])))
        chunks += [part[k : k + batch_size] for k in range(0, len(part), batch_size)]
    if rng is not None:
        rng.shuffle(chunks)
    return chunks


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
