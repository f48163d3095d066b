"""models/storage/timeline.py: epochs append in order; a redone epoch replaces what came after it."""
from models.decoding.greedy import greedy
from models.storage.timeline import TIMELINE_FILE, append_epoch, epoch_entry, read_timeline


def test_a_redone_epoch_replaces_it_and_the_later_ones(tmp_path, tiny_model, tiny_tokenizers):
    examples = ["a dog runs", "the red cat"]
    traces = [greedy(tiny_model, tiny_tokenizers, e) for e in examples]
    for epoch in (1, 2, 3, 2):
        append_epoch(tmp_path, examples, traces, epoch_entry(epoch, {"val_bleu": float(epoch)}, traces))
    timeline = read_timeline(tmp_path)
    assert [e["epoch"] for e in timeline["epochs"]] == [1, 2]
    assert timeline["examples"][1] == {"text": "the red cat", "source_pieces": list(traces[1].source.pieces)}
    assert timeline["epochs"][0]["traces"][0]["attention"] == traces[0].attention.round(3).tolist()


def test_no_timeline_reads_as_none(tmp_path):
    assert read_timeline(tmp_path) is None and not (tmp_path / TIMELINE_FILE).exists()
