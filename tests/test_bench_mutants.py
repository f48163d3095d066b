"""bench/mutants.py: which tests mutate a module, how mutmut's record is read, and the equivalent-mutant list.

The mutation run itself takes minutes (its figures are in docs/testing.md); these check the parts around it."""
import json
import tomllib

import pytest

from bench import mutants

TESTING_DOC = (mutants.ROOT / "docs" / "testing.md").read_text(encoding="utf-8")


def test_a_module_is_tested_by_the_test_files_that_import_it():
    found = mutants.covering_tests("models/storage/pieces.py")
    assert "tests/test_pieces.py" in found and "tests/test_beam.py" not in found
    assert "tests/test_word_links.py" in mutants.covering_tests("models/analysis/word_links.py")  # from … import name
    assert all(mutants.covering_tests(m) for m in mutants.TARGETS)  # every aimed-at module has tests
    assert "tests/test_e2e_browser.py" not in mutants.covering_tests("models/decoding/greedy.py")  # left out


def test_the_copy_mutates_one_module_with_its_tests(tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "assets").mkdir()
    mutants.configure(tmp_path, "models/storage/pieces.py", ["tests/test_pieces.py"])
    config = tomllib.loads((tmp_path / "pyproject.toml").read_text())["tool"]["mutmut"]
    assert config["only_mutate"] == ["models/storage/pieces.py"]
    assert config["pytest_add_cli_args_test_selection"] == ["tests/test_pieces.py"]
    assert config["also_copy"] == ["assets"] and config["process_isolation"] == "forkserver"


def test_mutmuts_exit_codes_are_read_as_outcomes(tmp_path, monkeypatch):
    monkeypatch.setattr(mutants, "WORKDIR", tmp_path)
    meta = tmp_path / "models.aer" / "mutants" / "models" / "aer.py.meta"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"exit_code_by_key": {"a": 1, "b": 0, "c": 33, "d": -24}}))
    assert mutants.results("models/aer.py") == {"a": "killed", "b": "survived", "c": "no tests", "d": "timeout"}


@pytest.mark.parametrize("name, entry", sorted(mutants.equivalents().items()))
def test_each_equivalent_mutant_says_which_line_and_why(name, entry):
    module = name.rsplit(".", 1)[0].replace(".", "/") + ".py"  # the mutated function's name has no dot
    assert module in mutants.TARGETS, name
    assert entry["line"].strip() and len(entry["why"]) > 20
    assert f"`{name.rsplit('.', 1)[1]}`" in TESTING_DOC, "docs/testing.md lists every equivalent mutant"


def test_only_code_and_the_modules_tests_send_it_back_to_the_start():
    tests = ["tests/test_pieces.py"]
    assert mutants.outdates("models/storage/pieces.py", tests) and mutants.outdates("pages/translate.py", tests)
    assert mutants.outdates("tests/test_pieces.py", tests) and mutants.outdates("tests/helpers.py", tests)
    assert not mutants.outdates("tests/test_word_links.py", tests) and not mutants.outdates("tests/data/x.npz", tests)
    assert not mutants.outdates("docs/testing.md", tests) and not mutants.outdates("bench/mutants.py", tests)
