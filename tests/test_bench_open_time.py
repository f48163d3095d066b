"""bench/open_time.py and app.py's run log: every finished script run leaves its own time for the bench."""
from bench.open_time import script_runs

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
