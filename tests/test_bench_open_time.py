"""bench/open_time.py and app.py's run log: every finished script run leaves its own time for the bench; the bare
page and the app each open for a new visitor."""
import os

import pytest

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
    """The machinery of `python -m bench open` (no timing asserts): both servers answer, every time is measured."""
    if not os.path.exists(CHROMIUM) and not os.environ.get("CI"):
        pytest.skip("Debian's chromium is not installed")
    from playwright.sync_api import sync_playwright

    (tmp_path / "bare.py").write_text(BARE)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        bare = open_page(browser, str(tmp_path / "bare.py"), TEXT)
        app = open_page(browser, "app.py", HEATMAP)
        browser.close()
    assert set(bare) == {"healthy", "cold", "new"} and set(app) == {"healthy", "cold", "new", "warm", "submit"}
    assert all(v > 0 for v in [*bare.values(), *app.values()])
