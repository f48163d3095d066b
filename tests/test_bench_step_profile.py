"""bench/step_profile.py: FLOPs and times come out per operator, and the report reads them."""
import torch

from bench import throughput
from bench.step_profile import MATMULS, op_times, print_profile, square_rate


def test_a_products_flops_are_counted_from_its_shapes():
    a, b = torch.randn(32, 48), torch.randn(48, 64)
    ops = {o.name: o for o in op_times(lambda: a @ b, "cpu")}
    assert ops["aten::mm"].calls == 1
    assert ops["aten::mm"].flops == 2 * 32 * 48 * 64
    assert ops["aten::mm"].gflops_per_s > 0


def test_operators_come_slowest_first():
    a, b = torch.randn(256, 256), torch.randn(256, 256)
    ops = op_times(lambda: (a @ b, a + b), "cpu")
    assert [o.seconds for o in ops] == sorted((o.seconds for o in ops), reverse=True)


def test_square_rate_is_measured():
    assert square_rate("cpu", size=128, repeats=3) > 0


def test_profile_of_training_steps_reports_matrix_products(tiny_corpus, capsys):
    step = throughput.trainer(*throughput.training_pairs([str(tiny_corpus)]), 16, "cpu", "float32")
    print_profile(step, steps=2, device="cpu")
    out = capsys.readouterr().out
    assert "target pieces/s" in out and "MFLOP per target piece" in out
    rows = [line.split(" | ") for line in out.splitlines() if line.startswith("| aten::")]
    shares = [float(r[2].rstrip(" %")) for r in rows]
    assert 0 < sum(shares) <= 100.1 and shares == sorted(shares, reverse=True)
    rates = [float(r[3].rstrip(" |")) for r in rows if r[0].removeprefix("| ") in MATMULS]
    assert rates and max(rates) > 0  # a tiny product on a busy machine may print 0.0
