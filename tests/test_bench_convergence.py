"""bench/convergence.py: a row per number of path points; more points, a smaller gap, the same change."""
from bench import convergence


def test_completeness_bench_prints_a_shrinking_gap_and_a_fixed_change(capsys, monkeypatch):
    monkeypatch.setattr(convergence, "ATTRIBUTION_SENTENCES", ("A dog runs.", "A man sleeps on the green grass."))
    convergence.bench_completeness("dot", "cpu", points=(2, 16))
    rows = [line.strip(" |").split(" | ") for line in capsys.readouterr().out.splitlines()
            if line.startswith("| ") and line[2].isdigit()]
    assert [int(row[0]) for row in rows] == [2, 16]
    (gap_2, change_2), (gap_16, change_16) = ((float(row[1]), float(row[2])) for row in rows)
    assert gap_16 < gap_2 / 2
    assert abs(change_2 - change_16) < 0.05 and change_2 > 1  # the change is the model's, not the integral's
