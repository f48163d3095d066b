"""The matrices in a real browser (Debian's Chromium, as tests/test_e2e_browser.py): the “Which matrix to believe?”
page's panels open the Translate page, and a contrastive step draws its heatmap."""
import urllib.parse

from models.decoding.greedy import greedy
from models.storage.hub import load_model

from .test_e2e_browser import CHART, TITLE, assert_no_exception, wait_idle

TEXT = "A black dog is running on the beach."
PANELS = ("[...document.querySelectorAll('.vega-embed svg')[0].querySelectorAll('g.role-title-text text, text')]"
          ".map(t => t.textContent)")


def test_which_reading_draws_each_matrix_and_a_click_opens_it(server, page):
    page.goto(server)  # first the home page: straight to a page's URL can meet Streamlit's "Page not found" notice
    page.wait_for_selector(CHART)
    page.goto(f"{server}/Which_matrix?model=transformer&text={urllib.parse.quote(TEXT)}")
    page.wait_for_selector(CHART)
    wait_idle(page)
    assert_no_exception(page)
    names = ("attention norm", "ALTI", "ALTI+ rollout", "attention rollout", "value zeroing", "integrated gradients",
             "fit to human links", "random")
    page.wait_for_function(f"(() => {{ const t = {PANELS}; return {list(names)}.every(n => t.some(x => "
                           "x.startsWith(n))) })()")  # every panel drawn, as the browser gets to it
    texts = page.evaluate(PANELS)
    for name in names:
        assert any(t.startswith(name) for t in texts), name
    page.locator(".vega-embed").first.locator("g.role-mark path[aria-label*='cell: ALTI,']").first.click()
    page.wait_for_function(f"location.search.includes('matrix=ALTI') && document.querySelector('.vega-embed svg') "
                           f"&& ({TITLE.format(n=0)}).startsWith('ALTI:')", timeout=90_000)
    wait_idle(page)
    assert "matrix=ALTI" in page.url and "/Which_matrix" not in page.url
    assert_no_exception(page)


FITTED_GRID = """() => {
  const grid = [...document.querySelectorAll('.vega-embed')].find(e => e.textContent.includes('Writing step'));
  return grid ? {top: grid.getBoundingClientRect().top, wide: document.documentElement.scrollWidth,
                 shown: document.documentElement.clientWidth} : null;
}"""


def test_the_human_links_page_shows_which_heads_people_single_out_in_the_first_screen(server, page):
    """The bundled Transformer's probe (fit on the Hansards trial pairs): its head grid beside the gold heatmap,
    begun in a laptop's first screen, and no phone scrolls sideways."""
    page.goto(server)
    page.wait_for_selector(CHART)
    for width, height in ((1366, 768), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{server}/Human_links?model=transformer")
        page.wait_for_function(f"({FITTED_GRID})() !== null", timeout=90_000)
        wait_idle(page)
        assert_no_exception(page)
        box = page.evaluate(FITTED_GRID)
        assert box["wide"] <= box["shown"], (width, box)
        if width > 390:
            assert 0 < box["top"] < height, box


def test_a_contrastive_step_draws_its_heatmap(server, page):
    loaded = load_model("transformer")
    trace = greedy(loaded.model, loaded.tokenizers, TEXT)
    foil = trace.top_k[1][1][0]  # the step's runner-up
    page.goto(f"{server}/?model=transformer&read=integrated-gradients&step=2&foil={urllib.parse.quote(foil)}"
              f"&text={urllib.parse.quote(TEXT)}")
    page.wait_for_selector(CHART)
    wait_idle(page)
    page.wait_for_function("[...document.querySelectorAll('.vega-embed svg')].some(s => [...s.querySelectorAll("
                           "'g.role-title-text text')].some(t => t.textContent.includes('log p(')))", timeout=90_000)
    assert_no_exception(page)
    assert "foil=" in page.url
