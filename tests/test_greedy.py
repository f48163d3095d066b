"""models/decoding/greedy.py: trace shapes, distributions, batching, forcing and what-ifs."""
import numpy as np
import pytest

from models.decoding.greedy import MAX_SOURCE_TOKENS, forced, greedy, translate_batch
from models.network.tokenization import EOS_ID, InputError

from .helpers import make_model

TEXTS = ["a dog runs on the grass", "the big red cat sleeps", "a man"]


def test_trace_shapes_and_distributions(tiny_model, tiny_tokenizers):
    trace = greedy(tiny_model, tiny_tokenizers, TEXTS[0])
    T, S = len(trace.target_ids), len(trace.source.ids)
    assert trace.attention.shape == trace.energies.shape == (T, S)
    assert trace.contexts.shape == (T, tiny_model.encoder.hidden_size * 2)
    assert trace.states.shape[0] == T and trace.annotations.shape[0] == S
    np.testing.assert_allclose(trace.attention.sum(1), 1, rtol=1e-5)
    assert len(trace.top_k) == T and all(len(k) == 5 for k in trace.top_k)
    # the chosen piece is the most likely one at every step
    assert [k[0][0] for k in trace.top_k] == list(trace.target_pieces)
    assert trace.logprob == pytest.approx(float(trace.token_logprobs.sum()))


def test_context_is_the_weighted_sum_of_annotations(tiny_model, tiny_tokenizers):
    trace = greedy(tiny_model, tiny_tokenizers, TEXTS[1])
    np.testing.assert_allclose(trace.attention @ trace.annotations, trace.contexts, atol=1e-5)


def test_batch_translation_equals_one_by_one(tiny_model, tiny_tokenizers):
    batched = translate_batch(tiny_model, tiny_tokenizers, TEXTS)
    assert batched == [greedy(tiny_model, tiny_tokenizers, t).translation for t in TEXTS]


def test_forcing_the_greedy_output_reproduces_its_trace(tiny_model, tiny_tokenizers):
    g = greedy(tiny_model, tiny_tokenizers, TEXTS[0])
    f = forced(tiny_model, tiny_tokenizers, TEXTS[0], g.target_ids)
    assert f.target_ids[: len(g.target_ids)] == g.target_ids
    n = len(g.target_ids)
    np.testing.assert_allclose(f.attention[:n], g.attention, atol=1e-6)
    np.testing.assert_allclose(f.contexts[:n], g.contexts, atol=1e-6)


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
    what_if = greedy(tiny_model, tiny_tokenizers, TEXTS[0], overrides={1: one_hot})
    np.testing.assert_allclose(what_if.attention[0], base.attention[0], atol=1e-6)
    np.testing.assert_allclose(what_if.attention[1], one_hot)
    np.testing.assert_allclose(what_if.contexts[1], what_if.annotations[S - 2], atol=1e-6)


def test_bad_override_is_refused(tiny_model, tiny_tokenizers):
    with pytest.raises(InputError, match="summing to 1"):
        greedy(tiny_model, tiny_tokenizers, TEXTS[0], overrides={0: np.ones(3)})


def test_no_attention_model_has_no_matrix(tiny_tokenizers):
    trace = greedy(make_model(tiny_tokenizers, "none"), tiny_tokenizers, TEXTS[0])
    assert trace.attention is None and trace.energies is None
    assert trace.contexts.shape[0] == len(trace.target_ids)


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_empty_text_is_an_input_error(tiny_model, tiny_tokenizers, text):
    with pytest.raises(InputError, match="Type a sentence"):
        greedy(tiny_model, tiny_tokenizers, text)


def test_very_long_text_is_capped(tiny_model, tiny_tokenizers):
    trace = greedy(tiny_model, tiny_tokenizers, "a dog runs " * 500)
    assert trace.source.truncated and len(trace.source.ids) == MAX_SOURCE_TOKENS
