"""A generation config's repetition penalty and n-gram ban (models/decoding/penalties.py) as ``generate`` applies
them: greedy on the logits, beam on the log-probabilities, over a chat model's whole prompt too — checked token for
token against the library's own ``generate`` on tiny chat and Marian models whose generation configs set them."""
import json
import shutil

import numpy as np
import pytest
import torch

from models.decoding.beam import beam_search
from models.decoding.greedy import greedy, max_target_len, translate_batch
from models.decoding.penalties import banned_ngrams, ruled
from models.network.contract import GenerationRules
from models.storage.hub import load_model

from .hf_helpers import ENGLISH, tiny_marian
from .llm_helpers import ENGLISH_FRENCH, tiny_llm

TEXTS = [*ENGLISH[:4], "the dog the dog the dog", "a black dog runs"]
RULES = {"repetition_penalty": {"repetition_penalty": 1.3}, "no_repeat_ngram_size": {"no_repeat_ngram_size": 2}}


def with_generation(folder, tmp_path, name: str, **settings):
    """A copy of the model folder whose generation config also sets ``settings``."""
    copy = tmp_path / name
    shutil.copytree(folder, copy)
    config = json.loads((copy / "generation_config.json").read_text())
    (copy / "generation_config.json").write_text(json.dumps({**config, **settings}))
    return copy


@pytest.fixture(scope="module")
def chat(tmp_path_factory):
    return tiny_llm(tmp_path_factory.mktemp("qwen2"), "qwen2", steps=40)  # unsure enough to repeat itself


def prompted(tokenizer, text: str):
    return tokenizer([ENGLISH_FRENCH.render(tokenizer, text)[0]], add_special_tokens=False, return_tensors="pt")


@pytest.mark.parametrize("setting", list(RULES))
def test_a_chat_models_greedy_and_beam_apply_its_generation_rules_as_generate_does(chat, tmp_path, setting):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = with_generation(chat, tmp_path, setting, **RULES[setting])
    loaded, plain = load_model(str(folder), device="cpu"), load_model(str(chat), device="cpu")
    assert loaded.model.generation_rules.any and not plain.model.generation_rules.any
    library = AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    changed = 0
    for text in TEXTS:
        inputs, cap = prompted(tokenizer, text), max_target_len(loaded.model, loaded.tokenizers.source.encode(text, 80))
        out = library.generate(**inputs, do_sample=False, num_beams=1, max_new_tokens=cap)
        trace = greedy(loaded.model, loaded.tokenizers, text)
        assert list(trace.target_ids) == out[0, inputs.input_ids.shape[1]:].tolist()
        changed += trace.target_ids != greedy(plain.model, plain.tokenizers, text).target_ids
        beams = library.generate(**inputs, num_beams=3, num_return_sequences=3, max_new_tokens=cap, do_sample=False,
                                 output_scores=True, return_dict_in_generate=True)
        ours = beam_search(loaded.model, loaded.tokenizers, text, 3)
        eos = loaded.model.specials.eos  # generate pads a finished row with its stop tokens: read to the first
        theirs = [row[: row.index(eos) + 1] if eos in row else row
                  for row in beams.sequences[:, inputs.input_ids.shape[1]:].tolist()]
        assert [list(h.target_ids) for h in ours.hypotheses] == theirs
        scores = [ours.nodes[end].score / len(h.target_ids) for end, h in zip(ours.ends, ours.hypotheses)]
        np.testing.assert_allclose(scores, beams.sequences_scores.numpy(), atol=1e-4)  # ranked by the ruled scores
    assert changed  # the rule changed what the model writes somewhere, so the test reads it
    assert translate_batch(loaded.model, loaded.tokenizers, TEXTS) == [
        greedy(loaded.model, loaded.tokenizers, t).translation for t in TEXTS]  # a padded batch reads each row alone


def test_an_encoder_decoders_penalty_covers_what_it_wrote_not_the_source(tmp_path):
    from transformers import MarianMTModel, MarianTokenizer

    folder = with_generation(tiny_marian(tmp_path / "marian", steps=80), tmp_path, "penalised", repetition_penalty=1.3,
                             no_repeat_ngram_size=3)
    loaded, plain = load_model(str(folder), device="cpu"), load_model(str(tmp_path / "marian"), device="cpu")
    library = MarianMTModel.from_pretrained(folder, attn_implementation="eager").eval()
    tokenizer = MarianTokenizer.from_pretrained(folder)
    changed = 0
    for text in TEXTS:
        cap = max_target_len(loaded.model, loaded.tokenizers.source.encode(text, 80))
        out = library.generate(**tokenizer([text], return_tensors="pt"), do_sample=False, num_beams=1,
                               max_new_tokens=cap)  # its generation config's default is a beam of 4
        trace = greedy(loaded.model, loaded.tokenizers, text)
        assert list(trace.target_ids) == out[0, 1:].tolist()
        changed += trace.target_ids != greedy(plain.model, plain.tokenizers, text).target_ids
    assert changed


def test_the_penalty_divides_a_positive_score_multiplies_a_negative_and_leaves_unseen_ones():
    scores = torch.tensor([[2.0, -1.0, 3.0, 0.5]])
    found = ruled(scores, [[0, 1, 1]], GenerationRules(repetition_penalty=2.0))
    assert found.tolist() == [[1.0, -2.0, 3.0, 0.5]] and scores[0, 0] == 2.0  # the step's own scores kept


def test_an_ngram_ban_forbids_what_followed_the_last_ids_before():
    assert sorted(banned_ngrams([5, 6, 7, 5, 6], 3)) == [7]  # 5 6 was followed by 7
    assert banned_ngrams([5, 6, 7, 5], 2) == [6] and banned_ngrams([5], 3) == []
    assert sorted(banned_ngrams([4, 2, 4], 1)) == [2, 4, 4]  # n = 1: every id read so far
    found = ruled(torch.zeros(1, 8), [[5, 6, 7, 5, 6]], GenerationRules(no_repeat_ngram=3))
    assert found[0, 7] == float("-inf") and torch.isfinite(found[0, :7]).all()


#: Qwen2.5-Instruct's published generation config (sampling settings a greedy search leaves aside, its repetition
#: penalty), with its token ids the tiny model's own; each case varies the penalty or adds an n-gram ban.
QWEN25 = {"do_sample": True, "temperature": 0.7, "top_p": 0.8, "top_k": 20, "repetition_penalty": 1.05}
LONG = "the dog the dog the dog runs and runs and the cat sleeps on the mat while two men walk by the old house"


@pytest.fixture(scope="module")
def untrained_chat(tmp_path_factory):
    """A Qwen2 of random weights whose config, like Qwen2.5's, declares bfloat16 and pads its vocabulary far past
    its tokenizer's (Qwen2.5: 151,936 rows for 151,665 tokens), its scores spread (the final norm's weights ×30) so
    that a beam's candidates are not tied to float32's last bit: a search that applies a rule to other scores or
    another history than ``generate`` writes another token within a few steps, and nothing ends it early."""
    from transformers import AutoModelForCausalLM

    from . import llm_helpers

    plain = llm_helpers._config

    def config(family, tokenizer, positions):
        found = plain(family, tokenizer, positions)
        found.vocab_size, found.dtype = len(tokenizer) + 20_000, "bfloat16"
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(llm_helpers, "_config", config)
        folder = tiny_llm(tmp_path_factory.mktemp("qwen25"), "qwen2", steps=0)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
    with torch.no_grad():
        model.model.norm.weight.mul_(30)
    model.save_pretrained(folder)
    return folder


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("rules", [{}, {"repetition_penalty": 1.3}, {"no_repeat_ngram_size": 3}],
                         ids=["published", "penalty 1.3", "3-gram ban"])
def test_qwen25s_published_generation_config_decodes_as_generate_for_more_than_50_steps_at_either_dtype(
        untrained_chat, tmp_path, monkeypatch, dtype, rules):
    """Greedy and a beam of 3 equal ``generate``'s, token for token, when both run the weights at one dtype and with
    one attention kernel: the app at float32 by default (``ATLAS_DTYPE=bfloat16`` for the config's own), eager.
    (``from_pretrained``'s default, the config's bfloat16 with SDPA, against the app's float32 parts within tens
    of steps, at penalty 1.0 too: their scores differ by bfloat16's rounding, and near-ties fall the other way.)"""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = with_generation(untrained_chat, tmp_path, "published", **{**QWEN25, **rules})
    monkeypatch.setenv("ATLAS_DTYPE", dtype)
    loaded = load_model(str(folder), device="cpu")
    library = AutoModelForCausalLM.from_pretrained(folder, dtype=getattr(torch, dtype), attn_implementation="eager")
    library.eval()
    inputs = prompted(AutoTokenizer.from_pretrained(folder), LONG)
    trace = greedy(loaded.model, loaded.tokenizers, LONG)
    assert len(trace.target_ids) > 50 and loaded.model.generation_rules.any
    out = library.generate(**inputs, do_sample=False, num_beams=1, max_new_tokens=len(trace.target_ids))
    assert list(trace.target_ids) == out[0, inputs.input_ids.shape[1]:].tolist()
    beams = library.generate(**inputs, do_sample=False, num_beams=3, max_new_tokens=len(trace.target_ids))
    ours = beam_search(loaded.model, loaded.tokenizers, LONG, 3).hypotheses[0].target_ids
    eos = loaded.model.specials.eos
    theirs = beams[0, inputs.input_ids.shape[1]:].tolist()
    assert list(ours) == (theirs[: theirs.index(eos) + 1] if eos in theirs else theirs)


def test_a_penalty_of_1_05_is_applied_to_the_logits_where_generate_applies_it_not_to_the_log_probabilities(
        chat, tmp_path):
    """Qwen2.5's own setting (1.05) on a model unsure enough to write tokens again: greedy equals ``generate`` token
    for token on every sentence, and the same penalty applied to the log-probabilities (a processor of the
    library's own kind, its penalty off) writes another translation of some sentence, so the test tells the two
    apart."""
    from transformers import AutoModelForCausalLM, AutoTokenizer, LogitsProcessor, LogitsProcessorList

    class OnLogProbabilities(LogitsProcessor):
        def __call__(self, input_ids, scores):
            found = scores.log_softmax(-1)
            seen = found.gather(1, input_ids)
            return found.scatter(1, input_ids, torch.where(seen < 0, seen * 1.05, seen / 1.05))

    folder = with_generation(chat, tmp_path, "qwen25", **QWEN25)
    loaded = load_model(str(folder), device="cpu")
    assert loaded.model.generation_rules.repetition_penalty == 1.05
    library = AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
    tokenizer, parted, repeated = AutoTokenizer.from_pretrained(folder), 0, 0
    for text in TEXTS:
        inputs = prompted(tokenizer, text)
        written = list(greedy(loaded.model, loaded.tokenizers, text).target_ids)
        settings = dict(do_sample=False, num_beams=1, max_new_tokens=len(written))
        assert written == library.generate(**inputs, **settings)[0, inputs.input_ids.shape[1]:].tolist()
        other = library.generate(**inputs, **settings, repetition_penalty=1.0,
                                 logits_processor=LogitsProcessorList([OnLogProbabilities()]))
        parted += other[0, inputs.input_ids.shape[1]:].tolist() != written
        repeated += len(set(written)) < len(written)
    assert parted and repeated


def test_a_step_without_logits_is_refused_where_the_model_has_rules_never_ruled_on_its_log_probabilities():
    from models.decoding.greedy import _next
    from models.network.contract import Step

    log_probs = torch.log_softmax(torch.tensor([[2.0, 1.0, 0.5]]), -1)
    step = Step(log_probs, None, None, torch.zeros(1, 2))
    assert _next(step, None, None, GenerationRules()).tolist() == [0]  # no rules: the likeliest
    with pytest.raises(ValueError, match="logits"):
        _next(step, None, [[0]], GenerationRules(repetition_penalty=1.05))
