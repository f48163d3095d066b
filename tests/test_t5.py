"""A T5 translator behind the one interface (models/network/hf/layouts.py's T5 layout): its task prefix read as
markers, never as words; greedy and beam search against the library's own ``generate``; each step's attention
against ``output_attentions``; a head switched off against W^O's columns zeroed by hand; the sub-layers' parts adding
up; ``models.translate``'s JSON with the prefix set apart; the pages. A tiny T5 built offline (tests/hf_helpers.py)."""
import copy
import json

import numpy as np
import pytest
import torch

from models import translate
from models.analysis.attribution import attribution_matrix
from models.analysis.contributions import sentence_parts
from models.analysis.head_removal import without_heads
from models.decoding.beam import beam_search
from models.decoding.every_attention import attention_kinds
from models.decoding.greedy import forced, greedy, max_target_len
from models.network.hf.translator import HFTranslator
from models.network.tokenization import PROMPT, is_marker, piece_groups, word_groups
from models.nouns.attention_map import Kind
from models.nouns.matrix import INTEGRATED_GRADIENTS
from models.storage.hub import CheckpointError, LoadPolicy, load_model

from .hf_helpers import ENGLISH, T5_PREFIX, assert_one_pass_is_the_steps, assert_same_beams, tiny_t5
from .pages_helpers import APP, MODEL_PAGES, figures, page, run_page
from .test_contributions import assert_adds_up

TEXTS = [*ENGLISH, "two girls", "a dog", "the cat", "a woman reads on the beach"]


#: MADLAD-400's layout: no task in its config, a tag of the target language in front of the source.
MADLAD = {"tasks": {}, "prefix": "<2fr> ", "tags": ("<2en>", "<2fr>", "<2de>")}


def built(tmp_path_factory, layout: str):
    from transformers import AutoTokenizer, T5ForConditionalGeneration

    folder = tiny_t5(tmp_path_factory.mktemp(layout), steps=150, **(MADLAD if layout == "madlad" else {}))
    library = T5ForConditionalGeneration.from_pretrained(folder, attn_implementation="eager").eval()
    return load_model(str(folder)), library, AutoTokenizer.from_pretrained(folder), folder


@pytest.fixture(scope="module")
def t5(tmp_path_factory):
    return built(tmp_path_factory, "t5")


@pytest.fixture(scope="module")
def madlad(tmp_path_factory):
    return built(tmp_path_factory, "madlad")


@pytest.fixture(params=["t5", "madlad"])
def layout(request):
    """Each layout: t5-small's task prefix, MADLAD-400's target tag."""
    return request.getfixturevalue(request.param)


def prompted(tokenizer, text: str, prefix: str = T5_PREFIX):
    """The input ``generate``'s callers give T5: the task prefix (or MADLAD's tag) and the sentence, cut together."""
    return tokenizer([prefix + text], return_tensors="pt")


def prefix_of(loaded) -> str:
    return loaded.tokenizers.source.prefix


def test_the_task_prefix_is_read_as_the_model_reads_it_and_drawn_as_the_rest_of_the_prompt(t5):
    loaded, _, tokenizer, _ = t5
    assert loaded.languages == ("en", "fr") and loaded.variant == "t5" and loaded.model.max_positions is None
    assert loaded.model.attention_shapes == {"cross": (2, 2), "encoder": (2, 2), "decoder": (2, 2)}
    encoded = loaded.tokenizers.source.encode("a dog runs", 80)
    assert list(encoded.ids) == prompted(tokenizer, "a dog runs").input_ids[0].tolist()
    n = encoded.pieces.count(PROMPT)
    assert n > 3 and set(encoded.pieces[:n]) == {PROMPT} and not any(map(is_marker, encoded.pieces[n:-1]))
    assert encoded.prompt == T5_PREFIX + "a dog runs"
    groups = word_groups(encoded.pieces)
    assert groups[0] == list(range(n)) and len(piece_groups(encoded.pieces)) == len(encoded.pieces) - n + 1
    words = [g for g in groups if not is_marker(encoded.pieces[g[0]])]
    assert ["".join(encoded.pieces[i] for i in g).lstrip("▁") for g in words] == ["a", "dog", "runs"]


def test_greedy_is_generates_greedy_token_for_token_but_at_the_length_cap(layout):
    loaded, library, tokenizer, _ = layout
    ended = capped = 0
    for text in TEXTS:
        trace = greedy(loaded.model, loaded.tokenizers, text)
        cap = max_target_len(loaded.model, loaded.tokenizers.source.encode(text, 80))
        expected = library.generate(**prompted(tokenizer, text, prefix_of(loaded)), do_sample=False, num_beams=1,
                                    max_new_tokens=cap)[0].tolist()[1:]  # no start
        ours = list(trace.target_ids)
        if ours[-1] == loaded.model.specials.eos:
            ended += 1
            assert ours == expected
        else:  # T5 forces no </s> at the cap: both stop where they are
            capped += 1
            assert ours == expected[:len(ours)]
        assert trace.translation == tokenizer.decode(ours, skip_special_tokens=True)
    assert ended


def test_beam_4_is_generates_beam_search_hypothesis_for_hypothesis(layout):
    loaded, library, tokenizer, _ = layout
    compared = 0
    for text in TEXTS:
        cap = max_target_len(loaded.model, loaded.tokenizers.source.encode(text, 80))
        ours = beam_search(loaded.model, loaded.tokenizers, text, 4)
        if any(len(h.target_ids) == cap for h in ours.hypotheses):
            continue
        out = library.generate(**prompted(tokenizer, text, prefix_of(loaded)), num_beams=4, num_return_sequences=4,
                               max_new_tokens=cap, do_sample=False, output_scores=True, return_dict_in_generate=True)
        assert_same_beams(ours, out, loaded.model.specials.pad, loaded.model.specials.eos)
        compared += 1
    assert compared >= 4


def test_each_steps_attention_is_the_teacher_forced_output_attentions(t5):
    loaded, library, tokenizer, _ = t5
    for text in TEXTS[:3]:
        trace = greedy(loaded.model, loaded.tokenizers, text)
        decoder_inputs = torch.tensor([[loaded.model.specials.start, *trace.target_ids[:-1]]])
        with torch.no_grad():
            out = library(**prompted(tokenizer, text), decoder_input_ids=decoder_inputs, output_attentions=True)
        expected = torch.stack(out.cross_attentions, 1)[0].numpy()  # [L, heads, T, S]
        np.testing.assert_allclose(trace.attention.weights, expected, atol=1e-6)
        kinds = attention_kinds(loaded.model, trace)
        np.testing.assert_allclose(kinds[Kind.ENCODER].weights, torch.stack(out.encoder_attentions, 1)[0].numpy(), atol=1e-6)
        np.testing.assert_allclose(kinds[Kind.DECODER].weights, torch.stack(out.decoder_attentions, 1)[0].numpy(), atol=1e-6)


def test_a_forced_translation_read_in_one_pass_is_the_one_fed_step_by_step(layout):
    assert_one_pass_is_the_steps(layout[0].model, layout[0].tokenizers, TEXTS[:3])


@pytest.mark.parametrize("head", [("cross", 1, 0), ("encoder", 0, 1), ("decoder", 1, 1)])
def test_a_switched_off_head_is_its_w_o_slice_zeroed(t5, head):
    loaded, library, tokenizer, _ = t5
    kind, layer, h = head
    reference = copy.deepcopy(library)
    stack = reference.encoder if kind == "encoder" else reference.decoder
    block = stack.block[layer].layer[1 if kind == "cross" else 0]
    attention = block.EncDecAttention if kind == "cross" else block.SelfAttention
    d = attention.key_value_proj_dim
    with torch.no_grad():
        attention.o.weight[:, h * d : (h + 1) * d] = 0
    text, target = TEXTS[0], "un chien court sur la plage"
    got = forced(without_heads(loaded.model, [head]), loaded.tokenizers, text, target)
    want = forced(HFTranslator(reference, tokenizer.unk_token_id), loaded.tokenizers, text, target)
    np.testing.assert_allclose(got.token_logprobs, want.token_logprobs, atol=1e-5)
    whole = forced(loaded.model, loaded.tokenizers, text, target)
    assert np.abs(whole.token_logprobs - got.token_logprobs).max() > 1e-4  # the head mattered: the test can fail


def test_its_sub_layers_parts_add_up_to_each_layers_output(t5):
    loaded, *_ = t5
    trace = greedy(loaded.model, loaded.tokenizers, "a dog runs on the beach")
    parts = sentence_parts(loaded.model, trace)
    assert all(s.norm is None for s in parts.cross)  # pre-norm
    with torch.inference_mode():
        assert_adds_up(parts)
    np.testing.assert_allclose(parts.cross[0].weights[0].numpy(), trace.attention.weights[0], atol=1e-5)


def test_the_translate_command_writes_what_generate_writes_with_the_prefix_set_apart(t5, capsys, monkeypatch):
    loaded, library, tokenizer, folder = t5
    text = "a man reads a book"
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(text + "\n"))
    assert translate.main(["--model", str(folder)]) == 0
    written = capsys.readouterr().out.strip()
    cap = max_target_len(loaded.model, loaded.tokenizers.source.encode(text, 80))
    expected = library.generate(**prompted(tokenizer, text), do_sample=False, num_beams=1, max_new_tokens=cap)
    assert written == tokenizer.decode(expected[0], skip_special_tokens=True)
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(text + "\n"))
    translate.main(["--model", str(folder), "--json"])
    found = json.loads(capsys.readouterr().out)
    encoded = loaded.tokenizers.source.encode(text, 80)
    assert found["prompt"] == T5_PREFIX + text
    assert found["source_pieces"] == [p for p in encoded.pieces if p != PROMPT]
    attention, share = np.array(found["cross_attention"]), np.array(found["prompt_share"])  # [L, heads, T, S], …
    assert attention.shape == (2, 2, len(found["target_pieces"]), len(found["source_pieces"]))
    np.testing.assert_allclose(attention.sum(-1) + share, 1, atol=1e-4)
    np.testing.assert_allclose(found["written_share"], 0, atol=1e-4)  # cross-attention reads only the source
    assert share.max() > 0  # the prefix is read, and set apart


def test_madlads_target_tag_is_read_before_the_source_and_set_by_the_target_picked(madlad):
    loaded, _, tokenizer, _ = madlad
    assert loaded.languages == ("en", "fr") and set(loaded.codes) == {"en", "fr", "de"}
    german = loaded.speaking("en", "de")
    encoded = german.tokenizers.source.encode("a dog runs", 80)
    assert list(encoded.ids) == prompted(tokenizer, "a dog runs", "<2de> ").input_ids[0].tolist()
    assert encoded.pieces[0] == PROMPT and encoded.prompt.startswith("<2de> ")
    assert german.model is loaded.model  # the weights shared
    with pytest.raises(ValueError, match="xx"):
        loaded.speaking("en", "xx")


@pytest.mark.parametrize("name", ["", "Human_links"])
def test_pages_pick_madlads_target_language(madlad, name):
    *_, folder = madlad
    at = run_page(page(name) if name else APP, model=str(folder), text="a dog runs", tgt_lang="de")
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_bfloat16_weights_decode_and_explain_as_float32_within_its_precision(t5):
    loaded, *_, folder = t5
    half = load_model(str(folder), policy=LoadPolicy(dtype="bfloat16"))
    assert next(half.model.parameters()).dtype == torch.bfloat16
    trace = greedy(loaded.model, loaded.tokenizers, "a dog runs on the beach")
    again = forced(half.model, half.tokenizers, "a dog runs on the beach", trace.target_ids)
    assert again.attention.weights.dtype == np.float32
    np.testing.assert_allclose(again.attention.weights, trace.attention.weights, atol=0.05)
    assert np.isfinite(attribution_matrix(half.model, again, INTEGRATED_GRADIENTS)).all()


def test_a_t5_model_without_a_translation_task_is_refused_with_why(tmp_path):
    folder = tiny_t5(tmp_path / "summarise", tasks={"summarization": {"prefix": "summarize: "}})
    with pytest.raises(CheckpointError, match="names no translation task"):
        load_model(str(folder))


@pytest.mark.parametrize("name", ["", *MODEL_PAGES])
def test_every_page_draws_a_t5_model(t5, name):
    *_, folder = t5
    at = run_page(page(name) if name else APP, model=str(folder), left=str(folder), text="a dog runs on the beach")
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    if not name:
        assert figures(at)


def test_t5s_other_tasks_are_offered_by_the_pickers_each_asked_by_its_own_prefix(tmp_path):
    tasks = {"translation_en_to_fr": {"prefix": T5_PREFIX},
             "translation_en_to_de": {"prefix": "translate English to German: "}}
    loaded = load_model(str(tiny_t5(tmp_path / "tasks", tasks=tasks)), device="cpu")
    assert loaded.languages == ("en", "fr") and set(loaded.codes) == {"en", "fr", "de"}
    german = loaded.speaking("en", "de")
    assert german.tokenizers.source.encode("a dog", 80).prompt == "translate English to German: a dog"
    assert german.model is loaded.model  # the weights shared
    with pytest.raises(ValueError, match="translates English→(French|German), English→(German|French) only"):
        loaded.speaking("fr", "de")
    at = run_page(APP, model=str(tmp_path / "tasks"), text="a dog runs", tgt_lang="de")
    assert not at.exception, [e.message for e in at.exception]
    assert next(s for s in at.sidebar.selectbox if s.label == "Into").value == "de"
