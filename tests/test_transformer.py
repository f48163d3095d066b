"""models/network/transformer.py: cached decoding agrees with full recomputation, every head's cross-attention
with the textbook loop, the output layer is the target embedding, and a checkpoint round-trips."""
import json
import math

import pytest
import torch

from models.decoding.greedy import forced
from models.network.architectures import build_model
from models.network.tokenization import BOS_ID, PAD_ID
from models.network.transformer import TransformerConfig, TransformerTranslator, sinusoids
from models.storage.hub import check_config, load_model, save_checkpoint

from .helpers import make_transformer

TEXTS = ["a big red dog runs on the grass", "the cat"]


def padded_batch(tokenizers, texts=TEXTS):
    ids = [tokenizers.source.encode(t, 50).ids for t in texts]
    src = torch.full((len(ids), max(map(len, ids))), PAD_ID)
    for b, row in enumerate(ids):
        src[b, : len(row)] = torch.tensor(row)
    return src, src != PAD_ID


@torch.no_grad()
def test_cached_steps_give_the_full_recomputations_log_probs(tiny_tokenizers):
    """Decoding one position at a time from the key/value cache = teacher forcing over the whole prefix."""
    model = make_transformer(tiny_tokenizers)
    src, mask = padded_batch(tiny_tokenizers)
    tgt_in = torch.tensor([[BOS_ID, 5, 9, 7, 11, 6], [BOS_ID, 8, 8, 5, 4, 10]])  # [B, T]
    full = model(src, mask, tgt_in)  # [B, T, V]
    memory = model.encode(src, mask)
    cache, stepped = model.start(memory), []
    for t in range(tgt_in.shape[1]):
        step, cache = model.decode_step(tgt_in[:, t], cache, memory)
        stepped.append(step.log_probs)
    torch.testing.assert_close(torch.stack(stepped, 1), full.log_softmax(-1), atol=1e-5, rtol=1e-4)
    assert cache.keys[0].shape == (2, model.config.heads, tgt_in.shape[1], model.config.d_model // model.config.heads)


@torch.no_grad()
def test_each_steps_heads_are_the_textbook_cross_attention(tiny_tokenizers):
    """Every layer's every head: softmax(q kᵀ/√d_k) over the encoder output, the padding masked — rebuilt from
    the layer's own projections and inputs, recomputed in full for the whole target."""
    model = make_transformer(tiny_tokenizers)
    src, mask = padded_batch(tiny_tokenizers)
    tgt_in = torch.tensor([[BOS_ID, 5, 9, 7], [BOS_ID, 8, 8, 5]])
    memory = model.encode(src, mask)
    cache, steps = model.start(memory), []
    for t in range(tgt_in.shape[1]):
        step, cache = model.decode_step(tgt_in[:, t], cache, memory)
        steps.append(step.attention)
    attention = torch.stack(steps, 3)  # [B, L, heads, T, S]
    encoded = _encoder_output(model, src, mask)
    y = model._embed(model.tgt_embed, tgt_in)
    d_k = model.config.d_model // model.config.heads
    for n, layer in enumerate(model.decoder):
        h = layer.norm_self(y)
        after_self = y + layer.self_attn(h, *layer.self_attn.project_kv(h), causal=True)  # [B, T, d]
        q, k = layer.cross_attn.W_q(layer.norm_cross(after_self)), layer.cross_attn.W_k(encoded)
        for head in range(model.config.heads):
            part = slice(head * d_k, (head + 1) * d_k)
            scores = q[..., part] @ k[..., part].transpose(1, 2) / math.sqrt(d_k)  # [B, T, S]
            expected = torch.softmax(scores.masked_fill(~mask[:, None, :], float("-inf")), dim=-1)
            torch.testing.assert_close(attention[:, n, head], expected, atol=1e-5, rtol=1e-4)
        y = layer(y, memory.keys[n], memory.values[n], mask)  # the whole layer, into the next
    assert (attention[1, ..., mask[1].sum():] == 0).all()


def _encoder_output(model, src, mask):
    x = model._embed(model.src_embed, src)
    for layer in model.encoder:
        x = layer(x, mask)
    return model.enc_norm(x)  # [B, S, d]


def test_the_output_layer_is_the_target_embedding(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers)
    names = dict(model.named_parameters())
    assert "tgt_embed.weight" in names and not any("output" in n for n in names)
    src, mask = padded_batch(tiny_tokenizers)
    logits = model(src, mask, torch.tensor([[BOS_ID], [BOS_ID]]))
    logits.sum().backward()
    assert model.tgt_embed.weight.grad.abs().sum() > 0  # trained through both of its uses


def test_about_ten_million_parameters_at_the_default_size():
    model = build_model(TransformerConfig(8000, 8000))
    assert 9.0e6 < sum(p.numel() for p in model.parameters()) < 10.5e6  # the RNNs: 9.6 M


def test_positions_are_the_papers_sinusoids():
    pe = sinusoids(50, 16, "cpu", start=3)
    pos, i = 10, 3  # row 7 is position 10
    assert pe[7, 2 * i].item() == pytest.approx(math.sin(pos / 10000 ** (2 * i / 16)), abs=1e-6)
    assert pe[7, 2 * i + 1].item() == pytest.approx(math.cos(pos / 10000 ** (2 * i / 16)), abs=1e-6)


def test_own_step_log_probs_read_the_teacher_forced_logits(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers)
    trace = forced(model, tiny_tokenizers, TEXTS[0], "un grand chien")
    T = len(trace.target_ids)
    src = torch.tensor([trace.source.ids] * T)
    targets = torch.tensor([trace.target_ids] * T)
    tgt_in = torch.cat([torch.full((T, 1), BOS_ID), targets[:, :-1]], 1)
    picked = model.own_step_log_probs(src, src != PAD_ID, tgt_in, targets, torch.arange(T))
    torch.testing.assert_close(picked.detach().numpy(), trace.token_logprobs, atol=1e-5, rtol=1e-4)


def test_a_checkpoint_round_trips_with_its_architecture(tmp_path, tiny_tokenizers):
    model = make_transformer(tiny_tokenizers)
    save_checkpoint(tmp_path, model, tiny_tokenizers)
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["architecture"] == "transformer" and check_config(config) == model.config
    loaded = load_model(str(tmp_path), device="cpu")
    assert isinstance(loaded.model, TransformerTranslator) and loaded.variant == "transformer"
    assert loaded.model.attention_shape == (2, 2) and loaded.reading.key == "2.mean"  # no trial AER: last layer


@pytest.mark.parametrize("bad", [{"heads": 0}, {"dec_layers": 99}, {"d_model": 30, "heads": 4}, {"score": "dot"}])
def test_a_bad_transformer_config_is_refused(bad):
    config = {"src_vocab_size": 100, "tgt_vocab_size": 100, "architecture": "transformer", "format_version": 1}
    with pytest.raises(ValueError):
        check_config({**config, **bad})


def test_an_unknown_architecture_is_refused():
    with pytest.raises(ValueError, match="unknown architecture"):
        check_config({"src_vocab_size": 100, "tgt_vocab_size": 100, "architecture": "lstm", "format_version": 1})


def _textbook_heads(attn, x, source, key_mask, causal: bool, heads: int):
    """softmax(x W_q (source W_k)ᵀ / √d_k) per head, padding keys (and with ``causal`` later positions) masked,
    from the layer's own projection weights: [B, heads, N, S]."""
    d_k = x.shape[-1] // heads
    q, k = attn.W_q(x), attn.W_k(source)
    found = []
    for head in range(heads):
        part = slice(head * d_k, (head + 1) * d_k)
        scores = q[..., part] @ k[..., part].transpose(1, 2) / math.sqrt(d_k)  # [B, N, S]
        if key_mask is not None:
            scores = scores.masked_fill(~key_mask[:, None, :], float("-inf"))
        if causal:
            scores = scores.masked_fill(torch.ones(scores.shape[1:], dtype=torch.bool).triu(1), float("-inf"))
        found.append(torch.softmax(scores, dim=-1))
    return torch.stack(found, 1)


@torch.no_grad()
def test_all_three_kinds_are_the_textbook_attentions(tiny_tokenizers):
    """The encoder's self-attention (padding masked), the decoder's causal self-attention and its cross-attention,
    each rebuilt by the textbook formula from the layer's own inputs and projections; the cross-attention also
    equals what decoding step by step reports."""
    model = make_transformer(tiny_tokenizers)
    src, mask = padded_batch(tiny_tokenizers)
    tgt_in = torch.tensor([[BOS_ID, 5, 9, 7], [BOS_ID, 8, 8, 5]])
    kinds = model.attention_kinds(src, mask, tgt_in)
    L, heads = model.config.enc_layers, model.config.heads
    assert kinds.encoder.shape == (2, L, heads, src.shape[1], src.shape[1])
    assert kinds.decoder.shape == (2, model.config.dec_layers, heads, 4, 4)
    x = model._embed(model.src_embed, src)
    for n, layer in enumerate(model.encoder):
        h = layer.norm_self(x)
        torch.testing.assert_close(kinds.encoder[:, n], _textbook_heads(layer.self_attn, h, h, mask, False, heads),
                                   atol=1e-5, rtol=1e-4)
        x = layer(x, mask)
    encoded, y = model.enc_norm(x), model._embed(model.tgt_embed, tgt_in)
    for n, layer in enumerate(model.decoder):
        h = layer.norm_self(y)
        torch.testing.assert_close(kinds.decoder[:, n], _textbook_heads(layer.self_attn, h, h, None, True, heads),
                                   atol=1e-5, rtol=1e-4)
        after_self = y + layer.self_attn(h, *layer.self_attn.project_kv(h), causal=True)
        torch.testing.assert_close(kinds.cross[:, n], _textbook_heads(layer.cross_attn, layer.norm_cross(after_self),
                                                                      encoded, mask, False, heads),
                                   atol=1e-5, rtol=1e-4)
        y = layer(y, *layer.cross_attn.project_kv(encoded), mask)
    assert (kinds.decoder.triu(1) == 0).all()  # row t reads target inputs ≤ t only
    assert (kinds.encoder[1, ..., mask[1].sum():] == 0).all()  # nobody reads the padding
    memory, cache, steps = model.encode(src, mask), None, []
    cache = model.start(memory)
    for t in range(4):
        step, cache = model.decode_step(tgt_in[:, t], cache, memory)
        steps.append(step.attention)
    torch.testing.assert_close(kinds.cross, torch.stack(steps, 3), atol=1e-5, rtol=1e-4)


@torch.no_grad()
def test_recording_the_weights_changes_no_output(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers)
    src, mask = padded_batch(tiny_tokenizers)
    x = model._embed(model.src_embed, src)
    recorded = []
    torch.testing.assert_close(model.encoder[0](x, mask, recorded), model.encoder[0](x, mask), atol=1e-5, rtol=1e-4)
    assert len(recorded) == 1


@torch.no_grad()
def test_the_full_context_pass_lifts_the_future_mask_and_nothing_else(tiny_tokenizers):
    """Garg et al.'s full context: every row of the full-context attention reads the whole translation, so changing
    a later piece moves an earlier row, which the causal pass's never does; the first layer's last row reads the
    same inputs either way, so there the two agree; and training's watched head is the same weights."""
    model = make_transformer(tiny_tokenizers)
    src, mask = padded_batch(tiny_tokenizers)
    tgt_in = torch.tensor([[BOS_ID, 5, 9, 7], [BOS_ID, 8, 8, 5]])
    full, causal = model.full_context_attention(src, mask, tgt_in), model.attention_kinds(src, mask, tgt_in).cross
    assert full.shape == causal.shape == (2, 2, 2, 4, src.shape[1])  # [B, L, heads, T, S]
    torch.testing.assert_close(full.sum(-1), torch.ones(full.shape[:-1]))
    torch.testing.assert_close(full[:, 0, :, -1], causal[:, 0, :, -1], atol=1e-5, rtol=1e-4)
    assert (full[..., 0, :] - causal[..., 0, :]).abs().max() > 1e-4
    later = tgt_in.clone()
    later[:, 3] = 11  # the last piece changed: rows 0–2 of the causal pass cannot see it, the full context's do
    torch.testing.assert_close(model.attention_kinds(src, mask, later).cross[..., :3, :], causal[..., :3, :])
    assert (model.full_context_attention(src, mask, later)[..., :3, :] - full[..., :3, :]).abs().max() > 1e-4
    for layer in range(2):
        logits, watched = model(src, mask, tgt_in, watch=layer, full_context=True)
        torch.testing.assert_close(watched, full[:, layer], atol=1e-5, rtol=1e-4)
        torch.testing.assert_close(logits, model(src, mask, tgt_in))  # the translation's pass stays causal
