"""models/network/hf/translator.py: a Hugging Face Marian translator behind the one interface — its step-by-step
decoding against the library's own ``generate`` and ``output_attentions``, its heads switched off against a
hand-made reference, and its cache reordered against one computed afresh. Tiny random models built offline."""
import copy

import numpy as np
import pytest
import torch

from models.decoding.beam import beam_search
from models.decoding.every_attention import attention_kinds
from models.decoding.greedy import forced, greedy, max_target_len
from models.network.hf.tokenizer import HFTokenizer
from models.network.hf.translator import HFTranslator
from models.network.tokenization import TokenizerPair, word_groups
from models.nouns.attention_map import Kind, Reading
from models.nouns.matrix import GRADIENT_X_INPUT, INTEGRATED_GRADIENTS

from .hf_helpers import ENGLISH, assert_one_pass_is_the_steps, assert_same_beams, tiny_marian

TEXTS = [*ENGLISH[:4], "two girls", "a dog", "the cat", "a woman reads on the beach"]


@pytest.fixture(scope="module")
def marian(tmp_path_factory):
    from transformers import MarianMTModel, MarianTokenizer

    folder = tiny_marian(tmp_path_factory.mktemp("marian"), steps=80)  # some sentences end, some reach the cap
    tokenizer = MarianTokenizer.from_pretrained(folder)
    library = MarianMTModel.from_pretrained(folder, attn_implementation="eager").eval()  # its weights returned
    model = HFTranslator(copy.deepcopy(library), tokenizer.unk_token_id)
    return model, TokenizerPair(HFTokenizer(tokenizer, "source"), HFTokenizer(tokenizer, "target")), library, tokenizer


def generated(library, tokenizer, text: str, cap: int, **options) -> list[int]:
    inputs = tokenizer([text], return_tensors="pt")
    return library.generate(**inputs, do_sample=False, max_new_tokens=cap, **options)[0].tolist()[1:]  # no start


def test_the_model_says_what_it_has(marian):
    model, *_, tokenizer = marian
    assert model.attention_shapes == {"cross": (2, 2), "encoder": (2, 2), "decoder": (2, 2)}
    assert model.switchable_heads == model.attention_shapes and model.attention_shape == (2, 2)
    pad = tokenizer.pad_token_id
    assert (model.specials.eos, model.specials.start, model.specials.pad) == (0, pad, pad)  # Marian's, not ours
    assert model.config.model_type == "marian" and model.source_embedding is model.hf.get_encoder().embed_tokens


def test_greedy_is_generates_greedy_token_for_token_but_at_the_length_cap(marian):
    """The one difference, stated: at ``max_new_tokens`` generate forces ``</s>`` (``forced_eos_token_id``) where
    the app's greedy stops at its length cap with whatever the model wrote."""
    model, pair, library, tokenizer = marian
    ended = capped = 0
    for text in TEXTS:
        trace = greedy(model, pair, text)
        cap = max_target_len(model, pair.source.encode(text, 80))
        expected = generated(library, tokenizer, text, cap, num_beams=1)
        ours = list(trace.target_ids)
        if ours[-1] == model.specials.eos:
            ended += 1
            assert ours == expected
        else:
            capped += 1
            assert len(ours) == cap and ours[:-1] == expected[:-1] and expected[-1] == model.specials.eos
        assert trace.translation == tokenizer.decode(ours, skip_special_tokens=True)
    assert ended and capped  # both cases were seen


def test_beam_4_is_generates_beam_search_hypothesis_for_hypothesis(marian):
    """The same search as ``generate(num_beams=4)``: the same four finished hypotheses in the same order, with the
    same scores (log-probability per piece). Sentences whose search reaches the length cap are left out: there
    ``generate`` forces ``</s>``, as in greedy decoding above."""
    model, pair, library, tokenizer = marian
    compared = 0
    for text in TEXTS:
        cap = max_target_len(model, pair.source.encode(text, 80))
        ours = beam_search(model, pair, text, 4)
        if any(len(h.target_ids) == cap for h in ours.hypotheses):
            continue
        out = library.generate(**tokenizer([text], return_tensors="pt"), num_beams=4, num_return_sequences=4,
                               max_new_tokens=cap, do_sample=False, output_scores=True, return_dict_in_generate=True)
        assert_same_beams(ours, out, model.specials.pad)
        compared += 1
    assert compared >= 4


def test_each_steps_cross_attention_is_the_teacher_forced_output_attentions(marian):
    model, pair, library, tokenizer = marian
    for text in TEXTS[:3]:
        trace = greedy(model, pair, text)
        inputs = tokenizer([text], return_tensors="pt")
        decoder_inputs = torch.tensor([[model.specials.start, *trace.target_ids[:-1]]])
        with torch.no_grad():
            out = library(**inputs, decoder_input_ids=decoder_inputs, output_attentions=True)
        expected = torch.stack(out.cross_attentions, 1)[0].numpy()  # [L, heads, T, S]
        np.testing.assert_allclose(trace.attention.weights, expected, atol=1e-6)
        kinds = attention_kinds(model, trace)  # the three attentions of one pass, as the pages read them
        np.testing.assert_allclose(kinds[Kind.CROSS].weights, expected, atol=1e-6)
        np.testing.assert_allclose(kinds[Kind.ENCODER].weights, torch.stack(out.encoder_attentions, 1)[0].numpy(), atol=1e-6)
        np.testing.assert_allclose(kinds[Kind.DECODER].weights, torch.stack(out.decoder_attentions, 1)[0].numpy(), atol=1e-6)


def test_a_forced_translation_read_in_one_pass_is_the_one_fed_step_by_step(marian):
    model, pair, *_ = marian
    assert_one_pass_is_the_steps(model, pair, TEXTS[:3])


@pytest.mark.parametrize("head", [("cross", 1, 0), ("encoder", 0, 1), ("decoder", 1, 1)])
def test_a_switched_off_head_is_its_w_o_slice_zeroed(marian, head):
    """The project's definition: the head's output zeroed before the output projection — the same as zeroing the
    columns of W^O that read it, done here by hand on a copy of the library's model."""
    from models.analysis.head_removal import without_heads

    model, pair, library, tokenizer = marian
    kind, layer, h = head
    reference = copy.deepcopy(library)
    blocks = {"cross": reference.model.decoder.layers, "encoder": reference.model.encoder.layers,
              "decoder": reference.model.decoder.layers}[kind]
    attention = blocks[layer].encoder_attn if kind == "cross" else blocks[layer].self_attn
    with torch.no_grad():
        attention.out_proj.weight[:, h * attention.head_dim : (h + 1) * attention.head_dim] = 0
    off = without_heads(model, [head])
    text, target = TEXTS[0], "un chien court sur la plage"
    got = forced(off, pair, text, target)
    want = forced(HFTranslator(reference, tokenizer.unk_token_id), pair, text, target)
    np.testing.assert_allclose(got.token_logprobs, want.token_logprobs, atol=1e-5)
    np.testing.assert_allclose(got.attention.weights, want.attention.weights, atol=1e-6)
    whole = forced(model, pair, text, target)
    assert np.abs(whole.token_logprobs - got.token_logprobs).max() > 1e-4  # the head mattered: the test can fail
    assert not any(p.removed_heads for layers in model.attention_modules().values() for p in
                   (a.out_proj for a in layers))  # the shared model keeps every head


def test_a_reordered_cache_is_the_cache_computed_for_the_reordered_rows(marian):
    from models.decoding.greedy import encode_batch

    model, pair, *_ = marian
    sources = [pair.source.encode(t, 80) for t in TEXTS[:2]]
    prefix = torch.tensor([[5, 7, 9], [6, 8, 10]])  # three pieces written by each row

    def run(rows):
        memory = encode_batch(model, [sources[r] for r in rows])
        cache, prev = model.start(memory), torch.full((len(rows),), model.specials.start)
        with torch.no_grad():
            for t in range(3):
                _, cache = model.decode_step(prev, cache, memory)
                prev = prefix[rows, t]
        return memory, cache, prev

    memory, cache, prev = run([0, 1])
    swap = torch.tensor([1, 0])
    from models.network.contract import select_rows

    with torch.no_grad():
        moved = model.decode_step(prev[swap], model.reorder(cache, swap), select_rows(memory, swap))[0]
        fresh_memory, fresh_cache, fresh_prev = run([1, 0])
        fresh = model.decode_step(fresh_prev, fresh_cache, fresh_memory)[0]
    assert torch.allclose(moved.log_probs, fresh.log_probs, atol=1e-5)
    assert torch.allclose(moved.attention, fresh.attention, atol=1e-6)
    assert not torch.allclose(moved.log_probs[0], moved.log_probs[1])  # the rows differ: a no-op reorder would fail


def test_pieces_join_into_words_at_sentencepieces_marks_and_unknown_text_is_flagged(marian):
    model, pair, *_ = marian
    from models.analysis.heatmaps import source_word_weights

    trace = greedy(model, pair, "the little black dog 🐕")
    words, weights = source_word_weights(trace, trace.read(Reading(1, None)))  # the app's word view of the source
    assert list(words[:4]) == ["the", "little", "black", "dog"] and words[-1] == "</s>"
    assert len(word_groups(trace.source.pieces)) == len(words) and np.allclose(weights.sum(1), 1, atol=1e-5)
    encoded = trace.source
    assert any(encoded.unknown) and encoded.ids[-1] == model.specials.eos
    assert pair.source.encode("a dog runs on the beach", 4).truncated


def test_the_what_if_is_refused_with_its_reason(marian):
    from models.network.contract import Focus

    model = marian[0]
    memory = model.encode(torch.tensor([[5, 6, 0]]), torch.ones(1, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match="cannot be forced"):
        model.decode_step(torch.tensor([model.specials.start]), model.start(memory), memory,
                          Focus(0, (0,)))


def test_gradient_x_input_on_its_source_embedding_agrees_with_autograd(marian):
    """Captum reaches the wrapped model through the interface's ``source_embedding`` and ``own_step_log_probs``."""
    from models.analysis.attribution import attribution_matrix

    model, pair, *_ = marian
    trace = forced(model, pair, TEXTS[1], "le chat noir dort")
    src = torch.tensor([trace.source.ids])
    tgt_in = torch.tensor([[model.specials.start, *trace.target_ids[:-1]]])
    expected, embedding = [], model.source_embedding
    for t in range(len(trace.target_ids)):  # one backward pass per written piece, through the embedding's output
        emb = embedding(src).detach().requires_grad_()
        hook = embedding.register_forward_hook(lambda m, i, o: emb)
        logp = model(src, torch.ones_like(src, dtype=torch.bool), tgt_in).log_softmax(-1)[0, t, trace.target_ids[t]]
        hook.remove()
        (grad,) = torch.autograd.grad(logp, emb)
        expected.append((grad * emb).sum(-1).abs()[0].detach().numpy())
    expected = np.stack(expected)
    np.testing.assert_allclose(attribution_matrix(model, trace, GRADIENT_X_INPUT),
                               expected / expected.sum(1, keepdims=True), atol=1e-5)


def test_integrated_gradients_add_up_to_the_change_the_library_computes(marian):
    """Completeness (Sundararajan et al. 2017) on the trained tiny Marian: Σ IG over the source embeddings = log p of
    each written piece at the sentence − at the all-<pad> sentence, the two computed here by the library's own
    forward. This checks the baseline and the forward Captum is given; the tiny model's changes are tenths of a nat,
    so the discretisation itself is tested where they are nats (test_attribution, on the bundled models)."""
    from models.analysis import attribution

    model, pair, library, _ = marian
    trace = forced(model, pair, TEXTS[0], "un chien court sur la plage")
    src = torch.tensor([trace.source.ids])
    tgt_in = torch.tensor([[model.specials.start, *trace.target_ids[:-1]]])
    written = torch.tensor(trace.target_ids)

    def log_p(ids):  # [T]: the library's log-probability of each written piece
        with torch.no_grad():
            logits = library(input_ids=ids, attention_mask=torch.ones_like(ids), decoder_input_ids=tgt_in).logits
        return logits[0].log_softmax(-1).gather(1, written[:, None])[:, 0].numpy()

    change = log_p(src) - log_p(torch.full_like(src, model.specials.pad))  # [T]
    total = attribution.raw_attribution(model, trace, INTEGRATED_GRADIENTS).sum((1, 2)).numpy()
    assert np.abs(change).max() > 0.05  # the sentence matters to what is written
    assert np.abs(total - change).max() < 0.1 * np.abs(change).max()
    gap, measured = attribution.completeness(model, trace, attribution.IG_STEPS)
    np.testing.assert_allclose(measured, change, atol=1e-3)
    np.testing.assert_allclose(gap, np.abs(total - change), atol=1e-3)


LONG = " ".join(ENGLISH * 6)  # far more pieces than 16 positions


def test_a_model_with_few_positions_decodes_within_them(tmp_path):
    """A source, a greedy or beam translation and a forced translation are each cut to the model's positions: the
    library's position table has an end (Marian's sinusoids: max_position_embeddings rows)."""
    from transformers import MarianTokenizer

    from models.decoding.greedy import greedy_batch, translate_batch
    from models.storage.hub import load_model

    folder = tiny_marian(tmp_path / "short", positions=16)
    loaded = load_model(str(folder), device="cpu")
    model, pair = loaded.model, loaded.tokenizers
    assert model.max_positions == 16 and len(MarianTokenizer.from_pretrained(folder)(LONG).input_ids) > 16
    trace = greedy(model, pair, LONG)
    assert trace.source.truncated and len(trace.source.ids) == 16 and len(trace.target_ids) <= 15
    assert all(len(h.target_ids) <= 15 for h in beam_search(model, pair, LONG, 3).hypotheses)
    forced_trace = forced(model, pair, LONG, LONG)  # a forced translation longer than the positions
    assert len(forced_trace.target_ids) <= 16
    rows = greedy_batch(model, pair, [LONG, "a dog"], targets=[LONG, ""])
    assert all(len(r.target_ids) <= 16 for r in rows) and len(translate_batch(model, pair, [LONG, "a dog"])) == 2
