"""models/alignment.py: word merging keeps distributions, hard links are well-formed."""
import numpy as np
import pytest

from models.alignment import hard_alignments, pharaoh, piece_view, word_view
from models.decoding import forced, greedy
from models.tokenization import EOS

from .conftest import make_model


def test_word_view_merges_pieces(tiny_model, tiny_tokenizers):
    trace = forced(tiny_model, tiny_tokenizers, "a dog runs", "un chien court")
    words = word_view(trace)
    assert words.columns == ("a", "dog", "runs", EOS)
    assert words.rows == ("un", "chien", "court", EOS)
    np.testing.assert_allclose(words.weights.sum(1), 1, rtol=1e-5)


def test_word_view_sums_source_pieces_and_averages_target_pieces(tiny_model, tiny_tokenizers):
    trace = forced(tiny_model, tiny_tokenizers, "a dogdog runs", "un chienchien court")
    pieces, words = piece_view(trace), word_view(trace)
    assert len(pieces.columns) > len(words.columns) and len(pieces.rows) > len(words.rows)
    np.testing.assert_allclose(words.weights.sum(1), 1, rtol=1e-5)
    assert words.columns[1] == "dogdog"


def test_pharaoh_lists_each_target_word_once(tiny_model, tiny_tokenizers):
    view = word_view(greedy(tiny_model, tiny_tokenizers, "a big dog"))
    pairs = hard_alignments(view)
    assert len({t for _, t in pairs}) == len(pairs)
    text = pharaoh(pairs)
    assert all(a.isdigit() and b.isdigit() for a, b in (p.split("-") for p in text.split()))


def test_no_attention_has_no_view(tiny_tokenizers):
    trace = greedy(make_model(tiny_tokenizers, "none"), tiny_tokenizers, "a dog")
    with pytest.raises(ValueError, match="no attention"):
        word_view(trace)
