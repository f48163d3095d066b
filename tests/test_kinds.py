"""models/decoding/kinds.py: a sentence's three attentions, on request, for the translation on screen."""
import numpy as np

from models.decoding.greedy import greedy
from models.decoding.kinds import KINDS, attention_kinds
from models.network.tokenization import BOS

from .helpers import make_model, make_transformer

TEXT = "a big red dog runs on the grass"


def test_the_three_kinds_belong_to_the_trace_shown(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers)
    trace = greedy(model, tiny_tokenizers, TEXT)
    kinds = attention_kinds(model, trace)
    S, T = len(trace.source.ids), len(trace.target_ids)
    assert kinds.encoder.shape == (2, 2, S, S) and kinds.decoder.shape == (2, 2, T, T)
    np.testing.assert_allclose(kinds.cross, trace.cross_attention, atol=1e-5)  # the decoding's own cross-attention
    for kind in KINDS:
        rows, columns = kinds.labels(kind)
        assert kinds.of(kind).shape[2:] == (len(rows), len(columns))
        np.testing.assert_allclose(kinds.of(kind).sum(-1), 1, atol=1e-5)
    assert kinds.decoder_inputs[0] == BOS and kinds.decoder_inputs[1:] == trace.target_pieces[:-1]
    assert np.allclose(np.triu(kinds.decoder, 1), 0)  # causal


def test_an_rnn_has_no_self_attention(tiny_tokenizers):
    model = make_model(tiny_tokenizers)
    assert attention_kinds(model, greedy(model, tiny_tokenizers, TEXT)) is None


def test_the_first_steps_are_cut_whole(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers)
    kinds = attention_kinds(model, greedy(model, tiny_tokenizers, TEXT))
    cut = kinds.first(3)
    assert cut.decoder.shape[2:] == (3, 3) and cut.cross.shape[2] == 3 and len(cut.decoder_inputs) == 3
    np.testing.assert_array_equal(cut.decoder, kinds.decoder[..., :3, :3])
