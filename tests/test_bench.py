"""models/bench.py: the reference it compares against is correct, and its measurements run."""
import torch

from models import bench
from models.attention import build_attention


def test_naive_reference_matches_vectorised():
    torch.manual_seed(0)
    scorer = build_attention("additive", 8, 8, 4)
    q, k = torch.randn(2, 5, 8), torch.randn(2, 6, 8)
    fast, slow = scorer(q, k), bench.naive_forward(scorer, q, k)
    torch.testing.assert_close(fast[0], slow[0])
    torch.testing.assert_close(fast[1], slow[1])


def test_measurements_are_positive():
    assert bench.time_ms("vectorised", "dot", 2, 3, 4, "cpu", repeats=2) > 0
    assert bench.peak_mib("vectorised", "additive", 1, 400, 400, "cpu") > 10  # ≥ the 400×400×128 broadcast


def test_sentence_of_has_the_asked_length():
    assert len(bench.sentence_of(50, ["a dog runs.", "two cats sleep"]).split()) == 50
