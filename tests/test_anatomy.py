"""models/analysis/anatomy.py: the terms add up to the model's own energy; the scaling curves saturate."""
import pytest

from models.analysis.anatomy import scaling_curves, score_anatomy
from models.decoding.greedy import greedy
from models.nouns.attention_map import RNN_READING

from .helpers import make_model, make_transformer


@pytest.mark.parametrize("score", ["additive", "dot"])
def test_terms_add_up_to_the_traced_energy(tiny_tokenizers, score):
    model = make_model(tiny_tokenizers, score)
    trace = greedy(model, tiny_tokenizers, "a big red dog runs")
    for t in range(min(3, len(trace.target_ids))):
        for s in range(len(trace.source.ids)):
            parts = score_anatomy(model, trace, t, s)
            assert parts.energy == pytest.approx(float(trace.attention.read_energies(RNN_READING)[t, s]), abs=1e-5)
            assert parts.contributions.sum() == pytest.approx(parts.energy, abs=1e-5)


@pytest.mark.parametrize("model", ["general", "transformer"])
def test_only_the_rnns_additive_and_dot_scores_are_dissected(tiny_tokenizers, model):
    model = make_transformer(tiny_tokenizers) if model == "transformer" else make_model(tiny_tokenizers, model)
    trace = greedy(model, tiny_tokenizers, "a dog")
    with pytest.raises(ValueError, match="score anatomy covers"):
        score_anatomy(model, trace, 0, 0)


def test_unscaled_dot_saturates_as_width_grows():
    points = {(p.dim, p.score): p for p in scaling_curves([4, 1024], trials=100)}
    assert points[1024, "dot (unscaled)"].max_weight > 0.9
    assert points[1024, "dot (unscaled)"].gradient < points[4, "dot (unscaled)"].gradient
    assert points[1024, "dot / √d"].max_weight < 0.7
    assert points[1024, "additive"].max_weight < 0.7
