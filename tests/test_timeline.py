"""models/storage/timeline.py: epochs append in order; a redone epoch replaces what came after it."""
from models.decoding.greedy import greedy
import json

import pytest

from models.storage.timeline import TIMELINE_FILE, TimelineError, append_epoch, epoch_entry, read_timeline


def test_a_redone_epoch_replaces_it_and_the_later_ones(tmp_path, tiny_model, tiny_tokenizers):
    examples = ["a dog runs", "the red cat"]
    traces = [greedy(tiny_model, tiny_tokenizers, e) for e in examples]
    for epoch in (1, 2, 3, 2):
        append_epoch(tmp_path, examples, traces, epoch_entry(epoch, {"val_bleu": float(epoch), "val_loss": 1.0}, traces))
    timeline = read_timeline(tmp_path)
    assert [e["epoch"] for e in timeline["epochs"]] == [1, 2]
    assert timeline["examples"][1] == {"text": "the red cat", "source_pieces": list(traces[1].source.pieces)}
    assert timeline["epochs"][0]["traces"][0]["attention"] == traces[0].attention.round(3).tolist()


def test_no_timeline_reads_as_none(tmp_path):
    assert read_timeline(tmp_path) is None and not (tmp_path / TIMELINE_FILE).exists()


def test_malformed_files_are_refused(tmp_path, tiny_model, tiny_tokenizers):
    examples = ["a dog runs"]
    traces = [greedy(tiny_model, tiny_tokenizers, e) for e in examples]
    append_epoch(tmp_path, examples, traces, epoch_entry(1, {"val_bleu": 1.0, "val_loss": 2.0}, traces))
    good = json.loads((tmp_path / TIMELINE_FILE).read_text())
    short_row = json.loads(json.dumps(good))
    short_row["epochs"][0]["traces"][0]["attention"][0].pop()
    missing_trace = json.loads(json.dumps(good))
    missing_trace["epochs"][0]["traces"] = []
    text_score = json.loads(json.dumps(good))
    text_score["epochs"][0]["val_bleu"] = "high"
    for broken in ("\x00 not json", "[]", json.dumps(short_row), json.dumps(missing_trace), json.dumps(text_score)):
        (tmp_path / TIMELINE_FILE).write_text(broken)
        with pytest.raises(TimelineError, match="unreadable or malformed"):
            read_timeline(tmp_path)
