"""models/storage/timeline.py: points append in order; a redone point replaces what came after it."""
import json

import pytest

from models.decoding.greedy import greedy
from models.storage.timeline import TIMELINE_FILE, TimelineError, append_point, read_timeline, timeline_entry

from .helpers import training_point


def test_a_redone_point_replaces_it_and_the_later_ones(tmp_path, tiny_model, tiny_tokenizers):
    examples = ["a dog runs", "the red cat"]
    traces = [greedy(tiny_model, tiny_tokenizers, e) for e in examples]
    for epoch in (0.25, 0.5, 1, 0.5):  # a run resumed from its point at half an epoch
        append_point(tmp_path, examples, traces, timeline_entry(training_point(epoch, epoch, 1.0), traces))
    timeline = read_timeline(tmp_path)
    assert [(e["epoch"], e["step"]) for e in timeline["epochs"]] == [(0.25, 25), (0.5, 50)]
    assert timeline["examples"][1] == {"text": "the red cat", "source_pieces": list(traces[1].source.pieces)}
    assert timeline["epochs"][0]["traces"][0]["cross_attention"] == traces[0].cross_attention.round(3).tolist()


def test_a_file_from_before_the_heads_reads_as_one_layer_of_one_head(tmp_path, tiny_model, tiny_tokenizers):
    """Bundled records hold an RNN's [T, S] under "attention"; readers see it as cross_attention [1, 1, T, S]."""
    trace = greedy(tiny_model, tiny_tokenizers, "a dog runs")
    append_point(tmp_path, ["a dog runs"], [trace], timeline_entry(training_point(1, 1.0, 2.0), [trace]))
    stored = json.loads((tmp_path / TIMELINE_FILE).read_text())
    old = stored["epochs"][0]["traces"][0]
    old["attention"] = old.pop("cross_attention")[0][0]
    (tmp_path / TIMELINE_FILE).write_text(json.dumps(stored))
    read = read_timeline(tmp_path)["epochs"][0]["traces"][0]
    assert "attention" not in read and read["cross_attention"] == [[old["attention"]]]


def test_no_timeline_reads_as_none(tmp_path):
    assert read_timeline(tmp_path) is None and not (tmp_path / TIMELINE_FILE).exists()


def test_malformed_files_are_refused(tmp_path, tiny_model, tiny_tokenizers):
    examples = ["a dog runs"]
    traces = [greedy(tiny_model, tiny_tokenizers, e) for e in examples]
    append_point(tmp_path, examples, traces, timeline_entry(training_point(1, 1.0, 2.0), traces))
    good = json.loads((tmp_path / TIMELINE_FILE).read_text())
    short_row = json.loads(json.dumps(good))
    short_row["epochs"][0]["traces"][0]["cross_attention"][0][0][0].pop()
    missing_trace = json.loads(json.dumps(good))
    missing_trace["epochs"][0]["traces"] = []
    text_score = json.loads(json.dumps(good))
    text_score["epochs"][0]["val_bleu"] = "high"
    for broken in ("\x00 not json", "[]", json.dumps(short_row), json.dumps(missing_trace), json.dumps(text_score)):
        (tmp_path / TIMELINE_FILE).write_text(broken)
        with pytest.raises(TimelineError, match="unreadable or malformed"):
            read_timeline(tmp_path)
