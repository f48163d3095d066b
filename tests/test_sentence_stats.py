"""models/analysis/sentence_stats.py: each statistic against a hand computation on a small word view."""
import math

import numpy as np
import pytest

from models.analysis.heatmaps import Heatmap
from models.analysis.sentence_stats import agreement, attention_stats

EOS = "</s>"


def view(rows, columns, weights) -> Heatmap:
    return Heatmap(tuple(rows), tuple(columns), (False,) * len(columns), np.array(weights, dtype=float), None)


def bits(*p: float) -> float:
    """−Σ p log2 p, written out."""
    return -sum(x * math.log2(x) for x in p if x > 0)


# "the black dog" → "le chien noir": the decoder reads the, dog, black — one step back after a step forward.
REORDERED = view(["le", "chien", "noir", EOS], ["the", "black", "dog", EOS],
                 [[0.9, 0.05, 0.05, 0.0],
                  [0.1, 0.1, 0.8, 0.0],
                  [0.0, 0.7, 0.2, 0.1],
                  [0.0, 0.0, 0.0, 1.0]])


def test_entropy_is_the_mean_over_written_words_of_their_rows_entropy_leaving_eos_out():
    expected = (bits(0.9, 0.05, 0.05) + bits(0.1, 0.1, 0.8) + bits(0.7, 0.2, 0.1)) / 3
    assert attention_stats(REORDERED).entropy == pytest.approx(expected, abs=1e-9)


def test_coverage_counts_each_source_word_up_to_once_and_not_the_end_of_sentence():
    # column sums over the three words: the 1.0, black 0.85, dog 1.05 → capped at 1
    assert attention_stats(REORDERED).coverage == pytest.approx((1.0 + 0.85 + 1.0) / 3, abs=1e-9)


def test_monotonicity_is_the_share_of_steps_moving_strictly_right():
    assert attention_stats(REORDERED).monotonicity == pytest.approx(1 / 2)  # the → dog (+), dog → black (−)
    stall = view(["a", "b", "c"], ["x", "y", EOS], [[0.9, 0.1, 0], [0.8, 0.2, 0], [0.1, 0.9, 0]])
    assert attention_stats(stall).monotonicity == pytest.approx(1 / 2)  # x → x stays, x → y moves


def test_a_sentence_without_words_has_no_statistics():
    only_eos = attention_stats(view([EOS], ["a", EOS], [[0.5, 0.5]]))
    assert all(math.isnan(v) for v in (only_eos.entropy, only_eos.coverage, only_eos.monotonicity))
    one = attention_stats(view(["un", EOS], ["a", EOS], [[1.0, 0.0], [0.0, 1.0]]))
    assert math.isnan(one.monotonicity) and one.coverage == 1.0 and one.entropy == 0.0


def test_agreement_of_two_views_by_hand():
    a = view(["un", "chien", EOS], ["a", "dog", EOS], [[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]])
    b = view(["un", "chien", EOS], ["a", "dog", EOS], [[1.0, 0, 0], [1.0, 0, 0], [0, 0, 1.0]])
    js, agree = agreement(a, b)
    assert js == pytest.approx((0 + 1) / 2)  # identical rows 0 bits, disjoint ones 1 bit
    assert agree == pytest.approx(1 / 2)
    half = view(["un", "chien", EOS], ["a", "dog", EOS], [[0.5, 0.5, 0], [0, 1.0, 0], [0, 0, 1.0]])
    # M = (0.75, 0.25): H(M) − (H(1, 0) + H(½, ½)) / 2
    assert agreement(a, half)[0] == pytest.approx((bits(0.75, 0.25) - (0 + 1) / 2) / 2, abs=1e-9)


def test_agreement_ignores_a_missing_end_of_sentence_row_but_not_other_words():
    plain = view(["un", EOS], ["a", EOS], [[0.8, 0.2], [0, 1.0]])
    shifted = view(["un"], ["a", EOS], [[0.6, 0.4]])  # read one step later: no row for the last piece
    assert agreement(plain, shifted)[1] == 1.0
    other = view(["une"], ["a", EOS], [[0.6, 0.4]])
    assert all(math.isnan(v) for v in agreement(plain, other))
