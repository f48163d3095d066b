"""The position floor (models/align/floor.py, the matrix "position floor"): a probe of where the words sit alone, fit
on the trial pairs and read for every model; what any reading must beat to be called an alignment."""
import json

import pytest

from models import align
from models.align import floor
from models.analysis.probe_fit import features_of
from models.analysis.recipes import applicable
from models.nouns.matrix import FLOOR
from models.nouns.probe import POSITIONS
from models.storage.gold import read_gold
from models.storage.hub import load_model, save_checkpoint
from models.storage.records.probe_file import BUNDLED_FLOOR, read_probe

from .helpers import LEXICON, make_transformer, synthetic_pairs
from .test_align import file_aer


def diagonal_gold(folder, splits: dict[str, int]):
    """Pairs translated word for word in the same order: people's links are the diagonal."""
    folder.mkdir()
    for n, (split, count) in enumerate(splits.items()):
        english = [e for e, _ in synthetic_pairs(count, 40 + n)]
        lines = {"en": english, "fr": [" ".join(LEXICON[w] for w in e.split()) for e in english],
                 "gold": [" ".join(f"{i + 1}-{i + 1}" for i in range(len(e.split()))) for e in english]}
        for ext, text in lines.items():
            (folder / f"{split}.{ext}").write_text("\n".join(text) + "\n", encoding="utf-8")
    return folder


def test_on_diagonal_links_the_floor_alone_reaches_them_and_reads_no_test_pair(tmp_path, monkeypatch, capsys):
    gold = diagonal_gold(tmp_path / "gold", {"trial": 20, "test": 12})
    fitted = []
    real = floor.fit_floor
    monkeypatch.setattr(floor, "fit_floor", lambda pairs, name: fitted.append(pairs) or real(pairs, name))
    out = tmp_path / "links.txt"
    assert floor.main(["--data", str(gold), "--out", str(out), "--save", str(tmp_path / "floor.json")]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert fitted == [read_gold(gold, "trial")]  # fit on the trial pairs alone
    assert printed["test AER"] < 5 and printed["test AER"] == pytest.approx(
        file_aer(out, read_gold(gold, "test")), abs=0.01)
    saved = read_probe(tmp_path, "floor.json")
    assert [f.source for f in saved.features] == list(POSITIONS) and saved.weights[0] < 0  # far from the diagonal: less


def test_every_model_carries_the_bundled_floor_as_a_matrix_and_no_probe_reads_it(tiny_tokenizers, tmp_path):
    assert read_probe(BUNDLED_FLOOR.parent, BUNDLED_FLOOR.name).data.split == "trial"
    for name in ("none", "additive"):
        loaded = load_model(name)
        assert loaded.fitted.floor is not None and FLOOR in applicable(loaded.model, loaded.fitted)
    save_checkpoint(tmp_path / "m", make_transformer(tiny_tokenizers), tiny_tokenizers)
    transformer = load_model(str(tmp_path / "m"))
    assert FLOOR in applicable(transformer.model, transformer.fitted) and FLOOR.per == "sentence"
    assert not any(f.source == FLOOR.name for f in features_of(transformer.model))  # a probe reads positions only


def test_models_align_scores_the_floor_on_a_models_own_words_and_its_links_rescore(tmp_path, capsys):
    gold = diagonal_gold(tmp_path / "gold", {"trial": 20, "test": 12})
    out = tmp_path / "links.txt"
    assert align.main(["--model", "additive", "--data", str(gold), "--matrix", FLOOR.name, "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["matrix"] == FLOOR.name and printed["trial aer"] is not None  # its rule, chosen on Hansards trial
    assert printed["aer"] == pytest.approx(file_aer(out, read_gold(gold, "test")), abs=0.01)
