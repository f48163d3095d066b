"""models/storage/records/timeline.py: points append in order; a redone point replaces what came after it; the record is
binary (float16) and the JSON records of older checkpoints still read."""
import json
from dataclasses import replace

import numpy as np
import pytest

from models.decoding.greedy import greedy
from models.storage.records.timeline import (
    LEGACY_FILE,
    TIMELINE_FILE,
    TimelineError,
    TimelineExample,
    _write,
    append_point,
    read_timeline,
    timeline_entry,
)

from .helpers import training_point


def test_a_redone_point_replaces_it_and_the_later_ones(tmp_path, tiny_model, tiny_tokenizers):
    examples = ["a dog runs", "the red cat"]
    traces = [greedy(tiny_model, tiny_tokenizers, e) for e in examples]
    for epoch in (0.25, 0.5, 1, 0.5):  # a run resumed from its point at half an epoch
        append_point(tmp_path, examples, traces, timeline_entry(training_point(epoch, epoch, 1.0), traces))
    timeline = read_timeline(tmp_path)
    assert [(e.epoch, e.step) for e in timeline.points] == [(0.25, 25), (0.5, 50)]
    assert timeline.examples[1] == TimelineExample("the red cat", traces[1].source.pieces)
    stored = timeline.points[0].traces[0].attention.weights
    np.testing.assert_allclose(stored, traces[0].attention.weights, atol=5e-4)  # float16: 3 decimals hold
    assert (tmp_path / TIMELINE_FILE).exists() and not (tmp_path / LEGACY_FILE).exists()


def test_the_binary_record_is_far_smaller_than_json(tmp_path, tiny_model, tiny_tokenizers):
    examples = ["a dog runs on the grass", "the red cat sleeps on a big beach"]
    traces = [greedy(tiny_model, tiny_tokenizers, e) for e in examples]
    for epoch in (1, 2, 3):
        append_point(tmp_path, examples, traces, timeline_entry(training_point(epoch, epoch, 1.0), traces))
    as_json = json.dumps([t.attention.weights.round(3).tolist() for t in traces] * 3)
    assert (tmp_path / TIMELINE_FILE).stat().st_size < len(as_json) / 2


def legacy_record(tmp_path, tiny_model, tiny_tokenizers) -> dict:
    """What the training command wrote before the binary record: attention as nested lists of 3 decimals."""
    trace = greedy(tiny_model, tiny_tokenizers, "a dog runs")
    entry = {**training_point(1, 1.0, 2.0), "traces": [{"target_pieces": list(trace.target_pieces),
                                                         "cross_attention": trace.attention.weights.round(3).tolist()}]}
    return {"examples": [{"text": "a dog runs", "source_pieces": list(trace.source.pieces)}], "epochs": [entry]}


def test_a_json_record_from_before_reads_as_arrays(tmp_path, tiny_model, tiny_tokenizers):
    stored = legacy_record(tmp_path, tiny_model, tiny_tokenizers)
    (tmp_path / LEGACY_FILE).write_text(json.dumps(stored))
    read = read_timeline(tmp_path).points[0].traces[0]
    np.testing.assert_array_equal(read.attention.weights, stored["epochs"][0]["traces"][0]["cross_attention"])


def test_a_file_from_before_the_heads_reads_as_one_layer_of_one_head(tmp_path, tiny_model, tiny_tokenizers):
    """The first records hold an RNN's [T, S] under "attention"; readers see it as cross_attention [1, 1, T, S]."""
    stored = legacy_record(tmp_path, tiny_model, tiny_tokenizers)
    old = stored["epochs"][0]["traces"][0]
    old["attention"] = old.pop("cross_attention")[0][0]
    (tmp_path / LEGACY_FILE).write_text(json.dumps(stored))
    read = read_timeline(tmp_path).points[0].traces[0]
    assert read.attention.weights.tolist() == [[old["attention"]]]


def test_appending_to_a_json_record_rewrites_it_binary(tmp_path, tiny_model, tiny_tokenizers):
    stored = legacy_record(tmp_path, tiny_model, tiny_tokenizers)
    (tmp_path / LEGACY_FILE).write_text(json.dumps(stored))
    trace = greedy(tiny_model, tiny_tokenizers, "a dog runs")
    append_point(tmp_path, ["a dog runs"], [trace], timeline_entry(training_point(2, 2.0, 1.0), [trace]))
    assert not (tmp_path / LEGACY_FILE).exists()
    points = read_timeline(tmp_path).points
    assert [e.epoch for e in points] == [1, 2]
    old, new = stored["epochs"][0], points[0]
    assert {k: getattr(new, k) for k in ("step", "epoch", "minutes", "val_bleu", "val_loss")} == {
        k: old[k] for k in ("step", "epoch", "minutes", "val_bleu", "val_loss")}
    assert list(new.traces[0].target_pieces) == old["traces"][0]["target_pieces"]
    converted = new.traces[0].attention.weights  # float16 now: within half a unit of the JSON's 3rd decimal
    assert converted.shape == np.shape(old["traces"][0]["cross_attention"])
    np.testing.assert_allclose(converted, old["traces"][0]["cross_attention"], atol=5e-4, rtol=0)
    np.testing.assert_allclose(points[1].traces[0].attention.weights, trace.attention.weights, atol=5e-4, rtol=0)


def test_no_timeline_reads_as_none(tmp_path):
    assert read_timeline(tmp_path) is None and not (tmp_path / TIMELINE_FILE).exists()


def test_a_model_without_attention_keeps_its_pieces(tmp_path, tiny_tokenizers):
    from .helpers import make_model

    model = make_model(tiny_tokenizers, "none")
    trace = greedy(model, tiny_tokenizers, "a dog runs")
    append_point(tmp_path, ["a dog runs"], [trace], timeline_entry(training_point(1, 1.0, 2.0), [trace]))
    read = read_timeline(tmp_path).points[0].traces[0]
    assert read.attention is None and read.target_pieces == trace.target_pieces


def test_malformed_files_are_refused(tmp_path, tiny_model, tiny_tokenizers):
    examples = ["a dog runs"]
    traces = [greedy(tiny_model, tiny_tokenizers, e) for e in examples]
    append_point(tmp_path, examples, traces, timeline_entry(training_point(1, 1.0, 2.0), traces))
    good = read_timeline(tmp_path)
    point = good.points[0]
    first = point.traces[0]
    cut = replace(first.attention)  # a map no code makes (its weights a column short of its labels), as a file may hold
    object.__setattr__(cut, "weights", first.attention.weights[..., :-1])
    short_row = replace(good, points=(replace(point, traces=(replace(first, attention=cut),)),))
    text_score = replace(good, points=(replace(point, val_bleu="high"),))
    missing_trace = replace(good, points=(replace(point, traces=()),))
    for broken in (short_row, text_score, missing_trace):
        _write(tmp_path, broken)
        with pytest.raises(TimelineError, match="unreadable or malformed"):
            read_timeline(tmp_path)
    (tmp_path / TIMELINE_FILE).write_bytes(b"\x00 not safetensors")
    with pytest.raises(TimelineError, match="unreadable or malformed"):
        read_timeline(tmp_path)
    (tmp_path / TIMELINE_FILE).unlink()
    (tmp_path / LEGACY_FILE).write_text("[]")
    with pytest.raises(TimelineError, match="unreadable or malformed"):
        read_timeline(tmp_path)
