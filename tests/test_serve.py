"""serve.py: the app behind Streamlit's ASGI entry, its default model loaded before the first visitor."""
import asyncio
from pathlib import Path

import pytest

import serve
from pages._shared import cache


@pytest.fixture
def counted_loads(monkeypatch):
    """Every checkpoint the app's cached loader reads from disk (or the Hub), the cache emptied first."""
    loads = []
    real = cache.load_model
    monkeypatch.setattr(cache, "load_model", lambda *a, **k: loads.append(a[0]) or real(*a, **k))
    cache._load.clear()
    yield loads
    cache._load.clear()


def start(app) -> None:
    """Run the app's start-up (its lifespan up to the point where the server would answer) and its shutdown."""
    async def once():
        async with serve.warm(app):
            pass
    asyncio.run(once())


def test_it_serves_the_entry_point():
    assert Path(serve.app.script_path).name == "app.py"


def test_the_default_model_is_loaded_before_the_first_visitor(counted_loads, monkeypatch):
    monkeypatch.delenv("ATLAS_HUB_REPO", raising=False)
    start(serve.app)
    assert counted_loads == ["additive"]
    cache.load(cache.ModelKey("additive"))  # the first visitor's page asks for it: already in the cache
    assert counted_loads == ["additive"]


def test_an_unreachable_hub_default_does_not_stop_the_server(counted_loads, monkeypatch):
    monkeypatch.setenv("ATLAS_HUB_REPO", "nobody/not-cached")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", True)
    start(serve.app)  # no exception: the page tells the visitor why the model cannot be loaded
    assert counted_loads == ["nobody/not-cached"]


@pytest.mark.parametrize("script", ["serve.py", "app.py"])
def test_a_deep_link_on_a_freshly_started_server_opens_its_page_without_a_dialog(script):
    """The first visitor of a new server follows a shared link to a page other than the first (Streamlit's race
    between the pages/ folder and st.navigation: its issues #9624, #9992), under the deploy's entry and the local
    one."""
    import os

    from bench.server import CHROMIUM, CHROMIUM_ARGS, Server
    if not os.path.exists(CHROMIUM) and not os.environ.get("CI"):
        pytest.skip("Debian's chromium is not installed")
    from playwright.sync_api import sync_playwright

    with Server(script=script) as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.set_default_timeout(120_000)
        page.goto(f"{server.url}/Compare_scoring?model=additive")
        page.wait_for_selector(".vega-embed svg")
        page.wait_for_selector("[data-testid='stStatusWidget']", state="detached")
        dialogs = page.locator("[role=dialog]").all_inner_texts()
        current = page.locator("[data-testid=stSidebarNavLink][aria-current=page]").get_attribute("href")
        browser.close()
    assert dialogs == [] and "/Compare_scoring?" in page.url
    assert current.endswith("/Compare_scoring"), current  # the Compare page itself, not the first page
