"""bench/open_time.py and app.py's run log: every finished script run leaves its own time for the bench; the bare
page and the app each open for a new visitor."""
import os

import pytest

from bench.milestones import MARKS, blocked, phases, table
from bench.open_time import BARE, TEXT, open_page, script_runs
from bench.server import CHROMIUM, CHROMIUM_ARGS, HEATMAP

from .pages_helpers import APP, page, run_page


def test_each_script_run_is_logged_when_asked(tmp_path, monkeypatch):
    log = tmp_path / "runs.log"
    monkeypatch.setenv("ATLAS_RUN_LOG", str(log))
    at = run_page(page("Score_anatomy"))  # the entry point's first run, then the page's
    assert not at.exception
    at.run()  # a rerun logs again
    names = [line.split("\t")[0] for line in log.read_text().splitlines()]
    assert names == ["home", "Score_anatomy", "Score_anatomy"]
    assert all(0 < seconds < 600 for seconds in script_runs(log))
    assert all(0 < cpu <= wall + 0.05 for wall, cpu in zip(script_runs(log), script_runs(log, column=2)))


def test_no_log_unless_asked(tmp_path, monkeypatch):
    monkeypatch.delenv("ATLAS_RUN_LOG", raising=False)
    monkeypatch.chdir(tmp_path)
    assert not run_page(APP).exception and list(tmp_path.iterdir()) == []
    assert script_runs(tmp_path / "missing.log") == []


def test_a_bare_page_and_the_app_open_for_a_new_visitor(tmp_path):
    """The machinery of `python -m bench open` (no timing asserts): both servers answer, every time is measured.
    Its serve.py leg is the same machinery on another script (serve.py's own start: tests/test_serve.py)."""
    if not os.path.exists(CHROMIUM) and not os.environ.get("CI"):
        pytest.skip("Debian's chromium is not installed")
    from playwright.sync_api import sync_playwright

    (tmp_path / "bare.py").write_text(BARE)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        bare = open_page(browser, str(tmp_path / "bare.py"), TEXT)
        app = open_page(browser, "app.py", HEATMAP)
        browser.close()
    times = {"healthy", "cold", "new"}
    assert set(bare) == times | {"milestones"} and set(app) == times | {"milestones", "warm", "submit"}
    assert all(bare[k] > 0 for k in times) and all(app[k] > 0 for k in times | {"warm", "submit"})
    assert set(app["milestones"]["seen"]) == set(MARKS)  # every milestone of the app's first heatmap was seen
    cut = phases(app["milestones"])
    assert cut["first element"] > 0 and cut["→ chart mounted"] >= 0 and cut["→ heatmap drawn"] >= 0
    assert cut["vega-embed arrived"] >= cut["vega-embed requested"] > 0


def test_long_tasks_are_cut_at_the_phase_boundaries():
    tasks = [(0.0, 100.0), (150.0, 100.0), (400.0, 50.0)]  # [start, duration] as the browser reports them
    assert blocked(tasks, 0, 1000) == 250
    assert blocked(tasks, 50, 200) == 50 + 50  # the second half of the first, the first half of the second
    assert blocked(tasks, 260, 390) == 0


def test_the_table_gives_each_pages_median_and_marks_what_a_page_lacks():
    def visit(first, mounted, drawn, chunks):
        return {"seen": {"first element": first, "chart mounted": mounted, "heatmap drawn": drawn},
                "tasks": [], "chunks": chunks, "requests": []}
    app = [visit(1000, 1800, 2000, {"vega-embed": [1100, 1700, 9]}), visit(1200, 2000, 2300, {"vega-embed": None})]
    lines = table(app, app[:1]).splitlines()
    assert lines[0] == "| phase | median ms | median ms |"
    assert "| first element | 1100 | 1000 |" in lines and "| → heatmap drawn | 250 | 200 |" in lines
    assert "| vega-embed arrived | – | 1700 |" in lines  # a phase one visit of the app lacks has no median


def test_the_scripts_the_elements_asked_for_are_counted_and_those_ahead_of_the_chart():
    requests = [("/static/js/index.js", 40.0), ("/_stcore/host-config", 800.0), ("/static/js/Selectbox.js", 900.0),
                ("/static/media/font.woff2", 905.0), ("/static/js/ArrowVegaLiteChart.x.js", 950.0),
                ("/static/js/embed.y.js", 951.0), ("/static/js/Slider.js", 1200.0)]
    found = {"seen": {"first element": 890, "chart mounted": 1300, "heatmap drawn": 1400}, "tasks": [],
             "requests": requests, "chunks": {"chart component": [950.0, 1100.0], "vega-embed": [951.0, 1200.0]}}
    cut = phases(found)
    assert cut["scripts the elements asked for"] == 4  # not the page's own bundle, not the font
    assert cut["of them asked for before the chart component"] == 1
