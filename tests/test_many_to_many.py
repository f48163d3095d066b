"""Many-to-many translators (M2M100, NLLB-200, mBART-50) behind the one interface: decoding with the target
language's tag forced first, against the library's own ``generate(forced_bos_token_id=…)`` token for token and
beam for beam, its attention against ``output_attentions``, and the languages a visitor picks. Tiny random models
of each family, built offline with tokenizers trained here."""
import copy
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import torch

from models.analysis.heatmaps import hard_alignments, word_heatmap
from models.analysis.attribution import attribution_matrix
from models.decoding.beam import beam_search
from models.decoding.every_attention import attention_kinds
from models.decoding.greedy import forced, greedy, max_target_len
from models.network.tokenization import is_marker, language_tag
from models.nouns.attention_map import Kind
from models.nouns.matrix import GRADIENT_X_INPUT, INTEGRATED_GRADIENTS
from models.storage.hub import CheckpointError, LoadPolicy, load_model

from .hf_helpers import CODES, ENGLISH, assert_one_pass_is_the_steps, assert_same_beams, tiny_many_to_many

FAMILIES = tuple(CODES)
TEXTS = [*ENGLISH[:4], "a dog", "the cat", "two girls play"]


@pytest.fixture(scope="module", params=FAMILIES)
def family(request, many_to_many):
    """(family, folder, the library's model, its tokenizer) of one tiny model."""
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    folder = many_to_many(request.param)
    library = AutoModelForSeq2SeqLM.from_pretrained(folder, attn_implementation="eager").eval()
    return request.param, folder, library, AutoTokenizer.from_pretrained(folder)


def library_vocab(folder) -> int:
    from transformers import AutoConfig

    return AutoConfig.from_pretrained(folder).vocab_size


def _loaded(family, target: int):
    name, folder, *_ = family
    return load_model(str(folder), languages=(CODES[name][0], CODES[name][target]))


def _generate(family, text: str, target: int, cap: int, **options):
    name, _, library, tokenizer = family
    tokenizer = copy.deepcopy(tokenizer)
    tokenizer.src_lang = CODES[name][0]
    inputs = tokenizer([text], return_tensors="pt")
    tag = tokenizer.convert_tokens_to_ids(language_tag(CODES[name][target])[1:-1]) if name != "m2m100" else \
        tokenizer.get_lang_id(CODES[name][target])
    return library.generate(**inputs, forced_bos_token_id=tag, do_sample=False, max_new_tokens=cap, **options)


@pytest.mark.parametrize("target", [1, 2])  # French, German
def test_greedy_is_generates_with_the_target_language_forced(family, target):
    loaded = _loaded(family, target)
    ended = 0
    for text in TEXTS:
        trace = greedy(loaded.model, loaded.tokenizers, text)
        cap = max_target_len(loaded.model, trace.source)
        expected = _generate(family, text, target, cap)[0].tolist()[1:]  # no decoder start
        ours = list(trace.target_ids)
        if ours[-1] == loaded.model.specials.eos:
            ended += 1
            assert ours == expected
        else:  # at the cap generate forces nothing here, so the two still agree piece for piece
            assert ours == expected[: len(ours)]
        assert trace.target_pieces[0] == language_tag(CODES[family[0]][target])
        assert trace.token_logprobs[0] == 0.0 and trace.top_k[0][0] == (trace.target_pieces[0], 1.0)
    assert ended


def test_beam_4_is_generates_beam_search_with_the_target_language_forced(family):
    loaded = _loaded(family, 1)
    compared = 0
    for text in TEXTS:
        ours = beam_search(loaded.model, loaded.tokenizers, text, 4)
        cap = max_target_len(loaded.model, ours.hypotheses[0].source)
        if any(len(h.target_ids) == cap for h in ours.hypotheses):
            continue
        out = _generate(family, text, 1, cap, num_beams=4, num_return_sequences=4, output_scores=True,
                        return_dict_in_generate=True)
        assert_same_beams(ours, out, loaded.model.specials.pad)
        compared += 1
    assert compared >= 2


def test_each_steps_attention_is_the_teacher_forced_output_attentions(family):
    library = family[2]
    loaded = _loaded(family, 2)
    for text in TEXTS[:3]:
        trace = greedy(loaded.model, loaded.tokenizers, text)
        decoder_inputs = torch.tensor([[loaded.model.specials.start, *trace.target_ids[:-1]]])
        with torch.no_grad():
            out = library(input_ids=torch.tensor([trace.source.ids]), decoder_input_ids=decoder_inputs,
                          output_attentions=True)
        expected = torch.stack(out.cross_attentions, 1)[0].numpy()  # [L, heads, T, S]
        np.testing.assert_allclose(trace.attention.weights, expected, atol=1e-6)
        kinds = attention_kinds(loaded.model, trace)
        np.testing.assert_allclose(kinds[Kind.DECODER].weights, torch.stack(out.decoder_attentions, 1)[0].numpy(), atol=1e-6)


def test_a_forced_translation_read_in_one_pass_is_the_one_fed_step_by_step(family):
    loaded = _loaded(family, 1)  # the tag forced first in both
    assert_one_pass_is_the_steps(loaded.model, loaded.tokenizers, TEXTS[:3])


@pytest.mark.parametrize("pair", [(0, 1), (2, 0)])
def test_both_sides_are_laid_out_as_the_tokenizers_own_src_lang_and_tgt_lang_lay_them(family, pair):
    name, folder, _, tokenizer = family
    source, target = CODES[name][pair[0]], CODES[name][pair[1]]
    loaded = load_model(str(folder), languages=(source, target))
    own = copy.deepcopy(tokenizer)  # the library's own layout, the tokenizer switched to the pair
    own.src_lang, own.tgt_lang = source, target
    for text in TEXTS:
        encoded = loaded.tokenizers.source.encode(text, 80)
        assert list(encoded.ids) == own(text)["input_ids"]
        assert encoded.pieces[0] == language_tag(source) and is_marker(encoded.pieces[0])
        assert [*loaded.tokenizers.target.ids(text), own.eos_token_id] == own(text_target=text)["input_ids"]
    assert tokenizer.src_lang == CODES[name][0]  # the shared tokenizer was never switched
    assert max(loaded.pairs.tags.values()) < loaded.tokenizers.target.vocab_size <= library_vocab(folder)


def test_tags_are_no_words_of_a_heatmap_or_of_its_links(family):
    loaded = _loaded(family, 1)
    trace = forced(loaded.model, loaded.tokenizers, "a dog runs", "un chien court")
    view = word_heatmap(trace, trace.read(loaded.reading))
    assert view.columns[0] == language_tag(CODES[family[0]][0]) and view.rows[0] == trace.target_pieces[0]
    pairs = hard_alignments(view)
    assert {s for s, _ in pairs} <= {0, 1, 2} and {t for _, t in pairs} <= {0, 1, 2}  # three words a side
    assert len(pairs) == 3
    assert loaded.tokenizers.target.decode(trace.target_ids) == "un chien court"


def test_one_shared_model_serves_every_pair_at_once(family):
    """Pairs set from one loaded model share its weights and leave its tokenizer as it was, even when sentences
    of different pairs are encoded at the same time."""
    name = family[0]
    base = _loaded(family, 1)
    german = base.speaking(CODES[name][2], CODES[name][0])
    assert german.model.hf is base.model.hf and german.languages == (CODES[name][2], CODES[name][0])
    assert base.pairs.tokenizer.src_lang == CODES[name][0]

    def first(loaded):
        return [loaded.tokenizers.source.encode(t, 80).ids[0] for t in TEXTS * 20]

    with ThreadPoolExecutor(4) as pool:
        a, b = pool.map(first, [base, german])
    assert set(a) == {base.pairs.tags[CODES[name][0]]} and set(b) == {base.pairs.tags[CODES[name][2]]}


def test_heads_switched_off_and_attribution_work_on_it(family):
    loaded = _loaded(family, 1)
    trace = greedy(loaded.model, loaded.tokenizers, "a dog runs")
    weights = attribution_matrix(loaded.model, trace, GRADIENT_X_INPUT)
    assert weights.shape == (len(trace.target_ids), len(trace.source.ids)) and np.isfinite(weights).all()
    quiet = copy.deepcopy(loaded.model)
    quiet.switch_off([("cross", 0, 0)])
    changed = forced(quiet, loaded.tokenizers, "a dog runs", trace.target_ids)
    assert changed.target_pieces[0] == trace.target_pieces[0] and changed.token_logprobs[0] == 0.0  # still forced
    T = len(trace.target_ids)  # a trace cut at the length cap is forced with an EOS more
    assert not np.allclose(changed.token_logprobs[1:T], trace.token_logprobs[1:], atol=1e-4)


def test_a_code_the_model_does_not_know_is_refused_with_the_close_matches(family):
    name, folder, *_ = family
    wrong = {"m2m100": "fre", "nllb": "fra_latn", "mbart50": "fr_FR"}[name]
    with pytest.raises(CheckpointError) as e:
        load_model(str(folder), languages=(CODES[name][0], wrong))
    assert f"no language {wrong!r}" in str(e.value) and CODES[name][1] in str(e.value)


def test_the_command_line_translates_into_the_language_asked_as_generate_does(family, capsys, monkeypatch):
    import io
    import json

    from models import translate

    name, folder, *_ = family
    for target in (1, 2):
        monkeypatch.setattr("sys.stdin", io.StringIO("a dog runs on the beach\n"))
        assert translate.main(["--model", str(folder), "--src-lang", CODES[name][0], "--tgt-lang",
                               CODES[name][target]]) == 0
        loaded = _loaded(family, target)
        ids = _generate(family, "a dog runs on the beach", target, 40)[0].tolist()
        assert capsys.readouterr().out.strip() == loaded.tokenizers.target.decode(ids)
    monkeypatch.setattr("sys.stdin", io.StringIO("a dog runs\n"))
    assert translate.main(["--model", str(folder), "--tgt-lang", CODES[name][2], "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    L, heads = _loaded(family, 2).model.attention_shape
    assert np.array(found["cross_attention"]).shape == (L, heads, len(found["target_pieces"]),
                                                        len(found["source_pieces"]))
    assert found["target_pieces"][0] == language_tag(CODES[name][2])


def test_bfloat16_weights_decode_and_explain_as_float32_within_its_precision(family):
    """A model loaded in bfloat16 (``ATLAS_DTYPE``) decodes, draws and attributes like its float32 self: the arrays
    the pages read are float32, and the same translation's attention differs by bfloat16's rounding only."""
    name, folder, *_ = family
    full = _loaded(family, 1)
    half = load_model(str(folder), policy=LoadPolicy(dtype="bfloat16"), languages=(CODES[name][0], CODES[name][1]))
    assert next(half.model.parameters()).dtype == torch.bfloat16
    trace = greedy(full.model, full.tokenizers, "a dog runs on the beach")
    again = forced(half.model, half.tokenizers, "a dog runs on the beach", trace.target_ids)
    assert again.attention.weights.dtype == np.float32
    T = len(trace.target_ids)
    np.testing.assert_allclose(again.attention.weights[:, :, :T], trace.attention.weights, atol=0.05)
    assert np.isfinite(attribution_matrix(half.model, again, INTEGRATED_GRADIENTS)).all()


def test_an_nllb_tokenizer_that_puts_its_tag_last_is_refused(tmp_path):
    """NLLB's ``legacy_behaviour`` lays a sentence out as pieces, EOS, tag: refused with why, not misread."""
    from transformers import AutoTokenizer

    folder = tiny_many_to_many(tmp_path / "nllb", "nllb")
    legacy = AutoTokenizer.from_pretrained(folder, legacy_behaviour=True)
    assert legacy("a dog")["input_ids"][-1] == legacy.convert_tokens_to_ids("eng_Latn")
    legacy.save_pretrained(folder)
    with pytest.raises(CheckpointError, match="legacy_behaviour puts the tag last"):
        load_model(str(folder))
