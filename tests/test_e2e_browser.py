"""End to end in a real browser: `streamlit run app.py` on localhost, driven by Playwright in Debian's Chromium.

Set ATLAS_SCREENSHOTS=DIR to keep a full-page screenshot of every page there (docs/ shows some); without it none is
taken: a tall page's PNG costs seconds.
"""
import os
import shutil
import urllib.parse
from pathlib import Path

import pytest

from bench.server import CHROMIUM, HEATMAP
from models.views import naming

from .pages_helpers import NAVIGATION, OTHER_PAGES

CHART = ".vega-embed svg"  # every chart is Vega-Lite, drawn as SVG
X_LABELS = ("[...document.querySelectorAll('.vega-embed svg')[{n}].querySelectorAll('g.role-axis')]"
            ".filter(a => (a.getAttribute('aria-label') || '').startsWith('X-axis'))"
            ".flatMap(a => [...a.querySelectorAll('g.role-axis-label text')].map(t => t.textContent))")
TITLE = ("[...document.querySelectorAll('.vega-embed svg')[{n}].querySelectorAll('g.role-title-text text')]"
         ".map(t => t.textContent).join(' ')")
if not os.path.exists(CHROMIUM):
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing; .ci/run installs Debian's chromium package")
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")


def shoot(page, tmp_path, name, element=None):
    """With ATLAS_SCREENSHOTS set, screenshot the whole page, or one ``element`` of it, there (Streamlit scrolls
    inside its main block, so grow the viewport to fit)."""
    if not os.environ.get("ATLAS_SCREENSHOTS"):
        return
    height = page.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
    page.set_viewport_size({"width": 1400, "height": min(max(height, 1000), 6000)})
    page.wait_for_timeout(1000)
    path = tmp_path / f"{name or 'Home'}.png"
    (element or page).screenshot(path=path)
    page.set_viewport_size({"width": 1400, "height": 1000})
    assert path.stat().st_size > 10_000
    shutil.copy(path, Path(os.environ["ATLAS_SCREENSHOTS"]) / path.name)


def wait_idle(page):
    """Wait until the script run finishes: the app says its script is not running, and its status widget is gone
    (a test then waits for what it asserts, drawn after the run as the browser gets to it)."""
    page.wait_for_timeout(300)
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", timeout=120_000)
    page.wait_for_selector("[data-testid='stStatusWidget']", state="detached", timeout=120_000)


def assert_no_exception(page):
    """No Streamlit exception box on the page; if there is one, its text is the failure message."""
    errors = page.locator("[data-testid='stException']")
    assert not errors.count(), errors.all_inner_texts()


FIRST_HEATMAP = """() => {
  const r = document.querySelector('.vega-embed svg').getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, wide: document.documentElement.scrollWidth,
          shown: document.documentElement.clientWidth};
}"""


@pytest.mark.parametrize("model", ["additive", "transformer-align"])
def test_the_first_heatmap_lies_in_a_laptops_first_screen_and_a_phones(server, visitors, model):
    """The picture first (issue 64): at 1366×768 and 1440×900 the whole default heatmap is in the first screen; on a
    390×844 phone its top is, and nothing scrolls sideways."""
    for screen, width, height in screens(visitors, f"{server}/?model={model}", ((1366, 768), (1440, 900), (390, 844))):
        screen.wait_for_selector(HEATMAP)
        wait_idle(screen)
        box = screen.evaluate(FIRST_HEATMAP)
        assert 0 < box["top"] < height and (box["bottom"] <= height or width == 390), (width, height, box)
        assert box["wide"] <= box["shown"], (width, box)  # no sideways scroll


#: The page's first chart or table in document order, once drawn (a table's grid sizes itself after the run ends).
FIRST_DRAWN = """() => {
  const first = document.querySelector('.vega-embed svg, [data-testid=stDataFrame]');
  return first !== null && first.getBoundingClientRect().height > 0;
}"""
VIEWS = "() => document.querySelectorAll('.vega-embed svg, [data-testid=stDataFrame]').length"


def settled(page):
    """Wait until the first chart or table is drawn and none has come or gone for a second: a page's first visit may
    be run again (it hands its run to app.py), and a chart of the run before can stand while the table above it is
    drawn anew."""
    before = None
    for _ in range(60):
        page.wait_for_function(FIRST_DRAWN)
        now = page.evaluate(VIEWS)
        if now == before:
            return
        before = now
        page.wait_for_timeout(1000)


FIRST_VIEW = """() => {
  const first = document.querySelector('.vega-embed svg, [data-testid=stDataFrame]').getBoundingClientRect();
  return {top: first.top, wide: document.documentElement.scrollWidth, shown: document.documentElement.clientWidth};
}"""


@pytest.fixture(scope="module")
def visitors(browser):
    """One returning visitor a screen size: a browser context each, given by (width, height), so that Streamlit's
    scripts come from its cache after the first page (a new visitor's wait is the open bench's to measure)."""
    contexts = {}

    def visitor(width: int, height: int):
        if (width, height) not in contexts:
            contexts[width, height] = browser.new_context(viewport={"width": width, "height": height})
        return contexts[width, height]

    yield visitor
    for context in contexts.values():
        context.close()


def screens(visitors, url: str, sizes=((1366, 768), (390, 844))):
    """``url`` opened in a laptop's screen and a phone's, in turn, each in a new tab of that screen's visitor: each
    page with its width and height (closed when the caller asks for the next)."""
    for width, height in sizes:
        screen = visitors(width, height).new_page()
        screen.set_default_timeout(90_000)
        screen.goto(url)
        yield screen, width, height
        screen.close()


@pytest.mark.parametrize("path", OTHER_PAGES)
def test_every_pages_first_chart_or_table_begins_in_a_laptops_first_screen(server, visitors, path, tmp_path):
    """The picture first (issue 64): each page renders without an exception, at 1366×768 its first chart or table
    starts in the first screen, and on a phone nothing scrolls sideways (the server's gold is the fixture's tiny
    set)."""
    for screen, width, height in screens(visitors, f"{server}/{path}?model=additive"):
        screen.wait_for_selector(f"{CHART}, [data-testid=stDataFrame]")
        wait_idle(screen)
        settled(screen)
        assert_no_exception(screen)
        box = screen.evaluate(FIRST_VIEW)
        if width > 390:
            assert 0 < box["top"] < height, (path, box)
            shoot(screen, tmp_path, path)
        assert box["wide"] <= box["shown"], (path, width, box)  # no sideways scroll


#: The pages that draw no chart of the French→English model, and what they say instead.
SAYS_WHY = {"Context_vectors": "no such model translates French → English",
            "Score_anatomy": "no such model translates French → English"}


@pytest.mark.parametrize("path", NAVIGATION)
def test_every_page_draws_the_french_to_english_model_or_says_why_not(server, visitors, path):
    """Both directions (issue 86): each page on the French→English model renders without an exception; at 1366×768
    its first chart or table starts in the first screen, or (a page that takes apart the English→French RNNs) it says
    why it draws none, and on the pages whose titles name a head and a model nothing is cut off (issue 83: the
    second direction's names are among the longest); on a phone nothing scrolls sideways."""
    why = SAYS_WHY.get(path)
    for screen, width, height in screens(visitors, f"{server}/{path}?direction=fr-en&model=fr-en-transformer"):
        if why:
            screen.get_by_text(why).wait_for()
        else:
            screen.wait_for_selector(f"{CHART}, [data-testid=stDataFrame]")
        wait_idle(screen)
        if not why:
            settled(screen)
        assert_no_exception(screen)
        if path in ("", "Which_matrix"):
            assert screen.get_by_text("French sentence").count()  # its box asks for the model's language
        if not why and width > 390:
            found = screen.evaluate(FIRST_VIEW)
            assert 0 < found["top"] < height, (path, found)
            if path in NAMED_PAGES:
                assert screen.evaluate(CUT_OFF) == [], path
        wide = screen.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert wide[0] <= wide[1], (path, width, wide)  # no sideways scroll


#: Every widget label, button and select value wider than its box (an ellipsis), and every chart or axis title Vega
#: cut with "…".
CUT_OFF = """() => {
  const found = [];
  for (const el of document.querySelectorAll('[data-testid=stWidgetLabel] p, button p, [data-baseweb=select] div')) {
    if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflow !== 'visible') found.push(el.textContent);
  }
  for (const t of document.querySelectorAll('.vega-embed svg g.role-title-text text, .vega-embed svg g.role-axis-title text')) {
    if (t.textContent.endsWith('…')) found.push(t.textContent);
  }
  return found;
}"""


#: The pages whose titles name a head and a model.
NAMED_PAGES = ("", "Compare_scoring", "Human_links", "Which_matrix")


def test_nothing_is_cut_off_at_1366_by_768(server, visitors):
    """Issue 83: no control label, choice or chart title is truncated on a laptop, on the pages whose titles name a
    head and a model, for the longest names: the Transformer trained to align's (the second direction's are checked
    where every page draws it, above)."""
    for path in NAMED_PAGES:
        for screen, _, _ in screens(visitors, f"{server}/{path}?model=transformer-align", ((1366, 768),)):
            screen.wait_for_selector(CHART)
            wait_idle(screen)
            settled(screen)
            assert screen.evaluate(CUT_OFF) == [], path


def sidebar(page) -> dict[str, str]:
    """What the sidebar's pickers show, by label: Direction, Model, …"""
    pickers = page.locator("[data-testid=stSidebar] [data-testid=stSelectbox]")
    return {pickers.nth(i).locator("label").first.inner_text().strip(): pickers.nth(i).locator("input").first
            .input_value() for i in range(pickers.count())}


def url_model(page) -> str:
    return urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["model"][0]


def test_a_click_on_an_answer_bar_opens_that_model_and_reading_and_the_sidebar_shows_it(server, page):
    """The answer page's bars are links (issue 83): a click on one opens its model on the Translate page, at the
    reading the bar names — and the sidebar, where the visitor had picked another model, shows the one drawn; so it
    does after the browser's back button."""
    page.goto(f"{server}/?model=dot")
    page.wait_for_selector(HEATMAP)
    wait_idle(page)
    assert sidebar(page)["Model"] == naming.model_name("dot")
    page.get_by_role("link", name="Is attention an alignment?", exact=True).click()  # the sidebar's
    page.wait_for_selector(f"{CHART} g.mark-rect path")
    wait_idle(page)
    settled(page)
    named = page.locator(CHART).first.text_content()
    assert "eflomal" in named and "GIZA++" in named  # the statistical aligners named on the chart
    bars = page.locator(f"{CHART}").first.locator("g.mark-rect path")
    bars.filter(has=page.locator("xpath=self::*[contains(@aria-label, 'bar: Transformer (multi-head);')]")).first \
        .click()
    page.wait_for_url(lambda url: "model=transformer" in url and "/Answer" not in url, timeout=90_000)
    page.wait_for_selector(HEATMAP)
    wait_idle(page)
    assert_no_exception(page)
    query = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
    assert query.get("matrix") and sidebar(page)["Model"] == naming.model_name("transformer")
    assert "translation by a small Transformer" in page.locator("[data-testid=stMain]").inner_text()  # drawn
    page.go_back()
    wait_idle(page)
    page.wait_for_selector(CHART)
    assert sidebar(page)["Model"] == naming.model_name(url_model(page))  # whichever page back opens, it agrees


def test_the_direction_offer_turns_the_sidebar_with_the_page(server, page):
    french = urllib.parse.quote("Un chien noir court sur la plage et il est content.")
    page.goto(f"{server}/?model=transformer&text={french}")
    page.wait_for_selector(HEATMAP)
    wait_idle(page)
    page.get_by_role("button", name="Translate it French → English").click()
    page.wait_for_url(lambda url: "model=fr-en-transformer" in url, timeout=90_000)
    wait_idle(page)
    page.wait_for_function("document.body.innerText.includes('French→English translation by')")
    assert sidebar(page) == {"Direction": "French → English", "Model": naming.model_name("fr-en-transformer")}


def test_translate_step_and_compare(server, page, tmp_path):
    page.goto(server)
    page.wait_for_selector(CHART)
    wait_idle(page)
    box = page.get_by_label("English sentence")
    box.fill("A little girl in a red dress is playing with a ball.")
    box.press("Enter")  # Enter translates: the box is one line, as a sentence is
    page.wait_for_function("document.body.innerText.includes('robe')", timeout=90_000)
    wait_idle(page)
    page.wait_for_function("document.querySelectorAll('.vega-embed svg').length >= 4")  # heatmap, 2 bars, links
    slider = page.get_by_role("slider").first
    slider.focus()
    slider.press("ArrowRight")
    page.wait_for_function("document.body.innerText.includes('Step 2 wrote')")
    shoot(page, tmp_path, "")

    page.goto(f"{server}/Compare_scoring?text=A%20black%20dog%20is%20running%20on%20the%20beach.")
    page.wait_for_function("document.body.innerText.includes('Same target, two attentions')")
    wait_idle(page)
    page.wait_for_function("document.querySelectorAll('.vega-embed svg').length >= 5")  # 2 own, 2 forced, diff
    shoot(page, tmp_path, "Compare_scoring")


def test_beam_explorer_and_neighbours(server, page, tmp_path):
    page.goto(f"{server}/?text=A%20little%20girl%20in%20a%20red%20dress%20is%20playing.&beam=4&step=6")
    page.wait_for_function("document.body.innerText.includes('Beam search')")
    page.wait_for_function("document.body.innerText.includes('Nearest training states')")
    wait_idle(page)
    page.get_by_role("radio", name="#2").wait_for()  # several hypotheses to pick from, once drawn
    page.wait_for_function("document.querySelectorAll('ol li').length >= 8")  # the nearest training states, a list
    assert page.get_by_role("radio", name="#2").count() == 1
    shoot(page, tmp_path, "Beam_explorer")


def open_options(combobox) -> None:
    """Open a select box's list (a key press can arrive before the widget listens: retry)."""
    for _ in range(5):
        combobox.click()
        combobox.press("ArrowDown")
        try:
            combobox.page.get_by_role("option").first.wait_for(timeout=3000)
            return
        except sync_api.TimeoutError:
            continue
    raise AssertionError("the select box never opened")


def test_labels_show_typed_text_exactly_once_escaped(server, page):
    """Quotes, &, tags and </script> reach every label as typed: heatmap ticks, hover, select box, headings."""
    from models.analysis.heatmaps import word_heatmap
    from models.decoding.greedy import greedy
    from models.storage.hub import load_model

    text = '"Go" & <b>run</b> </script> now'
    loaded = load_model("additive", device="cpu")
    trace = greedy(loaded.model, loaded.tokenizers, text)
    view = word_heatmap(trace, trace.read(loaded.reading))
    unknown = ", ".join(dict.fromkeys(s for s, u in zip(trace.source.surfaces, trace.source.unknown) if u))
    assert "<" in unknown and ">" in unknown  # markdown-special characters the caption must show as typed
    expected = [("⁇" if u else "") + c for c, u in zip(view.columns, view.unknown)]
    assert expected[:2] == ['"Go"', "&"] and "<b>run</b>" in expected[2]
    page.goto(f"{server}/?text={urllib.parse.quote(text)}")
    page.wait_for_selector(CHART)
    wait_idle(page)
    assert page.evaluate(X_LABELS.format(n=0)) == expected  # SVG text: shown as typed
    assert f"Unknown to the model (marked ⁇ in the charts): {unknown}" in page.inner_text("body")  # markdown caption
    open_options(page.get_by_role("combobox", name="At step 1, look only at"))
    assert page.get_by_role("option").all_inner_texts() == list(view.columns)  # the select box's options
    page.get_by_role("option").first.click()
    page.wait_for_function("document.body.innerText.includes('Looking only at')")
    wait_idle(page)
    body = page.inner_text("body")
    assert '“"Go"” at step' in body  # the what-if heading (markdown)
    assert "&amp;" not in body and "&quot;" not in body and "&lt;" not in body
    assert not page.locator("b:has-text('run')").count()  # no tag was interpreted


def test_navigation_lists_the_ten_views_and_keeps_the_sentence(server, page):
    page.goto(f"{server}/?text=A%20red%20car%20is%20parked%20on%20the%20street.")
    page.wait_for_selector(CHART)
    wait_idle(page)
    titles = page.locator("[data-testid=stSidebarNav] a [data-testid=stMarkdownContainer]").all_inner_texts()
    assert [t.strip() for t in titles] == [
        "Translate & align", "Is attention an alignment?", "Compare scoring", "A corpus at a time", "Context vectors",
        "Score anatomy", "Alignment as it is learned", "Against human links", "Which matrix to believe?",
        "Models & results"]
    page.get_by_role("link", name="Context vectors").click()
    page.wait_for_function("document.body.innerText.includes('Context vectors')")
    wait_idle(page)
    assert page.get_by_label("English sentence").input_value() == "A red car is parked on the street."


def test_navigation_icons_render_as_icons(server, page):
    """Each link's icon is a Material Symbols glyph: the font has loaded and the ligature ("compare_arrows") has
    become one square glyph, not a word; no emoji is left to fall back to boxes in a browser without an emoji font."""
    page.goto(server)
    page.wait_for_selector("[data-testid=stSidebarNav] a [data-testid=stIconMaterial]")  # st.navigation's links
    wait_idle(page)
    page.evaluate("document.fonts.ready")
    icons = page.evaluate("""[...document.querySelectorAll('[data-testid=stSidebarNav] a')].map(a => {
        const icon = a.querySelector('[data-testid=stIconMaterial]');
        if (!icon) return null;
        const style = getComputedStyle(icon), box = icon.getBoundingClientRect();
        return {font: style.fontFamily, size: parseFloat(style.fontSize), width: box.width,
                loaded: document.fonts.check(`${style.fontSize} ${style.fontFamily}`)};
    })""")
    assert len(icons) == 10 and all(icons), icons
    for icon in icons:
        assert "Material Symbols" in icon["font"] and icon["loaded"], icon
        assert icon["width"] <= 1.5 * icon["size"], icon  # a glyph, not the ligature's letters
    nav = page.inner_text("[data-testid=stSidebarNav]")
    assert not any(0x1F300 <= ord(c) <= 0x1FAFF or 0x2600 <= ord(c) <= 0x27BF for c in nav)


def test_heatmap_labels_clear_the_title_and_each_other_and_the_title_stays_whole(server, page):
    """The title (an attribution's, wrapped) sits above every column label, on the chart, and neighbouring labels
    keep a line apart. (The longest sentences' heatmaps are drawn on a canvas, whose text the page cannot read:
    tests/test_charts.py renders one to SVG.)"""
    sentence = "The agreement on the European Economic Area was signed in August 1992."
    page.goto(f"{server}/?text={urllib.parse.quote(sentence)}&read=gradient-x-input")
    page.wait_for_selector(CHART)
    wait_idle(page)
    boxes = page.evaluate("""(() => {
        const svg = document.querySelector('.vega-embed svg');
        const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
        const x = [...svg.querySelectorAll('g.role-axis')]
            .find(a => (a.getAttribute('aria-label') || '').startsWith('X-axis'));
        return {title: [...svg.querySelectorAll('g.role-title-text text')].map(box), chart: box(svg),
                ticks: [...x.querySelectorAll('g.role-axis-label text')].filter(t => t.textContent).map(box)};
    })()""")
    title, ticks, chart = boxes["title"], boxes["ticks"], boxes["chart"]
    assert len(ticks) >= 12  # every word labelled
    bottom = max(line[3] for line in title)
    assert all(tick[1] >= bottom for tick in ticks), (title, ticks)  # every label starts below the title
    assert all(line[0] >= chart[0] - 1 and line[2] <= chart[2] + 1 for line in title)  # the title is whole
    lefts = sorted(t[0] for t in ticks)
    assert min(b - a for a, b in zip(lefts, lefts[1:])) >= 8  # slanted or upright, a line apart


def test_hovering_and_clicking_a_heatmap_cell(server, page):
    """Hover names the cell with its α and energy; a click selects the step that wrote its row."""
    page.goto(f"{server}/?text=A%20black%20dog%20is%20running%20on%20the%20beach.&level=subwords")
    page.wait_for_selector(CHART)
    wait_idle(page)
    row = 3  # the fourth output piece
    cell = page.locator(".vega-embed").first.locator(f"g.role-mark path[aria-label^='s: 1; t: {row};']")
    cell.hover()
    tooltip = page.locator("#vg-tooltip-element")
    tooltip.wait_for(state="visible")
    assert "black" in tooltip.inner_text() and "α" in tooltip.inner_text() and "energy e" in tooltip.inner_text()
    cell.click()
    page.wait_for_function(f"document.body.innerText.includes('Step {row + 1} wrote')")
    wait_idle(page)
    assert f"step={row + 1}" in page.url  # and the URL follows


def test_the_heatmap_downloads_as_png_and_svg(server, page, tmp_path):
    """Rendered on the server (vl-convert, no browser there), saved by the visitor's browser."""
    page.goto(f"{server}/?text=A%20black%20dog%20is%20running%20on%20the%20beach.")
    page.wait_for_selector(CHART)
    wait_idle(page)
    page.get_by_role("button", name="Heatmap as PNG / SVG").click()
    page.get_by_role("button", name="PNG", exact=True).wait_for()
    for name, start in (("PNG", b"\x89PNG"), ("SVG", b"<svg")):
        with page.expect_download() as download:
            page.get_by_role("button", name=name, exact=True).click()
        saved = tmp_path / download.value.suggested_filename
        download.value.save_as(saved)
        assert saved.suffix == f".{name.lower()}" and start in saved.read_bytes()[:200]


def test_the_heatmap_and_step_explorer_switch_to_attribution(server, page):
    page.goto(f"{server}/?text=A%20black%20dog%20is%20running%20on%20the%20beach.")
    page.wait_for_selector(CHART)
    wait_idle(page)
    open_options(page.get_by_role("combobox", name="Show"))
    page.get_by_role("option", name="integrated gradients", exact=True).click()
    page.wait_for_function(f"(() => {{ try {{ return ({TITLE.format(n=0)}).includes('Integrated-gradients "
                           "attribution') } catch (e) { return false } })()", timeout=90_000)  # redrawn meanwhile
    wait_idle(page)
    assert "matrix=integrated-gradients" in page.url and "read=" not in page.url
    assert "Integrated gradients over the source" in page.evaluate(TITLE.format(n=1))


def test_a_head_is_picked_and_a_grid_cell_opens_another(server, page, tmp_path):
    text = urllib.parse.quote("A black dog is running on the beach.")
    page.goto(f"{server}/?text={text}&level=subwords&model=transformer&shifted=0")  # the head alone
    page.wait_for_selector(CHART)
    wait_idle(page)
    open_options(page.get_by_role("combobox", name="Attention head"))
    page.get_by_role("option", name="Layer 1, head 2").click()
    page.wait_for_function(f"({TITLE.format(n=0)}).includes('layer 1, head 2')")
    wait_idle(page)
    assert "head=1.2" in page.url
    # The heatmap, then the layer's heads side by side, redrawn with head 2 marked: one small heatmap per head.
    page.wait_for_function("""(() => {
        const grid = document.querySelectorAll('.vega-embed svg')[1];
        return grid && [...grid.querySelectorAll('text')].some(e => e.textContent === '▶ head 2');
    })()""")
    page.locator(".vega-embed").nth(1).locator("g.role-mark path[aria-label*='cell: head 1:']").first.click()
    page.wait_for_function(f"({TITLE.format(n=0)}).includes('layer 1, head 1')")
    wait_idle(page)
    assert "head=1.1" in page.url
    shoot(page, tmp_path, "Transformer_heads")


def test_human_links_lie_over_the_heatmap(server, page, tmp_path):
    page.goto(f"{server}/Human_links?pair=2")
    page.wait_for_selector(CHART)
    wait_idle(page)
    people = ("[...document.querySelector('.vega-embed svg').querySelectorAll('g.role-mark path')]"
              ".map(p => p.getAttribute('aria-label') || '').filter(l => l.includes('link: '))"
              ".map(l => l.split('link: ')[1])")
    page.wait_for_function(f"({people}).length >= 5")  # every link drawn, as the browser gets to it
    links = page.evaluate(people)
    assert sorted(links) == ["Possible (people)"] + ["Sure (people)"] * 4  # four Sure links, one only Possible
    legend = page.locator(".vega-embed").first.locator("g.role-legend-label text").all_text_contents()
    assert legend[-2:] == ["Sure (people)", "Possible (people)"]
    shoot(page, tmp_path, "Human_links_pair")


def test_kinds_switch_a_model_view_panel_opens_and_a_head_is_switched_off(server, page, tmp_path):
    text = urllib.parse.quote("A black dog is running on the beach.")
    page.goto(f"{server}/?text={text}&model=transformer&layers=1")
    page.wait_for_selector(CHART)
    wait_idle(page)
    for kind, name in (("decoder", "decoder self-attention"), ("encoder", "encoder self-attention")):
        page.get_by_role("radio", name=kind, exact=True).click()  # a segmented control's buttons are radios
        page.wait_for_function(f"({TITLE.format(n=0)}).includes('{name.capitalize()} α')")
        wait_idle(page)
        assert f"attn={kind}" in page.url
        assert_no_exception(page)
    # The model view: every layer × head of the kind shown, one panel each; a click opens that panel above.
    model_view = """[...document.querySelectorAll('.vega-embed svg')[2]?.querySelectorAll('text') ?? []]
        .map(t => t.textContent).filter(t => /^(▶ )?layer \\d+ · head \\d+$/.test(t))"""
    page.wait_for_function(f"({model_view}).length > 0")  # drawn after the run ends, as the browser gets to it
    panels = page.evaluate(model_view)
    assert len(panels) == 3 * 4, panels  # the bundled Transformer: 3 decoder… and 3 encoder layers, 4 heads
    page.locator(".vega-embed").nth(2).locator("g.role-mark path[aria-label*='cell: layer 2 · head 3:']").first.click()
    page.wait_for_function(f"({TITLE.format(n=0)}).includes('layer 2, head 3')")
    wait_idle(page)
    assert "head=2.3" in page.url
    shoot(page, tmp_path, "Model_view", page.locator(".vega-embed").nth(2))
    # Switch a head off: the sentence is decoded again and drawn beside the original.
    box = page.get_by_role("combobox", name="Heads to switch off")
    open_options(box)
    page.keyboard.type("encoder self-attention, layer 1, head 1")  # the list starts with the cross-attention's
    page.get_by_role("option", name="encoder self-attention, layer 1, head 1").click()
    page.keyboard.press("Escape")
    page.wait_for_function("document.body.innerText.includes('Without 1 head')")
    wait_idle(page)
    assert "off=encoder.1.1" in page.url
    page.wait_for_function("""(() => {  // both heatmaps, the original's and the one without the head, drawn
        const titles = [...document.querySelectorAll('.vega-embed svg g.role-title-text')].map(t => t.textContent);
        return titles.some(t => t.endsWith('as decoded')) && titles.some(t => t.endsWith('heads off'));
    })()""")


def corpus_page(server, page):
    """The Corpus page, opened after the home page (a first visit straight to a page's URL can meet Streamlit's
    "Page not found" notice while the pages register)."""
    page.goto(server)
    page.wait_for_selector(CHART)
    page.goto(f"{server}/Corpus")
    page.wait_for_selector("[data-testid=stDataFrame]")
    wait_idle(page)


def test_pasted_pairs_make_a_table_sorted_by_disagreement_whose_row_opens_compare(server, page, tmp_path):
    import csv

    from models.decoding.lines import translate_lines
    from models.storage.hub import load_model
    from tests.helpers import synthetic_pairs

    pairs = synthetic_pairs(30, 7)
    corpus_page(server, page)
    page.get_by_text("paste", exact=True).click()
    box = page.get_by_label("One sentence a line, or source TAB reference")
    box.fill("\n".join(f"{s}\t{t}" for s, t in pairs))
    box.press("Control+Enter")
    page.get_by_text("pasted lines: 30 sentences").wait_for()
    wait_idle(page)
    shoot(page, tmp_path, "Corpus")
    with page.expect_download() as download:
        page.get_by_role("button", name="Table (CSV)").click()
    download.value.save_as(tmp_path / "corpus.csv")
    with (tmp_path / "corpus.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 30 and [r["source"] for r in rows] == [s for s, _ in pairs]
    for name, model in (("Additive (Bahdanau)", "additive"), ("Dot-product (scaled)", "dot")):
        loaded = load_model(model)
        assert [r[f"{name} translation"] for r in rows] == translate_lines(loaded.model, loaded.tokenizers,
                                                                           [s for s, _ in pairs], 1)
    grid = page.locator("[data-testid=stDataFrame]").nth(1)  # the summary first, then the table
    headers = grid.locator("[role=columnheader]").all_inner_texts()
    shown = [r.locator("[role=gridcell]").all_inner_texts() for r in grid.locator("[role=row]").all()[1:]]
    jsd = [float(r[headers.index("JSD")]) for r in shown]  # an empty translation has none: sorted last
    assert jsd == sorted(jsd, reverse=True) and jsd[0] == max(float(r["JSD"]) for r in rows if r["JSD"])
    first = shown[0][headers.index("source")]
    grid.scroll_into_view_if_needed()
    frame = grid.bounding_box()
    page.mouse.click(frame["x"] + 15, frame["y"] + 35 + 17)  # the first row's selection box, under the header
    page.get_by_role("button", name="Open on Compare scoring").click()
    page.wait_for_url("**/Compare_scoring?**")
    page.wait_for_selector(CHART)
    wait_idle(page)
    assert page.get_by_label("English sentence").input_value() == first
    assert_no_exception(page)


@pytest.mark.parametrize("name, content, message", [
    ("picture.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8, "is not text in UTF-8"),
    ("big.txt", b"A dog runs on the beach.\n" * 440_000, "11.0 MB; the most read is 10 MB"),  # just over
    ("pairs.tsv", "a dog\tun chien\na cat\tun\tchat\n".encode(), "Line 2: expected two columns"),
])
def test_an_unusable_upload_gets_its_message(server, page, name, content, message):
    corpus_page(server, page)
    page.get_by_text("upload a file", exact=True).click()
    page.locator("[data-testid=stFileUploaderDropzoneInput]").first.set_input_files(
        files=[{"name": name, "mimeType": "application/octet-stream", "buffer": content}])
    page.get_by_text(message).wait_for()
    wait_idle(page)
    assert_no_exception(page)


def test_the_bertviz_page_is_written_when_asked(server, page, tmp_path):
    pytest.importorskip("bertviz", reason="bertviz is an optional extra (requirements-extras.txt)")
    page.goto(f"{server}/?model=transformer&text=A%20dog%20runs.")
    page.wait_for_selector(CHART)
    wait_idle(page)
    with page.expect_download() as download:
        page.get_by_role("button", name="bertviz model view (HTML)").click()
    download.value.save_as(tmp_path / "view.html")
    written = (tmp_path / "view.html").read_text(encoding="utf-8")
    assert "require.js" in written and '"left_text"' in written and '" dog"' in written  # bertviz shows ▁ as a space


@pytest.fixture(scope="module")
def marian_folder(tmp_path_factory):
    """A tiny Marian translator the check builds itself (SentencePiece and weights trained offline)."""
    from tests.hf_helpers import tiny_marian

    return tiny_marian(tmp_path_factory.mktemp("marian"), steps=80)


def test_a_hugging_face_marian_folder_draws_its_heatmap_and_is_named(server, page, marian_folder):
    """In a browser, the Translate page on a Marian folder: no fallback, its heatmap drawn, the model named (every
    page on such a folder renders under AppTest: tests/test_hf_pages.py, and .ci/app_install.py)."""
    query = urllib.parse.urlencode({"model": str(marian_folder), "text": "a dog runs on the beach"})
    page.goto(f"{server}/?{query}")
    page.wait_for_selector(HEATMAP)
    wait_idle(page)
    assert_no_exception(page)
    assert "Using the bundled" not in page.inner_text("body")  # the folder loaded: no fallback
    assert "Marian (Hugging Face)" in page.inner_text("[data-testid=stSidebar]")
