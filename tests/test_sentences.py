"""models/datasets/sentences.py: every way a pasted text or an upload is read, or refused with its reason."""
import codecs

import pytest

from models.datasets.sentences import (
    MAX_BYTES,
    MAX_LINE_CHARS,
    SentencesError,
    as_text,
    found_test_sets,
    parse_lines,
    read_folder,
    with_links,
)


def test_sources_alone_and_blank_and_over_long_lines_skipped_and_counted():
    text = "A dog runs.\n\n   \nA cat sleeps.\n" + "x" * (MAX_LINE_CHARS + 1) + "\n"
    found = parse_lines(text, "pasted")
    assert found.sources == ("A dog runs.", "A cat sleeps.") and found.references is None
    assert (found.blank, found.too_long) == (2, 1)
    assert found.skipped == f"Skipped 2 blank lines and 1 over-long (> {MAX_LINE_CHARS:,} characters) line."


def test_source_tab_reference():
    found = parse_lines("A dog runs.\tUn chien court.\r\nA cat.\tUn chat.\n", "pairs.tsv")
    assert found.sources == ("A dog runs.", "A cat.")
    assert found.references == (("Un chien court.",), ("Un chat.",)) and found.skipped == ""


@pytest.mark.parametrize("text", ["a\tb\nc\n", "a\tb\tc\n", "a\t\n", "a\tb\n\tc\n"])
def test_a_tsv_with_wrong_columns_names_the_line(text):
    with pytest.raises(SentencesError, match=r"Line \d+.*two columns"):
        parse_lines(text, "bad.tsv")


def test_nothing_to_translate():
    with pytest.raises(SentencesError, match="no sentence"):
        parse_lines("\n \n", "empty")


def test_text_in_utf8_with_or_without_a_mark_and_utf16_with_one():
    assert as_text("Où est-il ?".encode()) == "Où est-il ?"
    assert as_text(codecs.BOM_UTF8 + "Où".encode()) == "Où"
    assert as_text("Où 🐕".encode("utf-16")) == "Où 🐕"


@pytest.mark.parametrize("data", [bytes(range(256)) * 4, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
                                  "Où est-il ?".encode("latin-1"), b"abc\x00def"])
def test_binary_or_another_encoding_is_refused(data):
    with pytest.raises(SentencesError, match="not text in UTF-8"):
        as_text(data)


def test_a_file_over_the_cap_is_refused_before_it_is_read():
    with pytest.raises(SentencesError, match=r"20\.0 MB.*10 MB"):
        as_text(b"A dog runs.\n" * (20_000_000 // 12 + 1))
    assert MAX_BYTES == 10_000_000


def test_links_are_read_for_each_pair_in_the_gold_format():
    pairs = parse_lines("the black cat\tle chat noir\na dog\tun chien\n", "pairs.tsv")
    found = with_links(pairs, b"1-1 2-3 3-2 2p2\n1-1 2-2\n")
    assert found.gold[0].source == ("the", "black", "cat") and found.gold[0].target == ("le", "chat", "noir")
    assert found.gold[0].sure == {(0, 0), (1, 2), (2, 1)} and (1, 1) in found.gold[0].possible
    assert found.gold[1].sure == {(0, 0), (1, 1)}


@pytest.mark.parametrize("links, message", [(b"1-1\n", "has 1 lines but there are 2"),
                                            (b"1-1\n1-9\n", "line 2 points past the end"),
                                            (b"1-1\nx-y\n", "line 2 is not in the gold's format")])
def test_links_that_do_not_match_their_sentences_are_refused(links, message):
    pairs = parse_lines("the black cat\tle chat noir\na dog\tun chien\n", "pairs.tsv")
    with pytest.raises(SentencesError, match=message):
        with_links(pairs, links)


def test_links_need_references():
    with pytest.raises(SentencesError, match="reference"):
        with_links(parse_lines("a dog\n", "sources"), b"1-1\n")


def test_a_data_folder_split_and_a_gold_folder(tiny_corpus, tmp_path):
    found = read_folder(tiny_corpus, "test_2016_flickr")
    assert len(found) == 40 and len(found.references[0]) == 1 and found.gold is None
    gold = tmp_path / "hansards-en-fr-align"
    gold.mkdir()
    for ext, text in (("en", "a dog runs .\n"), ("fr", "un chien court .\n"), ("gold", "1-1 2-2 3-3 4p4\n")):
        (gold / f"test.{ext}").write_text(text)
    read = read_folder(gold, "test")
    assert read.sources == ("a dog runs .",) and read.references == (("un chien court .",),)
    assert read.gold[0].sure == {(0, 0), (1, 1), (2, 2)}
    (tmp_path / "multi30k").symlink_to(tiny_corpus)
    assert {str(f.name): s for f, s in found_test_sets(tmp_path).values()} == {
        "multi30k": "test_2016_flickr", "hansards-en-fr-align": "test"}
