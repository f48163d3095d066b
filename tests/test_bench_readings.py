"""bench/readings.py: a row per sentence and matrix, each ratio the heatmap plus the matrix over the heatmap."""
import pytest

from bench import readings


def test_the_readings_bench_prints_a_ratio_per_sentence_and_matrix(capsys):
    rows = readings.bench_readings("transformer", "cpu", repeats=1)
    assert {row["matrix"] for row in rows} == {"full-context attention", "attention norm", "ALTI", "ALTI+ rollout",
                                               "attention rollout", "value zeroing", "gradient×input",
                                               "fit to human links", "position floor"}  # its probe, the floor
    assert len(rows) == 3 * 9
    for row in rows:
        assert row["plain"] > 0 and row["own"] > 0
        assert row["ratio"] == pytest.approx((row["plain"] + row["own"]) / row["plain"])
    assert capsys.readouterr().out.count("| value zeroing |") == 3
