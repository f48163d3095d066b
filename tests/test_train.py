"""models/train/ and models/storage/cards/render.py: the CLI end to end on a tiny corpus; budgets, resume, averaging."""
import json
import shutil

import pytest
import torch
from safetensors.torch import load_file

from models import ROOT, train
from models.storage.hub import load_model
from models.train import cli, loop

from .helpers import assert_resumed_as_left_alone

pytestmark = pytest.mark.usefixtures("few_examples")  # two curated examples, not 40, a point

SMALL = ["--emb-dim", "16", "--enc-hidden", "16", "--dec-hidden", "24", "--attn-dim", "12", "--vocab-size", "100",
         "--batch-size", "32", "--seed", "3", "--threads", "1"]


def run(corpus, out, *extra):
    train.main(["--data", str(corpus), "--out", str(out), *SMALL, *extra])


def test_trains_a_loadable_checkpoint_with_a_card(tiny_corpus, tmp_path):
    out = tmp_path / "ck"
    run(tiny_corpus, out, "--epochs", "2", "--score", "dot")
    loaded = load_model(str(out), device="cpu")
    assert loaded.variant == "dot"
    record = json.loads((out / "training.json").read_text())
    assert record["epochs"] == 2 and [r["epoch"] for r in record["history"]] == [1, 2]  # 10 batches an epoch
    assert record["history"][1]["train_loss"] < record["history"][0]["train_loss"]
    card = (out / "README.md").read_text()
    assert card.startswith("---\n") and "license: mit" in card and "python -m models.train" in card
    assert f"{record['parameters']:,}" in card


def test_resume_inside_an_epoch_continues_exactly(tiny_corpus, tmp_path, monkeypatch):
    """A run stopped after its validation point at step 4 (inside epoch 1 of 10 batches) and resumed ends with the
    weights, average, optimizer state and history of the same run left alone."""
    args = ["--epochs", "2", "--validate-every", "4"]  # points at steps 1, 2, 4, 8, 12, 16, 20 (the end)
    straight, resumed = tmp_path / "straight", tmp_path / "resumed"
    assert_resumed_as_left_alone(lambda out, *extra: run(tiny_corpus, out, *args, *extra), straight, resumed, 4,
                                 monkeypatch)
    first, second = (json.loads((d / "training.json").read_text()) for d in (straight, resumed))
    strip = lambda history: [{k: v for k, v in r.items() if k != "minutes"} for r in history]  # noqa: E731
    assert strip(first["history"]) == strip(second["history"])
    assert [r["step"] for r in second["history"]] == [1, 2, 4, 8, 12, 16, 20]
    assert len(second["commands"]) == 2 and second["commands"][1].endswith("--resume")


def test_reuses_given_tokenizers(tiny_corpus, tmp_path):
    run(tiny_corpus, tmp_path / "a", "--epochs", "1")
    run(tiny_corpus, tmp_path / "b", "--epochs", "1", "--score", "none", "--tokenizers", str(tmp_path / "a"))
    for name in ("source_tokenizer.json", "target_tokenizer.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


@pytest.mark.parametrize("native", [True, False])
def test_bfloat16_without_hardware_support_is_warned_about(tiny_corpus, tmp_path, monkeypatch, capsys, native):
    monkeypatch.setattr(cli, "native_bfloat16", lambda device: native)
    run(tiny_corpus, tmp_path / "ck", "--epochs", "1", "--precision", "bfloat16")
    assert ("no native bfloat16" in capsys.readouterr().err) is not native


def test_a_run_stopped_by_its_clock_has_annealed(tiny_corpus, tmp_path, monkeypatch):
    """The clock advances one second each time it is read: a 0.5-minute budget ends the run after about 30
    steps, well before its 50 epochs (500 steps), with the learning rate near zero."""
    seconds = iter(range(10**6))
    monkeypatch.setattr(loop, "now", lambda: float(next(seconds)))
    run(tiny_corpus, tmp_path / "ck", "--epochs", "50", "--minutes", "0.5", "--warmup-steps", "0",
        "--validate-every", "10")
    record = json.loads((tmp_path / "ck" / "training.json").read_text())
    last = record["history"][-1]
    assert 25 <= record["steps"] <= 35 and last["minutes"] == pytest.approx(0.5, abs=0.02)
    assert last["lr"] < 0.05 * 1e-3  # started at 1e-3
    assert [r["lr"] for r in record["history"]] == sorted(r["lr"] for r in record["history"])[::-1]


def test_a_step_budget_plans_a_linear_fall_after_warm_up(tiny_corpus, tmp_path):
    run(tiny_corpus, tmp_path / "ck", "--steps", "20", "--lr", "0.004", "--warmup-steps", "4", "--validate-every", "4",
        "--schedule", "linear")
    history = json.loads((tmp_path / "ck" / "training.json").read_text())["history"]
    # the rate recorded after step s is the one step s + 1 will use: 0.004 · min(1, (s + 1) / 4) · (1 − s / 20)
    expected = [0.004 * min(1, (r["step"] + 1) / 4) * (1 - r["step"] / 20) for r in history]
    assert [r["lr"] for r in history] == pytest.approx(expected)
    assert history[-1]["step"] == 20 and history[-1]["lr"] == 0


@pytest.mark.parametrize("winner", ["average", "raw"])
def test_the_better_of_raw_and_averaged_weights_is_saved(tiny_corpus, tmp_path, monkeypatch, winner):
    original = loop.scores

    def favour(model, run):  # the winner scores 50 more BLEU than it measures
        result = original(model, run)
        return {**result, "val_bleu": result["val_bleu"] + 50 * ((model is run.model) == (winner == "raw"))}

    monkeypatch.setattr(loop, "scores", favour)
    out = tmp_path / "ck"
    run(tiny_corpus, out, "--epochs", "1")
    saved = load_file(out / "model.safetensors")  # float16 on disk
    kept = load_file(out / train.STATE_DIR / ("model.safetensors" if winner == "raw" else "average.safetensors"))
    for name, value in saved.items():
        torch.testing.assert_close(value, kept[name if winner == "raw" else f"module.{name}"].half())
    record = json.loads((out / "training.json").read_text())["history"][-1]
    assert record["weights"] == winner and record["val_bleu"] == record[f"{winner}_val_bleu"]
    said = {"raw": "Weights: the raw weights", "average": "Weights: the moving average of the weights"}[winner]
    assert said in (out / "README.md").read_text()


def test_several_corpora_are_validated_each_and_chosen_on_their_mean(tiny_corpus, tmp_path):
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


def test_every_epoch_records_the_examples_alignments(tiny_corpus, tmp_path, monkeypatch):
    from models.storage.examples import load_examples
    from models.storage.records.timeline import read_timeline

    monkeypatch.setattr(loop, "load_examples", load_examples)  # every one of them, as a real run records

    out = tmp_path / "ck"
    run(tiny_corpus, out, "--epochs", "1", "--validate-every", "0")
    run(tiny_corpus, out, "--epochs", "2", "--validate-every", "30", "--resume")  # a resumed run appends
    timeline = read_timeline(out)
    assert [e.text for e in timeline.examples] == [e.text for e in load_examples()]
    history = json.loads((out / "training.json").read_text())["history"]
    assert [e.epoch for e in timeline.points] == [1, 1.5, 2]  # the resumed run validates at step 15 too
    assert [e.val_bleu for e in timeline.points] == [h["val_bleu"] for h in history]
    for epoch in timeline.points:
        for example, trace in zip(timeline.examples, epoch.traces):
            (heads,) = trace.attention.weights  # an RNN: one layer …
            (attention,) = heads  # … of one head
            assert len(attention) == len(trace.target_pieces)  # one row per written piece
            assert all(len(row) == len(example.source_pieces) for row in attention)
            assert all(abs(sum(row) - 1) < 0.01 for row in attention)  # rounded to 3 decimals


def test_a_model_without_attention_records_pieces_only(tiny_corpus, tmp_path):
    from models.storage.records.timeline import read_timeline

    run(tiny_corpus, tmp_path / "ck", "--epochs", "1", "--score", "none")
    trace = read_timeline(tmp_path / "ck").points[0].traces[0]
    assert trace.attention is None and trace.target_pieces


TRANSFORMER = ["--arch", "transformer", "--d-model", "16", "--heads", "2", "--enc-layers", "2", "--dec-layers", "1",
               "--ffn-dim", "32"]


def test_trains_a_transformer_with_its_heads_recorded(tiny_corpus, tmp_path):
    out = tmp_path / "ck"
    run(tiny_corpus, out, "--epochs", "2", "--warmup-steps", "4", "--lr", "3e-3", *TRANSFORMER)
    loaded = load_model(str(out), device="cpu")
    assert loaded.variant == "transformer" and loaded.model.attention_shape == (1, 2)
    record = json.loads((out / "training.json").read_text())
    assert record["architecture"] == "transformer" and "score" not in record
    assert record["history"][1]["train_loss"] < record["history"][0]["train_loss"]
    card = (out / "README.md").read_text()
    assert "Transformer encoder–decoder" in card and "2 encoder and 1 decoder layers, d_model 16, 2 heads" in card
    from models.storage.records.timeline import read_timeline

    trace = read_timeline(out).points[-1].traces[0]
    assert [len(layer) for layer in trace.attention.weights] == [2]  # one decoder layer of two heads


@pytest.mark.parametrize("arch", [[], TRANSFORMER], ids=["rnn", "transformer"])
def test_two_processes_train_in_step_through_torchrun(tiny_corpus, tmp_path, arch):
    """torchrun with 2 CPU processes (gloo): the run fails unless both end with the same weights (train.main
    compares them), and only the main process writes the record."""
    import os
    import subprocess
    import sys

    out = tmp_path / "ck"
    # an interrupted run resumes on 2 processes (the resume is the same for both architectures: the Transformer's)
    runs = (["--epochs", "1"], ["--epochs", "2", "--resume"]) if arch else (["--epochs", "2"],)
    for extra in runs:
        done = subprocess.run(
            [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2", "-m",
             "models.train", "--data", str(tiny_corpus), "--out", str(out), *SMALL, *arch,
             "--device", "cpu", *extra],  # CPU ranks on any machine: on a one-GPU machine two CUDA ranks are refused
            cwd=ROOT, capture_output=True, text=True, timeout=600, env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
        assert done.returncode == 0, done.stderr[-3000:]
    record = json.loads((out / "training.json").read_text())
    assert record["processes"] == 2 and record["commands"][0].startswith("torchrun --nproc_per_node 2 -m models.train")
    assert record["epochs"] == 2 and len(record["commands"]) == len(runs)
    assert record["commands"][-1].endswith("--resume") == bool(arch)
    assert load_model(str(out), device="cpu").variant == ("transformer" if arch else "additive")


@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step\\(\\)` before")  # the step is a stand-in
def test_an_epoch_reports_the_mean_of_its_step_losses(tiny_corpus, tmp_path, monkeypatch):
    losses = iter([3.0, 1.0, 2.0] * 100)
    monkeypatch.setattr(loop, "train_step", lambda *args, **kwargs: next(losses))
    run(tiny_corpus, tmp_path / "ck", "--epochs", "1", "--batch-size", "100")  # 300 pairs: 3 batches
    assert json.loads((tmp_path / "ck" / "training.json").read_text())["history"][0]["train_loss"] == 2.0


def test_validation_points_fall_every_n_steps_with_two_early_ones():
    assert [s for s in range(1, 5001) if loop.validation_due(s, 2000)] == [500, 1000, 2000, 4000]
    assert not any(loop.validation_due(s, 0) for s in range(1, 100))  # 0: epoch ends only


def test_keep_last_holds_the_weights_of_the_budgets_end(tiny_corpus, tmp_path, monkeypatch):
    falling = iter(range(100, 0, -1))  # each validation scores lower than the one before: the first point is best
    monkeypatch.setattr(loop, "scores", lambda model, run: {"val_loss": 1.0, "val_bleu": float(next(falling)),
                                                            "by_corpus": {}})
    out = tmp_path / "ck"
    run(tiny_corpus, out, "--epochs", "2", "--validate-every", "4", "--keep", "last")
    record = json.loads((out / "training.json").read_text())
    last = record["history"][-1]
    assert record["kept"] == "last" and last["step"] == 20
    end = load_file(out / train.STATE_DIR / ("model.safetensors" if last["weights"] == "raw" else
                                              "average.safetensors"))
    kept = load_file(out / "model.safetensors")  # stored in float16
    key = next(k for k in kept if k in end or f"module.{k}" in end)
    torch.testing.assert_close(kept[key].float(), end.get(key, end.get(f"module.{key}")).float(), rtol=1e-3,
                               atol=1e-3)
    assert "last validation BLEU" in (out / "README.md").read_text()
