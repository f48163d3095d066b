"""models/network/parts + models/analysis/contributions, rollout, matrices: the parts add back up to each layer's
real output, and every reading equals a hand computation from the layer's own modules."""
import threading

import numpy as np
import pytest
import torch

from models.analysis import contributions, recipes, rollout
from models.analysis.contributions import Sentence, alti_terms, attention_norm, sentence_parts, value_zeroing
from models.analysis.recipes import of, read, why_not
from models.decoding.greedy import greedy
from models.network.parts import Sublayer, Zeroed, recording
from models.network.translator import Fitted
from models.nouns.attention_map import KINDS

from .helpers import make_model, make_transformer

#: The matrices read layer by layer (all but the attributions).
LAYERED = [m for m in recipes.MATRICES.values() if m.per != "sentence"]


def names(found) -> tuple[str, ...]:
    return tuple(m.name for m in found)

TEXT = "a big red dog runs on the grass"


@pytest.fixture
def transformer(tiny_tokenizers):
    torch.manual_seed(0)
    model = make_transformer(tiny_tokenizers, layers=2, heads=2)
    return model, greedy(model, tiny_tokenizers, TEXT)


def reconstructed(sub: Sublayer) -> torch.Tensor:
    """r + Σ_s z_s + b, through the post-norm where there is one: what the sub-layer's output must be."""
    y = sub.residual + sub.terms().sum(2) + sub.out_bias
    return y if sub.norm is None else sub.norm(y)


def assert_adds_up(parts) -> None:
    for kind in KINDS:
        for sub in getattr(parts, kind):
            torch.testing.assert_close(reconstructed(sub), sub.output, atol=2e-5, rtol=1e-4)
            for self_attention in (True, False) if kind != "cross" else (False,):
                # ALTI's own split (the post-norm spread over the terms) sums to the output too
                z = sub.terms()[0]
                z = z + torch.diag_embed(torch.ones(len(z)))[..., None] * sub.residual[0][:, None] \
                    if self_attention else torch.cat([z, sub.residual[0][:, None]], 1)
                terms, bias = contributions.normalised_terms(sub, z)
                torch.testing.assert_close(terms.sum(1) + bias, sub.output[0], atol=2e-5, rtol=1e-4)


def test_the_transformers_parts_add_up_to_each_layers_output(transformer):
    model, trace = transformer
    with torch.inference_mode():
        assert_adds_up(sentence_parts(model, trace))


@pytest.mark.parametrize("family", ["marian", "nllb"])  # post-norm and pre-norm
def test_a_hugging_face_models_parts_add_up_to_each_layers_output(family, tmp_path):
    from models.storage.hub import load_model

    from .hf_helpers import tiny_many_to_many, tiny_marian

    folder = tiny_marian(tmp_path, steps=10) if family == "marian" else tiny_many_to_many(tmp_path, "nllb", steps=5)
    loaded = load_model(str(folder))
    trace = greedy(loaded.model, loaded.tokenizers, "a dog runs on the beach")
    parts = sentence_parts(loaded.model, trace)
    assert all(s.norm is not None for s in parts.cross) == (family == "marian")
    with torch.inference_mode():
        assert_adds_up(parts)
    np.testing.assert_allclose(parts.cross[0].weights[0].numpy(), trace.attention.weights[0], atol=1e-5)


def test_the_hooks_leave_the_model_as_it_was(transformer):
    model, trace = transformer
    sentence_parts(model, trace)
    assert not any(m._forward_hooks or m._forward_pre_hooks for m in model.modules())


def test_a_pass_in_another_thread_is_neither_recorded_nor_zeroed(transformer):
    """A server shares one model between visitors: a translation another thread runs while the hooks are on keeps
    its own output, and the recording keeps this thread's pass (the “Which matrix to believe?” page once met a
    decoding step's [1, d] residual in place of the sentence's [T, d])."""
    model, trace = transformer
    src = torch.tensor([trace.source.ids])
    tgt_in = torch.tensor([[model.specials.start, *trace.target_ids[:-1]]])  # [1, T]
    step = tgt_in[:, :1]  # another visitor's first decoding step: [1, 1]
    with torch.inference_mode():
        alone = model(src, src != 0, step)
        beside = {}
        zeroed = Zeroed(torch.zeros(1, dtype=torch.long), torch.zeros(1, dtype=torch.long))
        with recording(model.sublayer_sites(), zeroed) as found:
            model.attention_kinds(src, src != 0, tgt_in)
            visitor = threading.Thread(target=lambda: beside.__setitem__("out", model(src, src != 0, step)))
            visitor.start()
            visitor.join()
        with recording(model.sublayer_sites(), zeroed):
            mine = model(src, src != 0, step)  # this thread's pass: its value is zeroed
        # not bit-equal: another thread's pass may sum in another order; a zeroed value moves it by far more
        torch.testing.assert_close(beside["out"], alone, rtol=1e-5, atol=1e-5)
        assert (mine - alone).abs().max() > 100 * 1e-5
        assert all(found[kind, n, "residual"].shape[1] == tgt_in.shape[1]
                   for kind in ("decoder", "cross") for n in range(len(model.sublayer_sites()[kind])))
        assert all(found["layer", id(s.layer)].shape[1] == tgt_in.shape[1] for s in model.sublayer_sites()["cross"])


def hand_norms(model, trace, layer: int) -> np.ndarray:
    """‖α^h_ts v^h_s W^O_h‖ of ``layer`` from its modules alone: the memory's values, W_o's columns of each head."""
    with torch.inference_mode():
        src = torch.tensor([trace.source.ids])
        values = model.encode(src, src != 0).values[layer][0]  # [heads, S, d_k]
        W = model.decoder[layer].cross_attn.W_o.weight  # [d, heads · d_k]
        heads, d_k = values.shape[0], values.shape[-1]
        sizes = torch.stack([(values[h] @ W[:, h * d_k:(h + 1) * d_k].T).norm(dim=-1) for h in range(heads)])
    found = trace.attention.weights[layer] * sizes.numpy()[:, None, :]  # [heads, T, S]
    return found / found.sum(-1, keepdims=True)


def test_the_attention_norm_is_each_layers_own_hand_computation(transformer):
    model, trace = transformer
    found = attention_norm(Sentence(model, trace))
    for layer in range(2):
        np.testing.assert_allclose(found.heads.weights[layer], hand_norms(model, trace, layer), atol=1e-5)
    # a reading computed from the wrong layer would match the other layer's hand computation instead
    assert not np.allclose(found.heads.weights[1], hand_norms(model, trace, 0), atol=1e-3)
    np.testing.assert_allclose(found.layers.sum(-1), 1, atol=1e-5)


def test_the_rnns_norm_weighs_alpha_by_what_each_annotation_adds(tiny_tokenizers):
    model = make_model(tiny_tokenizers)
    trace = greedy(model, tiny_tokenizers, TEXT)
    E, H = model.config.emb_dim, model.config.dec_hidden
    with torch.inference_mode():
        h = torch.tensor(trace.rnn.annotations)  # [S, 2He]
        sizes = torch.cat([h @ model.decoder.weight_ih[:, E:].T, h @ model.readout.weight[:, H:H + h.shape[1]].T],
                          1).norm(dim=-1).numpy()  # [S]
    expected = trace.attention.weights[0, 0] * sizes
    np.testing.assert_allclose(attention_norm(Sentence(model, trace)).heads.weights[0, 0],
                               expected / expected.sum(-1, keepdims=True),
                               atol=1e-5)
    assert names(recipes.applicable(model, Fitted())) == ("attention", "attention norm", "gradient×input",
                                                "integrated gradients")
    assert "no residual stream" in why_not(recipes.MATRICES["ALTI"], model, Fitted())
    with pytest.raises(ValueError, match="no such layers"):
        value_zeroing(Sentence(model, trace))


def test_a_model_without_attention_has_only_attributions(tiny_tokenizers):
    model = make_model(tiny_tokenizers, "none")
    assert names(recipes.applicable(model, Fitted())) == ("gradient×input", "integrated gradients")
    assert "no attention" in why_not(recipes.MATRICES["attention norm"], model, Fitted())


def test_alti_of_a_sublayer_worked_by_hand():
    """One query reading two positions, d = 2, W^O = I: z_1 = (½, 0), z_2 = (0, ½), r = (1, 0), so y = (1.5, 0.5),
    ‖y‖₁ = 2 and the contributions max(0, 2 − ‖y − z‖₁) are ½, ½ and 1 for the residual: shares ¼, ¼, ½."""
    sub = Sublayer(weights=torch.tensor([[[[0.5, 0.5]]]]), values=torch.eye(2)[None, None],
                   out_weight=torch.eye(2)[None], out_bias=torch.zeros(2), residual=torch.tensor([[[1.0, 0.0]]]),
                   output=torch.tensor([[[1.5, 0.5]]]))
    torch.testing.assert_close(alti_terms(sub, self_attention=False), torch.tensor([[0.25, 0.25, 0.5]]))


def test_alti_keeps_the_prefix_share_beside_the_source(transformer):
    model, trace = transformer
    found = contributions.alti(Sentence(model, trace))
    assert found.layers.shape == (2, len(trace.target_ids), len(trace.source.ids)) and found.heads is None
    np.testing.assert_allclose(found.layers.sum(-1), 1, atol=1e-5)
    assert ((found.prefix > 0) & (found.prefix < 1)).all()


def test_a_rollout_worked_by_hand():
    """S = 2, T = 1. The encoder swaps its pieces; the decoder's self-attention keeps its one step; the cross-
    attention gives ½ to (mixed) source piece 1, ½ to the residual: the step is ½ source piece 2, ½ itself."""
    found = rollout.rolled([torch.tensor([[0.0, 1.0], [1.0, 0.0]])], [torch.ones(1, 1)],
                           [torch.tensor([[0.5, 0.0, 0.5]])])
    torch.testing.assert_close(found, torch.tensor([[[0.0, 0.5, 0.5]]]))


def test_the_rollouts_split_every_step_between_source_and_prefix(transformer):
    model, trace = transformer
    for found in (rollout.attention_rollout(Sentence(model, trace)), rollout.alti_rollout(Sentence(model, trace))):
        np.testing.assert_allclose(found.layers.sum(-1), 1, atol=1e-5)
        assert ((found.prefix >= 0) & (found.prefix <= 1)).all()
    # after one layer: ½ self (¾ own prefix) + ½ residual
    first = rollout.attention_rollout(Sentence(model, trace)).prefix[0]
    assert (first > 0.49).all()


def hand_zeroing(model, trace, layer: int) -> np.ndarray:
    """1 − cos of decoder layer ``layer``'s output with each source piece's cross-attention values zeroed, from the
    memory the model itself projects (no hooks), rows normalised: [T, S]."""
    with torch.inference_mode():
        src = torch.tensor([trace.source.ids])
        tgt = torch.tensor([[model.specials.start, *trace.target_ids[:-1]]])
        memory = model.encode(src, src != 0)

        def output(values) -> torch.Tensor:
            y = model._embed(model.tgt_embed, tgt)
            for n in range(layer + 1):
                y = model.decoder[n](y, memory.keys[n], values if n == layer else memory.values[n], memory.mask)
            return y[0]  # [T, d]

        base, rows = output(memory.values[layer]), []
        for s in range(src.shape[1]):
            zeroed = memory.values[layer].clone()
            zeroed[:, :, s] = 0
            rows.append(1 - torch.cosine_similarity(output(zeroed), base, dim=-1))
    found = torch.stack(rows, 1).clamp(min=0).numpy()  # [T, S]
    return found / found.sum(-1, keepdims=True)


def test_value_zeroing_is_each_layers_own_hand_computation(transformer, monkeypatch):
    model, trace = transformer
    monkeypatch.setattr(contributions, "ZEROING_ROWS", 5)  # several passes, the last one short
    heard = []
    found = value_zeroing(Sentence(model, trace), progress=heard.append)
    for layer in range(2):
        np.testing.assert_allclose(found.layers[layer], hand_zeroing(model, trace, layer), atol=1e-4)
    assert not np.allclose(found.layers[1], hand_zeroing(model, trace, 0), atol=1e-3)
    assert len(heard) > 1 and heard[-1] == 1.0


def test_every_matrix_reads_every_reading_it_offers(transformer):
    model, trace = transformer
    T, S = len(trace.target_ids), len(trace.source.ids)
    for matrix in LAYERED:
        chosen = matrix.readings(model.attention_shape, shifted=True)
        for reading, weights in zip(chosen, read(matrix, Sentence(model, trace), chosen)):
            assert weights.shape == (T - reading.shifted, S)
            np.testing.assert_allclose(weights.sum(-1), 1, atol=1e-4)
    shape = model.attention_shape
    assert len(recipes.MATRICES["ALTI"].readings(shape, shifted=True)) == 4  # 2 layers, each also one step later
    assert len(recipes.MATRICES["attention norm"].readings(shape)) == 6  # 2 layers × (2 heads + the layer)


def test_every_matrix_reads_a_hugging_face_marian(tmp_path):
    from models.storage.hub import load_model

    from .hf_helpers import tiny_marian

    loaded = load_model(str(tiny_marian(tmp_path, steps=10)))
    trace = greedy(loaded.model, loaded.tokenizers, "a dog runs on the beach")
    lacked = (recipes.FULL_CONTEXT.name, recipes.FITTED.name)
    found = recipes.applicable(loaded.model, loaded.fitted)
    assert names(found) == tuple(m for m in recipes.MATRICES if m not in lacked)
    assert "future mask" in why_not(recipes.FULL_CONTEXT, loaded.model, loaded.fitted)  # the library's decoder
    assert "fit to human links" in why_not(recipes.FITTED, loaded.model, loaded.fitted)  # none fit for it yet
    for matrix in recipes.applicable(loaded.model, loaded.fitted):
        if matrix.per == "sentence":
            continue
        found = of(matrix, Sentence(loaded.model, trace))
        assert found.layers.shape == (2, len(trace.target_ids), len(trace.source.ids)), matrix
        np.testing.assert_allclose(found.layers.sum(-1), 1, atol=1e-4)
        assert not np.allclose(found.layers[0], found.layers[1]), matrix  # each layer its own


def counted_passes(model, monkeypatch) -> list:
    """Each hooked pass ``model`` makes from now on: what it zeroes (None: a plain pass over the sentence)."""
    passes, real = [], model.attention_parts

    def counting(src, mask, tgt_in, zeroed=None):
        passes.append(zeroed)
        return real(src, mask, tgt_in, zeroed)

    monkeypatch.setattr(model, "attention_parts", counting)
    return passes


def test_one_sentence_is_recorded_once_however_many_matrices_read_it(transformer, monkeypatch):
    model, trace = transformer
    passes = counted_passes(model, monkeypatch)
    sentence = Sentence(model, trace)
    first = {m: of(m, sentence) for m in LAYERED}
    assert sum(zeroed is None for zeroed in passes) == 1  # the norm, ALTI, both rollouts and zeroing's reference
    assert all(zeroed is not None for zeroed in passes[1:])  # value zeroing's own passes zero something
    again = len(passes)
    assert all(of(m, sentence) is first[m] for m in LAYERED) and len(passes) == again  # kept


def test_which_matrix_reads_a_sentence_every_way_from_one_hooked_pass(transformer, monkeypatch):
    """Issue 64: the “Which matrix to believe?” page's call (side_by_side) records the sentence once for every
    matrix it sets side by side; value zeroing's own passes zero something."""
    from models.analysis.side_by_side import side_by_side
    from models.nouns.attention_map import Reading

    model, trace = transformer
    passes = counted_passes(model, monkeypatch)
    chosen = {m: m.at(Reading(1, None)) for m in recipes.applicable(model, Fitted())}
    panels = side_by_side(model, trace, chosen, scored=False)
    assert len(panels) == len(chosen) + 1 and "value zeroing" in names(chosen)  # every matrix, then the random floor
    assert sum(zeroed is None for zeroed in passes) == 1
