"""models/storage/data.py: parallel files read in step; batches padded, masked and length-sorted."""
import gzip
import json
import random
from pathlib import Path

import pytest

from models.network.tokenization import BOS_ID, EOS_ID, PAD_ID
from models.storage.data import (
    Corpus,
    batches,
    mix,
    read_parallel,
    read_references,
    reference_streams,
    tokenize_pairs,
)

from .helpers import synthetic_pairs


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
    a, b = [([i], [i]) for i in range(10)], [([100 + i], [i]) for i in range(40)]
    epoch = mix([a, b], [2.0, 0.25], random.Random(0))
    assert sorted(epoch).count(a[3]) == 2 and len(epoch) == 20 + 10
    assert len({p[0][0] for p in epoch if p[0][0] >= 100}) == 10  # a quarter of b, without repeats
    assert mix([a, b], [2.0, 0.25], random.Random(0)) == epoch  # seeded: a resumed epoch is the same epoch


def test_every_reference_is_read_and_laid_out_for_sacrebleu(tmp_path):
    rows = [{"en": "Hi.", "fr": ["Salut.", "Bonjour."]}, {"en": "Run!", "fr": ["Cours !"]}]
    with gzip.open(tmp_path / "test.refs.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    sources, references = read_references(tmp_path, "test", "en", "fr")
    assert sources == ["Hi.", "Run!"] and references == [["Salut.", "Bonjour."], ["Cours !"]]
    assert reference_streams(references) == [["Salut.", "Cours !"], ["Bonjour.", None]]


def test_without_a_references_file_the_one_line_is_the_reference(tiny_corpus):
    sources, references = read_references(tiny_corpus, "val", "en", "fr")
    assert len(sources) == 40 and all(len(r) == 1 for r in references)
