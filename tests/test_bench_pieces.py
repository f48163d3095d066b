"""bench/pieces.py: the table of tokenising into a cold cache, reading back from it and mixing an epoch."""
from bench.__main__ import main


def test_pieces_are_tokenised_then_read_back_and_mixed(tiny_corpus, capsys):
    main(["pieces", "--data", f"{tiny_corpus}:weight=2"])
    rows = [line.split(" | ") for line in capsys.readouterr().out.splitlines() if line.startswith("| ")][1:]
    assert [r[0].strip("| ") for r in rows] == ["tokenise (cold cache)", "read back (warm cache)", "one epoch's mix"]
    assert rows[0][2] == rows[1][2] == "300" and rows[2][2] == "600"  # the same pairs back; weight 2: twice


def test_vocabulary_rows_count_pieces_per_word(tiny_corpus, tiny_tokenizers, tmp_path, capsys):
    tiny_tokenizers.save(tmp_path)
    main(["vocab", "--data", str(tiny_corpus), "--tokenizers", str(tmp_path)])
    row = [line for line in capsys.readouterr().out.splitlines() if line.startswith(f"| {tmp_path}")][0].split(" | ")
    assert float(row[2]) >= 1.0 and row[3] == "0.00%"  # every word at least one piece; the corpus's own words
