"""Decoder-only translators behind the one interface (models/network/hf/decoder_only.py, prompt.py): tiny Llama,
Qwen2 and Gemma2 chat models built offline (tests/llm_helpers.py) against the library's own ``generate`` and
outputs — the prompt their chat template renders, the sentence's columns found by offsets, greedy and beam search,
every attention of one pass, the rest of the prompt set apart, heads switched off under grouped-query attention,
the command's JSON, and the pages."""
import copy
import io
import json
import shutil
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from models import align, translate
from models.analysis.attribution import attribution_matrix
from models.analysis.contributions import Sentence, sentence_parts
from models.analysis.head_removal import without_heads
from models.analysis.recipes import applicable, of, why_not
from models.decoding.beam import beam_search
from models.decoding.every_attention import attention_kinds
from models.decoding.greedy import forced, greedy, greedy_batch, max_target_len, translate_batch
from models.network.hf.decoder_only import DecoderOnlyTranslator
from models.network.tokenization import PROMPT, InputError, word_groups
from models.nouns.attention_map import Kind
from models.nouns.matrix import ATTENTION, GRADIENT_X_INPUT, INTEGRATED_GRADIENTS, MATRICES, matrix_named
from models.storage.hub import CheckpointError, LoadPolicy, load_model

from .hf_helpers import ENGLISH, FRENCH, assert_one_pass_is_the_steps
from .llm_helpers import ENGLISH_FRENCH, tiny_llm
from .pages_helpers import APP, MODEL_PAGES, figures, page, run_page
from .test_arithmetic import Products
from .test_contributions import assert_adds_up

TEXTS = [*ENGLISH, "the man runs in the park", "a black dog"]
FAMILIES = ("qwen2", "llama", "gemma2")


@pytest.fixture(scope="module", params=FAMILIES)
def family(request, tmp_path_factory):
    """Each family's tiny model: the project's view of it, the library's model and tokenizer, and its folder."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = tiny_llm(tmp_path_factory.mktemp(request.param), request.param)
    library = AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
    return load_model(str(folder), device="cpu"), library, AutoTokenizer.from_pretrained(folder), folder


@pytest.fixture(scope="module")
def qwen(tmp_path_factory):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = tiny_llm(tmp_path_factory.mktemp("qwen2"), "qwen2")
    library = AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
    return load_model(str(folder), device="cpu"), library, AutoTokenizer.from_pretrained(folder), folder


def prompted(tokenizer, text: str):
    """The input ``generate`` is given: the rendered prompt, cut as a whole."""
    return tokenizer([ENGLISH_FRENCH.render(tokenizer, text)[0]], add_special_tokens=False, return_tensors="pt")


def test_the_sentences_tokens_are_found_in_the_prompt_by_offsets_and_the_rest_is_one_column(family):
    loaded, _, tokenizer, _ = family
    encoded = loaded.tokenizers.source.encode("a dog runs on the beach", 80)
    whole = prompted(tokenizer, "a dog runs on the beach").input_ids[0].tolist()
    assert list(encoded.ids) == whole[:-1] and loaded.model.specials.start == whole[-1]  # the start held back
    assert encoded.prompt == ENGLISH_FRENCH.render(tokenizer, "a dog runs on the beach")[0]
    sentence = [i for i, p in enumerate(encoded.pieces) if p != PROMPT]
    assert sentence == list(range(sentence[0], sentence[-1] + 1)) and encoded.pieces[0] == PROMPT
    assert tokenizer.decode([encoded.ids[i] for i in sentence]).strip() == "a dog runs on the beach"
    words = word_groups(encoded.pieces)
    assert words[0] == [i for i, p in enumerate(encoded.pieces) if p == PROMPT]  # one column, before and after
    assert ["".join(encoded.surfaces[i] for i in g) for g in words[1:]] == "a dog runs on the beach".split()
    assert loaded.languages == ("en", "fr") and loaded.variant == loaded.model.config.model_type


def test_greedy_is_generates_greedy_token_for_token(family):
    loaded, library, tokenizer, _ = family
    for text in TEXTS:
        trace = greedy(loaded.model, loaded.tokenizers, text)
        cap = max_target_len(loaded.model, loaded.tokenizers.source.encode(text, 80))
        inputs = prompted(tokenizer, text)
        out = library.generate(**inputs, do_sample=False, num_beams=1, max_new_tokens=cap)
        assert list(trace.target_ids) == out[0, inputs.input_ids.shape[1]:].tolist()
    assert greedy(loaded.model, loaded.tokenizers, ENGLISH[0]).translation == FRENCH[0]  # it learned to answer


def test_beam_4_is_generates_beam_search_hypothesis_for_hypothesis(family):
    from .hf_helpers import assert_same_beams

    loaded, library, tokenizer, _ = family
    for text in TEXTS[:4]:
        inputs = prompted(tokenizer, text)
        cap = max_target_len(loaded.model, loaded.tokenizers.source.encode(text, 80))
        out = library.generate(**inputs, num_beams=4, num_return_sequences=4, max_new_tokens=cap, do_sample=False,
                               output_scores=True, return_dict_in_generate=True)
        start = inputs.input_ids.shape[1] - 1  # from the start token on, which the helper skips
        assert_same_beams(beam_search(loaded.model, loaded.tokenizers, text, 4),
                          SimpleNamespace(sequences=out.sequences[:, start:], sequences_scores=out.sequences_scores),
                          tokenizer.pad_token_id, loaded.model.specials.eos)  # generate pads ended rows with it


def test_it_stops_at_any_of_its_generation_configs_stop_tokens_as_generate_does(qwen, tmp_path):
    from transformers import AutoModelForCausalLM

    loaded, _, tokenizer, folder = qwen
    text, eos = TEXTS[1], loaded.model.specials.eos
    stop = greedy(loaded.model, loaded.tokenizers, text).target_ids[1]  # a piece it writes, made a stop token
    shutil.copytree(folder, tmp_path / "stops")
    config = json.loads((tmp_path / "stops" / "generation_config.json").read_text())
    (tmp_path / "stops" / "generation_config.json").write_text(json.dumps({**config, "eos_token_id": [eos, stop]}))
    stopping = load_model(str(tmp_path / "stops"), device="cpu")
    assert stopping.model.specials.ends == (eos, stop)
    library = AutoModelForCausalLM.from_pretrained(tmp_path / "stops", attn_implementation="eager").eval()
    for text in TEXTS[:4]:
        trace = greedy(stopping.model, stopping.tokenizers, text)
        inputs = prompted(tokenizer, text)
        out = library.generate(**inputs, do_sample=False, num_beams=1, max_new_tokens=40)
        assert list(trace.target_ids) == out[0, inputs.input_ids.shape[1]:].tolist()
        assert all(h.target_ids[-1] in (eos, stop) for h in beam_search(stopping.model, stopping.tokenizers, text,
                                                                        3).hypotheses)
    assert translate_batch(stopping.model, stopping.tokenizers, [TEXTS[1]]) == [trace_of(stopping, TEXTS[1])]


def trace_of(loaded, text: str) -> str:
    """The translation greedy writes: its pieces before the first stop token."""
    return greedy(loaded.model, loaded.tokenizers, text).translation


def test_every_attention_is_the_librarys_one_pass_and_each_row_adds_up_to_one(family):
    loaded, library, tokenizer, _ = family
    trace = greedy(loaded.model, loaded.tokenizers, TEXTS[1])
    ids = torch.tensor([[*trace.source.ids, loaded.model.specials.start, *trace.target_ids[:-1]]])
    with torch.no_grad():
        out = library(input_ids=ids, output_attentions=True)
    every = torch.stack(out.attentions, 1)[0].numpy()  # [L, heads, S + T, S + T]
    S = len(trace.source.ids)
    np.testing.assert_allclose(trace.attention.weights, every[:, :, S:, :S], atol=1e-5)  # each step's own row
    kinds = attention_kinds(loaded.model, trace)
    np.testing.assert_allclose(kinds[Kind.ENCODER].weights, every[:, :, :S, :S], atol=1e-5)
    np.testing.assert_allclose(kinds[Kind.DECODER].weights, every[:, :, S:, S:], atol=1e-5)
    np.testing.assert_allclose(kinds[Kind.CROSS].weights.sum(-1) + kinds[Kind.DECODER].weights.sum(-1), 1, atol=1e-5)  # nothing renormalised
    assert kinds[Kind.DECODER].weights.sum(-1).min() > 0  # the translation so far is read too
    assert np.allclose(np.triu(kinds[Kind.ENCODER].weights[0, 0], 1), 0)  # the prompt reads itself causally


def test_a_forced_translation_read_in_one_pass_is_the_one_fed_step_by_step(family):
    assert_one_pass_is_the_steps(family[0].model, family[0].tokenizers, TEXTS[:3])


def test_a_batch_padded_between_prompt_and_translation_decodes_each_row_as_alone(qwen):
    loaded, *_ = qwen
    batch = greedy_batch(loaded.model, loaded.tokenizers, TEXTS)
    for text, trace in zip(TEXTS, batch):
        alone = greedy(loaded.model, loaded.tokenizers, text)
        assert trace.target_ids == alone.target_ids
        np.testing.assert_allclose(trace.token_logprobs, alone.token_logprobs, atol=1e-4)


@pytest.mark.parametrize("head", [("cross", 0, 1), ("cross", 1, 3)])
def test_a_switched_off_query_head_is_its_o_proj_slice_zeroed(qwen, head):
    loaded, library, tokenizer, _ = qwen
    _, layer, h = head
    reference = copy.deepcopy(library)
    attention = reference.model.layers[layer].self_attn
    d = attention.head_dim
    with torch.no_grad():
        attention.o_proj.weight[:, h * d : (h + 1) * d] = 0
    specials = loaded.model.specials
    text, target = TEXTS[0], FRENCH[0]
    got = forced(without_heads(loaded.model, [head]), loaded.tokenizers, text, target)
    want = forced(DecoderOnlyTranslator(reference, specials),
                  loaded.tokenizers, text, target)
    np.testing.assert_allclose(got.token_logprobs, want.token_logprobs, atol=1e-5)
    whole = forced(loaded.model, loaded.tokenizers, text, target)
    assert np.abs(whole.token_logprobs - got.token_logprobs).max() > 1e-4  # the head mattered: the test can fail


def test_attribution_explains_a_step_by_the_prompts_tokens_alone(qwen):
    loaded, *_ = qwen
    trace = greedy(loaded.model, loaded.tokenizers, TEXTS[0])
    shares = attribution_matrix(loaded.model, trace, GRADIENT_X_INPUT)
    assert shares.shape == (len(trace.target_ids), len(trace.source.ids)) and np.isfinite(shares).all()


def test_the_command_writes_what_generate_writes_and_its_json_sets_the_prompt_apart(family, capsys, monkeypatch):
    loaded, library, tokenizer, folder = family
    text = "two girls play in the park"
    monkeypatch.setattr("sys.stdin", io.StringIO(text + "\n"))
    assert translate.main(["--model", str(folder), "--src-lang", "en", "--tgt-lang", "fr"]) == 0
    inputs = prompted(tokenizer, text)
    out = library.generate(**inputs, do_sample=False, max_new_tokens=60)
    assert capsys.readouterr().out.strip() == tokenizer.decode(out[0, inputs.input_ids.shape[1]:],
                                                               skip_special_tokens=True)
    monkeypatch.setattr("sys.stdin", io.StringIO(text + "\n"))
    assert translate.main(["--model", str(folder), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["prompt"] == ENGLISH_FRENCH.render(tokenizer, text)[0]
    attention = np.array(found["cross_attention"])  # [L, heads, T, S] over the sentence's pieces
    assert attention.shape == (2, 4, len(found["target_pieces"]), len(found["source_pieces"]))
    assert "".join(found["source_pieces"]).replace("▁", " ").strip() == text
    prompt, written = np.array(found["prompt_share"]), np.array(found["written_share"])
    np.testing.assert_allclose(attention.sum(-1) + prompt + written, 1, atol=1e-4)
    assert prompt.min() > 0 and written.min() > 0


def test_an_instruction_of_ones_own_asks_the_model_and_one_without_the_sentence_is_refused(qwen, capsys,
                                                                                          monkeypatch):
    *_, folder = qwen
    monkeypatch.setattr("sys.stdin", io.StringIO("a dog\n"))
    assert translate.main(["--model", str(folder), "--json", "--tgt-lang", "de",
                           "--instruction", "Into {target}, please:\\n{sentence}"]) == 0
    assert "Into German, please:\na dog<|im_end|>" in json.loads(capsys.readouterr().out)["prompt"]
    monkeypatch.setattr("sys.stdin", io.StringIO("a dog\n"))
    assert translate.main(["--model", str(folder), "--instruction", "Translate."]) == 2
    assert "{sentence}" in capsys.readouterr().err
    with pytest.raises(CheckpointError, match="no language 'xx'"):
        load_model(str(folder), languages=("en", "xx"))


def test_the_url_asks_a_chat_model_with_an_instruction_of_ones_own_and_one_it_cannot_be_asked_with_is_said(qwen):
    *_, folder = qwen
    at = run_page(APP, text="a dog", model=str(folder), tgt_lang="de", instruction="Into {target}, please:\n{sentence}")
    assert not at.exception, [e.message for e in at.exception]
    (box,) = [t for t in at.sidebar.text_area if t.label == "Instruction"]
    assert box.value == "Into {target}, please:\n{sentence}" and at.query_params["instruction"] == box.value
    assert "Into German, please:\na dog<|im_end|>" in at.code[0].value  # the prompt the trace was read from
    at = run_page(APP, text="a dog", model=str(folder), instruction="Translate, please.")
    assert not at.exception, [e.message for e in at.exception]
    assert any("{sentence}" in w.value for w in at.warning) and "instruction" not in at.query_params
    assert ENGLISH_FRENCH.instruction.split("{source}")[0] in at.code[0].value  # the model's own


def test_a_sentence_longer_than_the_positions_leave_is_cut_and_said(tmp_path):
    folder = tiny_llm(tmp_path / "short", "llama", steps=0, positions=64)
    loaded = load_model(str(folder), device="cpu")
    long = " ".join(ENGLISH * 4)
    encoded = loaded.tokenizers.source.encode(long, 80)
    assert encoded.truncated and len(encoded.ids) + 1 <= loaded.model.max_positions
    trace = greedy(loaded.model, loaded.tokenizers, long)
    assert len(trace.source.ids) + len(trace.target_ids) <= 64  # prompt, start and translation fit the positions
    forced(loaded.model, loaded.tokenizers, long, long)  # a forced translation too: cut, not a crash


def test_a_chat_model_over_the_parameter_cap_is_refused_with_the_setting_that_admits_it(qwen):
    with pytest.raises(CheckpointError, match="ATLAS_MAX_PARAMETERS"):
        load_model(str(qwen[3]), policy=LoadPolicy(max_parameters=1000))


def test_a_chat_model_without_a_chat_template_is_refused_with_why(tmp_path):
    folder = tiny_llm(tmp_path / "plain", "qwen2", steps=0)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config.pop("chat_template", None)
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    (folder / "chat_template.jinja").unlink(missing_ok=True)
    with pytest.raises(CheckpointError, match="no chat template"):
        load_model(str(folder))


def test_the_translate_page_draws_each_family_with_the_rest_of_the_prompt_as_one_column(family):
    *_, folder = family
    at = run_page(APP, text="a dog runs on the beach", model=str(folder))
    assert not at.exception, [e.message for e in at.exception]
    assert at.text[0].value == FRENCH[0]
    drawn = json.dumps(figures(at)[0], ensure_ascii=False)
    assert PROMPT in drawn and PROMPT * 2 not in drawn  # the rest of the prompt: one column beside the sentence
    assert any("to the translation so far: a chat model reads both" in c.value for c in at.caption)


@pytest.mark.parametrize("name", MODEL_PAGES)
def test_every_other_page_draws_a_chat_model_or_says_why_not(qwen, name):
    *_, folder = qwen
    at = run_page(page(name), text="a dog runs on the beach", model=str(folder), left=str(folder))
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_what_the_attention_adds_is_read_over_the_prompt_and_the_rest_say_why_not(qwen, family):
    model, fitted = qwen[0].model, qwen[0].fitted
    assert tuple(m.name for m in applicable(model, fitted)) == (
        ATTENTION.name, "attention norm", "ALTI", "attention rollout", "gradient×input", "integrated gradients",
        "position floor")  # the floor: every loaded model's
    for matrix in ("ALTI+ rollout", "value zeroing"):
        assert "decoder-only model's one stack" in why_not(MATRICES[matrix], model, fitted)
    if family[0].variant == "gemma2":  # its attention's output is normalised before the residual sum
        assert "Gemma2's post-attention norm" in why_not(MATRICES["ALTI"], family[0].model, family[0].fitted)


def test_attention_rolls_out_through_the_one_stack_as_the_librarys_own_weights_multiply(family):
    loaded, library, *_ = family
    trace = greedy(loaded.model, loaded.tokenizers, TEXTS[1])
    S = len(trace.source.ids)
    ids = torch.tensor([[*trace.source.ids, loaded.model.specials.start, *trace.target_ids[:-1]]])
    with torch.no_grad():
        every = torch.stack(library(input_ids=ids, output_attentions=True).attentions, 1)[0].mean(1)  # [L, M, M]
    R, want = torch.eye(ids.shape[1], dtype=torch.float64), []
    for weights in every.double():
        R = (0.5 * weights + 0.5 * torch.eye(len(weights))) @ R  # Abnar & Zuidema, the residual half
        want.append(R[S:].numpy())  # the written tokens' rows
    want = np.stack(want)  # [L, T, S + T]
    found = of(matrix_named("attention rollout"), Sentence(loaded.model, trace, {}))
    np.testing.assert_allclose(found.prefix, want[..., S:].sum(-1), atol=1e-4)  # what they have written
    np.testing.assert_allclose(found.layers, want[..., :S] / want[..., :S].sum(-1, keepdims=True), atol=1e-4)


def test_its_parts_add_up_and_the_norm_is_a_share_of_all_a_row_reads(qwen):
    loaded, library, *_ = qwen
    model = loaded.model
    trace = greedy(model, loaded.tokenizers, TEXTS[0])
    parts = sentence_parts(model, trace)
    with torch.inference_mode():
        assert_adds_up(parts)  # residual + Σ_m α v W_O = the stream the post-attention norm reads
    S, T = len(trace.source.ids), len(trace.target_ids)
    assert parts.cross[0].weights.shape[-2:] == (T, S + T)  # the written tokens are read too
    norm = of(matrix_named("attention norm"), Sentence(model, trace, {})).heads.weights  # [L, heads, T, S]
    kinds = attention_kinds(model, trace)
    attention = library.model.layers[1].self_attn
    d, h = attention.head_dim, 3  # query head 3 reads key–value head 1 (two query heads a key–value head)
    w_o = attention.o_proj.weight[:, h * d : (h + 1) * d].detach().numpy()  # [d_model, d_k]
    values = parts.cross[1].values[0, h].numpy()  # [S + T, d_k]
    sizes = np.linalg.norm(values @ w_o.T, axis=-1)  # [S + T]
    np.testing.assert_allclose(values[:S], kinds[Kind.CROSS].values[1, h], atol=1e-5)
    every = parts.cross[1].weights[0, h].numpy() * sizes  # [T, S + T]
    np.testing.assert_allclose(norm[1, h], (every / every.sum(-1, keepdims=True))[:, :S], atol=1e-4)
    assert norm.sum(-1).max() < 1  # the rest went to the translation so far, as the weights' does
    alti = of(matrix_named("ALTI"), Sentence(model, trace, {}))
    np.testing.assert_allclose(alti.layers.sum(-1), 1, atol=1e-4)  # the prompt's part, the prefix's set aside
    assert ((alti.prefix > 0) & (alti.prefix < 1)).all()


def test_align_reads_every_head_of_a_chat_model_against_human_links_by_name(qwen, mirror, capsys):
    *_, folder = qwen
    assert align.main(["--model", str(folder), "--data", "gold:en-fr", "--reading", "all"]) in (0, None)
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {r["reading"] for r in rows} == {f"{layer}.{h}{shift}" for layer in (1, 2) for h in (1, 2, 3, 4, "mean")
                                            for shift in ("", ".shifted")}
    assert all(r["pairs"] == 3 and 0 <= r["aer"] <= 100 for r in rows)  # its AER means something with real weights


def test_bfloat16_weights_decode_and_explain_as_float32_within_its_precision(qwen, emulated):
    """On a CPU without bfloat16 units the prompt and a forced translation are read with float32 products."""
    loaded, *_, folder = qwen
    half = load_model(str(folder), device="cpu", policy=LoadPolicy(dtype="bfloat16"))
    assert next(half.model.parameters()).dtype == torch.bfloat16
    trace = greedy(loaded.model, loaded.tokenizers, TEXTS[0])
    with Products() as seen:
        again = forced(half.model, half.tokenizers, TEXTS[0], trace.target_ids)
    assert seen.dtypes == {torch.float32}  # every product of the one pass, the output layer's included
    assert again.attention.weights.dtype == np.float32
    np.testing.assert_allclose(again.attention.weights, trace.attention.weights, atol=0.05)
    assert np.isfinite(attribution_matrix(half.model, again, INTEGRATED_GRADIENTS)).all()


def test_a_sentence_holding_a_control_token_is_refused_and_padding_is_no_prompt_token(family):
    loaded, _, tokenizer, _ = family
    with pytest.raises(InputError, match="control tokens"):
        loaded.tokenizers.source.encode(f"a dog{tokenizer.eos_token} runs", 80)
    assert loaded.tokenizers.source.encode("a <td> dog", 80).prompt  # markup that is no control token is text
    encoded = loaded.tokenizers.source.encode("a dog runs on the beach", 80)
    assert loaded.model.specials.pad not in encoded.ids and loaded.model.specials.pad != loaded.model.specials.eos


def test_a_model_whose_pad_is_its_end_of_turn_pads_with_a_token_its_prompts_never_hold(tmp_path):
    folder = tiny_llm(tmp_path / "eot", "llama", steps=0)
    config = json.loads((folder / "config.json").read_text())
    config["pad_token_id"] = config["eos_token_id"]  # as a Llama 3 whose pad is unset and read as its <|eot_id|>
    (folder / "config.json").write_text(json.dumps(config))
    tokenizer_config = json.loads((folder / "tokenizer_config.json").read_text())
    tokenizer_config["pad_token"] = "<|eot_id|>"
    (folder / "tokenizer_config.json").write_text(json.dumps(tokenizer_config))
    loaded = load_model(str(folder), device="cpu")
    encoded = loaded.tokenizers.source.encode("a dog runs", 80)
    assert loaded.model.specials.pad not in encoded.ids
    trace = greedy_batch(loaded.model, loaded.tokenizers, ["a dog runs", "the black cat sleeps on the mat"])[0]
    assert trace.target_ids == greedy(loaded.model, loaded.tokenizers, "a dog runs").target_ids


def test_the_models_page_describes_a_chat_model_as_decoder_only_never_an_encoder_decoder(qwen):
    from models.storage.model_facts import model_facts

    loaded, *_, folder = qwen
    described = model_facts(loaded).description
    assert described.startswith("A qwen2 decoder-only model: 2 layers of 4 heads") and "encoder" not in described
    at = run_page(page("Models_and_results"), model=str(folder))
    assert not at.exception, [e.message for e in at.exception]
    said = " ".join(m.value for m in at.markdown).replace("\\", "")  # as read, not as escaped for markdown
    what = next(line for line in said.splitlines() if line.startswith("- **What:**"))
    assert "decoder-only model: 2 layers" in what and "encoder" not in what
