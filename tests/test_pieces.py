"""models/storage/pieces.py: pairs as flat id arrays, tokenised once and cached on the tokenizers and the text."""
import gzip

import numpy as np
import pytest

from models.network.tokenization import EOS_ID
from models.storage.data import read_parallel, split_file
from models.storage.pieces import TokenizedPairs, cache_key, cached_pairs, tokenize_pairs

from .helpers import id_pairs, synthetic_pairs


def test_tokenized_pairs_are_the_one_at_a_time_ids(tiny_tokenizers):
    sources, targets = zip(*synthetic_pairs(60))
    pairs = tokenize_pairs(tiny_tokenizers, [*sources, ""], [*targets, "un"], max_len=50)
    assert len(pairs) == 60  # the empty source is dropped
    for i, (s, t) in enumerate(zip(sources, targets)):
        assert pairs[i] == (tiny_tokenizers.source.ids(s) + [EOS_ID], tiny_tokenizers.target.ids(t))
    assert pairs.source_lengths.tolist() == [len(pairs[i][0]) for i in range(60)]
    assert pairs[-1] == pairs[59] and pairs[-60] == pairs[0]  # Python's negative indices, to the first pair
    for outside in (60, -61):
        with pytest.raises(IndexError, match=str(outside)):
            pairs[outside]


def test_pairs_at_the_length_cap_are_dropped(tiny_tokenizers):
    long = " ".join(["dog"] * 30)
    pairs = tokenize_pairs(tiny_tokenizers, ["a dog", long], ["un chien", "chien"], max_len=10)
    assert len(pairs) == 1 and pairs[0][1] == tiny_tokenizers.target.ids("un chien")


def test_the_cap_is_exclusive_on_each_side_and_one_piece_is_a_sentence(tiny_tokenizers):
    """A side of max_len − 1 pieces is kept, one of max_len dropped (either side); one piece is enough."""
    source, target = tiny_tokenizers.source, tiny_tokenizers.target
    one = next(w for w in ("dog", "cat", "man") if len(source.ids(w)) == 1)
    n = len(source.ids("dog dog dog"))  # the source's pieces (before its EOS)
    assert len(tokenize_pairs(tiny_tokenizers, ["dog dog dog"], ["chien"], max_len=n + 1)) == 1
    assert len(tokenize_pairs(tiny_tokenizers, ["dog dog dog"], ["chien"], max_len=n)) == 0
    m = len(target.ids("chien chien chien"))
    assert len(tokenize_pairs(tiny_tokenizers, ["dog"], ["chien chien chien"], max_len=m + 1)) == 1
    assert len(tokenize_pairs(tiny_tokenizers, ["dog"], ["chien chien chien"], max_len=m)) == 0
    kept = tokenize_pairs(tiny_tokenizers, [one], ["chien"], max_len=10)
    assert kept[0] == (source.ids(one) + [EOS_ID], target.ids("chien"))


def test_take_and_concat_keep_each_pair_whole():
    a = id_pairs([([1, 2], [3]), ([4], [5, 6, 7])])
    b = id_pairs([([8, 9, 10], [11])])
    both = TokenizedPairs.concat([a, b])
    assert [both[i] for i in range(3)] == [([1, 2], [3]), ([4], [5, 6, 7]), ([8, 9, 10], [11])]
    picked = both.take(np.array([2, 0, 2]))
    assert [picked[i] for i in range(3)] == [([8, 9, 10], [11]), ([1, 2], [3]), ([8, 9, 10], [11])]
    assert len(both.take(np.array([], dtype=np.int64))) == 0


def test_the_cache_is_read_back_instead_of_tokenising_again(tiny_tokenizers, tiny_corpus, tmp_path):
    files = [split_file(tiny_corpus, "train", lang) for lang in ("en", "fr")]
    calls = []

    def read():
        calls.append(1)
        return read_parallel(tiny_corpus, "train", "en", "fr")

    first = cached_pairs(tiny_tokenizers, "tiny-train", files, read, 64, tmp_path)
    second = cached_pairs(tiny_tokenizers, "tiny-train", files, read, 64, tmp_path)
    assert len(calls) == 1 and len(list(tmp_path.glob("tiny-train-*.safetensors"))) == 1
    assert [first[i] for i in range(len(first))] == [second[i] for i in range(len(second))]
    assert not list(tmp_path.glob("*.partial"))
    from safetensors import safe_open

    with safe_open(next(tmp_path.glob("tiny-train-*.safetensors")), "np") as f:  # what the file says it holds
        assert f.metadata() == {"pairs": str(len(first)), "max_len": "64"}


def test_the_key_changes_with_the_text_the_tokenizers_and_the_cap(tiny_tokenizers, tiny_corpus):
    files = [split_file(tiny_corpus, "train", lang) for lang in ("en", "fr")]
    key = cache_key(tiny_tokenizers, files, 64)
    assert cache_key(tiny_tokenizers, files, 64) == key
    assert cache_key(tiny_tokenizers, files, 32) != key
    swapped = type(tiny_tokenizers)(tiny_tokenizers.target, tiny_tokenizers.source)
    assert cache_key(swapped, files, 64) != key
    with gzip.open(files[1], "at", encoding="utf-8") as f:
        f.write("chien\n")
    assert cache_key(tiny_tokenizers, files, 64) != key


def test_without_a_cache_folder_nothing_is_written(tiny_tokenizers, tiny_corpus, tmp_path):
    files = [split_file(tiny_corpus, "train", lang) for lang in ("en", "fr")]
    pairs = cached_pairs(tiny_tokenizers, "x", files, lambda: read_parallel(tiny_corpus, "train", "en", "fr"), 64, None)
    assert len(pairs) == 300 and not list(tmp_path.rglob("*.safetensors"))


def test_gathering_in_chunks_is_gathering_at_once():
    from models.storage.pieces import _gather

    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 9, size=1000)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    flat = rng.integers(0, 100, size=starts[-1]).astype(np.int32)
    rows = rng.integers(0, 1000, size=2500)
    whole, whole_starts = _gather(flat, starts, rows, chunk=10**6)
    chunked, chunked_starts = _gather(flat, starts, rows, chunk=7)
    np.testing.assert_array_equal(whole, chunked)
    np.testing.assert_array_equal(whole_starts, chunked_starts)
    assert whole[whole_starts[3] : whole_starts[4]].tolist() == flat[starts[rows[3]] : starts[rows[3] + 1]].tolist()


def _retrained(tokenizer, lines, size):
    from models.network.tokenization import SubwordTokenizer, train_tokenizer

    return SubwordTokenizer(train_tokenizer(lines, size))


def test_a_retrained_target_tokenizer_is_tokenised_again_not_read_from_the_cache(tiny_tokenizers, tmp_path):
    """Same source tokenizer, a target one retrained with another vocabulary: the cache must not hand back the old
    target ids (the key covers both tokenizers)."""
    from models.network.tokenization import TokenizerPair

    text = tmp_path / "text.txt"
    pairs = synthetic_pairs(40, seed=6)
    text.write_text("\n".join(f"{s}\t{t}" for s, t in pairs), encoding="utf-8")
    read = lambda: ([s for s, _ in pairs], [t for _, t in pairs])  # noqa: E731
    first = cached_pairs(tiny_tokenizers, "c", [text], read, 64, tmp_path / "cache")
    target = _retrained(tiny_tokenizers.target, [t for _, t in synthetic_pairs(500)], 60)
    assert target.tokenizer.to_str() != tiny_tokenizers.target.tokenizer.to_str()
    retrained = TokenizerPair(tiny_tokenizers.source, target)
    again = cached_pairs(retrained, "c", [text], read, 64, tmp_path / "cache")
    assert [again[i][1] for i in range(len(again))] == [target.ids(t) for _, t in pairs]  # the new ids
    assert [again[i][0] for i in range(len(again))] == [first[i][0] for i in range(len(first))]
    assert len(list((tmp_path / "cache").glob("c-*.safetensors"))) == 2


def test_a_same_size_edit_of_the_text_is_tokenised_again(tiny_tokenizers, tmp_path):
    """An edit that keeps the file's size (and so any size-based key) still changes the ids read back: the key
    hashes the bytes."""
    text = tmp_path / "train.fr"
    lines = ["un chien court", "le chat dort"]
    text.write_text("\n".join(lines) + "\n", encoding="utf-8")
    read = lambda: (["a dog runs", "the cat sleeps"], text.read_text(encoding="utf-8").splitlines())  # noqa: E731
    before = cached_pairs(tiny_tokenizers, "c", [text], read, 64, tmp_path / "cache")
    size = text.stat().st_size
    text.write_text("un homme court\nle chat dort\n", encoding="utf-8")  # "chien" → "homme": five bytes for five
    assert text.stat().st_size == size
    after = cached_pairs(tiny_tokenizers, "c", [text], read, 64, tmp_path / "cache")
    assert after[0][1] == tiny_tokenizers.target.ids("un homme court") != before[0][1]


def test_ids_stay_int32_through_take_and_concat():
    """Python compares 3.0 == 3, so only the dtype shows a float array slipping in (twice the memory of int32)."""
    a = id_pairs([([1, 2], [3]), ([4], [5, 6, 7])])
    both = TokenizedPairs.concat([a, id_pairs([([8], [9])])])
    for pairs in (both, both.take(np.array([2, 0]))):
        assert pairs.source.dtype == pairs.target.dtype == np.int32
        assert pairs.source_starts.dtype == pairs.target_starts.dtype == np.int64


def test_the_cache_folder_is_atlas_cache_else_xdg_else_home(monkeypatch, tmp_path):
    from pathlib import Path

    from models.storage.pieces import default_cache_dir

    monkeypatch.setenv("ATLAS_CACHE", str(tmp_path / "atlas"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "atlas"
    monkeypatch.delenv("ATLAS_CACHE")
    assert default_cache_dir() == tmp_path / "xdg" / "attention-atlas"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == Path(tmp_path / "home" / ".cache" / "attention-atlas")


def test_another_length_cap_is_tokenised_again_into_a_folder_made_on_the_way(tiny_tokenizers, tmp_path):
    text = tmp_path / "text.txt"
    pairs = [("a dog", "un chien"), ("a big red dog runs on the grass", "un grand chien rouge court sur le herbe")]
    text.write_text("\n".join(f"{s}\t{t}" for s, t in pairs), encoding="utf-8")
    read = lambda: ([s for s, _ in pairs], [t for _, t in pairs])  # noqa: E731
    folder = tmp_path / "not" / "there" / "yet"
    assert len(cached_pairs(tiny_tokenizers, "c", [text], read, 64, folder)) == 2
    assert len(cached_pairs(tiny_tokenizers, "c", [text], read, 6, folder)) == 1  # the long pair is over 6 pieces
    assert len(list(folder.glob("c-*.safetensors"))) == 2


@pytest.mark.parametrize("sources, targets", [(["a dog", "a cat"], ["un chien", "un chat"]), ([""], ["un"]),
                                              (["a dog"], [""]), ([], [])])
def test_tokenised_pairs_have_their_dtypes_even_when_none_are_kept(tiny_tokenizers, sources, targets):
    pairs = tokenize_pairs(tiny_tokenizers, sources, targets, max_len=50)
    assert len(pairs) == len([s for s, t in zip(sources, targets) if s and t])  # an empty side drops the pair
    assert pairs.source.dtype == pairs.target.dtype == np.int32
    assert pairs.source_starts.dtype == pairs.target_starts.dtype == np.int64
    assert pairs.source_starts[0] == pairs.target_starts[0] == 0 and len(pairs.source_starts) == len(pairs) + 1
    assert pairs.nbytes == sum(a.nbytes for a in pairs.arrays().values())
