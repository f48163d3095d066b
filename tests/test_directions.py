"""Both directions in the app (issue 86): the bundled models' directions, each direction's models, the model a
switch of direction opens on, a link's direction, and the one-click offer of the other direction for a sentence
that looks like its source."""
import pytest

from models.storage.hub import bundled_models, bundled_pairs, bundled_variants, resolve
from models.views import naming

from .pages_helpers import page, run_page

EN_FR, FR_EN = ("en", "fr"), ("fr", "en")


def test_the_bundled_models_translate_both_ways_and_each_way_lists_its_own():
    assert naming.directions() == [EN_FR, FR_EN]
    assert naming.models_of(FR_EN) == ["fr-en-transformer"]
    assert "transformer" in naming.models_of(EN_FR) and "fr-en-transformer" not in naming.models_of(EN_FR)
    assert sorted(sum(map(naming.models_of, naming.directions()), [])) == sorted(bundled_models())
    assert resolve("fr-en-transformer").name == "fr-en-transformer" and resolve("dot").name == "en-fr-dot"


def test_a_switch_of_direction_opens_the_same_kind_of_model_where_there_is_one():
    assert naming.opened_model(FR_EN, "transformer") == "fr-en-transformer"
    assert naming.opened_model(EN_FR, "fr-en-transformer") == "transformer"
    assert naming.opened_model(FR_EN, "dot") == "fr-en-transformer"  # no French→English RNN: the first
    assert naming.opened_model(EN_FR, "dot") == "dot"
    assert bundled_variants()["fr-en-transformer"] == "transformer" and bundled_pairs()["fr-en-transformer"] == FR_EN


def test_a_model_of_the_second_direction_is_named_with_it():
    assert naming.model_name("fr-en-transformer") == "Transformer, French→English"
    assert naming.model_name("transformer") == "Transformer (multi-head)"


@pytest.mark.parametrize("key", ["de-en", "fr", "", "<b>x</b>"])
def test_a_link_to_an_unknown_direction_opens_the_models_own_and_says_what_was_ignored(key):
    pair, notice = naming.linked_direction(key or None, "dot")
    assert pair == EN_FR and (notice is None) == (not key)
    assert naming.linked_direction("fr-en", "dot") == (FR_EN, None)


def test_french_typed_to_an_english_model_is_offered_the_other_direction():
    offer = naming.offer("fr", "transformer")
    assert (offer.pair, offer.model, offer.label) == (FR_EN, "fr-en-transformer", "Translate it French → English")
    assert naming.offer(None, "transformer") is None and naming.offer("de", "transformer") is None


def direction(at):
    """The sidebar's Direction picker (its key names the direction it shows)."""
    return next(s for s in at.sidebar.selectbox if s.label == "Direction")


def test_the_sidebar_switches_direction_and_the_sentence_follows_unless_typed():
    at = run_page(page("translate"), model="dot")
    assert [s.value for s in at.sidebar.selectbox][:2] == [EN_FR, "dot"]
    direction(at).select(FR_EN).run()
    assert not at.exception and [s.value for s in at.sidebar.selectbox][:2] == [FR_EN, "fr-en-transformer"]
    assert at.query_params["direction"] == "fr-en" and at.text_input(key="text").value.startswith("Un petit chien noir")
    at.text_input(key="text").input("Le chat dort sur le canapé.").run()
    direction(at).select(EN_FR).run()
    assert at.text_input(key="text").value == "Le chat dort sur le canapé."  # typed: kept, whichever way it goes


def test_a_french_sentence_on_an_english_model_gets_a_button_that_turns_the_direction():
    at = run_page(page("translate"), model="transformer", text="Un chien noir court sur la plage et il est content.")
    assert any("looks like French" in w.value for w in at.warning)
    [button] = [b for b in at.button if b.label == "Translate it French → English"]
    button.click().run()
    assert not at.exception and [s.value for s in at.sidebar.selectbox][:2] == [FR_EN, "fr-en-transformer"]
    assert not any("looks like" in w.value for w in at.warning)


@pytest.mark.parametrize("name", ["Score_anatomy", "Context_vectors"])
def test_an_rnn_only_page_on_french_to_english_says_why_it_draws_nothing(name):
    at = run_page(page(name), direction="fr-en")
    assert not at.exception and any("no such model translates French → English" in i.value for i in at.info)


def test_the_pages_defaults_come_from_the_views_by_variant():
    """Compare, Corpus and Score anatomy open on the additive and dot-product RNNs, Context vectors draws beside the
    additive one what a link's ``beside`` names: the variants are named in one place (views.naming), the models found
    by them (the Transformer not trained to align before the one that is)."""
    from models.views.query_string import parse

    assert naming.paired() == ("additive", "dot") and naming.paired(FR_EN) == ("fr-en-transformer",) * 2
    assert naming.bundled_of("transformer") == "transformer"
    assert naming.bundled_of("transformer", FR_EN) == "fr-en-transformer"
    assert {key for key in naming.BESIDE if parse({"beside": key}).beside == key} == set(naming.BESIDE)
    assert parse({"beside": "none"}).notices  # anything else is refused by the link's parser
