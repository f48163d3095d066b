"""assets/: the bundled checkpoints (three RNNs, a Transformer, that Transformer trained to align, and a decoder-only
translator in transformers' own Llama format) and the curated examples."""
import json
from dataclasses import replace

import pytest

from models.decoding.greedy import greedy, translate_batch
from models.storage.examples import load_examples
from models.storage.hub import BUNDLED_DIR, check_config, load_model
from models.storage.records.evaluation import read_evaluation
from models.storage.records.training import read_training

RNNS = ("additive", "dot", "none")
NAMES = (*RNNS, "transformer", "transformer-align", "decoder-only")


@pytest.fixture(scope="module")
def bundled():
    return {name: load_model(name, device="cpu") for name in NAMES}


def test_three_rnns_differ_only_in_the_score(bundled):
    """Read as the loader reads them (an older config.json omits ``architecture``: an RNN)."""
    configs = {n: check_config(json.loads((bundled[n].path / "config.json").read_text())) for n in RNNS}
    assert {c.score for c in configs.values()} == set(RNNS)
    assert len({replace(c, score="none") for c in configs.values()}) == 1


def test_the_model_trained_to_align_is_the_transformer_continued_with_a_guided_head(bundled):
    aligned, emergent = bundled["transformer-align"], bundled["transformer"]
    assert aligned.model.config == emergent.model.config
    record = json.loads((aligned.path / "training.json").read_text())
    assert record["started_from"]["checkpoint"] == "assets/checkpoints/en-fr-transformer"
    assert record["guided_alignment"]["reading"] == aligned.supervised.key == aligned.reading.key  # shown first
    assert emergent.supervised is None


def test_the_transformer_is_about_the_rnns_size(bundled):
    assert bundled["transformer"].variant == "transformer"
    sizes = {n: sum(p.numel() for p in bundled[n].model.parameters()) for n in ("transformer", "additive")}
    assert 0.5 < sizes["transformer"] / sizes["additive"] < 1.5


def test_models_trained_on_the_same_data_share_the_tokenizers(bundled):
    """Tokenizers are trained on the corpora; a model retrained on other corpora has its own until all are."""
    by_data: dict[str, list] = {}
    for m in bundled.values():
        by_data.setdefault(read_training(m.path).data, []).append(m)
    for models in by_data.values():
        for name in ("source_tokenizer.json", "target_tokenizer.json", "tokenizer.json"):  # ours, or a chat model's
            assert len({(m.path / name).read_bytes() for m in models if (m.path / name).exists()}) <= 1


@pytest.mark.parametrize("name", NAMES)
def test_checkpoint_is_small_and_carded(name):
    path = BUNDLED_DIR / f"en-fr-{name}"
    assert (path / "model.safetensors").stat().st_size <= 25 * 2**20
    card = (path / "README.md").read_text()
    assert card.startswith("---\n") and "model-index" in card and "python -m models.train" in card
    tests = {(t.data, t.split): t.sentences for t in read_evaluation(path).test_sets}
    assert tests[("multi30k", "test_2016_flickr")] == 1000
    trained_on = {d.name for d in read_training(path).data}
    if "tatoeba-en-fr" in trained_on:
        assert tests[("tatoeba-en-fr", "test")] == 1000


@pytest.mark.parametrize("name", NAMES)
def test_translates_every_curated_example(bundled, name):
    examples = [e.text for e in load_examples()]
    outputs = translate_batch(bundled[name].model, bundled[name].tokenizers, examples)
    assert all(o.strip() for o in outputs)


def test_attention_models_align_adjective_noun_inversion(bundled):
    """'a black dog' → 'un chien noir': 'noir' looks at 'black', 'chien' at 'dog' (the Transformer: its default
    reading, chosen on the Hansards trial set)."""
    for name in ("additive", "dot", "transformer", "transformer-align"):
        trace = greedy(bundled[name].model, bundled[name].tokenizers, "A black dog is running on the beach.")
        pieces = [p.strip("▁") for p in trace.target_pieces]
        assert "noir" in pieces and "chien" in pieces, trace.translation
        weights = trace.read(bundled[name].reading)  # a shifted reading has no row for the last piece
        looked = {pieces[t]: trace.source.surfaces[int(weights[t].argmax())] for t in range(len(weights))}
        assert looked["noir"] == "black" and looked["chien"] == "dog"


#: Bahdanau et al. (2015), Fig. 3: each sentence and what a translation that got it right must say.
FIGURE_3 = {
    "The agreement on the European Economic Area was signed in August 1992.": ("zone économique européenne",
                                                                              "août 1992"),
    "It should be noted that the marine environment is the least known of environments.": ("milieu marin",),
    "Destruction of the equipment means that Syria can no longer produce new chemical weapons.": ("la syrie",
                                                                                                "armes chimiques"),
    "This will change my future with my family, the man said.": ("ma famille",),
}


def trained_on_the_debates(name: str) -> bool:
    return "hansard-en-fr" in {d.name for d in read_training(BUNDLED_DIR / f"en-fr-{name}").data}


@pytest.mark.parametrize("name", [pytest.param("additive", marks=pytest.mark.xfail(
    strict=True, raises=AssertionError, reason="issue 40's bar, not met yet: after 115 minutes on a mix that is one tenth Hansard the "
                        "additive model writes 'ma famille' but none of 'zone économique européenne', 'août 1992', "
                        "'milieu marin', 'la Syrie' or 'armes chimiques'")),
                                  pytest.param("transformer", marks=pytest.mark.xfail(
    strict=True, raises=AssertionError, reason="issue 40's bar, not met yet: after 195 minutes on the Hansard mix the Transformer writes "
                        "'août 1992', 'armes chimiques' and 'ma famille' but not 'zone économique européenne', "
                        "'milieu marin' (it says 'environnement marin') or 'la Syrie' (it keeps 'Syria')"))])
def test_the_papers_figure_3_sentences_come_out_right(bundled, name):
    """The paper's own news sentences, from a model that has read parliament's debates (issue 40's bar; a model
    still trained on captions and phrases alone is not held to it until it is retrained)."""
    if not trained_on_the_debates(name):
        pytest.skip(f"the bundled {name} model has not been retrained on the Hansard yet")
    outputs = translate_batch(bundled[name].model, bundled[name].tokenizers, list(FIGURE_3))
    for output, wanted in zip(outputs, FIGURE_3.values()):
        assert all(w in output.lower() for w in wanted), (output, wanted)


def test_the_most_important_head_changes_an_example_the_least_important_leaves_alone(bundled):
    """Read from the card's importance table (heads.json): switching off the head whose removal cost most
    changes the translation of a curated example that switching off the one that cost least leaves unchanged."""
    from models.analysis.head_removal import parse_head, without_heads
    from models.storage.records.head_scores import read_heads

    loaded = bundled["transformer"]
    ranked = sorted(read_heads(loaded.path).heads, key=lambda r: r.drop)
    least, most = (parse_head(f"{r.kind}.{r.layer}.{r.head}", loaded.model) for r in (ranked[0], ranked[-1]))
    examples = [e.text for e in load_examples()]
    before = translate_batch(loaded.model, loaded.tokenizers, examples)
    after = {h: translate_batch(without_heads(loaded.model, [h]), loaded.tokenizers, examples) for h in (most, least)}
    changed = {h: {i for i, (a, b) in enumerate(zip(before, out)) if a != b} for h, out in after.items()}
    assert changed[most] - changed[least], changed


def test_the_decoder_only_model_is_a_llama_asked_through_its_own_chat_template_as_generate_asks_it(bundled):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from models.views.naming import model_name

    loaded = bundled["decoder-only"]
    assert loaded.model.continues_prompt and loaded.variant == "decoder-only"
    assert model_name("decoder-only") == "Decoder-only (GPT-style)"
    library = AutoModelForCausalLM.from_pretrained(loaded.path, attn_implementation="eager").eval()
    tokenizer = AutoTokenizer.from_pretrained(loaded.path)
    assert type(library).__name__ == "LlamaForCausalLM" and "{% for message in messages %}" in tokenizer.chat_template
    for example in [e.text for e in load_examples()][:4]:
        trace = greedy(loaded.model, loaded.tokenizers, example)
        prompt = tokenizer([loaded.tokenizers.source.encode(example, 80).prompt], add_special_tokens=False,
                           return_tensors="pt").input_ids
        written = library.generate(prompt, do_sample=False, max_new_tokens=len(trace.target_ids))
        assert list(trace.target_ids) == written[0, prompt.shape[1]:].tolist()[: len(trace.target_ids)]



def test_the_french_to_english_transformer_is_the_transformers_recipe_the_other_way(bundled):
    """Issue 86: the same sizes and data as the English→French Transformer, the direction swapped, carded and tested
    like the others, and it translates each curated French sentence."""
    from models.storage.examples import examples_file

    loaded = load_model("fr-en-transformer", device="cpu")
    path, ours = loaded.path, bundled["transformer"]
    assert loaded.languages == ("fr", "en") and read_training(path).languages == ("fr", "en")
    sizes = ("d_model", "heads", "enc_layers", "dec_layers", "ffn_dim", "dropout")
    assert [getattr(loaded.model.config, k) for k in sizes] == [getattr(ours.model.config, k) for k in sizes]
    assert {d.name for d in read_training(path).data} == {d.name for d in read_training(ours.path).data}
    assert (path / "model.safetensors").stat().st_size <= 25 * 2**20
    card = (path / "README.md").read_text()
    assert card.startswith("---\n") and "# Attention Atlas — French→English, transformer" in card
    tests = {(t.data, t.split): t.sentences for t in read_evaluation(path).test_sets}
    assert tests[("multi30k", "test_2016_flickr")] == 1000 and tests[("tatoeba-en-fr", "test")] == 1000
    french = [e.text for e in load_examples(examples_file("fr"))]
    assert all(o.strip() for o in translate_batch(loaded.model, loaded.tokenizers, french))
