"""bench/pieces.py: the table of tokenising into a cold cache, reading back from it and mixing an epoch."""
from bench.__main__ import main


def test_pieces_are_tokenised_then_read_back_and_mixed(tiny_corpus, capsys):
    main(["pieces", "--data", f"{tiny_corpus}:weight=2"])
    rows = [line.split(" | ") for line in capsys.readouterr().out.splitlines() if line.startswith("| ")][1:]
    assert [r[0].strip("| ") for r in rows] == ["tokenise (cold cache)", "read back (warm cache)", "one epoch's mix"]
    assert rows[0][2] == rows[1][2] == "300" and rows[2][2] == "600"  # the same pairs back; weight 2: twice
