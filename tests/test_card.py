"""models/storage/card.py and training_record.py: the results rows, length buckets and sizes come from the records and the config."""
import json
import shutil

from models.network.training import DEFAULT_LR
from models.storage.card import LENGTH_BUCKETS, bucket_label, render_card, results_rows, scored_sets
from models.storage.hub import BUNDLED_DIR
from models.storage.training_record import (
    best_validation,
    kept_weights,
    learning_rate,
    quality_per_minute,
    training_summary,
    validation_table,
)

FLICKR = {"data": "multi30k", "split": "test_2016_flickr", "greedy": {"bleu": 50.0, "bleu_lc": 51.0, "chrf": 70.0},
          "beam": {"bleu": 52.0, "bleu_lc": 53.0, "chrf": 71.0}}
TATOEBA = {"data": "tatoeba-en-fr", "split": "test", "greedy": {"bleu": 40.0, "bleu_lc": 41.0, "chrf": 60.0}}


def test_results_rows_name_each_test_set_and_decoding():
    rows = results_rows({"beam_size": 5, "test_sets": [FLICKR, TATOEBA]})
    assert [(r["test set"], r["decoding"], r["BLEU"]) for r in rows] == [
        ("Multi30k test_2016_flickr", "greedy", 50.0), ("Multi30k test_2016_flickr", "beam 5", 52.0),
        ("Tatoeba English–French test", "greedy", 40.0)]


def test_records_from_before_several_test_sets_read_as_one_multi30k_set():
    flat = {k: v for k, v in FLICKR.items() if k != "data"} | {"beam_size": 5}
    assert scored_sets(flat)[0]["data"] == "multi30k"
    assert results_rows(flat) == results_rows({"beam_size": 5, "test_sets": [FLICKR]})


def test_bucket_labels():
    assert [bucket_label({"min_words": lo, "max_words": hi}) for lo, hi in LENGTH_BUCKETS] == [
        "1–9", "10–14", "15–19", "20–24", "25+"]


def test_card_states_the_sizes_of_its_config():
    card = render_card(BUNDLED_DIR / "en-fr-dot")
    assert "embeddings 256, encoder 256 each way, decoder 512, attention 256, dropout 0.2" in card
    assert "scaled dot-product attention" in card and "| greedy |" in card
    assert "decoder 512, no attention, dropout" in render_card(BUNDLED_DIR / "en-fr-none")  # A unused there


def test_card_gives_each_corpus_validation_score_and_the_extra_files(tmp_path):
    shutil.copytree(BUNDLED_DIR / "en-fr-dot", tmp_path / "ck")
    training = json.loads((tmp_path / "ck" / "training.json").read_text())
    training["history"] = [
        {"epoch": 1, "val_bleu": 20.0, "by_corpus": {"a": {"val_bleu": 30.0}, "b": {"val_bleu": 10.0}}},
        {"epoch": 2, "val_bleu": 25.0, "by_corpus": {"a": {"val_bleu": 31.0}, "b": {"val_bleu": 19.0}}},
    ]
    assert best_validation(training) == "25.0 (epoch 2; a 31.0, b 19.0)"
    (tmp_path / "ck" / "alignment_timeline.safetensors").write_bytes(b"")
    (tmp_path / "ck" / "neighbours.safetensors").unlink(missing_ok=True)
    card = render_card(tmp_path / "ck")
    assert "`alignment_timeline.safetensors`" in card and "`neighbours.safetensors`" not in card


def test_learning_rate_is_the_first_epochs_and_says_whether_it_is_the_default():
    history = [{"epoch": 1, "lr": DEFAULT_LR}, {"epoch": 2, "lr": DEFAULT_LR / 2}]
    assert f"from learning rate {DEFAULT_LR:g} (the default)" in learning_rate({"score": "dot", "history": history})
    other = learning_rate({"score": "additive", "history": [{"epoch": 1, "lr": 4 * DEFAULT_LR}]})
    assert f"from learning rate {4 * DEFAULT_LR:g} (not the default {DEFAULT_LR:g})" in other


def test_training_summary_says_when_the_last_epoch_was_cut_short():
    record = {"epochs": 3, "wall_clock_s": 7116.0, "device": "cpu", "threads": 1, "commands": ["python -m …"]}
    whole = training_summary({**record, "history": [{"partial": False}]})
    assert whole == "3 epochs in 118.6 min on cpu (1 thread(s))"
    assert training_summary({**record, "history": [{"partial": True}]}).startswith("3 epochs (the last partial) in")


POINTS = [  # two validation points as models/train/loop.py records them
    {"step": 1000, "epoch": 0.29, "minutes": 13.0, "lr": 9e-4, "weights": "raw", "val_bleu": 20.0,
     "raw_val_bleu": 20.0, "average_val_bleu": 19.0, "by_corpus": {"a": {"val_bleu": 30.0}, "b": {"val_bleu": 10.0}}},
    {"step": 2000, "epoch": 0.58, "minutes": 26.5, "lr": 0.0, "weights": "average", "val_bleu": 26.0,
     "raw_val_bleu": 25.0, "average_val_bleu": 26.0, "by_corpus": {"a": {"val_bleu": 33.0}, "b": {"val_bleu": 19.0}}},
]
PLANNED = {"commands": ["python -m …"], "steps": 2000, "epochs": 0.58, "wall_clock_s": 1590.0, "device": "cpu",
           "threads": 1, "history": POINTS, "schedule": {"shape": "linear", "lr": DEFAULT_LR, "warmup_steps": 300,
                                                          "planned_steps": 68800, "minutes": 26.5, "ema_decay": 0.999}}


def test_a_planned_run_is_summed_up_by_steps_schedule_and_kept_weights():
    assert training_summary(PLANNED) == "2,000 steps (0.58 epochs) in 26.5 min on cpu (1 thread(s))"
    assert best_validation(PLANNED) == "26.0 (step 2,000, epoch 0.58; a 33.0, b 19.0)"
    assert learning_rate(PLANNED) == (f"Adam; learning rate {DEFAULT_LR:g} (the default) after a 300-step warm-up, "
                                      "then linear to zero over the budget (68,800 steps or 26.5 minutes, whichever "
                                      "came first)")
    assert kept_weights(PLANNED) == ("the moving average of the weights (decay 0.999): validation BLEU 26.0 against "
                                     "25.0 for the raw weights at that point; the average won at 1 of 2 points")
    raw_best = {**PLANNED, "history": POINTS[:1]}
    assert kept_weights(raw_best) == ("the raw weights: validation BLEU 20.0 against 19.0 for their moving average "
                                      "(decay 0.999) at that point; the average won at 0 of 1 points")


def test_quality_per_minute_has_every_point_by_corpus_and_their_mean():
    rows = quality_per_minute(PLANNED)
    assert [(r["minutes"], r["validation set"], r["BLEU"]) for r in rows] == [
        (13.0, "mean", 20.0), (13.0, "a", 30.0), (13.0, "b", 10.0),
        (26.5, "mean", 26.0), (26.5, "a", 33.0), (26.5, "b", 19.0)]
    table = validation_table(PLANNED).splitlines()
    assert table[0] == "| minutes | step | epochs | learning rate | weights | val BLEU | a | b |"
    assert table[3] == "| 26.5 | 2,000 | 0.58 | 0.00e+00 | average | 26.0 | 33.0 | 19.0 |"
