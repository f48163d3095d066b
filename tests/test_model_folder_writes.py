"""Commands write only what they are asked to: each command that writes into a model's folder, run on a copy of a
checkpoint that carries every record a bundled model has, leaves each file it did not make byte for byte as it
was, and merges into a record it shares (an evaluation by test set, alignment rows by what they measured) without
dropping an entry it did not measure again."""
import json
import shutil

import pytest

from models import align, evaluate, faithfulness, heads, neighbours
from models.storage.hub import BUNDLED_DIR, save_checkpoint

from .helpers import make_transformer
from .test_probe import gold_folder

RECORDS = ("evaluation.json", "alignment.json", "faithfulness.json", "heads.json", "probe.json", "training.json",
           "README.md", "neighbours.safetensors")


@pytest.fixture
def checkpoint(tmp_path, tiny_tokenizers):
    """A tiny Transformer's checkpoint beside the bundled Transformer's records (its card, scores, probe …)."""
    folder = tmp_path / "model"
    save_checkpoint(folder, make_transformer(tiny_tokenizers), tiny_tokenizers)
    for name in RECORDS:
        if name not in ("probe.json", "neighbours.safetensors"):  # the tiny model's features differ; no index
            shutil.copy(BUNDLED_DIR / "en-fr-transformer" / name, folder / name)
    return folder


def files(folder) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in folder.iterdir() if f.is_file()}


def test_evaluate_merges_one_set_into_the_record_keeping_every_other_set_and_the_card_keeps_their_rows(
        checkpoint, tiny_corpus):
    before, old = files(checkpoint), json.loads((checkpoint / "evaluation.json").read_text())
    evaluate.main(["--model", str(checkpoint), "--data", str(tiny_corpus), "--beam", "1"])
    after, new = files(checkpoint), json.loads((checkpoint / "evaluation.json").read_text())
    assert {k for k in after if after[k] != before.get(k)} == {"evaluation.json", "README.md"}
    assert new["test_sets"][: len(old["test_sets"])] == old["test_sets"]  # every set it did not measure, as it was
    assert [t["data"] for t in new["test_sets"][len(old["test_sets"]):]] == [tiny_corpus.name]
    card = (checkpoint / "README.md").read_text()
    for test in old["test_sets"]:
        assert test["command"] in card and f"| {test['greedy']['bleu']:.1f} |" in card


def test_align_save_adds_its_rows_and_keeps_every_row_it_did_not_measure_again(checkpoint, tmp_path):
    gold = gold_folder(tmp_path / "gold", {"test": 4})
    before, old = files(checkpoint), json.loads((checkpoint / "alignment.json").read_text())
    assert align.main(["--model", str(checkpoint), "--data", str(gold), "--matrix", "attention", "--reading", "1.1",
                       "--method", "argmax", "--save"]) == 0
    after, new = files(checkpoint), json.loads((checkpoint / "alignment.json").read_text())
    assert {k for k in after if after[k] != before.get(k)} == {"alignment.json", "README.md"}
    assert new[: len(old)] == old and [r["data"] for r in new[len(old):]] == ["gold"]


@pytest.mark.parametrize("command, line, made", [
    ("fit", ["--fit-on", "trial"], set()),
    ("fit", ["--fit-on", "trial", "--save"], {"probe.json"}),
    ("heads", ["--sentences", "3"], {"heads.json", "README.md"}),
    ("neighbours", ["--sentences", "5", "--dim", "4"], {"neighbours.safetensors"}),
    ("faithfulness", ["--sentences", "1", "--split", "test", "--save"], {"faithfulness.json", "README.md"}),
])
def test_each_other_command_changes_only_the_files_it_makes(checkpoint, tmp_path, tiny_corpus, command, line, made):
    gold = gold_folder(tmp_path / "gold", {"trial": 8, "test": 3})
    before = files(checkpoint)
    model = ["--model", str(checkpoint)]
    if command == "fit":
        assert align.main([*model, "--data", str(gold), *line]) == 0
    elif command == "heads":
        assert heads.main([*model, "--data", f"{tiny_corpus}:split=val", *line]) == 0
    elif command == "neighbours":
        assert neighbours.main([*model, "--data", str(tiny_corpus), *line]) == 0
    else:
        assert faithfulness.main([*model, "--data", str(gold), *line]) == 0
    after = files(checkpoint)
    assert {k for k in after if after[k] != before.get(k)} == made


def test_what_ships_in_assets_names_no_machines_absolute_path():
    """Recorded commands name data by name or relative to the project (``storage/commands.py``)."""
    import re

    from models.storage.commands import command_line

    found = {str(f): m.group(0) for f in BUNDLED_DIR.parent.rglob("*") if f.suffix in (".json", ".md")
             for m in [re.search(r"(?<![\w.])/(tmp|home|root|work|Users|var|mnt)/\S*", f.read_text(errors="replace"))]
             if m}
    assert not found, found
    line = command_line("models.evaluate", ["--data", str(BUNDLED_DIR / "x") + ":split=test", "--beam", "1"])
    assert line == "python -m models.evaluate --data assets/checkpoints/x:split=test --beam 1"
