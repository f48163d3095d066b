"""assets/: the bundled checkpoints (three RNNs and a Transformer) and the curated examples."""
import json

import pytest

from models.decoding.greedy import greedy, translate_batch
from models.storage.card import corpora, scored_sets
from models.storage.examples import load_examples
from models.storage.hub import BUNDLED_DIR, load_model

RNNS = ("additive", "dot", "none")
NAMES = (*RNNS, "transformer")


@pytest.fixture(scope="module")
def bundled():
    return {name: load_model(name, device="cpu") for name in NAMES}


def test_three_rnns_differ_only_in_the_score(bundled):
    configs = {n: json.loads((bundled[n].path / "config.json").read_text()) for n in RNNS}
    assert {c.pop("score") for c in configs.values()} == set(RNNS)
    assert configs["additive"] == configs["dot"] == configs["none"]


def test_the_transformer_is_about_the_rnns_size(bundled):
    assert bundled["transformer"].kind == "transformer"
    sizes = {n: sum(p.numel() for p in bundled[n].model.parameters()) for n in ("transformer", "additive")}
    assert 0.5 < sizes["transformer"] / sizes["additive"] < 1.5


def test_models_trained_on_the_same_data_share_the_tokenizers(bundled):
    """Tokenizers are trained on the corpora; a model retrained on other corpora has its own until all are."""
    by_data: dict[str, list] = {}
    for m in bundled.values():
        by_data.setdefault(json.dumps(corpora(json.loads((m.path / "training.json").read_text()))), []).append(m)
    for models in by_data.values():
        for name in ("source_tokenizer.json", "target_tokenizer.json"):
            assert len({(m.path / name).read_bytes() for m in models}) == 1


@pytest.mark.parametrize("name", NAMES)
def test_checkpoint_is_small_and_carded(name):
    path = BUNDLED_DIR / f"en-fr-{name}"
    assert (path / "model.safetensors").stat().st_size <= 25 * 2**20
    card = (path / "README.md").read_text()
    assert card.startswith("---\n") and "model-index" in card and "python -m models.train" in card
    evaluation = json.loads((path / "evaluation.json").read_text())
    tests = {(t["data"], t["split"]): t["sentences"] for t in scored_sets(evaluation)}
    assert tests[("multi30k", "test_2016_flickr")] == 1000
    trained_on = {d["name"] for d in corpora(json.loads((path / "training.json").read_text()))}
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
    for name in ("additive", "dot", "transformer"):
        trace = greedy(bundled[name].model, bundled[name].tokenizers, "A black dog is running on the beach.")
        pieces = [p.strip("▁") for p in trace.target_pieces]
        assert "noir" in pieces and "chien" in pieces, trace.translation
        weights = trace.read(bundled[name].reading)  # a shifted reading has no row for the last piece
        looked = {pieces[t]: trace.source.surfaces[int(weights[t].argmax())] for t in range(len(weights))}
        assert looked["noir"] == "black" and looked["chien"] == "dog"
