"""Every command checks its line before it loads a model or reads a pair (models/checks.py): each bad argument of
the table is refused with its reason while the model loader and the data readers are never called, and from a
shell the refusal is one line on stderr with exit status 2, never a traceback."""
import importlib
import subprocess
import sys

import pytest

#: (command module, arguments, what the refusal says); ``{dir}`` is an existing folder, ``{file}`` an existing
#: file, ``{gold}`` a human-aligned folder with a test split and no trial split.
BAD = [
    ("models.evaluate", "--model additive --data {gold}:split=test --out {dir}", "is a folder; give a file"),
    ("models.evaluate", "--model additive --data {gold} --out {dir}/no/such/file.json", "there is no folder"),
    ("models.evaluate", "--model additive --data {gold} --beam 0", "--beam must be at least 1"),
    ("models.evaluate", "--model additive --data {gold} --sentences 0 --out {file}", "--sentences must be at least"),
    ("models.evaluate", "--model additive --data {dir}/missing", "no such folder or file, nor a set by name"),
    ("models.align", "--model additive --data {gold} --out {dir}", "is a folder; give a file"),
    ("models.align", "--model additive --data gold:en-fr --matrix all --out {file}", "is a file; give a folder"),
    ("models.align", "--model additive --data {gold} --matrix all", "has no trial split: trial.en, trial.fr, trial"),
    ("models.align", "--model additive --data {gold} --fit-on trial", "has no trial split"),
    ("models.align", "--model additive --data gold:de-xx", "no human-aligned set 'gold:de-xx'"),
    ("models.align", "--model additive --data gold:en-fr --split val", "has no split 'val'"),
    ("models.align", "--model additive --data {gold} --fit-on folds --external eflomal", "--fit-on trial"),
    ("models.align", "--model additive --data {gold} --sweep --out {file}", "--sweep scores many rules"),
    ("models.align", "--model additive --data {gold} --reading all --out {file}", "--reading all scores many"),
    ("models.align", "--model additive --data {dir}/missing", "neither a human-aligned set by name"),
    ("models.align.statistical", "--data {gold} --save {dir}", "is a folder; give a file"),
    ("models.align.statistical", "--data {gold} --split trial", "has no trial split"),
    ("models.faithfulness", "--model additive --data {gold} --sentences 0", "--sentences must be at least 1"),
    ("models.faithfulness", "--model additive --data {dir}/missing", "no such folder or file"),
    ("models.heads", "--model transformer --data {gold} --out {dir}", "is a folder; give a file"),
    ("models.heads", "--model transformer --data {gold} --budget -1", "--budget must be at least 0"),
    ("models.neighbours", "--model additive --data multi30k --out {file}", "is a file; give a folder"),
    ("models.neighbours", "--model additive --data {dir}/missing", "no such folder or file"),
    ("models.corpus", "--model additive --data {gold} --out {dir}/table.txt", "is written as .csv, or .json"),
    ("models.corpus", "--model additive --data {gold} --out {dir}/no/table.csv", "there is no folder"),
    ("models.translate", "--model additive --bertviz {dir}", "is a folder; give a file"),
    ("models.translate", "--model additive --beam 0", "--beam must be at least 1"),
    ("models.train", "--data {gold} --out {file}", "is a file; give a folder"),
    ("models.train", "--data {gold} --out {dir}/run --minutes 0", "--minutes must be at least"),
    ("models.train", "--data {gold} --out {dir}/run --lr -1", "--lr must be at least 0"),
    ("models.train", "--data {dir}/missing --out {dir}/run", "no such folder or file"),
    ("models.train", "--data {gold} --out {dir}/run --init-from {dir}/missing", "no such checkpoint folder"),
]


@pytest.fixture
def places(tmp_path):
    gold = tmp_path / "gold"
    gold.mkdir()
    for ext, line in (("en", "a dog"), ("fr", "un chien"), ("gold", "1-1 2-2")):
        (gold / f"test.{ext}").write_text(line + "\n", encoding="utf-8")
    (tmp_path / "file.txt").write_text("", encoding="utf-8")
    return {"dir": str(tmp_path), "file": str(tmp_path / "file.txt"), "gold": str(gold)}


def entry(module: str):
    """The function a command's ``python -m`` runs with its line."""
    found = importlib.import_module(module)
    return found.main


@pytest.mark.parametrize("module, line, says", BAD, ids=[f"{m} {line.split(' --', 2)[-1]}" for m, line, _ in BAD])
def test_a_bad_argument_is_refused_with_its_reason_before_any_model_or_data_is_read(module, line, says, places,
                                                                                   monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("read before the line was checked")

    for name in ("models.storage.hub", "models.datasets.sentences", "models.datasets.gold_sets",
                 "models.storage.data"):
        target = importlib.import_module(name)
        for reader in ("load_model", "read_named", "load_gold", "read_parallel", "read_gold_set"):
            if hasattr(target, reader):
                monkeypatch.setattr(target, reader, never)
    command = importlib.import_module(module)
    for reader in ("load_model", "read_named", "load_gold", "parse_corpora"):
        if hasattr(command, reader):
            monkeypatch.setattr(command, reader, never)
    if module == "models.train":
        monkeypatch.setattr("models.train.cli.parse_corpora", never)
    with pytest.raises(SystemExit) as refused:
        entry(module)(line.format(**places).split())
    assert isinstance(refused.value.code, str) and refused.value.code.startswith("error: ")
    assert says in refused.value.code


def test_from_a_shell_a_refusal_is_one_line_on_stderr_with_exit_status_2(places):
    done = subprocess.run([sys.executable, "-m", "models.align", "--model", "additive", "--data", places["gold"],
                           "--out", places["dir"]], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [f"error: --out {places['dir']} is a folder; give a file to write"]
