"""models/decoding/what_if.py: the forced step reads only the chosen word, the step is clamped to the greedy
translation, and the focus spreads over a word's pieces."""
import numpy as np
import torch

from models.decoding.greedy import greedy
from models.decoding.what_if import focus_on_word, what_if
from models.network.contract import Focus
from models.network.tokenization import word_groups
from models.nouns.attention_map import Reading

TEXT = "a dogdog runs on the grass"


def test_the_chosen_layer_reads_only_the_chosen_word_at_the_step(any_model, tiny_tokenizers):
    found = what_if(any_model, tiny_tokenizers, TEXT, step=1, word=1, layer=0)
    pieces = word_groups(found.base.source.pieces)[1]
    assert len(pieces) > 1, "the test needs a word of several pieces"
    assert found.base.translation == greedy(any_model, tiny_tokenizers, TEXT).translation
    heads = found.changed.attention.shape[1]
    for head in range(heads):
        row = found.changed.read(Reading(0, head))[1]
        np.testing.assert_allclose(row[pieces], 1 / len(pieces), atol=1e-6)
        assert row.sum() == np.float32(1)


def test_a_step_past_the_greedy_translation_is_clamped(tiny_model, tiny_tokenizers):
    found = what_if(tiny_model, tiny_tokenizers, TEXT, step=500, word=0, layer=0)
    assert found.step == len(found.base.target_ids) - 1


def test_the_focus_is_a_distribution_over_the_words_pieces(tiny_model, tiny_tokenizers):
    trace = greedy(tiny_model, tiny_tokenizers, TEXT)
    pieces = focus_on_word(trace, 1)
    assert pieces == tuple(word_groups(trace.source.pieces)[1])
    weights = Focus(0, pieces).weights(torch.ones(2, len(trace.source.ids), dtype=torch.bool))  # [B, S]
    np.testing.assert_allclose(weights.sum(-1).numpy(), 1, atol=1e-6)
    assert ((weights > 0).sum(-1) == len(pieces)).all() and set(weights[0].nonzero()[:, 0].tolist()) == set(pieces)
