"""models/storage/records/alignment_rows.py: the records of AER beside a checkpoint — read and written as typed rows,
recorded per reading, laid out by head, the trial set's best chosen as the default, and the table the Models page
shows."""
import dataclasses
import json

import pytest

from models.nouns.attention_map import RNN_READING, Reading
from models.nouns.link_rule import LinkRule
from models.nouns.matrix import ALIGNER, ATTENTION
from models.storage.records.alignment_rows import (
    ALIGNMENT_FILE,
    PUBLISHED,
    AlignmentRow,
    aer_by_head,
    alignment_table,
    default_reading,
    read_alignment,
    record_alignment,
)


def result(split, reading, aer, method="union", **more):
    return AlignmentRow("m", split, 3, ATTENTION, LinkRule.parse(method), aer, 50.0, 50.0, 4, reading=reading,
                        command=f"align {split} {reading} {method}", **more)


def test_a_row_reads_back_as_written_with_the_files_own_spelling(tmp_path):
    row = result("test", "1.1", 60.0, trial_aer=58.0, row="attention.1.1", trained_to_align=True)
    record_alignment(tmp_path / ALIGNMENT_FILE, [row])
    written = json.loads((tmp_path / ALIGNMENT_FILE).read_text())[0]
    assert written["trial aer"] == 58.0 and written["trained to align"] is True and "training_pairs" not in written
    assert read_alignment(tmp_path / ALIGNMENT_FILE) == [row]


def test_a_rows_pairs_counts_read_back_as_written_on_one_line(tmp_path):
    row = result("test", "1.1", 60.0, trial_aer=58.0, per_pair=((3, 4), (0, 2), (12, 15)))
    record_alignment(tmp_path / ALIGNMENT_FILE, [row])
    assert json.loads((tmp_path / ALIGNMENT_FILE).read_text())[0]["per pair"] == "3/4 0/2 12/15"
    assert read_alignment(tmp_path / ALIGNMENT_FILE) == [row]


def test_a_record_with_a_field_no_row_has_is_refused(tmp_path):
    (tmp_path / ALIGNMENT_FILE).write_text(json.dumps([{**result("test", "1.1", 60.0).to_json(), "aerr": 1}]))
    with pytest.raises(ValueError, match="aerr"):
        read_alignment(tmp_path / ALIGNMENT_FILE)


@pytest.mark.parametrize("field, value", [("aer", "sixty"), ("per pair", "3-4 0/2"), ("french", "spoken"),
                                          ("matrix", "no such matrix"), ("trained to align", "yes")])
def test_a_value_of_the_wrong_kind_is_refused_naming_the_file(tmp_path, field, value):
    """One reader for every record (records/strict.py): a row's values are read as its fields' types say, its
    pairs' counts by their own codec, and whatever does not read is refused with the file's name."""
    (tmp_path / ALIGNMENT_FILE).write_text(json.dumps([{**result("test", "1.1", 60.0).to_json(), field: value}]))
    with pytest.raises(ValueError, match=ALIGNMENT_FILE):
        read_alignment(tmp_path / ALIGNMENT_FILE)


def test_every_bundled_record_reads_as_rows():
    from models import ROOT

    for path in [*ROOT.glob("assets/checkpoints/*/alignment.json"), ROOT / "assets" / "eflomal.json"]:
        rows = read_alignment(path)
        assert rows and all(r.to_json() == found for r, found in zip(rows, json.loads(path.read_text()))), path
        # a matrix's rule travels as a LinkRule; the statistical aligner's direction as its own words
        assert all(isinstance(r.method, LinkRule) != r.matrix.aligner for r in rows), path


def test_a_matrixs_unknown_rule_is_refused_and_the_aligners_direction_kept(tmp_path):
    (tmp_path / ALIGNMENT_FILE).write_text(json.dumps([{**result("test", "1.1", 60.0).to_json(), "method": "best"}]))
    with pytest.raises(ValueError, match="link rule"):
        read_alignment(tmp_path / ALIGNMENT_FILE)
    aligner = dataclasses.replace(result("test", None, 20.0), model=ALIGNER.name, matrix=ALIGNER, method="forward")
    record_alignment(tmp_path / "eflomal.json", [aligner])
    assert read_alignment(tmp_path / "eflomal.json") == [aligner]


def test_a_result_replaces_only_the_one_that_measured_the_same(tmp_path):
    record_alignment(tmp_path / ALIGNMENT_FILE, [result("trial", "1.1", 60.0), result("trial", "1.2", 55.0)])
    record_alignment(tmp_path / ALIGNMENT_FILE, [result("trial", "1.1", 50.0)])
    assert [(r.reading, r.aer) for r in read_alignment(tmp_path / ALIGNMENT_FILE)] == [("1.2", 55.0), ("1.1", 50.0)]


def test_a_row_whose_rule_was_chosen_on_trial_keeps_the_rule_asked_for_beside_it(tmp_path):
    """``--matrix all`` scores the same reading and rule as a plain run may have: both stay, each in its table."""
    record_alignment(tmp_path / ALIGNMENT_FILE, [result("test", "1.1", 60.0)])
    record_alignment(tmp_path / ALIGNMENT_FILE, [result("test", "1.1", 60.0, trial_aer=58.0)])
    assert [r.chosen_on_trial for r in read_alignment(tmp_path / ALIGNMENT_FILE)] == [False, True]
    assert len(alignment_table({"m": read_alignment(tmp_path / ALIGNMENT_FILE)}, [])) == 1 + len(PUBLISHED)


def test_the_default_reading_is_the_trial_sets_best_and_never_the_test_sets(tmp_path):
    assert default_reading(tmp_path, (0, 0)) is None and default_reading(tmp_path, (1, 1)) == RNN_READING
    assert default_reading(tmp_path, (3, 4)) == Reading(2, None)  # nothing scored: the last layer's mean
    record_alignment(tmp_path / ALIGNMENT_FILE, [result("trial", "2.3", 48.0), result("trial", "2.mean", 51.0),
                                                 result("test", "1.1", 20.0), result("trial", "9.9", 1.0)])
    assert default_reading(tmp_path, (3, 4)) == Reading(1, 2)  # 9.9 is no head of this model; test never chooses


def test_the_grid_lays_each_layers_heads_then_its_mean():
    found = [result("test", "1.1", 60.0), result("test", "1.2", 58.0), result("test", "1.mean", 57.0),
             result("test", "2.1", 52.0), result("test", "2.1", 50.0, method="argmax"), result("trial", "2.2", 1.0)]
    rows, columns, values = aer_by_head(found, "test")
    assert rows == ["layer 1", "layer 2"] and columns == ["head 1", "head 2", "mean"]
    assert values == [[60.0, 58.0, 57.0], [50.0, None, None]]  # the best rule per reading; trial rows left out
    assert aer_by_head([result("test", None, 60.0)], "test") is None  # an RNN's results name no reading


def test_the_table_names_each_row_and_ends_with_the_published_figures():
    rnn = result("test", None, 58.0)
    eflomal = dataclasses.replace(result("test", None, 11.0, method="grow-diag"), matrix=ALIGNER)
    rows = alignment_table({"Additive": [rnn], "Transformer": [result("test", "2.mean", 45.0),
                                                                result("trial", "2.1", 40.0)]}, [eflomal])
    assert [r["links from"] for r in rows] == ["Additive: attention",
                                               "Transformer: attention, layer 2, mean of its heads",
                                               "eflomal (grow-diag links)", *PUBLISHED]


def test_a_several_head_models_default_reading_is_its_best_single_head_on_trial():
    """A layer's mean blurs what its heads read: the Translate page opens on the single head that aligns best on
    the trial pairs (the bundled decoder-only's best reading of all is layer 5's mean)."""
    import json

    from models.storage.hub import BUNDLED_DIR, load_model

    rows = [r for r in json.loads((BUNDLED_DIR / "en-fr-decoder-only" / "alignment.json").read_text())
            if r["split"] == "trial" and r["matrix"] == "attention"]
    best = min(rows, key=lambda r: r["aer"])
    heads = min((r for r in rows if not r["reading"].endswith(("mean", "mean.shifted"))), key=lambda r: r["aer"])
    assert best["reading"].startswith("5.mean")  # what the mean would have opened on
    assert load_model("decoder-only").reading.key == heads["reading"]
