"""How long the app takes to open for a new visitor, beside a bare Streamlit page served the same way.

    python -m bench open --repeats 3
    python -m bench charts --repeats 4

``open``: each repeat starts a new ``streamlit run app.py`` (its start counted apart, to healthy) and, beside it, a
bare Streamlit page (one line of text), and opens each: **cold** (the server's first visitor, in a fresh browser
profile: the server imports and loads, the browser fetches and compiles Streamlit's scripts), **new visitor** (a
fresh profile on the now warm server: nothing of the app in the browser's cache, as for every visitor of a
deployed app), **warm** (a new tab of the cold profile: scripts from its cache), and a **submit** (a new sentence
typed: Enter → its heatmap). The machines differ from day to day, so the goals are read against the bare page
of the same run: a new visitor's first heatmap within 0.5 s of it, cold within 2 s. Beside each app time, the
server's own time for that script run (``ATLAS_RUN_LOG``, written by ``app.py``). Each repeat also opens a page
of one Vega-Lite heatmap (what the chart layer alone costs) and the app served by ``serve.py`` (warmed before its
first visitor: cold and a new visitor), and shows where a new visitor's wait goes (``milestones``).

``charts``: one 14 × 14 heatmap drawn by each chart layer Streamlit can use (Vega-Lite through ``st.altair_chart``;
plotly through ``st.plotly_chart`` where plotly is installed — the app does not need it), beside the bare page,
each a new visitor on a warm server: what a chart library adds to a visitor's first wait.
"""
from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from . import milestones
from .server import CHROMIUM, CHROMIUM_ARGS, HEATMAP, IDLE, Server, script_runs

VIEWPORT = {"width": 1400, "height": 1000}
SUBMITTED = "A young boy is playing football in the park."
TEXT = "[data-testid=stText]"
BARE = 'import streamlit as st\n\nst.text("Attention Atlas")\n'
CHART_PAGES = {  # the module each page needs, what it draws, and the element that says it is drawn
    "vega-lite": ("altair", "import altair as alt, numpy as np, pandas as pd\n"
                  "w = np.random.default_rng(0).random((14, 14))\n"
                  "df = pd.DataFrame([{'t': t, 's': s, 'w': w[t, s]} for t in range(14) for s in range(14)])\n"
                  "st.altair_chart(alt.Chart(df).mark_rect().encode(x='s:O', y='t:O', color='w:Q'))\n",
                  ".vega-embed .mark-rect.role-mark path"),
    "plotly": ("plotly", "import numpy as np, plotly.graph_objects as go\n"
               "st.plotly_chart(go.Figure(go.Heatmap(z=np.random.default_rng(0).random((14, 14)))))\n",
               ".js-plotly-plot .heatmaplayer"),
}


def finished_runs(log: Path, count: int, seconds: float = 60) -> list[float]:
    """The log's run times once it holds ``count`` (a run goes on drawing after its heatmap is on screen)."""
    deadline = time.monotonic() + seconds
    while len(script_runs(log)) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    return script_runs(log)


def visit(context, url: str, drawn: str) -> tuple[float, object]:
    """A new tab of ``context``: ms from navigation until ``drawn`` is on the page, and the page."""
    page = context.new_page()
    page.set_default_timeout(120_000)
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_selector(drawn)
    return 1000 * (time.perf_counter() - start), page


def submit(page) -> float:
    """Type a new sentence and press Enter: ms until its heatmap replaces the old one."""
    page.wait_for_function(IDLE)
    old = page.evaluate(f"document.querySelector('{TEXT}').innerText")
    box = page.get_by_label("English sentence")
    box.fill(SUBMITTED)
    start = time.perf_counter()
    box.press("Enter")
    page.wait_for_function("old => { const c = document.querySelector('[data-testid=stText]');"
                           f" return c && c.innerText !== old && document.querySelector('{HEATMAP}'); }}", arg=old)
    return 1000 * (time.perf_counter() - start)


def open_page(browser, script: str, drawn: str, env: dict | None = None, query: str = "") -> dict:
    """A fresh server of ``script``: ms to healthy, cold open, a new visitor, and the cold profile's page (each
    visit at ``query``, the URL's query string)."""
    start = time.perf_counter()
    with Server(script=script, env=env or {}) as srv:
        healthy = 1000 * (time.perf_counter() - start)
        profile = browser.new_context(viewport=VIEWPORT)
        cold, page = visit(profile, srv.url + query, drawn)
        page.wait_for_function(IDLE)
        stranger = browser.new_context(viewport=VIEWPORT)
        stranger.add_init_script(milestones.MILESTONES)
        new_visitor, seen = visit(stranger, srv.url + query, drawn)
        found = {"healthy": healthy, "cold": cold, "new": new_visitor, "milestones": milestones.read(seen)}
        if script == "app.py":
            found["warm"], page = visit(profile, srv.url + query, drawn)
            page.wait_for_function(IDLE)
            found["submit"] = submit(page)
        profile.close()
        stranger.close()
    return found


def bench_open(repeats: int, model: str | None = None) -> None:
    """``model``: the bundled model (or folder) the app's visits ask for (``?model=``); None: the app's default."""
    from playwright.sync_api import sync_playwright

    query = f"?model={model}" if model else ""
    print(f"{model or 'the default model'}: "
          f"a new visitor's first heatmap, beside a bare Streamlit page and a page of one Vega-Lite heatmap; "
          f"{repeats} fresh servers each; ms from navigation (or Enter) to the first heatmap (the bare page: "
          "its text); script: the server's own time")
    print("| repeat | bare cold | bare new visitor | one chart new visitor | app cold | app new visitor | app warm | "
          "submit | app scripts | serve.py cold | serve.py new visitor |\n" + "|---" * 11 + "|")
    rows = []
    _, code, drawn = CHART_PAGES["vega-lite"]
    with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        (Path(tmp) / "bare.py").write_text(BARE)
        (Path(tmp) / "chart.py").write_text(BARE + code)
        for r in range(repeats):
            log = Path(tmp) / f"runs{r}.log"
            bare = open_page(browser, str(Path(tmp) / "bare.py"), TEXT)
            chart = open_page(browser, str(Path(tmp) / "chart.py"), drawn)
            app = open_page(browser, "app.py", HEATMAP, {"ATLAS_RUN_LOG": str(log)}, query)
            runs = " / ".join(f"{1000 * s:.0f}" for s in finished_runs(log, 4))
            served = open_page(browser, "serve.py", HEATMAP, query=query)  # the app, warmed before its first visitor
            rows.append({"bare": bare, "chart": chart, "app": app, "served": served})
            print(f"| {r + 1} | {bare['cold']:.0f} | {bare['new']:.0f} | {chart['new']:.0f} | {app['cold']:.0f} | "
                  f"{app['new']:.0f} | {app['warm']:.0f} | {app['submit']:.0f} | {runs} | {served['cold']:.0f} | "
                  f"{served['new']:.0f} |", flush=True)
        browser.close()
    summarise(rows)


def summarise(rows: list[dict]) -> None:
    """The medians against the goals, and where a new visitor's wait goes on the app and on the one-chart page."""
    median = {(side, k): statistics.median(row[side][k] for row in rows)
              for side in ("bare", "chart", "app", "served") for k in ("cold", "new")}
    submitted = statistics.median(row["app"]["submit"] for row in rows)
    print(f"median: a new visitor's first heatmap {median['app', 'new']:.0f} ms, "
          f"{median['app', 'new'] - median['bare', 'new']:+.0f} ms beside the bare page (goal ≤ +500; one Vega-Lite "
          f"chart alone: {median['chart', 'new'] - median['bare', 'new']:+.0f}); cold {median['app', 'cold']:.0f} ms, "
          f"{median['app', 'cold'] - median['bare', 'cold']:+.0f} ms beside it (goal ≤ +2000; served by serve.py: "
          f"{median['served', 'cold']:.0f} ms, {median['served', 'cold'] - median['bare', 'cold']:+.0f}); "
          f"submit → heatmap {submitted:.0f} ms (goal ≤ 500)")
    print("\nwhere a new visitor's wait goes (the browser's own clock from navigation; medians): the app | the page "
          "of one Vega-Lite heatmap")
    print(milestones.table([row["app"]["milestones"] for row in rows], [row["chart"]["milestones"] for row in rows]))
    bare_text = statistics.median(row["bare"]["milestones"]["seen"]["first element"] for row in rows)
    print(f"the bare page's text drawn at {bare_text:.0f} ms (same clock)")


def bench_charts(repeats: int) -> None:
    """Each chart layer's page beside the bare one, a new visitor on a warm server each time, in one run."""
    import importlib.util

    from playwright.sync_api import sync_playwright

    servers = {"bare": (BARE, TEXT), **{name: (BARE + code, drawn) for name, (module, code, drawn)
                                        in CHART_PAGES.items() if importlib.util.find_spec(module)}}
    times: dict[str, list[float]] = {name: [] for name in servers}
    with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for name, (code, drawn) in servers.items():
            (Path(tmp) / f"{name}.py").write_text(code)
            with Server(script=str(Path(tmp) / f"{name}.py")) as srv:
                visit(browser.new_context(viewport=VIEWPORT), srv.url, drawn)  # the server warms up
                for _ in range(repeats):
                    context = browser.new_context(viewport=VIEWPORT)
                    times[name].append(visit(context, srv.url, drawn)[0])
                    context.close()
        browser.close()
    print(f"a new visitor (fresh browser profile, warm server), ms to a 14 × 14 heatmap; median of {repeats}")
    print("| page | median | beside the bare page |\n|---|---|---|")
    bare = statistics.median(times["bare"])
    for name, found in times.items():
        print(f"| {name} | {statistics.median(found):.0f} | {statistics.median(found) - bare:+.0f} |")
