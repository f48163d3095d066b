"""models/analysis/aer.py and models/storage/gold.py: AER worked by hand, its pairs' shares and a paired test of two
aligners on the same pairs, and gold files read as written."""
import numpy as np
import pytest

from models.analysis.aer import alignment_score, paired_difference
from models.storage.gold import format_links, parse_links, read_gold


def test_aer_of_a_hand_made_case():
    """Gold: Sure {(0,0), (1,1)}, Possible adds (1,2). Predicted: (0,0) right, (1,2) possible, (2,2) wrong.
    |A| = 3, |S| = 2, |A∩S| = 1, |A∩P| = 2: precision 2/3, recall 1/2, AER = 1 − 3/5 = 40 %."""
    sure, possible = parse_links("1-1 2-2 2p3")
    score = alignment_score([{(0, 0), (1, 2), (2, 2)}], [sure], [possible])
    assert score.precision == pytest.approx(200 / 3) and score.recall == pytest.approx(50.0)
    assert score.aer == pytest.approx(40.0) and score.links == 3


def test_perfect_and_empty_predictions():
    sure, possible = parse_links("1-1 2p2")
    assert alignment_score([{(0, 0)}], [sure], [possible]).aer == 0.0  # all Sure links, nothing wrong
    assert alignment_score([{(0, 0), (1, 1)}], [sure], [possible]).aer == 0.0  # a Possible link costs nothing
    empty = alignment_score([set()], [sure], [possible])
    assert empty.aer == 100.0 and empty.recall == 0.0


def test_sums_run_over_the_corpus_not_per_sentence():
    one, two = parse_links("1-1"), parse_links("1-1 2-2 3-3")
    score = alignment_score([{(0, 0)}, set()], [one[0], two[0]], [one[1], two[1]])
    assert score.recall == pytest.approx(25.0)  # 1 of 4 Sure links, not the mean of 100 % and 0 %


def test_each_pairs_share_sums_to_the_corpus_aer():
    one, two = parse_links("1-1 2p2"), parse_links("1-1 2-2 3-3")
    score = alignment_score([{(0, 0), (1, 1)}, {(0, 0), (2, 1)}], [one[0], two[0]], [one[1], two[1]])
    assert score.per_pair == ((3, 3), (2, 5))  # (|A∩S| + |A∩P|, |A| + |S|) of each pair
    agreed, total = np.sum(score.per_pair, axis=0)
    assert score.aer == pytest.approx(100 * (1 - agreed / total))


def counts(rng: np.random.Generator, right: float, pairs: int = 447) -> list[tuple[int, int]]:
    """Pairs of 4–40 links (|A| + |S|), each agreeing with the gold at about the share ``right``."""
    total = rng.integers(4, 40, pairs)
    return [(int(rng.binomial(t, right)), int(t)) for t in total]


def test_a_paired_test_finds_a_real_difference_and_not_a_made_up_one():
    rng = np.random.default_rng(3)
    good, bad = counts(rng, 0.9), counts(rng, 0.8)
    apart = paired_difference(good, bad)
    assert apart.lower and not apart.higher and apart.low < apart.points < apart.high < 0
    assert paired_difference(bad, good).higher
    same = paired_difference(good, good)
    assert same.points == 0 and not same.lower and not same.higher
    # one pair's worth of difference over 447 pairs is within chance: neither better nor worse
    nudged = [good[0], *[(a - 1, t) if n == 0 and a else (a, t) for n, (a, t) in enumerate(good[1:])]]
    close = paired_difference(nudged, good)
    assert close.points > 0 and not close.higher and not close.lower


def test_a_paired_test_refuses_different_pairs():
    with pytest.raises(ValueError, match="the same pairs"):
        paired_difference([(1, 2)], [(1, 2), (2, 3)])


def test_gold_files_are_read_and_written_in_their_own_format(tmp_path):
    (tmp_path / "t.en").write_text("the house .\nyes\n")
    (tmp_path / "t.fr").write_text("la maison .\noui\n")
    (tmp_path / "t.gold").write_text("1-1 2-2 3-3 1p2\n1-1\n")
    pairs = read_gold(tmp_path, "t")
    assert pairs[0].source == ("the", "house", ".") and pairs[1].target == ("oui",)
    assert pairs[0].sure == {(0, 0), (1, 1), (2, 2)} and pairs[0].possible == pairs[0].sure | {(0, 1)}
    assert format_links(pairs[0].sure) == "1-1 2-2 3-3"
    (tmp_path / "t.gold").write_text("1-1 2-5\n1-1\n")
    with pytest.raises(ValueError, match="past the end"):
        read_gold(tmp_path, "t")
