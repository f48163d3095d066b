"""models/corpus: the table's translations are models.evaluate's, its statistics are the single-sentence ones, and
the command writes what it says."""
import csv
import gzip
import json
import math

import numpy as np
import pytest

from models import corpus, evaluate
from models.analysis.heatmaps import word_heatmap
from models.analysis.compare import compare_views
from models.analysis.sentence_stats import attention_stats
from models.analysis.word_links import pair_scores, word_matrix
from models.datasets.sentences import read_folder
from models.decoding.greedy import forced, greedy, greedy_batch
from models.decoding.lines import BATCH, translate_lines
from models.nouns.attention_map import RNN_READING
from models.nouns.matrix import ATTENTION
from models.storage.hub import load_model, save_checkpoint
from models.storage.records.strict import record_json

from .helpers import make_model, synthetic_pairs


def test_batched_traces_equal_one_by_one_greedy_and_forced(any_model, tiny_tokenizers):
    texts = ["a dog runs", "the big red cat sleeps on the grass", "a man"]
    targets = ["un chien court", "", "le grand chat rouge dort sur le herbe un homme"]
    for trace, text in zip(greedy_batch(any_model, tiny_tokenizers, texts), texts):
        alone = greedy(any_model, tiny_tokenizers, text)
        assert trace.target_ids == alone.target_ids and trace.translation == alone.translation
        np.testing.assert_allclose(trace.attention.weights, alone.attention.weights, atol=1e-5)
    for trace, text, target in zip(greedy_batch(any_model, tiny_tokenizers, texts, targets), texts, targets):
        alone = forced(any_model, tiny_tokenizers, text, tiny_tokenizers.target.ids(target))
        assert trace.target_ids == alone.target_ids
        np.testing.assert_allclose(trace.attention.weights, alone.attention.weights, atol=1e-5)


@pytest.fixture
def checkpoints(tmp_path, tiny_tokenizers):
    """An additive and a dot-product checkpoint, untrained (their translations run to the length cap, which the
    batches must apply sentence by sentence)."""
    refs = []
    for score in ("additive", "dot"):
        save_checkpoint(tmp_path / score, make_model(tiny_tokenizers, score, seed=len(refs)), tiny_tokenizers)
        refs.append(str(tmp_path / score))
    return refs


@pytest.fixture
def test_set(tmp_path):
    """More sentences than one batch holds, so the table crosses a batch boundary as models.evaluate does."""
    folder = tmp_path / "set"
    folder.mkdir()
    pairs = synthetic_pairs(BATCH + 6, 5)
    for lang, col in (("en", 0), ("fr", 1)):
        with gzip.open(folder / f"test.{lang}.gz", "wt", encoding="utf-8") as f:
            f.write("\n".join(p[col] for p in pairs) + "\n")
    return folder


def test_translations_and_corpus_bleu_are_models_evaluates(checkpoints, test_set, tmp_path):
    out = tmp_path / "table.json"
    corpus.main(["--model", checkpoints[0], "--compare", checkpoints[1], "--data", f"{test_set}:split=test",
                 "--out", str(out)])
    found = json.loads(out.read_text())
    rows, figures = found["rows"], found["summary"]
    assert len(rows) == BATCH + 6 and [r["#"] for r in rows] == list(range(1, BATCH + 7))
    for ref in checkpoints:
        loaded = load_model(ref, device="cpu")
        name = ref  # a model's columns carry the name it was given
        expected = evaluate.evaluate(loaded, read_folder(test_set, "test"), beam=1, command="")
        assert [r[f"{name} translation"] for r in rows] == translate_lines(
            loaded.model, loaded.tokenizers, [r["source"] for r in rows], 1)
        assert figures["models"][name]["scores"] == record_json(expected.greedy)
        assert figures["models"][name]["by_length"] == [record_json(b) for b in expected.by_length]
    assert figures["command"].startswith("python -m models.corpus --model")


def test_each_rows_statistics_are_the_single_sentence_ones(checkpoints, test_set, tiny_tokenizers):
    from models.tables.rows import batch_rows, sides

    loaded = [load_model(ref, device="cpu") for ref in checkpoints]
    chosen = sides(loaded, ["a", "b"], [RNN_READING, RNN_READING])
    sentences = read_folder(test_set, "test")
    rows = batch_rows(chosen, sentences, 3, 6)
    assert [r["#"] for r in rows] == [4, 5, 6]
    assert not all(math.isnan(r["a monotonicity"]) for r in rows)  # some translations have several words
    for row, text in zip(rows, sentences.sources[3:6]):
        own = [greedy(m.model, m.tokenizers, text) for m in loaded]
        for side, trace in zip("ab", own):
            stats = attention_stats(word_heatmap(trace, trace.read(RNN_READING)))
            assert row[f"{side} translation"] == trace.translation
            assert row[f"{side} entropy"] == pytest.approx(stats.entropy, abs=1e-5)
            assert row[f"{side} coverage"] == pytest.approx(stats.coverage, abs=1e-5)
            assert row[f"{side} monotonicity"] == pytest.approx(stats.monotonicity, abs=1e-9, nan_ok=True)
        common = [forced(m.model, m.tokenizers, text, own[0].translation) for m in loaded]
        views = [word_heatmap(t, t.read(RNN_READING)) for t in common]
        comparison = compare_views(*views, names=("a", "b"))  # what Compare scoring shows for this sentence
        words = [t for t, w in enumerate(views[0].rows) if w != "</s>"]
        assert row["JSD"] == pytest.approx(comparison.js[words].mean(), abs=1e-5)
        assert row["agreement"] == pytest.approx(comparison.argmax_agree[words].mean())


def test_the_same_model_twice_agrees_with_itself(checkpoints, test_set):
    from models.tables.rows import batch_rows, sides

    loaded = load_model(checkpoints[0], device="cpu")
    rows = batch_rows(sides([loaded, loaded], ["m", "m"], [RNN_READING] * 2), read_folder(test_set, "test"), 0, 8)
    assert {"m (1) translation", "m (2) translation"} <= set(rows[0])
    assert all(r["JSD"] == pytest.approx(0, abs=1e-6) and r["agreement"] == 1 for r in rows)


def test_a_human_aligned_set_gives_each_sentences_aer(checkpoints, tmp_path):
    gold = tmp_path / "gold"
    gold.mkdir()
    lines = {"en": ["a dog runs", "the black cat sleeps"], "fr": ["un chien court", "le chat noir dort"],
             "gold": ["1-1 2-2 3-3", "1-1 2-3 3-2 4-4 3p3"]}
    for ext, text in lines.items():
        (gold / f"test.{ext}").write_text("\n".join(text) + "\n")
    out = tmp_path / "table.csv"
    corpus.main(["--model", checkpoints[0], "--data", f"{gold}:split=test", "--out", str(out)])
    with out.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    loaded = load_model(checkpoints[0], device="cpu")
    for row, pair in zip(rows, read_folder(gold, "test").gold):
        weights = word_matrix(loaded.model, loaded.tokenizers, pair.source, pair.target)
        chosen = pair_scores(weights, pair.sure, pair.possible, ATTENTION)[1]  # the page's "chosen" rule
        assert float(row[f"{checkpoints[0]} AER"]) == pytest.approx(chosen["AER %"], abs=0.05)
        assert row["reference"] == " ".join(pair.target)


def test_a_model_without_attention_has_translations_and_scores_but_no_attention_columns(tmp_path, tiny_tokenizers):
    save_checkpoint(tmp_path / "none", make_model(tiny_tokenizers, "none"), tiny_tokenizers)
    (tmp_path / "pairs.tsv").write_text("a dog runs\tun chien court\n\nthe cat\tle chat\n")
    out = tmp_path / "t.json"
    corpus.main(["--model", str(tmp_path / "none"), "--compare", str(tmp_path / "none"), "--data",
                 str(tmp_path / "pairs.tsv"), "--out", str(out)])
    rows = json.loads(out.read_text())["rows"]
    assert len(rows) == 2 and rows[1]["source"] == "the cat"
    name = f"{tmp_path / 'none'} (1)"
    assert rows[0][f"{name} entropy"] is None and "JSD" not in rows[0]
    assert not math.isnan(rows[0][f"{name} chrF"])


@pytest.mark.parametrize("content, message", [(b"\x00\x01binary", "not text"), (b"a\tb\nc\td\te\n", "two columns")])
def test_an_unreadable_file_is_refused_with_its_reason(checkpoints, tmp_path, content, message, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(content)
    with pytest.raises(SystemExit, match=message):
        corpus.main(["--model", checkpoints[0], "--data", str(bad), "--out", str(tmp_path / "t.csv")])
