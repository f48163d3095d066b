"""models/decoding/every_attention.py: a sentence's three attentions, on request, for the translation on screen."""
import numpy as np
import torch

from models.decoding.every_attention import KINDS, attention_kinds
from models.decoding.greedy import greedy
from models.network.tokenization import BOS, BOS_ID, PAD_ID
from models.nouns.attention_map import Kind

from .helpers import make_model, make_transformer

TEXT = "a big red dog runs on the grass"


def test_the_three_kinds_belong_to_the_trace_shown(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers)
    trace = greedy(model, tiny_tokenizers, TEXT)
    kinds = attention_kinds(model, trace)
    S, T = len(trace.source.ids), len(trace.target_ids)
    assert kinds[Kind.ENCODER].weights.shape == (2, 2, S, S) and kinds[Kind.DECODER].weights.shape == (2, 2, T, T)
    np.testing.assert_allclose(kinds[Kind.CROSS].weights, trace.attention.weights, atol=1e-5)  # the decoding's own
    for kind in KINDS:
        rows, columns = kinds[kind].rows, kinds[kind].columns
        assert kinds[kind].weights.shape[2:] == (len(rows), len(columns))
        np.testing.assert_allclose(kinds[kind].weights.sum(-1), 1, atol=1e-5)
    assert kinds[Kind.DECODER].columns[0] == BOS and kinds[Kind.DECODER].columns[1:] == trace.target_pieces[:-1]
    assert np.allclose(np.triu(kinds[Kind.DECODER].weights, 1), 0)  # causal


def test_an_rnn_has_no_self_attention(tiny_tokenizers):
    model = make_model(tiny_tokenizers)
    assert attention_kinds(model, greedy(model, tiny_tokenizers, TEXT)) is None


def test_the_first_steps_are_cut_whole(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers)
    kinds = attention_kinds(model, greedy(model, tiny_tokenizers, TEXT))
    cut = {kind: found.first(3) for kind, found in kinds.items()}
    assert cut[Kind.DECODER].weights.shape[2:] == (3, 3) and len(cut[Kind.DECODER].columns) == 3
    assert cut[Kind.CROSS].weights.shape[2] == len(cut[Kind.CROSS].rows) == 3
    np.testing.assert_array_equal(cut[Kind.DECODER].weights, kinds[Kind.DECODER].weights[..., :3, :3])
    assert cut[Kind.ENCODER] is kinds[Kind.ENCODER]  # the source is read whole whatever was written
    assert cut[Kind.CROSS].head_outputs(0, 1).shape == (3, kinds[Kind.CROSS].values.shape[-1])


def test_head_outputs_are_what_the_model_hands_its_output_projection(tiny_tokenizers):
    """Σ_s α_ts (W_v h_s) per head, concatenated, is the input of each layer's W^O in the model's own fused pass."""
    model = make_transformer(tiny_tokenizers)
    trace = greedy(model, tiny_tokenizers, TEXT)
    kinds = attention_kinds(model, trace)
    seen = []
    hooks = [layer.cross_attn.W_o.register_forward_hook(lambda m, args, out: seen.append(args[0][0]))
             for layer in model.decoder]
    src = torch.tensor([trace.source.ids])
    with torch.inference_mode():
        model(src, src != PAD_ID, torch.tensor([[BOS_ID, *trace.target_ids[:-1]]]))
    for hook in hooks:
        hook.remove()
    layers, heads = kinds[Kind.CROSS].weights.shape[:2]
    for layer in range(layers):
        ours = np.concatenate([kinds[Kind.CROSS].head_outputs(layer, h) for h in range(heads)], axis=-1)  # [T, heads · d_k]
        np.testing.assert_allclose(ours, seen[layer].numpy(), atol=1e-5)
