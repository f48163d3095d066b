"""Every page on a Hugging Face Marian translator (a tiny one built offline, given as ``?model=<folder>``): no
exception, its attention drawn, its three kinds and heads offered, and what it cannot do said in one sentence."""
import pytest

from models.decoding.greedy import greedy
from models.storage.hub import load_model

from .hf_helpers import tiny_marian
from .pages_helpers import APP, figures, page, run_page, title_of

PAGES = ["Compare_scoring", "Context_vectors", "Score_anatomy", "Learning", "Models_and_results", "Human_links",
         "Corpus"]
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
    pytest.importorskip("bertviz", reason="bertviz is an optional extra (requirements-bertviz.txt)")
    at = run_page(APP, text=TEXT, model=marian, off="2.1,encoder.1.2")
    assert not at.exception, [e.message for e in at.exception]
    assert at.multiselect(key="heads_off").value == ["2.1", "encoder.1.2"]
    assert any(m.value.startswith("**Without 2 heads**") for m in at.markdown)
    assert "bertviz model view (HTML)" in [b.label for b in at.get("download_button")]


def test_the_what_if_says_why_there_is_none(marian):
    at = run_page(APP, text=TEXT, model=marian)
    assert "focus" not in [s.key for s in at.selectbox]
    assert any("cannot be forced to look elsewhere" in c.value for c in at.caption)


@pytest.mark.parametrize("name", PAGES)
def test_every_other_page_renders_on_it(marian, name):
    at = run_page(page(name), text=TEXT, model=marian, left=marian)
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
