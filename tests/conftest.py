"""Shared fixtures: a tiny synthetic "English→French" corpus and a small model on it.

Nothing here reads ../shared: the corpus is written by the fixtures.
"""
from __future__ import annotations

import random

import pytest
import torch

from models.network.seq2seq import Seq2Seq
from models.network.tokenization import SubwordTokenizer, TokenizerPair, train_tokenizer

LEXICON = {
    "a": "un", "dog": "chien", "cat": "chat", "red": "rouge", "big": "grand", "man": "homme",
    "runs": "court", "sleeps": "dort", "on": "sur", "the": "le", "grass": "herbe", "beach": "plage",
}


def synthetic_pairs(n: int, seed: int = 0) -> list[tuple[str, str]]:
    """Word-for-word 'translations' whose target order is the source reversed."""
    rng = random.Random(seed)
    words = list(LEXICON)
    pairs = []
    for _ in range(n):
        src = [rng.choice(words) for _ in range(rng.randint(3, 6))]
        pairs.append((" ".join(src), " ".join(LEXICON[w] for w in reversed(src))))
    return pairs


@pytest.fixture(scope="session")
def tiny_tokenizers() -> TokenizerPair:
    pairs = synthetic_pairs(500)
    return TokenizerPair(
        SubwordTokenizer(train_tokenizer([s for s, _ in pairs], 120)),
        SubwordTokenizer(train_tokenizer([t for _, t in pairs], 120)),
    )


def make_model(tokenizers: TokenizerPair, score: str = "additive", seed: int = 0) -> Seq2Seq:
    torch.manual_seed(seed)
    return Seq2Seq(
        tokenizers.source.vocab_size, tokenizers.target.vocab_size, score=score,
        emb_dim=32, enc_hidden=32, dec_hidden=48, attn_dim=24, dropout=0.0,
    ).eval()


@pytest.fixture
def tiny_model(tiny_tokenizers) -> Seq2Seq:
    return make_model(tiny_tokenizers)


@pytest.fixture
def tiny_corpus(tmp_path):
    """A Multi30k-style folder: train/val/test_2016_flickr .en/.fr.gz files."""
    import gzip

    splits = {"train": synthetic_pairs(300, 1), "val": synthetic_pairs(40, 2), "test_2016_flickr": synthetic_pairs(40, 3)}
    for split, pairs in splits.items():
        for lang, col in (("en", 0), ("fr", 1)):
            with gzip.open(tmp_path / f"{split}.{lang}.gz", "wt", encoding="utf-8") as f:
                f.write("\n".join(p[col] for p in pairs) + "\n")
    return tmp_path
