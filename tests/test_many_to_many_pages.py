"""Every page on a many-to-many translator (a tiny M2M100 built offline, ``?model=<folder>``): the language pickers,
by name and in the URL by the model's own codes, the translation in the language picked, and no page breaking."""
import pytest

from models.decoding.greedy import greedy
from models.storage.hub import load_model

from .hf_helpers import CODES
from .pages_helpers import APP, MODEL_PAGES, figures, page, run_page

TEXT = "a dog runs on the beach"


@pytest.fixture(scope="module")
def m2m(many_to_many):
    return str(many_to_many("m2m100"))


def test_the_url_picks_the_languages_and_the_german_is_drawn_under_its_chart(m2m):
    at = run_page(APP, text=TEXT, model=m2m, src_lang="en", tgt_lang="de")
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    pickers = {s.label: s for s in at.sidebar.selectbox if s.label in ("From", "Into")}
    assert (pickers["From"].value, pickers["Into"].value) == ("en", "de")
    assert pickers["Into"].format_func("de") == "German · de" and len(pickers["From"].options) == 100
    loaded = load_model(m2m, device="cpu", languages=("en", "de"))
    assert at.text[0].value == greedy(loaded.model, loaded.tokenizers, TEXT).translation
    assert figures(at) and at.query_params["tgt_lang"] == "de"


def test_a_code_the_model_does_not_know_is_said_with_its_close_matches(m2m):
    at = run_page(APP, text=TEXT, model=m2m, tgt_lang="deu")
    assert not at.exception
    assert any("has no language 'deu'" in t.value and "de" in t.value for t in at.toast)
    assert next(s for s in at.sidebar.selectbox if s.label == "Into").value == "fr"  # its default pair, English→French


def test_a_model_of_one_pair_shows_no_pickers_and_drops_them_from_the_url():
    at = run_page(APP, text=TEXT, model="additive", src_lang="en", tgt_lang="de")
    assert not at.exception and not at.error
    assert not [s for s in at.sidebar.selectbox if s.label in ("From", "Into")]
    assert "tgt_lang" not in at.query_params


@pytest.mark.parametrize("name", MODEL_PAGES)
def test_every_other_page_renders_on_it(m2m, name):
    at = run_page(page(name), text=TEXT, model=m2m, left=m2m, src_lang="en", tgt_lang="de")
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_the_step_that_wrote_the_language_tag_says_it_was_forced(m2m):
    at = run_page(APP, text=TEXT, model=m2m, src_lang="en", tgt_lang="de", step="1")
    assert not at.exception
    assert any(m.value == "Step **1** wrote **⟨de⟩**." for m in at.markdown)
    assert any(c.value.startswith("Forced, not chosen") for c in at.caption)
    at = run_page(APP, text=TEXT, model=m2m, src_lang="en", tgt_lang="de", step="2")
    assert not any(c.value.startswith("Forced, not chosen") for c in at.caption)


def test_the_sentence_box_and_the_public_test_sets_follow_the_pair_picked(m2m):
    at = run_page(APP, model=m2m, src_lang="de", tgt_lang="en")
    assert not at.exception and at.text_input(key="text").label == "German sentence"
    at = run_page(page("Corpus"), model=m2m, src_lang="en", tgt_lang="de")
    at.radio(key="corpus_from").set_value("a public test set").run()
    picker = at.selectbox(key="corpus_set")
    assert picker.label == "English→German test sets (sacreBLEU)" and "news: WMT newstest2014" in picker.options


@pytest.mark.parametrize("family", ["nllb", "mbart50"])
def test_the_other_families_translate_into_the_language_picked_on_the_page(many_to_many, family):
    folder = str(many_to_many(family))
    source, _, german = CODES[family]
    at = run_page(APP, text=TEXT, model=folder, src_lang=source, tgt_lang=german)
    assert not at.exception, [e.message for e in at.exception]
    loaded = load_model(folder, device="cpu", languages=(source, german))
    assert at.text[0].value == greedy(loaded.model, loaded.tokenizers, TEXT).translation and figures(at)
    assert next(s for s in at.sidebar.selectbox if s.label == "Into").format_func(german).startswith("German · ")
