"""models/decoding/beam.py: beam 1 is greedy, wider beams keep full traces ranked by score, the tree is consistent."""
import numpy as np
import pytest

from models.decoding.beam import beam_search
from models.decoding.greedy import greedy
from models.nouns.attention_map import RNN_READING


@pytest.mark.parametrize("text", ["a dog runs on the grass", "the cat", "big big big red man sleeps"])
def test_beam_one_is_greedy(any_model, tiny_tokenizers, text):
    (b,) = beam_search(any_model, tiny_tokenizers, text, 1).hypotheses
    g = greedy(any_model, tiny_tokenizers, text)
    assert b.target_ids == g.target_ids
    np.testing.assert_allclose(b.attention.weights, g.attention.weights, atol=1e-6)
    np.testing.assert_allclose(b.token_logprobs, g.token_logprobs, atol=1e-5)


def test_wider_beam_keeps_every_hypothesis_trace(tiny_model, tiny_tokenizers):
    hyps = beam_search(tiny_model, tiny_tokenizers, "a red dog", 4).hypotheses
    assert len(hyps) == 4
    normalised = [h.logprob / len(h.target_ids) for h in hyps]
    assert normalised == sorted(normalised, reverse=True)
    for h in hyps:
        assert h.attention.weights.shape == (1, 1, len(h.target_ids), len(h.source.ids))
        np.testing.assert_allclose(h.read(RNN_READING) @ h.rnn.annotations, h.rnn.contexts, atol=1e-5)
    assert len({h.target_ids for h in hyps}) == 4


def test_beam_size_must_be_positive(tiny_model, tiny_tokenizers):
    with pytest.raises(ValueError):
        beam_search(tiny_model, tiny_tokenizers, "a dog", 0)


@pytest.mark.parametrize("beam", [1, 3, 5])
def test_the_search_tree_is_consistent(tiny_model, tiny_tokenizers, beam):
    result = beam_search(tiny_model, tiny_tokenizers, "a big dog runs on the beach", beam)
    nodes = result.nodes
    for node in nodes:
        if node.parent is None:
            assert node.step == 0
        else:
            parent = nodes[node.parent]
            assert parent.kept and not parent.finished and parent.step == node.step - 1  # only the beam grows
    for step in {n.step for n in nodes}:  # 2·beam candidates; at most `beam` go on, the best of those not ending
        here = [n for n in nodes if n.step == step]
        going = [n.score for n in here if n.kept and not n.finished]
        assert len(here) <= 2 * beam and 1 <= len(going) + sum(n.kept for n in here if n.finished)
        assert len(going) <= beam and sum(n.kept and n.finished for n in here) <= beam
        assert max((n.score for n in here if not n.kept and not n.finished), default=-np.inf) <= min(going, default=0)
    children = {n.parent for n in nodes}
    for trace, end in zip(result.hypotheses, result.ends):
        assert end not in children and nodes[end].kept  # each final hypothesis is a leaf of the tree …
        path, node = [], end
        while node is not None:
            path.append(nodes[node])
            node = nodes[node].parent
        assert [n.piece for n in reversed(path)] == list(trace.target_pieces)  # … whose path spells it
        assert nodes[end].score == pytest.approx(float(trace.token_logprobs.sum()), abs=1e-4)  # a sum of log-probs


@pytest.mark.parametrize("beam", [3, 5])
def test_every_hypothesis_rescores_forced_to_what_the_search_gave_it(any_model, tiny_tokenizers, beam):
    """Forced decoding feeds one hypothesis alone, with no cache shared between rows: each piece's log-probability,
    attention and state must be what the search computed from its reordered cache."""
    from models.decoding.greedy import forced

    text = "a big red dog runs on the beach"
    hyps = beam_search(any_model, tiny_tokenizers, text, beam).hypotheses
    assert len({h.target_ids for h in hyps}) == beam
    for h in hyps:
        again = forced(any_model, tiny_tokenizers, text, list(h.target_ids))
        assert again.target_ids[: len(h.target_ids)] == h.target_ids
        T = len(h.target_ids)
        np.testing.assert_allclose(h.token_logprobs, again.token_logprobs[:T], atol=1e-5)
        np.testing.assert_allclose(h.attention.weights, again.attention.weights[..., :T, :], atol=1e-5)
        np.testing.assert_allclose(h.states, again.states[:T], atol=1e-5)
