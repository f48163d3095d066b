"""models/analysis/sharpness.py: the limits (uniform, one-hot), agreement with row-by-row definitions on a real
trace, sharper weights from larger energies, and a clear refusal without attention."""
import dataclasses

import numpy as np
import pytest

from models.analysis.sharpness import sharpness
from models.decoding.greedy import greedy

from .helpers import make_model

TEXTS = ("a big dog runs on the grass", "the cat sleeps")


def _softmax(energies: np.ndarray) -> np.ndarray:
    z = np.exp(energies - energies.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


@pytest.fixture
def traces(tiny_tokenizers):
    model = make_model(tiny_tokenizers, "dot")
    return [greedy(model, tiny_tokenizers, text) for text in TEXTS]


def test_uniform_and_one_hot_rows_reach_the_limits(traces):
    trace = traces[0]
    T, S = trace.attention.shape
    flat = dataclasses.replace(trace, attention=np.full((T, S), 1 / S), energies=np.zeros((T, S)))
    s = sharpness([flat])
    assert (s.rows, s.max_weight, s.energy_spread) == (T, pytest.approx(1 / S), 0.0)
    assert s.entropy_bits == pytest.approx(np.log2(S)) and s.uniform_bits == pytest.approx(np.log2(S))
    picks = np.eye(S)[np.arange(T) % S]  # [T, S]: one source piece per row
    one_hot = dataclasses.replace(trace, attention=picks, energies=30 * picks)
    s = sharpness([one_hot])
    assert (s.max_weight, s.entropy_bits, s.energy_spread) == (1.0, pytest.approx(0.0), pytest.approx(30.0))


def test_means_over_every_row_of_every_trace_match_the_definitions(traces):
    weights = [t.attention for t in traces]
    s = sharpness(traces)
    assert s.rows == sum(len(w) for w in weights)
    per_row = [(w.max(), -(w * np.log(w)).sum() / np.log(2), np.log2(len(w)), e.max() - e.min())
               for t in traces for w, e in zip(t.attention, t.energies)]
    expected = np.mean(per_row, axis=0)
    np.testing.assert_allclose([s.max_weight, s.entropy_bits, s.uniform_bits, s.energy_spread], expected, rtol=1e-5)
    assert 0 < s.entropy_bits <= s.uniform_bits and 0 < s.max_weight <= 1


def test_larger_energies_give_sharper_attention(traces):
    def scaled(factor):
        return [dataclasses.replace(t, energies=factor * t.energies, attention=_softmax(factor * t.energies))
                for t in traces]

    soft, sharp = sharpness(scaled(1.0)), sharpness(scaled(20.0))
    assert sharp.entropy_bits < soft.entropy_bits and sharp.max_weight > soft.max_weight
    assert sharp.energy_spread == pytest.approx(20 * soft.energy_spread, rel=1e-5)


def test_no_attention_and_no_rows_are_refused(tiny_tokenizers, traces):
    none = make_model(tiny_tokenizers, "none")
    with pytest.raises(ValueError, match="without attention"):
        sharpness([greedy(none, tiny_tokenizers, TEXTS[0])])
    with pytest.raises(ValueError, match="no attention rows"):
        sharpness([])
