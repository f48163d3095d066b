"""bench/kernels.py: the reference it compares against is correct, and its measurements run."""
import pytest
import torch

from bench import kernels as bench
from models.network.attention import build_attention
from models.network.tokenization import PAD_ID
from models.storage.data import batches
from models.storage.pieces import tokenize_pairs

from .helpers import make_model, synthetic_pairs


def test_naive_reference_matches_vectorised():
    torch.manual_seed(0)
    scorer = build_attention("additive", 8, 8, 4)
    q, k = torch.randn(2, 5, 8), torch.randn(2, 6, 8)
    fast, slow = scorer(q, k), bench.naive_forward(scorer, q, k)
    for a, b in zip(fast, slow, strict=True):  # context, weights, energies
        torch.testing.assert_close(a, b)


def test_peak_memory_sees_what_a_call_holds():
    """1×400×400, A=128: chunks of 16 MiB (sum, then tanh) must show; the whole 78 MiB broadcast twice must not."""
    measured = bench.peak_mib("vectorised", "additive", 1, 400, 400, "cpu")
    assert 16 < measured < 150


def test_timing_grows_with_the_work():
    """One thread, and the best of three medians for the small call: on a busy machine a tiny product spread over
    two threads can wait a whole time slice for the second one, which once made 4 × 10 look half as slow as 400²."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        small = min(bench.time_ms("vectorised", "additive", 1, 4, 10, "cpu", repeats=5) for _ in range(3))
        large = bench.time_ms("vectorised", "additive", 1, 400, 400, "cpu", repeats=5)
    finally:
        torch.set_num_threads(before)
    assert large > 5 * small  # 4,000× the energies


def test_sentence_of_has_the_asked_length():
    assert len(bench.sentence_of(50, ["a dog runs.", "two cats sleep"]).split()) == 50


@pytest.mark.parametrize("score", ["additive", "dot", "none"])
def test_stepwise_reference_matches_forward(tiny_tokenizers, score):
    """forward() reads out all steps at once; the reference one decode_step at a time — the same log-probabilities."""
    model = make_model(tiny_tokenizers, score).eval()
    pairs = tokenize_pairs(tiny_tokenizers, *zip(*synthetic_pairs(4)), max_len=50)
    src, mask, tgt_in, tgt_out = next(batches(pairs, 4))
    keep = tgt_out != PAD_ID
    assert not keep.all()  # the batch has padding to skip
    torch.testing.assert_close(model(src, mask, tgt_in)[keep].log_softmax(-1), bench.stepwise_log_probs(model, src, mask, tgt_in, keep))
    torch.testing.assert_close(model(src, mask, tgt_in, keep), model(src, mask, tgt_in)[keep])


def test_train_step_is_timed():
    """Forward, backward and Adam on 9.6M parameters and a 64×24×8,000 output take milliseconds, not microseconds."""
    assert 5 < bench.train_step_ms("dot", "all steps", "cpu", repeats=1) < 60_000


def test_attribution_bench_prints_a_row_per_sentence(capsys, monkeypatch):
    monkeypatch.setattr(bench, "ATTRIBUTION_SENTENCES", ("A dog runs.", "A man sleeps on the green grass."))
    bench.bench_attribution("dot", "cpu", repeats=1)
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [int(row.split(" | ")[0][2:]) for row in rows] == [len(s.split()) for s in bench.ATTRIBUTION_SENTENCES]
    assert all(float(x.replace(",", "")) > 0 for row in rows for x in row.strip(" |").split(" | ")[2:])
