"""bench/probe_seeds.py: a probe fit with several cross-validation seeds, one way and both ways, scored on test."""
import json

from bench.probe_seeds import bench_probe_seeds
from models.network.tokenization import TokenizerPair
from models.storage.hub import save_checkpoint

from .helpers import make_transformer
from .test_probe import gold_folder


def test_each_seed_is_fit_and_scored_both_ways_and_the_spread_printed(tiny_tokenizers, tmp_path, capsys):
    save_checkpoint(tmp_path / "fwd", make_transformer(tiny_tokenizers, seed=1), tiny_tokenizers)
    reverse = TokenizerPair(tiny_tokenizers.target, tiny_tokenizers.source)
    save_checkpoint(tmp_path / "rev", make_transformer(reverse, seed=2), reverse)
    gold = gold_folder(tmp_path / "gold", {"trial": 12, "test": 6})
    found = bench_probe_seeds(str(tmp_path / "fwd"), str(tmp_path / "rev"), str(gold), seeds=2)
    assert set(found) == {"one way", "both ways"} and all(len(aers) == 2 for aers in found.values())
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [p["way"] for p in printed if "seed" in p] == ["one way"] * 2 + ["both ways"] * 2
    assert all(0 <= p["test AER"] <= 100 for p in printed if "seed" in p)
    spread = {p["way"]: p for p in printed if "mean test AER" in p}
    assert spread["one way"]["min"] <= spread["one way"]["mean test AER"] <= spread["one way"]["max"]
