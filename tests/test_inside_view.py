"""What the Context vectors and Score anatomy pages draw, asked of :mod:`models.views.inside` without Streamlit."""
from __future__ import annotations

import numpy as np
import pytest

from models.decoding.greedy import greedy
from models.nouns.attention_map import RNN_READING, Reading
from models.storage.hub import load_model
from models.views import inside
from models.views.kinds import sentence_kinds

TEXT = "Two dogs are playing in the snow."


def traced(name: str):
    loaded = load_model(name)
    return loaded, greedy(loaded.model, loaded.tokenizers, TEXT)


def test_an_rnns_path_stays_in_its_hull_and_each_step_shares_itself_out_among_the_words():
    _, trace = traced("additive")
    path = inside.rnn_path(trace)
    assert not path.left_hull and path.points == inside.RNN_POINTS
    assert path.by_word.shape == (len(trace.target_pieces), len(path.words))
    np.testing.assert_allclose(path.by_word.sum(axis=1), 1.0, atol=1e-4)
    assert len(path.geometry.step_distance) == len(trace.target_pieces)


def test_a_heads_path_mixes_its_own_value_vectors():
    loaded, trace = traced("transformer")
    kinds = sentence_kinds(loaded.model, trace, len(trace.target_ids))
    path = inside.head_path(trace, kinds, Reading(0, 3))
    assert path.points == inside.HEAD_POINTS and not path.left_hull
    np.testing.assert_allclose(path.by_word.sum(axis=1), trace.read(Reading(0, 3)).sum(axis=1), atol=1e-5)


@pytest.mark.parametrize("name", ["additive", "dot"])
def test_an_energys_terms_add_up_to_the_models_own_energy_largest_first(name):
    loaded, trace = traced(name)
    step = len(trace.target_pieces) // 2
    source = inside.looked_at(trace, step)
    assert source == int(np.argmax(trace.read(RNN_READING)[step]))
    parts = inside.energy_view(loaded.model, trace, step, source)
    assert parts.score == name
    assert parts.terms.sum() == pytest.approx(parts.energy, abs=1e-3)
    assert parts.energy == pytest.approx(parts.own_energy, abs=1e-3)
    assert (np.diff(parts.terms) <= 0).all() and len(parts.units) == len(parts.terms)
    assert ("tanh(u)" in parts.table) == (name == "additive")  # the dot product has no hidden layer
    np.testing.assert_allclose(sorted(parts.table["term"], reverse=True), parts.terms)


def test_the_scaling_playground_shows_three_scores_at_every_width_up_to_the_largest_asked():
    points = inside.scaling(16)
    assert sorted({p["dim"] for p in points}) == [2, 4, 8, 16]
    assert len({p["score"] for p in points}) == 3 and len(points) == 12
