"""models/analysis/sharpness.py: the limits (uniform, one-hot), agreement with row-by-row definitions on real
traces, sharper weights from larger energies, and a clear refusal without attention."""
import numpy as np
import pytest

from models.analysis.sharpness import sharpness
from models.decoding.greedy import greedy
from models.nouns.attention_map import RNN_READING

from .helpers import make_model

TEXTS = ("a big dog runs on the grass", "the cat sleeps")


def _softmax(energies: np.ndarray) -> np.ndarray:
    z = np.exp(energies - energies.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


@pytest.fixture
def traces(tiny_tokenizers):
    model = make_model(tiny_tokenizers, "dot")
    return [greedy(model, tiny_tokenizers, text) for text in TEXTS]


def test_uniform_and_one_hot_rows_reach_the_limits():
    T, S = 5, 8
    s = sharpness([np.full((T, S), 1 / S)], [np.zeros((T, S))])
    assert (s.rows, s.max_weight, s.energy_spread) == (T, pytest.approx(1 / S), 0.0)
    assert s.entropy_bits == pytest.approx(np.log2(S)) and s.uniform_bits == pytest.approx(np.log2(S))
    picks = np.eye(S)[np.arange(T) % S]  # [T, S]: one source piece per row
    s = sharpness([picks], [30 * picks])
    assert (s.max_weight, s.entropy_bits, s.energy_spread) == (1.0, pytest.approx(0.0), pytest.approx(30.0))


def test_means_over_every_row_of_every_trace_match_the_definitions(traces):
    s = sharpness([t.read(RNN_READING) for t in traces], [t.attention.read_energies(RNN_READING) for t in traces])
    assert s.rows == sum(len(t.read(RNN_READING)) for t in traces)
    per_row = [(w.max(), -(w * np.log(w)).sum() / np.log(2), np.log2(len(w)), e.max() - e.min())
               for t in traces for w, e in zip(t.read(RNN_READING), t.attention.read_energies(RNN_READING))]
    np.testing.assert_allclose([s.max_weight, s.entropy_bits, s.uniform_bits, s.energy_spread],
                               np.mean(per_row, axis=0), rtol=1e-5)
    assert 0 < s.entropy_bits <= s.uniform_bits and 0 < s.max_weight <= 1
    assert sharpness([t.read(RNN_READING) for t in traces]).energy_spread is None  # weights alone: no spread


def test_larger_energies_give_sharper_attention(traces):
    def scaled(factor):
        energies = [factor * t.attention.read_energies(RNN_READING) for t in traces]
        return sharpness([_softmax(e) for e in energies], energies)

    soft, sharp = scaled(1.0), scaled(20.0)
    assert sharp.entropy_bits < soft.entropy_bits and sharp.max_weight > soft.max_weight
    assert sharp.energy_spread == pytest.approx(20 * soft.energy_spread, rel=1e-5)


def test_no_attention_and_no_rows_are_refused(tiny_tokenizers):
    none = make_model(tiny_tokenizers, "none")
    with pytest.raises(ValueError, match="without attention"):
        sharpness([greedy(none, tiny_tokenizers, TEXTS[0]).attention])
    with pytest.raises(ValueError, match="no attention rows"):
        sharpness([])
