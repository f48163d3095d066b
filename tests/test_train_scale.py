"""models/train/ at the scale of a parliament's debates: the piece cache, token batches, a shared vocabulary,
validation-only corpora, continuing a checkpoint with its lineage, and what a run records of its start."""
import json
import shutil

import pytest
import torch

from models import train
from models.storage.hub import load_model

from .test_train import SMALL, run

pytestmark = pytest.mark.usefixtures("few_examples")  # two curated examples, not 40, a point


def record(out) -> dict:
    return json.loads((out / "training.json").read_text())


def test_a_second_run_reads_the_cached_pieces(tiny_corpus, tmp_path, piece_cache, capsys):
    run(tiny_corpus, tmp_path / "a", "--epochs", "1")
    cached = sorted(piece_cache.glob(f"{tiny_corpus.name}-train-*.safetensors"))
    assert len(cached) == 1
    stamp = cached[0].stat().st_mtime_ns
    run(tiny_corpus, tmp_path / "b", "--epochs", "1", "--tokenizers", str(tmp_path / "a"))
    assert sorted(piece_cache.glob(f"{tiny_corpus.name}-train-*.safetensors")) == cached
    assert cached[0].stat().st_mtime_ns == stamp  # read, not written again
    assert record(tmp_path / "a")["data"][0]["train_pairs"] == record(tmp_path / "b")["data"][0]["train_pairs"] == 300


def test_a_run_records_its_time_to_first_step_memory_and_cpu(tiny_corpus, tmp_path):
    out = tmp_path / "ck"
    run(tiny_corpus, out, "--epochs", "1")
    run(tiny_corpus, out, "--epochs", "2", "--resume")
    r = record(out)
    assert len(r["first_step_s"]) == 2 and all(s > 0 for s in r["first_step_s"])  # one per invocation
    assert r["peak_memory_mib"] > 50 and r["cpu"] and r["cpu"] in (out / "README.md").read_text()


def test_token_batches_train(tiny_corpus, tmp_path):
    """Two epochs of ``--batch-tokens 120`` take as many steps as the corpus has batches of at most 120 padded
    pieces — each batch holds at most 120 // (the shortest pair's pieces) pairs — far more than of 32 sentences."""
    from models.storage.data import batch_order, read_parallel
    from models.storage.pieces import tokenize_pairs
    from models.train.corpora import MAX_TRAIN_PIECES

    out = tmp_path / "ck"
    run(tiny_corpus, out, "--epochs", "2", "--batch-tokens", "120")
    tokenizers = load_model(str(out), device="cpu").tokenizers
    pairs = tokenize_pairs(tokenizers, *read_parallel(tiny_corpus, "train", "en", "fr"), MAX_TRAIN_PIECES)
    shortest = int((pairs.source_lengths + pairs.target_lengths + 1).min())  # a pair's padded pieces, at least
    at_least = -(-len(pairs) // (120 // shortest))  # batches an epoch, however the pairs are grouped
    steps = record(out)["steps"]
    assert steps >= 2 * at_least > 2 * -(-len(pairs) // 32)
    assert steps == 2 * len(batch_order(pairs, 32, max_tokens=120))


def test_a_shared_vocabulary_is_one_tokenizer_for_both_languages(tiny_corpus, tmp_path):
    out = tmp_path / "ck"
    run(tiny_corpus, out, "--epochs", "1", "--shared-vocab")
    assert (out / "source_tokenizer.json").read_bytes() == (out / "target_tokenizer.json").read_bytes()
    assert "one vocabulary shared by both languages" in (out / "README.md").read_text()
    tokenizers = load_model(str(out), device="cpu").tokenizers
    assert tokenizers.source.tokenizer.token_to_id("▁chien") is not None  # French pieces in the source's vocab
    assert tokenizers.target.tokenizer.token_to_id("▁dog") is not None


def test_a_validation_only_corpus_is_scored_not_trained_on(tiny_corpus, tmp_path):
    news = tmp_path / "news"
    shutil.copytree(tiny_corpus, news)
    (news / "train.en.gz").unlink()  # a news year has no training split
    (news / "train.fr.gz").unlink()
    out = tmp_path / "ck"
    train.main(["--data", str(tiny_corpus), "--val-data", str(news), "--val-sentences", "10", "--out", str(out),
                *SMALL, "--epochs", "1"])
    r = record(out)
    assert [d["name"] for d in r["data"]] == [tiny_corpus.name]
    assert r["validated_only_on"] == [{"name": "news", "val_split": "val"}]
    assert set(r["history"][0]["by_corpus"]) == {tiny_corpus.name, "news"}


def test_a_test_set_by_name_is_validated_on(tiny_corpus, multi30k_2016, tmp_path):
    out = tmp_path / "ck"
    train.main(["--data", str(tiny_corpus), "--val-data", "sacrebleu:multi30k/2016", "--val-sentences", "10",
                "--out", str(out), *SMALL, "--epochs", "1"])
    r = record(out)
    assert r["validated_only_on"] == [{"name": "sacrebleu:multi30k/2016"}]
    assert set(r["history"][0]["by_corpus"]) == {tiny_corpus.name, "sacrebleu:multi30k/2016"}


def test_a_test_set_by_name_that_cannot_be_had_stops_the_run_with_a_sentence(tiny_corpus, tmp_path):
    with pytest.raises(SystemExit, match="error: sacreBLEU has no test set named 'wmt99'"):
        train.main(["--data", str(tiny_corpus), "--val-data", "sacrebleu:wmt99", "--out", str(tmp_path / "ck"),
                    *SMALL, "--epochs", "1"])


def test_a_continued_run_starts_from_the_checkpoint_and_records_its_lineage(tiny_corpus, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    run(tiny_corpus, first, "--epochs", "1", "--score", "dot")
    run(tiny_corpus, second, "--epochs", "1", "--init-from", str(first))  # --score's default (additive) is ignored
    r, before = record(second), record(first)
    assert r["score"] == "dot" and load_model(str(second), device="cpu").variant == "dot"
    assert r["started_from"]["checkpoint"] == str(first)
    assert r["started_from"]["commands"] == before["commands"]
    assert r["started_from"]["wall_clock_s"] == before["wall_clock_s"]
    for name in ("source_tokenizer.json", "target_tokenizer.json"):
        assert (first / name).read_bytes() == (second / name).read_bytes()
    assert r["history"][0]["val_loss"] < before["history"][0]["val_loss"] + 0.5  # did not start from scratch
    total = (r["wall_clock_s"] + before["wall_clock_s"]) / 60
    assert f"continued from first ({before['wall_clock_s'] / 60:.1f} min of its own): {total:.1f} min in all" in (
        second / "README.md").read_text()


def test_init_from_starts_from_the_checkpoints_weights(tiny_corpus, tmp_path):
    """With a learning rate of 0 nothing moves the weights, so a continued run saves exactly the weights it
    started from: the checkpoint's, not fresh ones in its shape."""
    from safetensors.torch import load_file

    first, second = tmp_path / "first", tmp_path / "second"
    run(tiny_corpus, first, "--epochs", "1")
    run(tiny_corpus, second, "--steps", "2", "--lr", "0", "--init-from", str(first))
    before, after = load_file(first / "model.safetensors"), load_file(second / "model.safetensors")
    assert before.keys() == after.keys()
    for name in before:
        assert torch.equal(before[name], after[name]), name


def test_dropout_given_with_init_from_keeps_the_weights_and_records_the_new_rate(tiny_corpus, tmp_path):
    """A fine-tuning run at another dropout starts from the checkpoint's weights (a rate of 0 moves none) and
    its checkpoint says the rate it was trained at; without --dropout the checkpoint's own rate carries over."""
    from safetensors.torch import load_file

    first, second, third = tmp_path / "first", tmp_path / "second", tmp_path / "third"
    run(tiny_corpus, first, "--epochs", "1", "--dropout", "0.1")
    run(tiny_corpus, second, "--steps", "2", "--lr", "0", "--init-from", str(first), "--dropout", "0.4")
    run(tiny_corpus, third, "--steps", "2", "--lr", "0", "--init-from", str(second))
    before, after = load_file(first / "model.safetensors"), load_file(second / "model.safetensors")
    assert before.keys() == after.keys() and all(torch.equal(before[k], after[k]) for k in before)
    rates = {json.loads((d / "config.json").read_text())["dropout"] for d in (second, third)}
    assert rates == {0.4}
    model = load_model(str(second), device="cpu").model
    assert {m.p for m in model.modules() if isinstance(m, torch.nn.Dropout)} == {0.4}


@pytest.mark.parametrize("bad", ["--val-data"])
def test_a_validation_corpus_named_like_a_training_one_is_refused(tiny_corpus, tmp_path, bad):
    with pytest.raises(SystemExit, match="share a name"):
        train.main(["--data", str(tiny_corpus), bad, str(tiny_corpus), "--out", str(tmp_path / "ck"), *SMALL])


def test_a_state_saved_before_the_new_counters_resumes(tiny_corpus, tmp_path):
    out = tmp_path / "ck"
    run(tiny_corpus, out, "--epochs", "1")
    path = out / train.STATE_DIR / "state.json"
    state = json.loads(path.read_text())
    for key in ("first_step_s", "peak_memory_mib"):
        del state[key]  # as an interrupted run of an earlier release left it
    path.write_text(json.dumps(state))
    run(tiny_corpus, out, "--epochs", "2", "--resume")
    r = record(out)
    assert r["epochs"] == 2 and len(r["first_step_s"]) == 1 and r["peak_memory_mib"] > 0
