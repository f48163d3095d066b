"""bench/library.py: a row a step, each timed in fresh processes, saying that none imported Streamlit."""
from bench.__main__ import main


def test_the_import_and_the_five_lines_are_timed_without_streamlit(capsys):
    main(["library", "--repeats", "1"])
    rows = [line.split(" | ") for line in capsys.readouterr().out.splitlines() if line.startswith("| ")][1:]
    assert [r[0].strip("| ") for r in rows] == ["import the library", "the five lines"]
    assert all(float(r[1]) > 0 and r[4].strip(" |") == "no" for r in rows)
    assert float(rows[1][1]) > float(rows[0][1])  # the five lines include the import


def test_the_five_lines_run_in_a_given_interpreter():
    import sys

    from bench.library import five_lines_in
    from models import ROOT

    rows = five_lines_in(sys.executable, ROOT, ["additive", "fr-en-transformer"])  # tests/test_atlas.py: every one
    assert [ref for ref, _, _ in rows] == ["additive", "fr-en-transformer"]
    assert all(seconds > 0 and translation for _, seconds, translation in rows)
