"""models/views/learning.py: a point of the record becomes the heatmap and translation of that moment; the
curve gives each point's scores and attention entropy."""
import numpy as np
import pytest

from models.decoding.greedy import greedy
from models.nouns.attention_map import RNN_READING, Reading
from models.storage.records.timeline import Timeline, TimelinePoint, append_point, read_timeline, timeline_entry
from models.views.learning import alignment_at, learning_curve, point_label

from .helpers import make_model, make_transformer, training_point

EXAMPLES = ["the red cat sees a dog", "a dog runs"]


def record(tmp_path, tokenizers, score="additive") -> Timeline:
    """Two points (half an epoch in, and at its end), each with another model's traces, as the CLI writes them."""
    for epoch, seed in ((0.5, 0), (1, 1)):
        model = make_model(tokenizers, score, seed=seed)
        traces = [greedy(model, tokenizers, e) for e in EXAMPLES]
        append_point(tmp_path, EXAMPLES, traces, timeline_entry(training_point(epoch, 20.0 * epoch, 1.5 / epoch),
                                                                traces))
    return read_timeline(tmp_path)


def test_each_point_shows_its_own_traces(tmp_path, tiny_tokenizers):
    timeline = record(tmp_path, tiny_tokenizers)
    for point, seed in ((0, 0), (1, 1)):
        trace = greedy(make_model(tiny_tokenizers, seed=seed), tiny_tokenizers, EXAMPLES[0])
        learned = alignment_at(timeline, 0, point, RNN_READING)
        assert learned.translation == trace.translation
        assert learned.heatmap.weights.shape == (len(trace.target_pieces), len(trace.source.pieces))
        np.testing.assert_allclose(learned.heatmap.weights.sum(1), 1, atol=0.01)  # rounded to 3 decimals
        np.testing.assert_allclose(learned.heatmap.weights, trace.read(RNN_READING), atol=5e-4)


def test_the_curve_follows_the_points(tmp_path, tiny_tokenizers):
    curve = learning_curve(record(tmp_path, tiny_tokenizers), RNN_READING)
    assert curve.epochs == (0.5, 1.0) and curve.val_bleu == (10.0, 20.0) and curve.val_loss == (3.0, 1.5)
    assert curve.labels == ("epoch 0.50 · step 50 · 1 min", "epoch 1 · step 100 · 2 min")


def test_the_curve_gives_each_points_attention_entropy(tmp_path, tiny_tokenizers):
    curve = learning_curve(record(tmp_path, tiny_tokenizers), RNN_READING)
    for point, seed in ((0, 0), (1, 1)):  # the examples' rows, pooled, against the definition −Σ α log2 α
        model = make_model(tiny_tokenizers, seed=seed)
        expected = np.mean([-(row * np.log2(row)).sum() for e in EXAMPLES
                            for row in greedy(model, tiny_tokenizers, e).read(RNN_READING)])
        assert curve.entropy_bits[point] == pytest.approx(expected, abs=0.02)  # the record rounds to 3 decimals
    (tmp_path / "none").mkdir()
    assert learning_curve(record(tmp_path / "none", tiny_tokenizers, "none"), RNN_READING).entropy_bits == ()


def test_a_transformers_record_is_read_head_by_head(tmp_path, tiny_tokenizers):
    model = make_transformer(tiny_tokenizers)
    traces = [greedy(model, tiny_tokenizers, e) for e in EXAMPLES]
    append_point(tmp_path, EXAMPLES, traces, timeline_entry(training_point(1, 5.0, 2.0), traces))
    timeline = read_timeline(tmp_path)
    for reading in (Reading(1, 0), Reading(0, None)):
        learned = alignment_at(timeline, 1, 0, reading)
        np.testing.assert_allclose(learned.heatmap.weights, traces[1].read(reading), atol=5e-4)
    assert learning_curve(timeline, Reading(1, 1)).entropy_bits[0] == pytest.approx(np.mean(
        [-(row * np.log2(row)).sum() for t in traces for row in t.read(Reading(1, 1))]), abs=0.02)


def test_records_kept_per_epoch_are_labelled_by_epoch():
    assert point_label(TimelinePoint(3, 1.0, 2.0, ())) == "epoch 3"


def test_a_point_outside_the_record_is_refused(tmp_path, tiny_tokenizers):
    with pytest.raises(IndexError, match="point 3 is not in this record of 2"):
        alignment_at(record(tmp_path, tiny_tokenizers), 0, 2, RNN_READING)


def test_a_model_without_attention_has_translations_only(tmp_path, tiny_tokenizers):
    learned = alignment_at(record(tmp_path, tiny_tokenizers, "none"), 1, 1, RNN_READING)
    assert learned.heatmap is None and learned.translation == greedy(
        make_model(tiny_tokenizers, "none", seed=1), tiny_tokenizers, EXAMPLES[1]).translation


def test_a_links_point_opens_that_moment_and_one_the_record_lacks_opens_the_last_saying_so(tmp_path, tiny_tokenizers):
    from models.views.learning import Replay

    replay = Replay(record(tmp_path, tiny_tokenizers))  # two points
    assert replay.linked_point(None) == (1, None) and replay.linked_point(1) == (0, None)
    assert replay.linked_point(2) == (1, None)
    last, notice = replay.linked_point(7)
    assert last == 1 and "Point 7" in notice and "1–2" in notice


@pytest.mark.parametrize("name", ["additive", "transformer", "decoder-only", "fr-en-transformer"])
def test_a_bundled_record_opens_on_the_curated_caption_its_model_writes_with_the_adjective_after_its_noun(name):
    """The Learning page's first example is the one the model's language's examples file marks ``+``, and at the
    record's last point the model writes its noun before its adjective (chien noir / black dog)."""
    from models.storage.examples import examples_file, load_examples
    from models.storage.hub import bundled_pairs, resolve
    from models.storage.languages import language_key
    from models.views.learning import replay

    language = language_key(bundled_pairs()[name][0])
    record = replay(resolve(name), language)
    marked = [e.text for e in load_examples(examples_file(language)) if e.replayed]
    assert len(marked) == 1 and record.examples[record.opening] == marked[0]
    last = record.at(record.opening, len(record.timeline.points) - 1, Reading(0, None)).translation.lower()
    assert ("chien noir" in last) if language == "en" else ("black dog" in last)
