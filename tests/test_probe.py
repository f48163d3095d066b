"""A reading fit to people (models/analysis/fitted.py, probe_fit.py; ``models.align --fit-on``): it finds a planted
head, its cross-validation never sees the pair it predicts, its record round-trips, fitting on trial never reads
the test split, the matrix it gives reads back the probe's own word grid, and a Hub model's probe is cross-fitted
and says so."""
import json

import numpy as np
import pytest

from models import align
from models.analysis.contributions import Sentence
from models.analysis.fitted import word_grid
from models.analysis.probe_fit import Example, features_of, fit_probe, folds, out_of_fold
from models.analysis.recipes import applicable, of
from models.analysis.word_links import word_matrices
from models.decoding.greedy import forced
from models.network.translator import Fitted
from models.nouns.attention_map import Reading
from models.nouns.link_rule import rows_argmax
from models.nouns.matrix import ATTENTION, FITTED, matrix_named
from models.nouns.probe import Feature, FitData, Probe, Tried
from models.storage.hub import load_model, save_checkpoint
from models.storage.records.probe_file import PROBE_FILE, probe_from_json, probe_json, read_probe, write_probe

from .helpers import make_transformer, synthetic_pairs
from .test_align import file_aer

PLANTED = Reading(1, 0)  # layer 2, head 1


def examples(model, tokenizers, pairs, links_of) -> list[Example]:
    """Each pair's features, its links given by ``links_of(word matrix of the planted head)``."""
    found, features = [], features_of(model)
    for english, french in pairs:
        sentence = Sentence(model, forced(model, tokenizers, english, french))
        x = word_grid(sentence, lambda name, s=sentence: of(matrix_named(name), s), features).x
        planted = word_matrices(model, tokenizers, english.split(), french.split(), {ATTENTION: [PLANTED]})
        links = frozenset(links_of(planted[ATTENTION][0]))
        found.append(Example(x, links, links))
    return found


def test_the_probe_puts_its_largest_weight_on_the_head_whose_argmax_the_links_are(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers, seed=3)
    probe = fit_probe(examples(model, tiny_tokenizers, synthetic_pairs(24, 11), rows_argmax), features_of(model),
                      "planted", "trial")
    feature, weight = probe.used()[0]
    assert feature.head == PLANTED and weight > 0, probe.used()[:5]
    assert probe.chosen.aer < 10  # the planted links are read back nearly whole, out of fold
    grid = probe.head_grid(2, 2, shifted=False)  # [L, heads + 1]
    assert np.unravel_index(np.abs(grid).argmax(), grid.shape) == (1, 0)


def random_examples(n: int, seed: int) -> list[Example]:
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(n):
        F, E = rng.integers(3, 7, 2)
        x = rng.normal(size=(F, E, 4))
        links = frozenset((int(e), int(f)) for f, e in zip(*np.nonzero(x[..., 0] > 0.8)))
        found.append(Example(x, links, links))
    return found


def test_folds_are_disjoint_and_cover_every_pair_once():
    parts = folds(37, 5, seed=0)
    assert sorted(np.concatenate(parts).tolist()) == list(range(37))
    assert len(parts) == 5 and all(len(p) in (7, 8) for p in parts)


def test_cross_validation_never_sees_the_pair_it_predicts():
    """A pair's out-of-fold p(link) is the same whatever its own links say; another fold's moves."""
    ours = random_examples(20, 1)
    changed = list(ours)
    changed[0] = Example(ours[0].x, frozenset(), frozenset())  # pair 0's links taken away
    before, after = (out_of_fold(e, "sure", 1.0) for e in (ours, changed))
    assert np.array_equal(before[0], after[0])
    assert any(not np.array_equal(b, a) for b, a in zip(before[1:], after[1:]))


def test_a_fitted_record_round_trips_and_a_field_it_does_not_know_is_refused(tmp_path):
    probe = fit_probe(random_examples(12, 2), tuple(Feature("attention", f"1.{h}") for h in (1, 2, 3, 4)), "x",
                      "trial")
    write_probe(tmp_path, probe)
    assert read_probe(tmp_path) == probe
    found = probe_json(probe)
    for broken in ({**found, "extra": 1}, {k: v for k, v in found.items() if k != "weights"},
                   {**found, "data": {**found["data"], "split": None, "who": "me"}}):
        with pytest.raises(ValueError, match="fields"):
            probe_from_json(broken)
    (tmp_path / PROBE_FILE).write_text("[1, 2]")
    with pytest.raises(ValueError, match="a Probe has the fields"):
        read_probe(tmp_path)


def gold_folder(folder, splits: dict[str, int]):
    """Synthetic pairs (the French is the English reversed) with their true links, ``{split: pairs}``."""
    folder.mkdir()
    for n, (split, count) in enumerate(splits.items()):
        pairs = synthetic_pairs(count, 20 + n)
        lines = {"en": [e for e, _ in pairs], "fr": [f for _, f in pairs],
                 "gold": [" ".join(f"{i + 1}-{len(e.split()) - i}" for i in range(len(e.split()))) for e, _ in pairs]}
        for ext, text in lines.items():
            (folder / f"{split}.{ext}").write_text("\n".join(text) + "\n")
    return folder


def test_fitting_on_trial_reads_no_test_pair_and_the_matrix_it_saves_rescores_to_its_printed_aer(
        tiny_tokenizers, tmp_path, monkeypatch, capsys):
    save_checkpoint(tmp_path / "m", make_transformer(tiny_tokenizers, seed=1), tiny_tokenizers)
    gold = gold_folder(tmp_path / "gold", {"trial": 15})  # no test split on disk while fitting
    asked = []
    real = align.fit.load_gold
    monkeypatch.setattr(align.fit, "load_gold", lambda data, languages, split: asked.append(split) or real(
        data, languages, split))
    assert align.main(["--model", str(tmp_path / "m"), "--data", str(gold), "--fit-on", "trial", "--save"]) == 0
    assert asked == ["trial"]
    probe = read_probe(tmp_path / "m")
    assert (probe.data.split, probe.data.pairs, probe.data.cross_fitted) == ("trial", 15, False)
    assert probe.chosen == min(probe.tried, key=lambda t: (t.aer, t.strength))
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["cross-validated AER"] == probe.final.aer

    gold_folder(tmp_path / "later", {"test": 6})
    for ext in ("en", "fr", "gold"):
        (gold / f"test.{ext}").write_text((tmp_path / "later" / f"test.{ext}").read_text())
    loaded = load_model(str(tmp_path / "m"))
    assert FITTED in applicable(loaded.model, loaded.fitted)
    out = tmp_path / "links.txt"
    assert align.main(["--model", str(tmp_path / "m"), "--data", str(gold), "--matrix", FITTED.name, "--out",
                       str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["method"] == str(probe.chosen.rule)
    from models.storage.gold import read_gold
    assert printed["aer"] == pytest.approx(file_aer(out, read_gold(gold, "test")), abs=0.01)


def test_the_fitted_matrix_reads_back_as_the_probes_own_word_grid(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers, seed=2)
    pairs = synthetic_pairs(10, 4)
    probe = fit_probe(examples(model, tiny_tokenizers, pairs, rows_argmax), features_of(model), "planted", "trial")
    english, french = pairs[0]
    sentence = Sentence(model, forced(model, tiny_tokenizers, english, french))
    grid = word_grid(sentence, lambda name: of(matrix_named(name), sentence), probe.features)
    read = word_matrices(model, tiny_tokenizers, english.split(), french.split(), {FITTED: [None]},
                         fitted=Fitted(probe))[FITTED][0]
    assert np.allclose(read, probe.probability(grid.x), atol=1e-6)
    assert ((read > 0) & (read < 1)).all()


@pytest.mark.parametrize("family", ["marian", "qwen2"])
def test_a_hub_models_probe_is_cross_fitted_on_a_set_with_no_trial_split_and_says_so(mirror, tmp_path,  # noqa: F811
                                                                                    capsys, family):
    """A Marian, and a chat model over its sentence's columns, fit by cross-fitting on gold:en-fr's test pairs;
    its record says so, the Human links page draws its head grid and its matrix is read there."""
    from .hf_helpers import tiny_marian
    from .llm_helpers import tiny_llm
    from .pages_helpers import figures, page, run_page, title_of

    folder = tiny_marian(tmp_path / "opus") if family == "marian" else tiny_llm(tmp_path / "chat", family, steps=0)
    assert align.main(["--model", str(folder), "--data", "gold:en-fr", "--fit-on", "folds", "--save"]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert "cross-fitted AER" in printed[0]
    probe = load_model(str(folder)).fitted.probe
    assert probe.data.cross_fitted and probe.data.split == "test" and probe.data.gold == "gold:en-fr"
    assert {f.source for f in probe.features} >= {"attention", "attention norm", "ALTI"}
    at = run_page(page("Human_links"), model=str(folder), read="fit-to-human-links")
    assert not at.exception and not at.error
    titles = [title_of(f) for f in figures(at)]
    assert titles[0].startswith("Fit to human links") and {"Writing step", "One step later"} <= set(titles)
    assert any("Cross-fitted on all 3 pairs of Canadian Hansards" in c.value for c in at.caption)  # no path


def test_eflomals_links_as_two_more_features_are_fit_on_trial_scored_on_test_once_and_never_saved(
        tiny_tokenizers, tiny_corpus, tmp_path, capsys):
    save_checkpoint(tmp_path / "m", make_transformer(tiny_tokenizers, seed=1), tiny_tokenizers)
    gold = gold_folder(tmp_path / "gold", {"trial": 12, "test": 6})
    out = tmp_path / "out"
    assert align.main(["--model", str(tmp_path / "m"), "--data", str(gold), "--fit-on", "trial", "--external",
                       "eflomal", "--corpus", str(tiny_corpus), "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert printed["external"].startswith("eflomal") and printed["pairs"] == 6
    assert printed["features used"].endswith(f"of {len(features_of(load_model(str(tmp_path / 'm')).model)) + 2}")
    from models.storage.gold import read_gold
    assert printed["test AER"] == pytest.approx(file_aer(out / "links.txt", read_gold(gold, "test")), abs=0.01)
    assert not (tmp_path / "m" / PROBE_FILE).exists() and not (out / PROBE_FILE).exists()


def test_a_fit_is_kept_beside_the_model_only_with_save_else_in_out_or_only_printed(tiny_tokenizers, tmp_path,
                                                                                    capsys):
    save_checkpoint(tmp_path / "m", make_transformer(tiny_tokenizers, seed=1), tiny_tokenizers)
    gold = gold_folder(tmp_path / "gold", {"trial": 12})
    before = {f.name: f.read_bytes() for f in (tmp_path / "m").iterdir()}
    fit = ["--model", str(tmp_path / "m"), "--data", str(gold), "--fit-on", "trial"]
    assert align.main(fit) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["probe"].startswith("not saved (--save keeps it")
    assert align.main([*fit, "--out", str(tmp_path / "tried")]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["probe"] == str(tmp_path / "tried" / PROBE_FILE)
    assert {f.name: f.read_bytes() for f in (tmp_path / "m").iterdir()} == before  # the model's folder untouched
    assert read_probe(tmp_path / "tried").data.split == "trial"
    assert align.main([*fit, "--save"]) == 0
    saved, tried = read_probe(tmp_path / "m"), read_probe(tmp_path / "tried")
    assert saved.chosen.labels == tried.chosen.labels and saved.weights == pytest.approx(tried.weights, abs=1e-6)


def test_the_fitted_matrix_reads_only_the_matrices_its_probe_weighs(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers, seed=2)
    features = (Feature("attention", "2.1"), Feature("ALTI", "1.mean"), Feature("diagonal distance"))
    english, french = synthetic_pairs(1, 4)[0]
    sentence = Sentence(model, forced(model, tiny_tokenizers, english, french))
    x = word_grid(sentence, lambda name: of(matrix_named(name), sentence), features).x
    probe = Probe(features, (0.0,) * 3, (1.0,) * 3, (2.0, 0.0, -1.0), 0.5, Tried("sure", 1.0, "argmax", 0.0), (),
                  FitData("toy", "trial", 1, 5, False), 0.0)
    fresh = Sentence(model, sentence.trace, fitted=Fitted(probe))
    read = word_matrices(model, tiny_tokenizers, english.split(), french.split(), {FITTED: [None]},
                         fitted=Fitted(probe))[FITTED][0]
    assert np.allclose(read, probe.probability(x), atol=1e-6)  # the zero-weighted ALTI changes nothing …
    of(FITTED, fresh)
    assert set(fresh.found) == {ATTENTION, FITTED}  # … and is never computed


def test_the_fit_chooses_the_same_on_one_process_as_on_every_core(monkeypatch):
    """The settings' fits run in processes; each fit is seeded, so one process finds the same probe."""
    import joblib

    from models.analysis import probe_fit

    examples, features = random_examples(16, 5), tuple(Feature("attention", f"1.{h}") for h in (1, 2, 3, 4))
    everywhere = fit_probe(examples, features, "x", "trial")
    monkeypatch.setattr(probe_fit, "Parallel", lambda n_jobs: joblib.Parallel(n_jobs=1))
    alone = fit_probe(examples, features, "x", "trial")
    assert alone.tried == everywhere.tried and alone.final == everywhere.final
    assert np.allclose(alone.weights, everywhere.weights, rtol=1e-9, atol=1e-12)
