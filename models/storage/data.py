"""Multi30k-style parallel text: ``{split}.{lang}.gz`` (or plain) files, one sentence a line."""
from __future__ import annotations

import gzip
import random
from collections.abc import Iterator, Sequence
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
    """Padded ``(src [B,S], src_mask [B,S], tgt_in [B,T], tgt_out [B,T])`` batches.

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
    for chunk in chunks:
        yield _pad([pairs[j] for j in chunk])


def _pad(group: Sequence[Pair]) -> tuple:
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
