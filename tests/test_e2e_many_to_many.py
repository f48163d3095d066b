"""A many-to-many translator in a real browser (Debian's Chromium, as tests/test_e2e_browser.py): its language
pickers, searched by name, and the URL that keeps the pair in the model's own codes."""
import urllib.parse

import pytest

from bench.server import HEATMAP

from .test_e2e_browser import assert_no_exception, open_options, wait_idle

TEXT = "a dog runs on the beach"


@pytest.fixture(scope="module")
def m2m_folder(many_to_many):
    return many_to_many("m2m100")


def _translation(folder, target: str) -> str:
    from models.decoding.greedy import greedy
    from models.storage.hub import load_model

    loaded = load_model(str(folder), device="cpu", languages=("en", target))
    return greedy(loaded.model, loaded.tokenizers, TEXT).translation


def _picker(page, label: str):
    return page.locator("[data-testid=stSidebar] [data-testid=stSelectbox]").filter(has_text=label)


def _picked(page, label: str) -> str:
    """What the sidebar's select box ``label`` shows (its value is the combobox input's, not text)."""
    box = _picker(page, label)
    field = box.get_by_role("combobox")
    return field.input_value() or box.inner_text().removeprefix(label).strip()


def test_the_pickers_set_the_pair_and_the_url_keeps_it(server, page, m2m_folder):
    query = urllib.parse.urlencode({"model": str(m2m_folder), "src_lang": "en", "tgt_lang": "de", "text": TEXT})
    page.goto(f"{server}/?{query}")
    page.wait_for_selector(HEATMAP)
    wait_idle(page)
    assert (_picked(page, "From"), _picked(page, "Into")) == ("English · en", "German · de")
    assert _translation(m2m_folder, "de") in page.inner_text("[data-testid=stMain]")
    into = _picker(page, "Into").get_by_role("combobox")  # type to search its hundred languages by name
    open_options(into)
    into.type("Fren")
    page.get_by_role("option", name="French · fr").click()
    page.wait_for_function("() => window.location.search.includes('tgt_lang=fr')")
    wait_idle(page)
    page.wait_for_selector(HEATMAP)
    assert _translation(m2m_folder, "fr") in page.inner_text("[data-testid=stMain]")
    assert_no_exception(page)
    page.reload()  # the link alone brings the pair back
    page.wait_for_selector(HEATMAP)
    wait_idle(page)
    assert _picked(page, "Into") == "French · fr"
