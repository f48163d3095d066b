"""models/storage/cards/render.py and records/training.py: the results rows, length buckets and sizes come from the records and the config."""
import json
import shutil
from dataclasses import replace

import pytest

from models.network.learning.step import DEFAULT_LR
from models.storage.cards.render import LENGTH_BUCKETS, _results_table, bucket_label, render_card, results_rows
from models.storage.hub import BUNDLED_DIR
from models.storage.records.evaluation import (
    EVALUATION_FILE,
    EvaluationRecord,
    Scores,
    TestScores,
    read_evaluation,
    write_evaluation,
)
from models.storage.records.strict import record_json
from models.storage.records.training import (
    TRAINING_FILE,
    CorpusScore,
    Schedule,
    Start,
    ValidationPoint,
    best_validation,
    kept_weights,
    learning_rate,
    lineage,
    quality_per_minute,
    read_training,
    training_from_json,
    training_summary,
    validation_table,
    write_training,
)

FLICKR = TestScores("multi30k", "test_2016_flickr", 1000, 1, Scores(50.0, 51.0, 70.0), {}, (), (), 5,
                    "python -m models.evaluate --data multi30k --beam 5", beam=Scores(52.0, 53.0, 71.0))
TATOEBA = TestScores("tatoeba-en-fr", "test", 1000, 1, Scores(40.0, 41.0, 60.0), {}, (), (), 1,
                     "python -m models.evaluate --data tatoeba-en-fr:split=test --beam 1")


def test_results_rows_name_each_test_set_and_decoding():
    rows = results_rows(EvaluationRecord("ck", "dot", (FLICKR, TATOEBA)))
    assert [(r["test set"], r["decoding"], r["BLEU"]) for r in rows] == [
        ("Multi30k test_2016_flickr", "greedy", 50.0), ("Multi30k test_2016_flickr", "beam 5", 52.0),
        ("Tatoeba English–French test", "greedy", 40.0)]


def test_an_evaluation_merges_in_by_test_set_keeping_every_other_set_and_its_command(tmp_path):
    path = tmp_path / EVALUATION_FILE
    write_evaluation(EvaluationRecord("ck", "dot", (FLICKR, TATOEBA)), path)
    again = replace(FLICKR, greedy=Scores(55.0, 56.0, 72.0), command="python -m models.evaluate --data multi30k")
    write_evaluation(EvaluationRecord("ck", "dot", (again,)), path)
    found = read_evaluation(tmp_path)
    assert found.test_sets == (again, TATOEBA)  # the set measured again replaced in its place, the other kept
    assert found.commands == (again.command, TATOEBA.command)
    card = _results_table(found)
    assert again.command in card and TATOEBA.command in card and FLICKR.command not in card


@pytest.mark.parametrize("folder", sorted(p.parent for p in BUNDLED_DIR.glob(f"*/{EVALUATION_FILE}")))
def test_every_bundled_evaluation_record_reads_and_writes_back_as_it_was(folder):
    assert record_json(read_evaluation(folder)) == json.loads((folder / EVALUATION_FILE).read_text())


def test_an_evaluation_record_from_before_several_test_sets_is_refused_naming_its_file(tmp_path):
    flat = {"greedy": {"bleu": 50.0, "bleu_lc": 51.0, "chrf": 70.0}, "beam_size": 5, "split": "test_2016_flickr"}
    (tmp_path / EVALUATION_FILE).write_text(json.dumps(flat))
    with pytest.raises(ValueError, match=EVALUATION_FILE):
        read_evaluation(tmp_path)


def test_bucket_labels():
    assert [bucket_label(lo, hi) for lo, hi in LENGTH_BUCKETS] == ["1–9", "10–14", "15–19", "20–24", "25+"]


def test_card_states_the_sizes_of_its_config():
    card = render_card(BUNDLED_DIR / "en-fr-dot")
    assert "embeddings 256, encoder 256 each way, decoder 512, attention 256, dropout 0.2" in card
    assert "scaled dot-product attention" in card and "| greedy |" in card
    assert "decoder 512, no attention, dropout" in render_card(BUNDLED_DIR / "en-fr-none")  # A unused there


def point(step: int, epoch: float, minutes: float, lr: float, weights: str, bleu: tuple[float, float, float],
          a: float, b: float) -> ValidationPoint:
    """A validation point as models/train/loop.py records it: mean, raw and average BLEU, and two corpora's."""
    return ValidationPoint(step, epoch, minutes, lr, 3.0, 2.0, bleu[0], {"a": CorpusScore(2.1, a), "b": CorpusScore(
        1.9, b)}, weights, bleu[1], bleu[2])


POINTS = (point(1000, 0.29, 13.0, 9e-4, "raw", (20.0, 20.0, 19.0), 30.0, 10.0),
          point(2000, 0.58, 26.5, 0.0, "average", (26.0, 25.0, 26.0), 33.0, 19.0))
PLANNED = replace(read_training(BUNDLED_DIR / "en-fr-dot"), commands=("python -m …",), steps=2000, epochs=0.58,
                  wall_clock_s=1590.0, device="cpu", cpu="AMD EPYC", threads=1, history=POINTS, started_from=None,
                  kept=None, schedule=Schedule("linear", DEFAULT_LR, 300, 68800, 26.5, 0.999))


@pytest.mark.parametrize("folder", sorted(p.parent for p in BUNDLED_DIR.glob(f"*/{TRAINING_FILE}")))
def test_every_bundled_training_record_reads_and_writes_back_as_it_was(folder, tmp_path):
    record = read_training(folder)
    assert record_json(record) == json.loads((folder / TRAINING_FILE).read_text())
    assert read_training(write_training(record, tmp_path).parent) == record


@pytest.mark.parametrize("change", [{"steps": None}, {"surprise": 1}, {"steps": "many"}, {"history": [{}]}],
                         ids=["missing", "unknown", "mistyped", "a point without its fields"])
def test_a_training_record_of_another_version_is_refused_naming_its_file(change):
    found = json.loads((BUNDLED_DIR / "en-fr-dot" / TRAINING_FILE).read_text())
    found = {k: v for k, v in (found | change).items() if v is not None}
    with pytest.raises(ValueError, match=TRAINING_FILE):
        training_from_json(found)


def test_a_continued_runs_lineage_sums_every_start_back_to_scratch():
    first = Start("runs/a", wall_clock_s=600.0)
    record = replace(PLANNED, started_from=Start("assets/b", wall_clock_s=1200.0, started_from=first))
    assert lineage(record) == "; continued from b (20.0 min of its own), itself from a (10.0 min of its own): " \
                              "56.5 min in all"
    assert lineage(replace(record, started_from=Start("elsewhere"))) == (
        "; continued from elsewhere (0.0 min of its own): 26.5 min in all")  # a start without a record of its own


def test_card_gives_each_corpus_validation_score_and_the_extra_files(tmp_path):
    shutil.copytree(BUNDLED_DIR / "en-fr-dot", tmp_path / "ck")
    assert best_validation(PLANNED) == "26.0 (step 2,000, epoch 0.58; a 33.0, b 19.0)"
    (tmp_path / "ck" / "alignment_timeline.safetensors").write_bytes(b"")
    (tmp_path / "ck" / "neighbours.safetensors").unlink(missing_ok=True)
    card = render_card(tmp_path / "ck")
    assert "`alignment_timeline.safetensors`" in card and "`neighbours.safetensors`" not in card


def test_a_planned_run_is_summed_up_by_steps_schedule_and_kept_weights():
    assert training_summary(PLANNED) == "2,000 steps (0.58 epochs) in 26.5 min on cpu, AMD EPYC (1 thread(s))"
    assert best_validation(PLANNED) == "26.0 (step 2,000, epoch 0.58; a 33.0, b 19.0)"
    assert learning_rate(PLANNED) == (f"Adam; learning rate {DEFAULT_LR:g} (the default) after a 300-step warm-up, "
                                      "then linear to zero over the budget (68,800 steps or 26.5 minutes, whichever "
                                      "came first)")
    assert kept_weights(PLANNED) == ("the moving average of the weights (decay 0.999): validation BLEU 26.0 against "
                                     "25.0 for the raw weights at that point; the average won at 1 of 2 points")
    raw_best = replace(PLANNED, history=POINTS[:1])
    assert kept_weights(raw_best) == ("the raw weights: validation BLEU 20.0 against 19.0 for their moving average "
                                      "(decay 0.999) at that point; the average won at 0 of 1 points")
    assert best_validation(replace(PLANNED, kept="last", history=POINTS[::-1])).startswith("20.0 (step 1,000")


def test_quality_per_minute_has_every_point_by_corpus_and_their_mean():
    rows = quality_per_minute(PLANNED)
    assert [(r["minutes"], r["validation set"], r["BLEU"]) for r in rows] == [
        (13.0, "mean", 20.0), (13.0, "a", 30.0), (13.0, "b", 10.0),
        (26.5, "mean", 26.0), (26.5, "a", 33.0), (26.5, "b", 19.0)]
    table = validation_table(PLANNED).splitlines()
    assert table[0] == "| minutes | step | epochs | learning rate | weights | val BLEU | a | b |"
    assert table[3] == "| 26.5 | 2,000 | 0.58 | 0.00e+00 | average | 26.0 | 33.0 | 19.0 |"
