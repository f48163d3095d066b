"""models/network/translator.py and models/decoding/trace.py: the one translator interface changed nothing the
bundled models do — their translations, attention, energies, states and attributions agree with traces recorded
before it existed (tests/data/traces_before_interface.npz) — and readings name every head."""
from pathlib import Path

import numpy as np
import pytest
import torch

from models.analysis.attribution import attribution_matrix
from models.decoding.beam import beam_search
from models.decoding.greedy import greedy
from models.decoding.trace import RNN_READING, Reading, readings
from models.network.translator import select_rows
from models.storage.hub import load_model

RECORDED = np.load(Path(__file__).parent / "data" / "traces_before_interface.npz")
SENTENCES = ["A black dog is running on the beach.", "The children are jumping into the swimming pool.",
             "I think that the weather will be nice tomorrow, don't you?"]
TOL = 2e-5  # float32 summation order differs between CPUs and CUDA; the values are the same computation


def traces_of(loaded, i: int, text: str) -> dict:
    S = len(loaded.tokenizers.source.encode(text, 80).ids)
    found = {"greedy": greedy(loaded.model, loaded.tokenizers, text),
             "beam": beam_search(loaded.model, loaded.tokenizers, text, 3).hypotheses[1]}
    if loaded.model.has_attention:
        found["whatif"] = greedy(loaded.model, loaded.tokenizers, text, overrides={1: np.eye(S, dtype=np.float32)[0]})
    return found


def close(recorded_key: str, value: np.ndarray) -> None:
    np.testing.assert_allclose(value, RECORDED[recorded_key], atol=TOL, rtol=1e-4, err_msg=recorded_key)


@pytest.mark.parametrize("name", ["additive", "dot", "none"])
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
    close(f"{name}/0/gradient×input", attribution_matrix(loaded.model, trace, "gradient×input"))


def test_readings_name_each_head_and_each_layers_mean():
    assert [r.key for r in readings((2, 2))] == ["1.1", "1.2", "1.mean", "2.1", "2.2", "2.mean"]
    assert readings((1, 1)) == [RNN_READING]  # one head: its mean is itself
    assert Reading.parse("2.mean", (3, 4)) == Reading(1, None) and Reading.parse(" 3.4 ", (3, 4)) == Reading(2, 3)
    for bad in ["4.1", "1.5", "0.1", "x", "1", "1.mean.2"]:
        with pytest.raises(ValueError):
            Reading.parse(bad, (3, 4))


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
