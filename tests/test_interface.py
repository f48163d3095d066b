"""models/network/translator.py and models/decoding/trace.py: the one translator interface changed nothing the
bundled models do — their translations, attention, energies, states and attributions agree with traces recorded
before it existed (tests/data/traces_before_interface.npz) — and readings name every head."""
from pathlib import Path

import numpy as np
import pytest
import torch

from models.analysis.attribution import attribution_matrix
from models.decoding.beam import beam_search
from models.decoding.greedy import forced, greedy
from models.decoding.trace import RNN_READING, Reading, readings
from models.network.tokenization import BOS_ID, PAD_ID
from models.network.translator import select_rows
from models.storage.hub import load_model

RECORDED = np.load(Path(__file__).parent / "data" / "traces_before_interface.npz")
SENTENCES = ["A black dog is running on the beach.", "The children are jumping into the swimming pool.",
             "I think that the weather will be nice tomorrow, don't you?"]
#: Absolute tolerances against the recorded CPU values, per quantity. A forward quantity is the same float32
#: computation summed in another order on another CPU or on CUDA: 2e-5. A gradient×input share is a backward pass
#: through every decoding step on top of the forward (about twice the operations, and cuDNN's GRU kernels accumulate
#: in their own order): measured up to 8.9e-5 from the recorded values on an H200, so 2e-4, still two orders of
#: magnitude below the shares that matter (0.01 and up).
TOL = {"forward": 2e-5, "gradient×input": 2e-4}
#: Step by step against all at once: the same float32 operations in another order (the Transformer's cached
#: keys, the log-softmax over 16 k pieces).
AGREE = 1e-4


def traces_of(loaded, i: int, text: str) -> dict:
    S = len(loaded.tokenizers.source.encode(text, 80).ids)
    found = {"greedy": greedy(loaded.model, loaded.tokenizers, text),
             "beam": beam_search(loaded.model, loaded.tokenizers, text, 3).hypotheses[1]}
    if loaded.model.has_attention:
        found["whatif"] = greedy(loaded.model, loaded.tokenizers, text, overrides={1: np.eye(S, dtype=np.float32)[0]})
    return found


def close(recorded_key: str, value: np.ndarray, quantity: str = "forward") -> None:
    np.testing.assert_allclose(value, RECORDED[recorded_key], atol=TOL[quantity], rtol=1e-4, err_msg=recorded_key)


#: The checkpoints still bundled as they were when the traces were recorded; a retrained model (additive and dot,
#: issue 40) has new weights and no trace from before the interface, so it leaves this test.
@pytest.mark.parametrize("name", ["none"])
def test_bundled_traces_agree_with_those_recorded_before_the_interface(name):
    loaded = load_model(name)
    for i, text in enumerate(SENTENCES):
        for kind, trace in traces_of(loaded, i, text).items():
            key = f"{name}/{i}/{kind}"
            assert trace.target_ids == tuple(RECORDED[f"{key}/target_ids"]), key
            close(f"{key}/token_logprobs", trace.token_logprobs)
            if loaded.model.has_attention:
                close(f"{key}/attention", trace.read(RNN_READING))
                close(f"{key}/energies", trace.read_energies(RNN_READING))
                close(f"{key}/contexts", trace.rnn.contexts[:, :6])
            close(f"{key}/states", trace.states[:, :6])
            close(f"{key}/queries", trace.rnn.queries[:, :6])
            close(f"{key}/annotations", trace.rnn.annotations[:, :6])
    trace = greedy(loaded.model, loaded.tokenizers, SENTENCES[0])
    close(f"{name}/0/gradient×input", attribution_matrix(loaded.model, trace, "gradient×input"), "gradient×input")


@pytest.mark.parametrize("name", ["none", "additive", "dot", "transformer"])
def test_each_bundled_models_steps_agree_with_its_teacher_forced_forward(name):
    """Decoding goes step by step through the interface (encode, start, decode_step, reorder); training reads
    the same network all at once (``model(src, mask, tgt_in)``), a separate computation. On the bundled weights
    both give every written piece the same log-probability, greedy writes each step's argmax, and a beam's
    hypotheses rescore, forced, to the log-probabilities the search gave them."""
    loaded = load_model(name)
    model, tokenizers = loaded.model, loaded.tokenizers
    for text in SENTENCES:
        trace = greedy(model, tokenizers, text)
        src = torch.tensor([trace.source.ids], device=model.device)  # [1, S]
        tgt_in = torch.tensor([[BOS_ID, *trace.target_ids[:-1]]], device=model.device)  # [1, T]
        with torch.inference_mode():
            logprobs = model(src, src != PAD_ID, tgt_in)[0].float().log_softmax(-1).cpu()  # [T, V]
        assert list(trace.target_ids) == logprobs.argmax(-1).tolist(), text
        picked = logprobs.gather(1, torch.tensor(trace.target_ids)[:, None]).squeeze(1).numpy()  # [T]
        np.testing.assert_allclose(trace.token_logprobs, picked, atol=AGREE, err_msg=text)
        for hypothesis in beam_search(model, tokenizers, text, 3).hypotheses:
            again = forced(model, tokenizers, text, hypothesis.target_ids)
            np.testing.assert_allclose(again.token_logprobs, hypothesis.token_logprobs, atol=AGREE, err_msg=text)


def test_readings_name_each_head_and_each_layers_mean():
    assert [r.key for r in readings((2, 2))] == ["1.1", "1.2", "1.mean", "2.1", "2.2", "2.mean"]
    assert readings((1, 1)) == [RNN_READING]  # one head: its mean is itself
    assert Reading.parse("2.mean", (3, 4)) == Reading(1, None) and Reading.parse(" 3.4 ", (3, 4)) == Reading(2, 3)
    for bad in ["4.1", "1.5", "0.1", "x", "1", "1.mean.2", "1.1.later", "shifted"]:
        with pytest.raises(ValueError):
            Reading.parse(bad, (3, 4))


def test_a_shifted_reading_reads_each_piece_one_step_later():
    assert Reading.parse("2.mean.shifted", (3, 4)) == Reading(1, None, shifted=True)
    assert Reading(0, 0, shifted=True).key == "1.1.shifted" and Reading(0, 0, True).plain == RNN_READING
    both = readings((2, 2), shifted=True)
    assert len(both) == 12 and [r.key for r in both[6:]][:2] == ["1.1.shifted", "1.2.shifted"]
    attention = np.random.default_rng(0).dirichlet(np.ones(5), size=(2, 3, 4))  # [L, heads, T=4, S=5]
    later = Reading(1, 2, shifted=True).of(attention)
    np.testing.assert_array_equal(later, attention[1, 2, 1:])  # piece t's row is step t + 1's: BOS row dropped


def test_a_reading_of_the_heads_is_a_distribution():
    attention = np.random.default_rng(0).dirichlet(np.ones(5), size=(2, 3, 4))  # [L, heads, T, S]
    mean = Reading(1, None).of(attention)
    np.testing.assert_allclose(mean, attention[1].mean(0))
    np.testing.assert_allclose(mean.sum(-1), 1)
    np.testing.assert_array_equal(Reading(0, 2).of(attention), attention[0, 2])


def test_select_rows_picks_rows_of_nested_batch_first_tensors():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Cache:
        keys: tuple
        count: int
        state: torch.Tensor | None

    cache = Cache((torch.arange(6).view(3, 2), torch.arange(3)), 7, None)
    picked = select_rows(cache, torch.tensor([2, 0, 2]))
    assert picked.keys[0].tolist() == [[4, 5], [0, 1], [4, 5]] and picked.keys[1].tolist() == [2, 0, 2]
    assert picked.count == 7 and picked.state is None
