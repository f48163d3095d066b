"""How long the app takes to open, measured in a real browser against a fresh server.

    python -m bench open --repeats 3

Each repeat starts a new ``streamlit run app.py`` (its start counted apart, to healthy), then opens the home page:
**cold** (the server's first visitor, in a fresh browser profile: the server imports, loads the model and runs the
page for the first time, the browser fetches and compiles Streamlit's scripts), **warm** (the app opened again in
a new tab of that browser: a new session, scripts from the browser's cache), **new visitor** (a fresh browser
profile on the now warm server), and a **submit** (a new sentence typed in the warm tab). Each time runs from
navigation (or Ctrl+Enter) to the first heatmap drawn; beside it, the server's own time for that script run
(``ATLAS_RUN_LOG``, written by ``app.py``) and the bytes received over Streamlit's websocket. The browser is
launched before the server, so its start is not counted.
"""
from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from .browser import CHROMIUM, CHROMIUM_ARGS, HEATMAP, IDLE, Server, script_runs

VIEWPORT = {"width": 1400, "height": 1000}
SUBMITTED = "A young boy is playing football in the park."


def finished_runs(log: Path, count: int, seconds: float = 60) -> list[float]:
    """The log's run times once it holds ``count`` (a run goes on drawing after its heatmap is on screen)."""
    deadline = time.monotonic() + seconds
    while len(script_runs(log)) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    return script_runs(log)


def visit(context, url: str) -> tuple[float, int, object]:
    """A new tab of ``context``: navigation → heatmap (ms), websocket bytes received by then, and the page."""
    page = context.new_page()
    page.set_default_timeout(120_000)
    received = [0]
    page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: received.__setitem__(
        0, received[0] + len(frame))))
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_selector(HEATMAP)
    return 1000 * (time.perf_counter() - start), received[0], page


def submit(page) -> float:
    """Type a new sentence and press Ctrl+Enter: ms until its heatmap replaces the old one."""
    page.wait_for_function(IDLE)
    old = page.evaluate("document.querySelector('[data-testid=stText]').innerText")
    box = page.get_by_label("English sentence")
    box.fill(SUBMITTED)
    start = time.perf_counter()
    box.press("Control+Enter")
    page.wait_for_function("old => { const c = document.querySelector('[data-testid=stText]');"
                           f" return c && c.innerText !== old && document.querySelector('{HEATMAP}'); }}", arg=old)
    return 1000 * (time.perf_counter() - start)


def one_repeat(browser) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "runs.log"
        start = time.perf_counter()
        with Server(env={"ATLAS_RUN_LOG": str(log)}) as srv:
            healthy = 1000 * (time.perf_counter() - start)
            profile = browser.new_context(viewport=VIEWPORT)
            cold, cold_bytes, page = visit(profile, srv.url)
            page.wait_for_function(IDLE)
            warm, _, page = visit(profile, srv.url)
            page.wait_for_function(IDLE)
            submitted = submit(page)
            runs = finished_runs(log, 3)
            stranger = browser.new_context(viewport=VIEWPORT)
            new_visitor, _, _ = visit(stranger, srv.url)
            profile.close()
            stranger.close()
    return {"healthy": healthy, "cold": cold, "warm": warm, "new": new_visitor, "submit": submitted,
            "cold_kb": cold_bytes / 1024, "runs": runs}


def bench_open(repeats: int) -> None:
    from playwright.sync_api import sync_playwright

    print(f"opening the app, {repeats} fresh servers; ms from navigation (or Ctrl+Enter) to the first heatmap; "
          "script: the server's own time for that run; KiB: websocket bytes received by then")
    print("| repeat | server start → healthy | cold open | cold script | warm open | warm script | new visitor | "
          "submit | submit script | cold KiB |\n|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for r in range(repeats):
            row = one_repeat(browser)
            rows.append(row)
            runs = row["runs"] + [float("nan")] * 3
            print(f"| {r + 1} | {row['healthy']:.0f} | {row['cold']:.0f} | {1000 * runs[0]:.0f} | {row['warm']:.0f} | "
                  f"{1000 * runs[1]:.0f} | {row['new']:.0f} | {row['submit']:.0f} | {1000 * runs[2]:.0f} | "
                  f"{row['cold_kb']:.0f} |", flush=True)
        browser.close()
    medians = {k: statistics.median(r[k] for r in rows) for k in ("cold", "warm", "new", "submit")}
    print(f"median: cold open {medians['cold']:.0f} ms, warm open {medians['warm']:.0f} ms, new visitor "
          f"{medians['new']:.0f} ms, submit → heatmap {medians['submit']:.0f} ms")
