"""models/train.py and models/storage/card.py: the CLI end to end on a tiny corpus; resume is exact."""
import json

import pytest
import torch
from safetensors.torch import load_file

from models import ROOT, train
from models.storage.hub import load_model

SMALL = ["--emb-dim", "16", "--enc-hidden", "16", "--dec-hidden", "24", "--attn-dim", "12", "--vocab-size", "100",
         "--batch-size", "32", "--seed", "3", "--threads", "1"]


def run(corpus, out, *extra):
    train.main(["--data", str(corpus), "--out", str(out), *SMALL, *extra])


def test_trains_a_loadable_checkpoint_with_a_card(tiny_corpus, tmp_path):
    out = tmp_path / "ck"
    run(tiny_corpus, out, "--epochs", "2", "--score", "dot")
    loaded = load_model(str(out), device="cpu")
    assert loaded.score == "dot"
    record = json.loads((out / "training.json").read_text())
    assert record["epochs"] == 2 and len(record["history"]) == 2
    assert record["history"][1]["train_loss"] < record["history"][0]["train_loss"]
    card = (out / "README.md").read_text()
    assert card.startswith("---\n") and "license: mit" in card and "python -m models.train" in card
    assert f"{record['parameters']:,}" in card


def test_resume_continues_exactly(tiny_corpus, tmp_path):
    straight, resumed = tmp_path / "straight", tmp_path / "resumed"
    run(tiny_corpus, straight, "--epochs", "2")
    run(tiny_corpus, resumed, "--epochs", "1")
    run(tiny_corpus, resumed, "--epochs", "2", "--resume")
    a = load_file(straight / train.STATE_DIR / "model.safetensors")
    b = load_file(resumed / train.STATE_DIR / "model.safetensors")
    for name in a:
        torch.testing.assert_close(a[name], b[name], rtol=0, atol=0)
    record = json.loads((resumed / "training.json").read_text())
    assert record["epochs"] == 2 and len(record["commands"]) == 2 and record["commands"][1].endswith("--resume")


def test_reuses_given_tokenizers(tiny_corpus, tmp_path):
    run(tiny_corpus, tmp_path / "a", "--epochs", "1")
    run(tiny_corpus, tmp_path / "b", "--epochs", "1", "--score", "none", "--tokenizers", str(tmp_path / "a"))
    for name in ("source_tokenizer.json", "target_tokenizer.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


@pytest.mark.parametrize("native", [True, False])
def test_bfloat16_without_hardware_support_is_warned_about(tiny_corpus, tmp_path, monkeypatch, capsys, native):
    monkeypatch.setattr(train, "native_bfloat16", lambda device: native)
    run(tiny_corpus, tmp_path / "ck", "--epochs", "1", "--precision", "bfloat16")
    assert ("no native bfloat16" in capsys.readouterr().err) is not native


def test_time_budget_stops_training(tiny_corpus, tmp_path):
    run(tiny_corpus, tmp_path / "ck", "--epochs", "50", "--minutes", "0.001")
    record = json.loads((tmp_path / "ck" / "training.json").read_text())
    assert record["epochs"] == 1 and record["history"][0]["partial"]


def test_learning_rate_is_halved_after_the_given_epochs(tiny_corpus, tmp_path):
    run(tiny_corpus, tmp_path / "ck", "--epochs", "3", "--lr", "0.004", "--halve-lr-after", "1", "2")
    history = json.loads((tmp_path / "ck" / "training.json").read_text())["history"]
    assert [r["lr"] for r in history] == [0.004, 0.002, 0.001]


def test_several_corpora_are_validated_each_and_chosen_on_their_mean(tiny_corpus, tmp_path):
    import shutil

    first, second = tmp_path / "captions", tmp_path / "everyday"
    shutil.copytree(tiny_corpus, first)
    shutil.copytree(tiny_corpus, second)
    out = tmp_path / "ck"
    train.main(["--data", str(first), f"{second}:weight=0.5", "--out", str(out), *SMALL, "--epochs", "1"])
    record = json.loads((out / "training.json").read_text())
    assert [(d["name"], d["weight"]) for d in record["data"]] == [("captions", 1.0), ("everyday", 0.5)]
    epoch = record["history"][0]
    assert set(epoch["by_corpus"]) == {"captions", "everyday"}
    mean = sum(v["val_bleu"] for v in epoch["by_corpus"].values()) / 2
    assert epoch["val_bleu"] == pytest.approx(mean) and record["best_val_bleu"] == pytest.approx(mean)
    assert "sampling weight 0.5" in (out / "README.md").read_text()


def test_two_corpora_with_one_name_are_refused(tiny_corpus, tmp_path):
    with pytest.raises(SystemExit, match="share a name"):
        train.main(["--data", str(tiny_corpus), str(tiny_corpus), "--out", str(tmp_path / "ck"), *SMALL])


def test_every_epoch_records_the_examples_alignments(tiny_corpus, tmp_path):
    from models.storage.examples import load_examples
    from models.storage.timeline import read_timeline

    out = tmp_path / "ck"
    run(tiny_corpus, out, "--epochs", "1")
    run(tiny_corpus, out, "--epochs", "2", "--resume")  # a resumed run appends
    timeline = read_timeline(out)
    assert [e["text"] for e in timeline["examples"]] == [e.text for e in load_examples()]
    history = json.loads((out / "training.json").read_text())["history"]
    assert [e["epoch"] for e in timeline["epochs"]] == [1, 2]
    assert [e["val_bleu"] for e in timeline["epochs"]] == [h["val_bleu"] for h in history]
    for epoch in timeline["epochs"]:
        for example, trace in zip(timeline["examples"], epoch["traces"]):
            attention = trace["attention"]
            assert len(attention) == len(trace["target_pieces"])  # one row per written piece
            assert all(len(row) == len(example["source_pieces"]) for row in attention)
            assert all(abs(sum(row) - 1) < 0.01 for row in attention)  # rounded to 3 decimals


def test_a_model_without_attention_records_pieces_only(tiny_corpus, tmp_path):
    from models.storage.timeline import read_timeline

    run(tiny_corpus, tmp_path / "ck", "--epochs", "1", "--score", "none")
    trace = read_timeline(tmp_path / "ck")["epochs"][0]["traces"][0]
    assert trace["attention"] is None and trace["target_pieces"]


def test_two_processes_train_in_step_through_torchrun(tiny_corpus, tmp_path):
    """torchrun with 2 CPU processes (gloo): the run fails unless both end with the same weights (train.main
    compares them), and only the main process writes the record."""
    import os
    import subprocess
    import sys

    out = tmp_path / "ck"
    for extra in (["--epochs", "1"], ["--epochs", "2", "--resume"]):  # an interrupted run resumes on 2 processes
        done = subprocess.run(
            [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2", "-m",
             "models.train", "--data", str(tiny_corpus), "--out", str(out), *SMALL, *extra],
            cwd=ROOT, capture_output=True, text=True, timeout=600, env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
        assert done.returncode == 0, done.stderr[-3000:]
    record = json.loads((out / "training.json").read_text())
    assert record["processes"] == 2 and record["commands"][0].startswith("torchrun --nproc_per_node 2 -m models.train")
    assert record["epochs"] == 2 and len(record["commands"]) == 2 and record["commands"][1].endswith("--resume")
    assert load_model(str(out), device="cpu").score == "additive"


def test_an_epoch_reports_the_mean_of_its_step_losses(tiny_corpus, tmp_path, monkeypatch):
    losses = iter([3.0, 1.0, 2.0] * 100)
    monkeypatch.setattr(train, "train_step", lambda *args, **kwargs: next(losses))
    run(tiny_corpus, tmp_path / "ck", "--epochs", "1", "--batch-size", "100")  # 300 pairs: 3 batches
    assert json.loads((tmp_path / "ck" / "training.json").read_text())["history"][0]["train_loss"] == 2.0
