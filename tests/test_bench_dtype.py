"""bench/dtype.py on a corpus of a few captions in Multi30k's layout: the stand-in trains, loads in both dtypes
through the app's loader, and the share of differing translations is reported for each direction."""
import gzip

from bench.dtype import bench_dtype

from .hf_helpers import ENGLISH, FRENCH, GERMAN


def test_the_two_dtypes_are_compared_on_every_test_sentence(tmp_path, capsys):
    for split in ("train", "test_2016_flickr"):
        for language, lines in (("en", ENGLISH), ("fr", FRENCH), ("de", GERMAN)):
            with gzip.open(tmp_path / f"{split}.{language}.gz", "wt", encoding="utf-8") as f:
                f.write("\n".join(lines * 12) + "\n")
    bench_dtype(str(tmp_path), steps=3, folder=tmp_path / "model", vocab_size=90)
    out = capsys.readouterr().out
    assert "trained 3 steps of 64 pairs" in out
    for target in ("fr", "de"):
        assert f"en→{target} float32: BLEU" in out and f"en→{target} bfloat16: BLEU" in out
        assert "greedy translations differ" in out.split(f"en→{target}: ")[1].splitlines()[0]
        assert "of 72 greedy" in out.split(f"en→{target}: ")[1].splitlines()[0]
