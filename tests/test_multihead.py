"""models/network/multihead.py: every head's weights against the textbook loop softmax(QKᵀ/√d_k), with masks; the
fused fast path against the same loop."""
import math

import pytest
import torch

from models.network.multihead import MultiHeadAttention

B, N, S, D, HEADS = 3, 5, 7, 16, 4


@pytest.fixture
def attention():
    torch.manual_seed(0)
    return MultiHeadAttention(D, HEADS).eval()


def textbook(att: MultiHeadAttention, x, memory, mask=None, causal=False):
    """Vaswani et al. §3.2 written out head by head: weights [B, heads, N, S] and output [B, N, D]."""
    d_k = D // HEADS
    heads, weights = [], []
    for h in range(HEADS):
        part = slice(h * d_k, (h + 1) * d_k)
        q = x @ att.W_q.weight[part].T + att.W_q.bias[part]  # [B, N, d_k]
        k = memory @ att.W_k.weight[part].T + att.W_k.bias[part]  # [B, S, d_k]
        v = memory @ att.W_v.weight[part].T + att.W_v.bias[part]
        scores = q @ k.transpose(1, 2) / math.sqrt(d_k)  # [B, N, S]
        if mask is not None:
            scores = scores.masked_fill(~mask[:, None, :], float("-inf"))
        if causal:
            scores = scores.masked_fill(torch.ones(scores.shape[1:], dtype=torch.bool).triu(1), float("-inf"))
        w = torch.softmax(scores, dim=-1)
        weights.append(w)
        heads.append(w @ v)
    return torch.stack(weights, 1), att.W_o(torch.cat(heads, dim=-1))


def padding_mask():
    mask = torch.ones(B, S, dtype=torch.bool)
    mask[1, 4:] = False  # a shorter sentence in the batch
    mask[2, 2:] = False
    return mask


@torch.no_grad()
def test_every_heads_weights_match_the_textbook(attention):
    x, memory, mask = torch.randn(B, N, D), torch.randn(B, S, D), padding_mask()
    out, weights, energies = attention.read(x, *attention.project_kv(memory), mask=mask)
    expected_w, expected_out = textbook(attention, x, memory, mask)
    torch.testing.assert_close(weights, expected_w, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(out, expected_out, atol=1e-5, rtol=1e-5)
    assert (weights[1, :, :, 4:] == 0).all() and (weights[2, :, :, 2:] == 0).all()  # padding gets nothing
    torch.testing.assert_close(weights, torch.softmax(energies.masked_fill(~mask[:, None, None], -torch.inf), -1))


@torch.no_grad()
def test_the_fused_path_gives_the_textbook_output(attention):
    x, memory, mask = torch.randn(B, N, D), torch.randn(B, S, D), padding_mask()
    _, expected = textbook(attention, x, memory, mask)
    torch.testing.assert_close(attention(x, *attention.project_kv(memory), mask=mask), expected, atol=1e-5, rtol=1e-5)


@torch.no_grad()
def test_the_causal_mask_reads_only_earlier_positions(attention):
    x = torch.randn(B, S, D)
    _, expected = textbook(attention, x, x, causal=True)
    torch.testing.assert_close(attention(x, *attention.project_kv(x), causal=True), expected, atol=1e-5, rtol=1e-5)


@torch.no_grad()
def test_an_override_replaces_every_heads_weights(attention):
    x, memory = torch.randn(B, 1, D), torch.randn(B, S, D)
    forced = torch.zeros(B, S)
    forced[:, 3] = 1
    out, weights, _ = attention.read(x, *attention.project_kv(memory), override=forced)
    assert (weights[:, :, 0, 3] == 1).all()
    values = attention.project_kv(memory)[1][:, :, 3]  # [B, heads, d_k]: each head reads value 3 alone
    torch.testing.assert_close(out[:, 0], attention.W_o(values.reshape(B, D)), atol=1e-6, rtol=1e-5)


def test_width_must_split_into_heads():
    with pytest.raises(ValueError, match="divisible"):
        MultiHeadAttention(10, 4)
