"""models/decoding/greedy.py: trace shapes, distributions, batching, forcing and what-ifs."""
import numpy as np
import pytest

from models.decoding.greedy import MAX_SOURCE_TOKENS, forced, greedy, translate_batch
from models.network.tokenization import EOS_ID, InputError
from models.nouns.attention_map import RNN_READING, Reading

from .helpers import make_model, make_transformer

TEXTS = ["a dog runs on the grass", "the big red cat sleeps", "a man"]


def test_trace_shapes_and_distributions(any_model, tiny_tokenizers):
    trace = greedy(any_model, tiny_tokenizers, TEXTS[0])
    T, S = len(trace.target_ids), len(trace.source.ids)
    L, heads = any_model.attention_shape
    assert trace.attention.weights.shape == trace.attention.energies.shape == (L, heads, T, S)
    assert trace.states.shape == (T, any_model.state_size)
    np.testing.assert_allclose(trace.attention.weights.sum(-1), 1, rtol=1e-5)
    assert len(trace.top_k) == T and all(len(k) == 5 for k in trace.top_k)
    # the chosen piece is the most likely one at every step
    assert [k[0][0] for k in trace.top_k] == list(trace.target_pieces)
    assert trace.logprob == pytest.approx(float(trace.token_logprobs.sum()))


def test_the_rnn_records_its_context_as_the_weighted_sum_of_annotations(tiny_model, tiny_tokenizers):
    trace = greedy(tiny_model, tiny_tokenizers, TEXTS[1])
    rnn = trace.rnn
    assert rnn.contexts.shape == (len(trace.target_ids), tiny_model.encoder.hidden_size * 2)
    assert rnn.annotations.shape == (len(trace.source.ids), tiny_model.encoder.hidden_size * 2)
    np.testing.assert_allclose(trace.read(RNN_READING) @ rnn.annotations, rnn.contexts, atol=1e-5)


def test_only_the_rnn_keeps_an_rnn_record(any_model, tiny_tokenizers):
    assert (greedy(any_model, tiny_tokenizers, TEXTS[1]).rnn is None) == (any_model.architecture != "rnn")


def test_batch_translation_equals_one_by_one(any_model, tiny_tokenizers):
    batched = translate_batch(any_model, tiny_tokenizers, TEXTS)
    assert batched == [greedy(any_model, tiny_tokenizers, t).translation for t in TEXTS]


def test_forcing_the_greedy_output_reproduces_its_trace(any_model, tiny_tokenizers):
    g = greedy(any_model, tiny_tokenizers, TEXTS[0])
    f = forced(any_model, tiny_tokenizers, TEXTS[0], g.target_ids)
    assert f.target_ids[: len(g.target_ids)] == g.target_ids
    n = len(g.target_ids)
    np.testing.assert_allclose(f.attention.weights[:, :, :n], g.attention.weights, atol=1e-6)
    np.testing.assert_allclose(f.states[:n], g.states, atol=1e-5)


def test_forced_text_target(tiny_model, tiny_tokenizers):
    f = forced(tiny_model, tiny_tokenizers, TEXTS[0], "herbe le sur court chien un")
    assert f.target_ids[-1] == EOS_ID
    assert f.translation == "herbe le sur court chien un"
    with pytest.raises(InputError):
        forced(tiny_model, tiny_tokenizers, TEXTS[0], "   ")


def test_attention_override_changes_only_what_follows(tiny_model, tiny_tokenizers):
    base = greedy(tiny_model, tiny_tokenizers, TEXTS[0])
    S = len(base.source.ids)
    one_hot = np.eye(S, dtype=np.float32)[S - 2]
    what_if = greedy(tiny_model, tiny_tokenizers, TEXTS[0], overrides={1: (S - 2,)})
    before, after = base.read(RNN_READING), what_if.read(RNN_READING)
    np.testing.assert_allclose(after[0], before[0], atol=1e-6)
    np.testing.assert_allclose(after[1], one_hot)
    np.testing.assert_allclose(what_if.rnn.contexts[1], what_if.rnn.annotations[S - 2], atol=1e-6)


def test_a_transformer_what_if_sets_one_layers_heads_only(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers)
    base = greedy(model, tiny_tokenizers, TEXTS[0])
    S = len(base.source.ids)
    one_hot = np.eye(S, dtype=np.float32)[1]
    what_if = greedy(model, tiny_tokenizers, TEXTS[0], overrides={2: (1,)}, layer=1)
    np.testing.assert_allclose(what_if.attention.weights[:, :, :2], base.attention.weights[:, :, :2], atol=1e-6)
    for head in range(model.config.heads):
        np.testing.assert_allclose(what_if.read(Reading(1, head))[2], one_hot)
    assert not np.allclose(what_if.read(Reading(0, 0))[3:4], one_hot)  # the other layer reads as it will
    with pytest.raises(ValueError, match="layers 0…1"):
        greedy(model, tiny_tokenizers, TEXTS[0], overrides={2: (1,)}, layer=2)


def test_bad_override_is_refused(tiny_model, tiny_tokenizers):
    for pieces in ((), (99,), (-1,), (1, 1)):  # a piece named twice would leave the weights short of 1
        with pytest.raises(InputError, match="must name source pieces"):
            greedy(tiny_model, tiny_tokenizers, TEXTS[0], overrides={0: pieces})


def test_no_attention_model_has_no_matrix(tiny_tokenizers):
    trace = greedy(make_model(tiny_tokenizers, "none"), tiny_tokenizers, TEXTS[0])
    assert trace.attention is None
    assert trace.rnn.contexts.shape[0] == len(trace.target_ids)


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_empty_text_is_an_input_error(tiny_model, tiny_tokenizers, text):
    with pytest.raises(InputError, match="Type a sentence"):
        greedy(tiny_model, tiny_tokenizers, text)


def test_very_long_text_is_capped(tiny_model, tiny_tokenizers):
    trace = greedy(tiny_model, tiny_tokenizers, "a dog runs " * 500)
    assert trace.source.truncated and len(trace.source.ids) == MAX_SOURCE_TOKENS
