"""models/network/attention.py: each score against a naive loop of its own equation, and invariants."""
import math

import pytest
import torch

from models.network import attention
from models.network.attention import build_attention

B, S, DQ, DK, A = 3, 7, 10, 6, 5


def naive_energy(scorer, q, k) -> float:
    """One (t, s) energy straight from the score's equation."""
    if isinstance(scorer, attention.AdditiveAttention):
        return float(scorer.v.weight[0] @ torch.tanh(scorer.W_q(q) + scorer.W_k(k)))
    if isinstance(scorer, attention.DotProductAttention):
        return float(scorer.W_q(q) @ scorer.W_k(k)) / math.sqrt(scorer.W_q.out_features)
    if isinstance(scorer, attention.GeneralAttention):
        return float(q @ scorer.W.weight @ k)
    return float(q @ k)


@torch.no_grad()
def naive(scorer, query, keys, values, mask):
    """Loop over every batch row, query and key, as the simplest textbook code would."""
    Bn, T, _ = query.shape
    context = torch.zeros(Bn, T, values.shape[-1])
    weights = torch.zeros(Bn, T, keys.shape[1])
    for b in range(Bn):
        for t in range(T):
            real = [s for s in range(keys.shape[1]) if mask is None or mask[b, s]]
            e = torch.tensor([naive_energy(scorer, query[b, t], keys[b, s]) for s in real])
            w = torch.exp(e - e.max()) / torch.exp(e - e.max()).sum()
            for w_s, s in zip(w, real):
                weights[b, t, s] = w_s
                context[b, t] += w_s * values[b, s]
    return context, weights


def random_mask():
    lengths = torch.tensor([S, 4, 1])
    return torch.arange(S)[None, :] < lengths[:, None]  # [B, S]


@pytest.mark.parametrize("score", ["additive", "dot", "general", "plain_dot"])
@pytest.mark.parametrize("T", [1, 4])
@pytest.mark.parametrize("masked", [False, True])
def test_matches_naive_loop(score, T, masked):
    torch.manual_seed(0)
    dk = DQ if score == "plain_dot" else DK  # plain dot needs equal sizes
    scorer = build_attention(score, DQ, dk, A)
    query, keys, values = torch.randn(B, T, DQ), torch.randn(B, S, dk), torch.randn(B, S, 4)
    mask = random_mask() if masked else None
    context, weights, _ = scorer(query, keys, values, mask)
    ref_context, ref_weights = naive(scorer, query, keys, values, mask)
    assert weights.shape == (B, T, S) and context.shape == (B, T, 4)
    torch.testing.assert_close(weights, ref_weights, atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(context, ref_context, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("score", ["additive", "dot", "general"])
def test_weights_are_a_distribution_and_gradients_flow(score):
    torch.manual_seed(1)
    scorer = build_attention(score, DQ, DK, A)
    query, keys = torch.randn(B, 5, DQ), torch.randn(B, S, DK)
    mask = random_mask()
    context, weights, _ = scorer(query, keys, mask=mask)
    assert (weights >= 0).all()
    torch.testing.assert_close(weights.sum(-1), torch.ones(B, 5))
    assert (weights.masked_select(~mask[:, None, :].expand_as(weights)) == 0).all()
    context.sum().backward()
    for p in scorer.parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0


def test_precomputed_keys_give_the_same_result():
    torch.manual_seed(2)
    scorer = build_attention("additive", DQ, DK, A)
    query, keys = torch.randn(B, 3, DQ), torch.randn(B, S, DK)
    proj = scorer.project_keys(keys)
    torch.testing.assert_close(scorer(query, keys, proj_keys=proj)[1], scorer(query, keys)[1])
    torch.testing.assert_close(scorer.energies(query, keys, proj), scorer.energies(query, keys))


def test_additive_chunking_is_exact(monkeypatch):
    torch.manual_seed(3)
    scorer = build_attention("additive", DQ, DK, A)
    query, keys = torch.randn(2, 9, DQ), torch.randn(2, S, DK)
    whole = scorer.energies(query, keys)
    monkeypatch.setattr(attention, "ADDITIVE_CHUNK_ELEMENTS", 2 * S * A * 2)  # 2 queries a chunk
    torch.testing.assert_close(scorer.energies(query, keys), whole)


def test_additive_chunks_pass_gradients_like_one_piece(monkeypatch):
    torch.manual_seed(5)
    scorer = build_attention("additive", DQ, DK, A)
    query, keys = torch.randn(2, 9, DQ, requires_grad=True), torch.randn(2, S, DK)
    whole = torch.autograd.grad(scorer.energies(query, keys).square().sum(), [query, *scorer.parameters()])
    monkeypatch.setattr(attention, "ADDITIVE_CHUNK_ELEMENTS", 2 * S * A * 2)
    chunked = torch.autograd.grad(scorer.energies(query, keys).square().sum(), [query, *scorer.parameters()])
    for a, b in zip(whole, chunked):
        torch.testing.assert_close(a, b)


def test_additive_memory_stays_bounded_for_long_inputs():
    """Peak RSS of 1×2000×2000 energies (A=128) in a plain process: the unchunked broadcast alone is 2 GiB,
    and chunk outputs kept apart fragmented the heap to ~2 GiB; one preallocated output stays under 100 MiB."""
    from bench.kernels import peak_mib

    assert peak_mib("vectorised", "additive", 1, 2000, 2000, "cpu") < 400


def test_scaled_dot_divides_by_sqrt_attention_width():
    torch.manual_seed(4)
    scaled = attention.DotProductAttention(DQ, DK, 16, scaled=True)
    plain = attention.DotProductAttention(DQ, DK, 16, scaled=False)
    plain.load_state_dict(scaled.state_dict())
    q, k = torch.randn(1, 2, DQ), torch.randn(1, 3, DK)
    torch.testing.assert_close(scaled.energies(q, k) * 4, plain.energies(q, k))


@pytest.mark.parametrize("score", ["additive", "dot", "general", "plain_dot"])
@torch.no_grad()
def test_terms_add_up_to_the_energy(score):
    torch.manual_seed(6)
    dk = DQ if score == "plain_dot" else DK
    scorer = build_attention(score, DQ, dk, A)
    query, keys = torch.randn(B, 4, DQ), torch.randn(B, S, dk)
    proj = scorer.project_keys(keys)
    terms = scorer.terms(query, proj)
    assert terms.shape[:3] == (B, 4, S)
    torch.testing.assert_close(terms.sum(-1), scorer.score(query, proj), atol=1e-5, rtol=1e-5)
    ref = torch.tensor([[[naive_energy(scorer, query[b, t], keys[b, s]) for s in range(S)] for t in range(4)]
                        for b in range(B)])
    torch.testing.assert_close(terms.sum(-1), ref, atol=1e-5, rtol=1e-5)  # and the textbook equation


def test_override_replaces_the_weights_but_not_the_energies():
    torch.manual_seed(7)
    scorer = build_attention("additive", DQ, DK, A)
    query, keys = torch.randn(1, 1, DQ), torch.randn(1, S, DK)
    one_hot = torch.zeros(1, 1, S)
    one_hot[0, 0, 2] = 1
    context, weights, energies = scorer(query, keys, override=one_hot)
    assert torch.equal(weights, one_hot)
    torch.testing.assert_close(context[0, 0], keys[0, 2])
    torch.testing.assert_close(energies, scorer.energies(query, keys))


def test_score_table_names_every_choice():
    assert set(attention.SCORES) == {"additive", "dot", "general", "plain_dot", "none"}
    assert all(s.label and s.description for s in attention.SCORES.values())


def test_plain_dot_rejects_unequal_sizes():
    with pytest.raises(ValueError, match="equal query and key sizes"):
        build_attention("plain_dot", 8, 6, 4)


def test_unknown_score_is_an_error():
    with pytest.raises(ValueError, match="unknown attention score"):
        build_attention("cosine", 8, 8, 4)
