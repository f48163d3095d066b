"""bench/throughput.py: the training CLI's speed is reported per batch size, in sentences and pieces."""
import pytest

from bench import throughput


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_throughput_is_reported_per_batch_size(tiny_corpus, capsys, precision):
    throughput.bench_throughput([str(tiny_corpus)], [4, 8], steps=2, device="cpu", precision=precision)
    rows = [line.split(" | ") for line in capsys.readouterr().out.splitlines() if line.startswith("| ")][1:]
    assert [r[0] for r in rows] == ["| 4", "| 8"]
    for _, sentences, pieces in rows:
        assert float(pieces.rstrip(" |").replace(",", "")) > float(sentences)  # several pieces per sentence
