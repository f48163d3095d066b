"""models/decoding/beam.py: beam 1 is greedy, wider beams keep full traces ranked by score."""
import numpy as np
import pytest

from models.decoding.beam import beam_search
from models.decoding.greedy import greedy


@pytest.mark.parametrize("text", ["a dog runs on the grass", "the cat", "big big big red man sleeps"])
def test_beam_one_is_greedy(tiny_model, tiny_tokenizers, text):
    (b,) = beam_search(tiny_model, tiny_tokenizers, text, 1)
    g = greedy(tiny_model, tiny_tokenizers, text)
    assert b.target_ids == g.target_ids
    np.testing.assert_allclose(b.attention, g.attention, atol=1e-6)
    np.testing.assert_allclose(b.token_logprobs, g.token_logprobs, atol=1e-5)


def test_wider_beam_keeps_every_hypothesis_trace(tiny_model, tiny_tokenizers):
    hyps = beam_search(tiny_model, tiny_tokenizers, "a red dog", 4)
    assert len(hyps) == 4
    normalised = [h.logprob / len(h.target_ids) for h in hyps]
    assert normalised == sorted(normalised, reverse=True)
    for h in hyps:
        assert h.attention.shape == (len(h.target_ids), len(h.source.ids))
        np.testing.assert_allclose(h.attention @ h.annotations, h.contexts, atol=1e-5)
    assert len({h.target_ids for h in hyps}) == 4


def test_beam_size_must_be_positive(tiny_model, tiny_tokenizers):
    with pytest.raises(ValueError):
        beam_search(tiny_model, tiny_tokenizers, "a dog", 0)
