"""models/network/family.py: what a model is called and said to be, declared once a family and asked by pages,
cards and tables."""
from models.network.attention import SCORES
from models.network.family import FAMILIES, family, variant_of
from models.storage.cards.render import model_description
from models.storage.hub import bundled_models, load_model, resolve
from models.storage.records.training import read_training


def test_every_rnn_score_is_a_family_named_as_its_score_is():
    for score, named in SCORES.items():
        assert family(score).label == named.label and named.description in family(score).description
    assert family("none").about != family("additive").about  # the baseline has no attention to speak of


def test_a_hub_models_family_is_named_from_its_type():
    found = family("marian")
    assert "marian" not in FAMILIES and found.variant == "marian" and "Hugging Face" in found.label


def test_each_bundled_model_is_told_by_its_family():
    for name in bundled_models():
        training = read_training(resolve(name))
        assert model_description(training) == family(variant_of(training.architecture, training.score)).description
    loaded = load_model("transformer")
    assert loaded.family is FAMILIES["transformer"] and loaded.family.several_heads
    assert not load_model("additive").family.several_heads
