"""models/analysis/learning.py: an epoch's record becomes the heatmap and translation of that epoch."""
import numpy as np
import pytest

from models.analysis.learning import alignment_at, learning_curve
from models.decoding.greedy import greedy
from models.storage.timeline import append_epoch, epoch_entry, read_timeline

from .helpers import make_model

EXAMPLES = ["the red cat sees a dog", "a dog runs"]


def record(tmp_path, tokenizers, score="additive") -> dict:
    """Two epochs, each with another model's traces, as the training CLI writes them."""
    for epoch, seed in ((1, 0), (2, 1)):
        model = make_model(tokenizers, score, seed=seed)
        traces = [greedy(model, tokenizers, e) for e in EXAMPLES]
        append_epoch(tmp_path, EXAMPLES, traces, epoch_entry(epoch, {"val_bleu": 10.0 * epoch,
                                                                     "val_loss": 3.0 / epoch}, traces))
    return read_timeline(tmp_path)


def test_each_epoch_shows_its_own_traces(tmp_path, tiny_tokenizers):
    timeline = record(tmp_path, tiny_tokenizers)
    for epoch, seed in ((1, 0), (2, 1)):
        trace = greedy(make_model(tiny_tokenizers, seed=seed), tiny_tokenizers, EXAMPLES[0])
        learned = alignment_at(timeline, 0, epoch)
        assert learned.translation == trace.translation
        assert learned.view.weights.shape == (len(trace.target_pieces), len(trace.source.pieces))
        np.testing.assert_allclose(learned.view.weights.sum(1), 1, atol=0.01)  # rounded to 3 decimals
        np.testing.assert_allclose(learned.view.weights, trace.attention, atol=5e-4)


def test_the_curve_follows_the_epochs(tmp_path, tiny_tokenizers):
    curve = learning_curve(record(tmp_path, tiny_tokenizers))
    assert curve.epochs == (1, 2) and curve.val_bleu == (10.0, 20.0) and curve.val_loss == (3.0, 1.5)


def test_an_epoch_outside_the_record_is_refused(tmp_path, tiny_tokenizers):
    with pytest.raises(KeyError, match="epoch 3"):
        alignment_at(record(tmp_path, tiny_tokenizers), 0, 3)


def test_a_model_without_attention_has_translations_only(tmp_path, tiny_tokenizers):
    learned = alignment_at(record(tmp_path, tiny_tokenizers, "none"), 1, 2)
    assert learned.view is None and learned.translation == greedy(
        make_model(tiny_tokenizers, "none", seed=1), tiny_tokenizers, EXAMPLES[1]).translation
