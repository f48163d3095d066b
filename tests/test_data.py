"""models/storage/data.py: parallel files read in step; batches padded, masked and length-sorted."""
import gzip

import pytest

from models.network.tokenization import BOS_ID, EOS_ID, PAD_ID
from models.storage.data import batches, read_parallel, tokenize_pairs

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
