"""``python -m models.train --arch decoder-only`` (models/train/chat_translator.py) end to end on a tiny corpus: a
transformers ``LlamaForCausalLM`` with a byte-level tokenizer and a chat template of its own, saved in the family's
format, read back through the very path a Hub chat model takes — its greedy translation ``generate``'s — the pairs
laid out as its prompt, the loss on the translation alone, and a resumed run (tied embeddings and all) the same as
one left alone."""
import json

import pytest

from models import train
from models.decoding.greedy import greedy
from models.network.hf.decoder_only import DecoderOnlyTranslator
from models.storage.hub import load_model
from models.storage.pieces import tokenize_pairs
from models.train.chat_translator import CHAT_TEMPLATE

from .conftest import corpus_folder
from .helpers import assert_resumed_as_left_alone, two_examples

pytestmark = pytest.mark.usefixtures("few_examples")

SMALL = ["--arch", "decoder-only", "--d-model", "32", "--heads", "4", "--kv-heads", "2", "--layers", "2",
         "--ffn-dim", "64", "--vocab-size", "320", "--batch-size", "32", "--seed", "3", "--threads", "1",
         "--lr", "3e-3", "--warmup-steps", "10"]


def run(corpus, out, *extra):
    train.main(["--data", str(corpus), "--out", str(out), *SMALL, *extra])


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    corpus = corpus_folder(tmp_path_factory.mktemp("corpus"))
    out = tmp_path_factory.mktemp("run") / "decoder-only"
    with pytest.MonkeyPatch.context() as patch:
        two_examples(patch)
        run(corpus, out, "--epochs", "6", "--validate-every", "60", "--val-sentences", "10")  # points at 15, 30, 60
    return corpus, out


def test_it_is_saved_in_its_familys_format_with_a_chat_template_of_its_own(trained):
    _, out = trained
    config = json.loads((out / "config.json").read_text())
    assert config["model_type"] == "llama" and config["architectures"] == ["LlamaForCausalLM"]
    assert config["num_key_value_heads"] == 2 and config["tie_word_embeddings"]
    from safetensors import safe_open

    with safe_open(out / "model.safetensors", "pt") as weights:  # the tied output layer is the embedding, saved once
        assert "model.embed_tokens.weight" in weights.keys() and "lm_head.weight" not in weights.keys()
    assert (out / "tokenizer.json").is_file() and (out / "generation_config.json").is_file()
    from transformers import AutoTokenizer

    assert AutoTokenizer.from_pretrained(out).chat_template == CHAT_TEMPLATE
    record = json.loads((out / "training.json").read_text())
    assert record["architecture"] == "decoder-only"
    assert record["history"][-1]["train_loss"] < record["history"][0]["train_loss"] - 1  # it learns
    card = (out / "README.md").read_text()
    assert "LlamaForCausalLM" in card and "2 layers, d_model 32, 4 query heads over 2 key–value heads" in card


def test_it_loads_as_a_hub_chat_model_does_and_its_greedy_is_generates(trained):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    corpus, out = trained
    loaded = load_model(str(out), device="cpu")
    assert isinstance(loaded.model, DecoderOnlyTranslator) and loaded.variant == "decoder-only"
    assert loaded.origin.trained and loaded.variant == "decoder-only" and loaded.model.continues_prompt
    library = AutoModelForCausalLM.from_pretrained(out, attn_implementation="eager").eval()
    tokenizer = AutoTokenizer.from_pretrained(out)
    for text in ("a red dog sees a cat", "the big cat runs", "two small birds eat"):
        trace = greedy(loaded.model, loaded.tokenizers, text)
        rendered = loaded.tokenizers.source.encode(text, 80).prompt  # its chat template's, ending on the start
        prompt = tokenizer([rendered], add_special_tokens=False, return_tensors="pt").input_ids
        written = library.generate(prompt, do_sample=False, max_new_tokens=len(trace.target_ids))
        assert list(trace.target_ids) == written[0, prompt.shape[1]:].tolist()[: len(trace.target_ids)]


def test_its_training_pairs_are_its_prompts_and_its_answers(trained):
    _, out = trained
    tokenizers = load_model(str(out), device="cpu").tokenizers
    sentences, answers = ["a red dog sees a cat", "« Yes », he said."], ["un chien rouge", "« Oui », dit-il."]
    pairs = tokenize_pairs(tokenizers, sentences, answers, 64)
    for i, (sentence, answer) in enumerate(zip(sentences, answers)):
        source, target = pairs[i]
        assert source == list(tokenizers.source.encode(sentence, 80).ids)  # the prompt, its start held back
        assert target == tokenizers.target.ids(answer)


def test_a_resumed_run_with_tied_embeddings_continues_exactly(tiny_corpus, tmp_path, monkeypatch):
    args = ["--steps", "8", "--validate-every", "8", "--val-sentences", "4"]  # points at steps 2, 4 and 8
    assert_resumed_as_left_alone(lambda out, *extra: run(tiny_corpus, out, *args, *extra), tmp_path / "straight",
                                 tmp_path / "resumed", 4, monkeypatch)


def test_dropout_with_init_from_is_refused_for_a_decoder_only_model_and_nothing_is_written(trained, tmp_path):
    """Its rates are its family's config's own (attention_dropout, …): --dropout, which sets this project's
    models' one rate, says so in a sentence instead of being ignored — before its line writes anything."""
    corpus, out = trained
    with pytest.raises(SystemExit, match="decoder-only model keeps its own"):
        run(corpus, tmp_path / "again", "--steps", "1", "--init-from", str(out), "--dropout", "0.2")
    assert not (tmp_path / "again").exists()
