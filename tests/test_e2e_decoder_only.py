"""A decoder-only translator in a real browser (Debian's Chromium, as tests/test_e2e_browser.py): a tiny Qwen2 chat
model given as ``?model=<folder>``, its translation and heatmap drawn, its pickers set from the URL."""
import urllib.parse

import pytest

from bench.server import HEATMAP

from .test_e2e_browser import FIRST_HEATMAP, assert_no_exception, wait_idle
from .test_e2e_many_to_many import _picked

TEXT = "a dog runs on the beach"


@pytest.fixture(scope="module")
def qwen_folder(tmp_path_factory):
    from tests.llm_helpers import tiny_llm

    return tiny_llm(tmp_path_factory.mktemp("qwen2"), "qwen2")


def test_a_chat_model_writes_and_draws_where_it_looks_over_its_prompt(server, page, qwen_folder):
    from models.decoding.greedy import greedy
    from models.storage.hub import load_model

    query = urllib.parse.urlencode({"model": str(qwen_folder), "text": TEXT, "tgt_lang": "fr"})
    page.goto(f"{server}/?{query}")
    page.wait_for_selector(HEATMAP)
    wait_idle(page)
    loaded = load_model(str(qwen_folder), device="cpu")
    main = page.inner_text("[data-testid=stMain]")
    assert greedy(loaded.model, loaded.tokenizers, TEXT).translation in main
    assert "Qwen2 (Hugging Face)" in page.inner_text("[data-testid=stSidebar]")
    assert (_picked(page, "From"), _picked(page, "Into")) == ("English · en", "French · fr")
    assert_no_exception(page)


@pytest.mark.parametrize("bundled", [False, True], ids=["tiny qwen2", "bundled decoder-only"])
def test_a_chat_models_heatmap_begins_in_a_laptops_first_screen_and_no_phone_scrolls_sideways(server, page,
                                                                                              qwen_folder, bundled):
    """The picture first (issue 64), with the rest of the prompt's long column label among the sentence's: a tiny
    Qwen2 and the bundled decoder-only translator (``?model=decoder-only``)."""
    query = urllib.parse.urlencode({"model": "decoder-only" if bundled else str(qwen_folder), "text": TEXT})
    for width, height in ((1366, 768), (390, 844)):
        screen = page.context.browser.new_page(viewport={"width": width, "height": height})
        screen.set_default_timeout(90_000)
        screen.goto(f"{server}/?{query}")
        screen.wait_for_selector(HEATMAP)
        wait_idle(screen)
        box = screen.evaluate(FIRST_HEATMAP)
        assert 0 < box["top"] < height, (width, height, box)
        assert box["wide"] <= box["shown"], (width, box)  # no sideways scroll
        screen.close()
