"""models/analysis/word_links.py: each extraction rule on a hand-made attention matrix."""
import numpy as np

from models.analysis.word_links import METHODS, above, columns_argmax, rows_argmax

ALPHA = np.array([  # 3 French words (rows) over 3 English words (columns)
    [0.7, 0.2, 0.1],
    [0.6, 0.3, 0.1],
    [0.1, 0.25, 0.65],
])


def test_each_direction_links_its_words_to_their_strongest_partner():
    assert rows_argmax(ALPHA) == {(0, 0), (0, 1), (2, 2)}  # (english, french): both French words 0, 1 → English 0
    assert columns_argmax(ALPHA) == {(0, 0), (1, 1), (2, 2)}  # English 1's strongest French word is 1 (0.3)


def test_intersection_and_union_combine_the_two_directions():
    assert METHODS["intersection"](ALPHA) == {(0, 0), (2, 2)}
    assert METHODS["union"](ALPHA) == {(0, 0), (0, 1), (1, 1), (2, 2)}


def test_threshold_keeps_every_pair_at_or_above_it():
    assert above(0.6)(ALPHA) == {(0, 0), (0, 1), (2, 2)}
    assert above(0.25)(ALPHA) == {(0, 0), (0, 1), (1, 1), (1, 2), (2, 2)}
    assert above(0.9)(ALPHA) == set()
