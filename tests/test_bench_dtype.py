"""bench/dtype.py on a corpus of a few captions in Multi30k's layout: the stand-in trains, loads in both dtypes
through the app's loader, and the share of differing translations is reported for each direction."""
import gzip

from bench.dtype import bench_dtype

from .hf_helpers import ENGLISH, FRENCH, GERMAN


def _captions(tmp_path) -> None:
    for split in ("train", "test_2016_flickr"):
        for language, lines in (("en", ENGLISH), ("fr", FRENCH), ("de", GERMAN)):
            with gzip.open(tmp_path / f"{split}.{language}.gz", "wt", encoding="utf-8") as f:
                f.write("\n".join(lines * 12) + "\n")


def test_the_two_dtypes_are_compared_on_every_test_sentence(tmp_path, capsys):
    _captions(tmp_path)
    bench_dtype(str(tmp_path), steps=3, folder=tmp_path / "model", vocab_size=90)
    out = capsys.readouterr().out
    assert "trained 3 steps of 64 pairs" in out
    for target in ("fr", "de"):
        assert f"en→{target} float32: BLEU" in out and f"en→{target} bfloat16: BLEU" in out
        assert "greedy translations differ" in out.split(f"en→{target}: ")[1].splitlines()[0]
        assert "of 72 greedy" in out.split(f"en→{target}: ")[1].splitlines()[0]


def test_a_model_of_ones_own_is_set_to_each_pair_by_its_own_codes(tmp_path, capsys):
    from .hf_helpers import tiny_many_to_many

    _captions(tmp_path)
    bench_dtype(str(tmp_path), model=str(tiny_many_to_many(tmp_path / "nllb", "nllb")))
    out = capsys.readouterr().out
    assert "trained" not in out and "en→de: " in out and "of 72 greedy translations differ" in out
