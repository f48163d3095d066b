"""Every page on a Hugging Face Marian translator (a tiny one built offline, given as ``?model=<folder>``): no
exception, its attention drawn, its three kinds and heads offered, and what it cannot do said in one sentence."""
import re

import pytest

from models.decoding.greedy import greedy
from models.storage.hub import load_model

from .hf_helpers import OPUS_CARD, tiny_marian
from .pages_helpers import APP, MODEL_PAGES, figures, page, run_page, title_of

TEXT = "a dog runs on the beach"


@pytest.fixture(scope="module")
def marian(tmp_path_factory):
    return str(tiny_marian(tmp_path_factory.mktemp("marian"), steps=80))


def test_translate_draws_its_attention_kinds_and_heads(marian):
    at = run_page(APP, text=TEXT, model=marian)
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error
    loaded = load_model(marian, device="cpu")
    assert at.text[0].value == greedy(loaded.model, loaded.tokenizers, TEXT).translation
    titles = [title_of(f) for f in figures(at)]
    assert titles[0].startswith("Attention α (layer 2, mean of its heads)")  # the last layer's mean, shown first
    assert "attn" in [w.key for w in at.segmented_control]  # cross, encoder and decoder self-attention
    assert "Marian (Hugging Face)" in " ".join(c.value for c in at.sidebar.caption)


def test_a_head_switched_off_decodes_again_and_bertviz_is_offered(marian):
    pytest.importorskip("bertviz", reason="bertviz is an optional extra (requirements-extras.txt)")
    at = run_page(APP, text=TEXT, model=marian, off="2.1,encoder.1.2")
    assert not at.exception, [e.message for e in at.exception]
    assert at.multiselect(key="heads_off").value == ["2.1", "encoder.1.2"]
    assert any(m.value.startswith("**Without 2 heads**") for m in at.markdown)
    assert "bertviz model view (HTML)" in [b.label for b in at.get("download_button")]


def test_the_what_if_says_why_there_is_none(marian):
    at = run_page(APP, text=TEXT, model=marian)
    assert "focus" not in [s.key for s in at.selectbox]
    assert any("cannot be forced to look elsewhere" in c.value for c in at.caption)


@pytest.mark.parametrize("name", MODEL_PAGES)
def test_every_other_page_renders_on_it(marian, name):
    at = run_page(page(name), text=TEXT, model=marian, left=marian)
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


LONG = " ".join([TEXT] * 20)  # over 64 pieces


@pytest.fixture(scope="module")
def short(tmp_path_factory):
    """A Marian whose position table ends at 64: longer sentences and translations must be cut, not crash."""
    return str(tiny_marian(tmp_path_factory.mktemp("short"), steps=80, positions=64))


@pytest.mark.parametrize("name", ["", *MODEL_PAGES])
def test_every_page_cuts_a_sentence_longer_than_the_models_positions(short, name):
    at = run_page(page(name) if name else APP, text=LONG, model=short, left=short, right=short)
    if name == "Corpus":  # a pasted line, and its reference forced through the model, both too long
        at.radio(key="corpus_from").set_value("paste").run()
        at.text_area(key="corpus_text").input(f"{LONG}\t{LONG}\n{TEXT}\t{TEXT}").run()
        assert len(at.dataframe(key="corpus_table").value) == 2
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    if not name:
        assert any("this model reads at once" in w.value for w in at.warning)


@pytest.fixture(scope="module")
def german(tmp_path_factory):
    """A German→English model (its tokenizer says so), the sentences it was built on English all the same."""
    return str(tiny_marian(tmp_path_factory.mktemp("de-en"), languages=("de", "en")))


def test_a_german_source_opens_an_empty_box_named_for_its_language(german):
    at = run_page(APP, model=german)
    assert not at.exception, [e.message for e in at.exception]
    box = at.text_input(key="text")
    assert box.label == "German sentence" and box.value == ""
    assert not [s for s in at.selectbox if s.label == "Examples"]  # the examples are English
    assert any("Type a German sentence above to see" in i.value for i in at.info)
    assert any(c.value.startswith("German→English translation by") for c in at.caption)


def test_human_links_say_in_one_sentence_why_a_german_model_has_none(german):
    at = run_page(page("Human_links"), model=german)
    assert not at.exception and not figures(at)
    assert any("translates German→English, so there is nothing" in i.value for i in at.info)


def test_languages_come_from_the_record_the_tokenizer_or_the_name():
    from models.storage.languages import hub_languages, language_name

    assert load_model("additive").languages == ("en", "fr")  # training.json
    assert hub_languages("Helsinki-NLP/opus-mt-de-en", None, None) == ("de", "en")
    assert hub_languages("Helsinki-NLP/opus-mt-en-roa", None, None) == ("en", "roa")
    assert hub_languages("someone/my-translator", None, None) == (None, None)
    assert hub_languages("Helsinki-NLP/opus-mt-de-en", "fr", "it") == ("fr", "it")  # the tokenizer says first
    assert language_name(None, "source") == "source"


def test_languages_are_named_by_langcodes_and_compared_whatever_their_spelling():
    from models.storage.languages import language_key, language_name, may_translate, pair_name

    assert pair_name(("en", "mg")) == "English→Malagasy"  # issue 57: no bare codes
    assert language_name("roa", "x") == "Romance languages" and language_name("fra_Latn", "x") == "French"
    assert language_name("xx", "x") == "xx" and language_name("ROMANCE", "x") == "ROMANCE"  # no language: as given
    assert language_key("fra") == language_key("fra_Latn") == language_key("fr") == "fr"
    assert may_translate(("eng", "fra"), ("en", "fr")) and not may_translate(("en", "mg"), ("en", "fr"))


@pytest.fixture(scope="module")
def opus(tmp_path_factory):
    """A tiny Marian whose card says what opus-mt-en-fr's says: apache-2.0, trained transformer-align."""
    return str(tiny_marian(tmp_path_factory.mktemp("opus"), card=OPUS_CARD))


def test_the_models_page_gives_the_models_facts_from_it_and_its_card(opus):
    at = run_page(page("Models_and_results"), model=opus)
    assert not at.exception, [e.message for e in at.exception]
    facts = re.sub(r"\\(.)", r"\1", next(m.value for m in at.markdown if m.value.startswith("- **From:**")))
    loaded = load_model(opus, device="cpu")
    parameters = sum(p.numel() for p in loaded.model.parameters())
    assert f"- **From:** the folder {opus}\n" in facts and "2 encoder and 2 decoder layers of 2 heads" in facts
    assert "**Languages:** English → French" in facts and f"**Parameters:** {parameters:,}" in facts
    assert "**Licence:** apache-2.0" in facts and "**Trained to align:** Layer 2, head 1. Its card says" in facts


def test_the_head_trained_to_align_is_shown_first_and_named(opus, marian):
    at = run_page(APP, text=TEXT, model=opus)
    assert not at.exception, [e.message for e in at.exception]
    assert title_of(figures(at)[0]).startswith("Attention α (layer 2, head 1)")
    assert "Layer 2, head 1 ★ ✓" in at.selectbox(key="head").options
    plain = run_page(APP, text=TEXT, model=marian)  # a card that says nothing: nothing is claimed
    assert not any("trained to align" in o for o in plain.selectbox(key="head").options)
