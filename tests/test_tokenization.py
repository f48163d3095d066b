"""models/network/tokenization.py: hostile text never crashes, unknowns are flagged, text round-trips."""
import pytest

from models.network.tokenization import EOS, EOS_ID, UNK_ID, WORD_MARK, InputError, SubwordTokenizer, word_groups

from .helpers import LEXICON

HOSTILE = {
    "emoji": "a dog 🐕 runs 🏃‍♂️",
    "cjk": "一只狗在草地上跑",
    "rtl": "كلب يركض على العشب",
    "html": '<script>alert("x")</script><b>a cat</b>',
    "control": "a\x00dog\x1b[31m runs\u202e",
    "long": "a big red dog runs on the grass " * 300,
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_text_tokenises(tiny_tokenizers, name):
    enc = tiny_tokenizers.source.encode(HOSTILE[name], 80)
    assert enc.ids[-1] == EOS_ID and len(enc.ids) <= 80
    assert len(enc.ids) == len(enc.pieces) == len(enc.surfaces) == len(enc.unknown)
    assert enc.unknown == tuple(i == UNK_ID for i in enc.ids)
    text = HOSTILE[name]
    assert all(s in text for s, p in zip(enc.surfaces[:-1], enc.pieces) if p != WORD_MARK)  # as typed
    decoded = tiny_tokenizers.source.decode(enc.ids).split()
    known = [w for w in text.split()[:10] if w in LEXICON]
    assert known == [w for w in decoded[: len(known) + 20] if w in LEXICON][: len(known)]


def test_unknown_pieces_keep_their_original_text(tiny_tokenizers):
    enc = tiny_tokenizers.source.encode("a dog 🐕", 80)
    assert "🐕" in [s for s, u in zip(enc.surfaces, enc.unknown) if u]


def test_long_text_is_truncated_and_says_so(tiny_tokenizers):
    assert tiny_tokenizers.source.encode(HOSTILE["long"], 80).truncated
    assert not tiny_tokenizers.source.encode("a dog", 80).truncated


@pytest.mark.parametrize("text", ["", " ", "\n\t  "])
def test_empty_text_is_refused_with_a_message(tiny_tokenizers, text):
    with pytest.raises(InputError, match="Type a sentence"):
        tiny_tokenizers.source.encode(text, 80)


def test_decoding_gives_normal_text(tiny_tokenizers):
    text = "le grand chien rouge court sur herbe"
    assert tiny_tokenizers.target.decode(tiny_tokenizers.target.ids(text)) == text


def test_specials_have_fixed_ids(tiny_tokenizers):
    assert tiny_tokenizers.target.pieces([0, 1, 2, 3]) == ["<pad>", "<unk>", "<s>", "</s>"]


def test_save_and_load(tmp_path, tiny_tokenizers):
    tiny_tokenizers.source.save(tmp_path / "t.json")
    again = SubwordTokenizer.load(tmp_path / "t.json")
    assert again.ids("a red dog") == tiny_tokenizers.source.ids("a red dog")


def test_word_groups_follow_the_word_marker():
    assert word_groups(["▁un", "▁chi", "en", "<unk>", "▁rouge", EOS]) == [[0], [1, 2, 3], [4], [5]]
