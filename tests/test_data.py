"""models/storage/data.py: parallel files read in step; batches padded, masked and length-sorted."""
import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from models.network.tokenization import BOS_ID, EOS_ID, PAD_ID
from models.storage.data import (
    Corpus,
    batch_order,
    batches,
    mix,
    read_parallel,
    read_references,
    reference_streams,
)
from models.storage.pieces import TokenizedPairs, tokenize_pairs

from .helpers import id_pairs, synthetic_pairs


def test_reads_both_sides_in_step(tiny_corpus):
    sources, targets = read_parallel(tiny_corpus, "val", "en", "fr")
    assert len(sources) == len(targets) == 40 and sources[0] == synthetic_pairs(40, 2)[0][0]


def test_unequal_sides_are_refused(tiny_corpus):
    with gzip.open(tiny_corpus / "val.fr.gz", "wt", encoding="utf-8") as f:
        f.write("un\n")
    with pytest.raises(ValueError):
        read_parallel(tiny_corpus, "val", "en", "fr")


def test_batches_are_padded_and_shifted(tiny_tokenizers):
    pairs = tokenize_pairs(tiny_tokenizers, *zip(*synthetic_pairs(40)), max_len=50)
    seen = 0
    for src, mask, tgt_in, tgt_out in batches(pairs, 8):
        assert (mask == (src != PAD_ID)).all() and (tgt_in[:, 0] == BOS_ID).all()
        for row_in, row_out in zip(tgt_in.tolist(), tgt_out.tolist()):
            n = row_out.index(EOS_ID)
            assert row_in[1 : n + 1] == row_out[:n]  # teacher forcing: the output is the input shifted by one
        seen += len(src)
    assert seen == 40


def test_corpus_specs():
    assert Corpus.parse("data/m30k") == Corpus(Path("data/m30k"))
    c = Corpus.parse("data/tatoeba:weight=0.5,val=dev", val_split="val")
    assert (c.name, c.train_split, c.val_split, c.weight) == ("tatoeba", "train", "dev", 0.5)
    for bad in ("", "x:colour=red", "x:weight=0", "x:weight"):
        with pytest.raises(ValueError):
            Corpus.parse(bad)


def test_mix_takes_each_part_by_its_weight():
    a = id_pairs([([i], [i]) for i in range(10)])
    b = id_pairs([([100 + i], [i]) for i in range(40)])
    epoch = mix([a, b], [2.0, 0.25], np.random.default_rng(0))
    sources = [epoch[i][0][0] for i in range(len(epoch))]
    assert sources.count(3) == 2 and len(epoch) == 20 + 10
    assert len({s for s in sources if s >= 100}) == 10  # a quarter of b, without repeats
    again = mix([a, b], [2.0, 0.25], np.random.default_rng(0))
    assert [again[i] for i in range(len(again))] == [epoch[i] for i in range(len(epoch))]  # a resumed epoch: same


def lengths_corpus(n: int = 400, seed: int = 0) -> TokenizedPairs:
    rng = np.random.default_rng(seed)
    return id_pairs([([5] * int(rng.integers(2, 60)), [6] * int(rng.integers(1, 60)))
                                      for _ in range(n)])


def test_batches_by_length_hold_every_pair_once_and_pad_little():
    pairs = lengths_corpus()
    order = batch_order(pairs, 16, np.random.default_rng(1))
    assert sorted(np.concatenate(order).tolist()) == list(range(len(pairs)))
    padded = sum(len(b) * pairs.source_lengths[b].max() for b in order)
    shuffled = np.random.default_rng(2).permutation(len(pairs))
    unsorted = sum(16 * pairs.source_lengths[shuffled[i : i + 16]].max() for i in range(0, len(pairs), 16))
    assert padded < 0.7 * unsorted  # sorted inside windows: far less padding than batches of random pairs


def test_token_batches_stay_within_their_budget():
    pairs = lengths_corpus()
    order = batch_order(pairs, 64, np.random.default_rng(1), max_tokens=400)
    assert sorted(np.concatenate(order).tolist()) == list(range(len(pairs)))
    sizes = [len(b) * (pairs.source_lengths[b].max() + pairs.target_lengths[b].max() + 1) for b in order]
    assert max(sizes) <= 400
    assert min(len(b) for b in order) < 6 < max(len(b) for b in order)  # long pairs a few at a time, short many
    # a pair longer than the budget is a batch of its own rather than lost
    huge = id_pairs([([5] * 300, [6] * 300), ([5] * 3, [6] * 3)])
    assert sorted(len(b) for b in batch_order(huge, 64, max_tokens=100)) == [1, 1]


def test_every_reference_is_read_and_laid_out_for_sacrebleu(tmp_path):
    rows = [{"en": "Hi.", "fr": ["Salut.", "Bonjour."]}, {"en": "Run!", "fr": ["Cours !"]}]
    with gzip.open(tmp_path / "test.refs.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    sources, references = read_references(tmp_path, "test", "en", "fr")
    assert sources == ["Hi.", "Run!"] and references == [["Salut.", "Bonjour."], ["Cours !"]]
    assert reference_streams(references) == [["Salut.", "Cours !"], ["Bonjour.", None]]


def test_read_the_other_way_a_references_file_gives_way_to_the_parallel_lines(tmp_path):
    """French→English on a set whose references file lists several French lines per English one: each French line
    is a source of its own, its English line the reference."""
    rows = [{"en": "Hi.", "fr": ["Salut.", "Bonjour."]}]
    with gzip.open(tmp_path / "test.refs.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write(json.dumps(rows[0], ensure_ascii=False) + "\n")
    for lang, lines in (("en", ["Hi."]), ("fr", ["Salut."])):
        with gzip.open(tmp_path / f"test.{lang}.gz", "wt", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    assert read_references(tmp_path, "test", "fr", "en") == (["Salut."], [["Hi."]])


def test_without_a_references_file_the_one_line_is_the_reference(tiny_corpus):
    sources, references = read_references(tiny_corpus, "val", "en", "fr")
    assert len(sources) == 40 and all(len(r) == 1 for r in references)
