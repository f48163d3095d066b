"""bench/sharpness.py: one row per corpus, read from its validation split, in range; then one row per point
of the checkpoint's training record."""
import gzip

import pytest

from bench import sharpness
from models.storage.hub import load_model
from models.storage.records.timeline import read_timeline


def test_sharpness_bench_prints_a_row_per_corpus(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sharpness, "SENTENCES", 3)
    for name, lines in (("captions", ["A dog runs on the beach.", "Two men play football.", "A girl sings.", "x"]),
                        ("everyday", ["I love you.", "It is raining today.", "Where is the station?"])):
        (tmp_path / name).mkdir()
        with gzip.open(tmp_path / name / "val.en.gz", "wt", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    sharpness.bench_sharpness("dot", [str(tmp_path / "captions") + ":weight=2", str(tmp_path / "everyday")], "cpu")
    tables = capsys.readouterr().out.split("over training")
    rows = [line.strip(" |").split(" | ") for line in tables[0].splitlines()
            if line.startswith("| ") and not line.startswith("| corpus")]
    assert [row[0] for row in rows] == ["captions", "everyday"]
    for _, n, max_weight, entropy, uniform, spread in rows:
        assert int(n) >= 3  # at least one written piece per sentence, only the first 3 sentences
        assert 0 < float(max_weight) <= 1 and 0 <= float(entropy) <= float(uniform) and float(spread) > 0
    points = [line.strip(" |").split(" | ") for line in tables[1].splitlines() if line.startswith("| epoch")]
    assert len(points) == len(read_timeline(load_model("dot").path).points)
    assert all(0 < float(bits) < 5 for _, _, bits in points)


def test_a_model_without_attention_is_refused_with_a_reason():
    with pytest.raises(SystemExit, match="no attention"):
        sharpness.bench_sharpness("none", [], "cpu")
