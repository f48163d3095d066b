"""models/analysis/lengths.py: Figure 2's finding, read from the by-length buckets, holds only when it holds."""
from models.analysis.lengths import LengthEnds, ends, figure_2_finding
from models.storage.records.evaluation import LengthBucket

BUCKETS = [LengthBucket(1, 9, 100, 7.2), LengthBucket(10, 14, 80, 6.7), LengthBucket(25, 1000, 12, 2.4)]


def label(bucket: LengthBucket) -> str:
    return f"{bucket.min_words}–{bucket.max_words}"


def test_the_ends_are_the_shortest_and_longest_buckets():
    assert ends(BUCKETS, label) == LengthEnds(7.2, 2.4, "1–9", "25–1000")


def test_attention_that_keeps_more_on_long_sentences_agrees():
    """The paper's shape: the gap grows (here 1.8× → 2.4× the no-attention model's BLEU)."""
    finding = figure_2_finding(LengthEnds(4.1, 1.0, "1–9", "25+"), {"additive": LengthEnds(7.2, 2.4, "1–9", "25+")})
    assert "agrees with the paper" in finding and "does not" not in finding
    assert "4.1 → 1.0 without attention" in finding and "additive 7.2 → 2.4 (1.8× → 2.4×" in finding


def test_one_attention_model_whose_gap_shrinks_breaks_it():
    without = LengthEnds(10.0, 5.0, "1–9", "25+")
    finding = figure_2_finding(without, {"additive": LengthEnds(20.0, 15.0, "1–9", "25+"),  # 2× → 3×
                                         "dot": LengthEnds(20.0, 8.0, "1–9", "25+")})  # 2× → 1.6×
    assert "does not agree with the paper" in finding


def test_a_zero_bleu_is_no_evidence_either_way():
    finding = figure_2_finding(LengthEnds(3.0, 0.0, "1–9", "25+"), {"dot": LengthEnds(6.0, 1.0, "1–9", "25+")})
    assert "does not agree" in finding and "—" in finding
