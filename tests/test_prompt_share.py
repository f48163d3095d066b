"""Where a written token's attention goes (models/analysis/prompt_share.py): a chat model's rows share it between
the sentence, the rest of its prompt and what it wrote; an encoder–decoder's cross-attention gives the source all."""
import numpy as np

from models.analysis.prompt_share import prompt_share
from models.decoding.greedy import greedy_batch
from models.network.tokenization import PROMPT
from models.storage.hub import load_model

from .hf_helpers import ENGLISH, FRENCH, tiny_marian
from .llm_helpers import tiny_llm


def test_a_chat_models_shares_are_its_rows_over_the_sentence_the_rest_and_the_remainder(tmp_path):
    loaded = load_model(str(tiny_llm(tmp_path / "qwen2", "qwen2", steps=60)), device="cpu")
    traces = greedy_batch(loaded.model, loaded.tokenizers, ENGLISH[:3], FRENCH[:3])
    share = prompt_share(traces)
    assert share.steps == sum(len(t.target_ids) for t in traces)
    sentence = [np.array([p != PROMPT for p in t.source.pieces]) for t in traces]
    by_hand = sum(t.attention.weights.mean(1)[..., s].sum((-1, -2)) for t, s in zip(traces, sentence)) / share.steps
    np.testing.assert_allclose(share.sentence, by_hand, rtol=1e-5)
    np.testing.assert_allclose(share.sentence + share.rest_of_prompt + share.translation, 1, rtol=1e-6)
    assert (share.translation > 0.01).all()  # a chat model's rows leave some to what it wrote


def test_an_encoder_decoders_cross_attention_leaves_nothing_to_the_translation(tmp_path):
    loaded = load_model(str(tiny_marian(tmp_path / "marian", steps=20)), device="cpu")
    share = prompt_share(greedy_batch(loaded.model, loaded.tokenizers, ENGLISH[:3], FRENCH[:3]))
    np.testing.assert_allclose(share.translation, 0, atol=1e-5)
    np.testing.assert_allclose(share.rest_of_prompt, 0, atol=1e-6)  # Marian has no prompt
