"""Fixtures: tokenizers and a small model on the synthetic corpus of :mod:`tests.helpers`, and a corpus folder."""
from __future__ import annotations

import gzip
import os

import pytest
import torch

from models.network.seq2seq import Seq2Seq
from models.network.tokenization import SubwordTokenizer, TokenizerPair, train_tokenizer

from .helpers import make_model, make_transformer, synthetic_pairs


def threads_per_worker(cpus: int, workers: int) -> int:
    """Intra-op threads for each of ``workers`` test processes sharing ``cpus`` cores: torch's default (every core,
    in every worker) oversubscribes the machine under pytest-xdist — 14 workers × 16 threads on 16 cores made
    learning tests run past 100 s."""
    return max(1, cpus // max(1, workers))


def pytest_configure(config):
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1:
        torch.set_num_threads(threads_per_worker(os.cpu_count() or 1, workers))


@pytest.fixture(autouse=True)
def piece_cache(tmp_path_factory, monkeypatch):
    """The training command's piece cache in a folder of the test session's, never the user's ~/.cache."""
    folder = tmp_path_factory.getbasetemp() / "piece-cache"
    monkeypatch.setenv("ATLAS_CACHE", str(folder))
    return folder


@pytest.fixture(scope="session")
def tiny_tokenizers() -> TokenizerPair:
    pairs = synthetic_pairs(500)
    return TokenizerPair(
        SubwordTokenizer(train_tokenizer([s for s, _ in pairs], 120)),
        SubwordTokenizer(train_tokenizer([t for _, t in pairs], 120)),
    )


@pytest.fixture
def tiny_model(tiny_tokenizers) -> Seq2Seq:
    return make_model(tiny_tokenizers)


@pytest.fixture(params=["rnn", "transformer"])
def any_model(request, tiny_tokenizers):
    """A small model of each architecture: tests of the translator interface run on both."""
    return make_model(tiny_tokenizers) if request.param == "rnn" else make_transformer(tiny_tokenizers)


@pytest.fixture
def tiny_corpus(tmp_path):
    """A Multi30k-style folder: train/val/test_2016_flickr .en/.fr.gz files."""
    splits = {"train": synthetic_pairs(300, 1), "val": synthetic_pairs(40, 2),
              "test_2016_flickr": synthetic_pairs(40, 3)}
    for split, pairs in splits.items():
        for lang, col in (("en", 0), ("fr", 1)):
            with gzip.open(tmp_path / f"{split}.{lang}.gz", "wt", encoding="utf-8") as f:
                f.write("\n".join(p[col] for p in pairs) + "\n")
    return tmp_path
