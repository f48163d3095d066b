"""models/analysis/heatmaps.py: word merging keeps distributions, hard links are well-formed."""
import numpy as np
import pytest

from models.analysis.heatmaps import hard_alignments, pharaoh, piece_heatmap, step_of_row, word_heatmap
from models.decoding.greedy import forced, greedy
from models.network.tokenization import EOS, WORD_MARK, word_groups
from models.nouns.attention_map import RNN_READING

from .helpers import make_model


def test_word_view_merges_pieces(tiny_model, tiny_tokenizers):
    trace = forced(tiny_model, tiny_tokenizers, "a dog runs", "un chien court")
    words = word_heatmap(trace, trace.read(RNN_READING))
    assert words.columns == ("a", "dog", "runs", EOS)
    assert words.rows == ("un", "chien", "court", EOS)
    np.testing.assert_allclose(words.weights.sum(1), 1, rtol=1e-5)


def test_word_view_sums_source_pieces_and_averages_target_pieces(tiny_model, tiny_tokenizers):
    trace = forced(tiny_model, tiny_tokenizers, "a dogdog runs", "un chienchien court")
    pieces, words = piece_heatmap(trace, trace.read(RNN_READING)), word_heatmap(trace, trace.read(RNN_READING))
    src, tgt = word_groups(trace.source.pieces), word_groups(trace.target_pieces)
    assert len(src[1]) > 1 and len(tgt[1]) > 1, "the test needs multi-piece words on both sides"
    expected = np.array([[pieces.weights[np.ix_(t, s)].sum(1).mean() for s in src] for t in tgt])
    np.testing.assert_allclose(words.weights, expected, rtol=1e-6)
    assert words.columns[1] == "dogdog" and words.rows[1] == "chienchien"


def test_word_labels_never_show_the_word_marker(tiny_model, tiny_tokenizers):
    """A space before punctuation is a bare "▁" piece: it belongs to the next word, invisibly."""
    trace = forced(tiny_model, tiny_tokenizers, 'a "dog" & cat', 'un " chien " & chat')
    assert WORD_MARK in trace.source.pieces and WORD_MARK in trace.target_pieces
    words = word_heatmap(trace, trace.read(RNN_READING))
    assert words.columns[:4] == ("a", '"dog"', "&", "cat") and not any(WORD_MARK in w for w in words.rows)


def test_pharaoh_lists_each_target_word_once(tiny_model, tiny_tokenizers):
    trace = greedy(tiny_model, tiny_tokenizers, "a big dog")
    view = word_heatmap(trace, trace.read(RNN_READING))
    pairs = hard_alignments(view)
    assert len({t for _, t in pairs}) == len(pairs)
    text = pharaoh(pairs)
    assert all(a.isdigit() and b.isdigit() for a, b in (p.split("-") for p in text.split()))


def test_hard_alignments_link_each_target_word_to_its_argmax_leaving_eos_out():
    """By hand: rows are target words, columns source words; EOS on either side links nothing; Pharaoh writes
    source-target."""
    from models.analysis.heatmaps import Heatmap

    view = Heatmap(rows=("le", "chien", "noir", EOS), columns=("the", "black", "dog", EOS),
                         unknown=(False,) * 4, energies=None, weights=np.array([
                             [0.7, 0.1, 0.1, 0.1],
                             [0.1, 0.2, 0.6, 0.1],
                             [0.1, 0.1, 0.2, 0.6],  # "noir" reads EOS most: no link
                             [0.1, 0.8, 0.05, 0.05],  # the EOS row: no link
                         ]))
    assert hard_alignments(view) == [(0, 0), (2, 1)]
    assert pharaoh([(0, 0), (2, 1), (1, 2)]) == "0-0 2-1 1-2"


def test_no_attention_has_no_attention_to_read(tiny_tokenizers):
    trace = greedy(make_model(tiny_tokenizers, "none"), tiny_tokenizers, "a dog")
    with pytest.raises(ValueError, match="no attention"):
        trace.read(RNN_READING)


def test_a_heatmap_row_names_the_step_that_wrote_it():
    pieces = ("▁une", "▁ro", "be", "▁rouge", "</s>")
    assert [step_of_row(pieces, r, words=False) for r in range(5)] == [0, 1, 2, 3, 4]
    assert [step_of_row(pieces, r, words=True) for r in range(4)] == [0, 1, 3, 4]  # "robe" starts at step 1
    assert step_of_row(pieces, 9, words=True) is None and step_of_row(pieces, None, words=False) is None
