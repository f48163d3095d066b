"""How long a whole test set's corpus table takes, in this process and on the Corpus page in a browser, and
whether memory stays flat while it is made.

    python -m bench corpus --data ../shared/data

First the table itself (:func:`models.tables.rows.stream`, what the command and the page run) on the image
captions with the additive and dot-product models, in this process on torch's default threads: its seconds, and
this process's resident memory after loading and after each batch. Then the page: it starts ``streamlit run app.py`` with ``ATLAS_DATA`` set to the data folder and, in Chromium, opens the Corpus page
and picks the image captions (Multi30k test_2016_flickr, 1,000 sentences; additive and dot-product, the page's
default pair): the seconds from the click to the drawn table, and the server's resident memory (sampled every
0.2 s) before the click, at each quarter of the run and at its end. Then a server in public mode
(``ATLAS_PUBLIC=1``: 200 sentences, 10 s of work a request) on the same set: the seconds to its table.
"""
from __future__ import annotations

import time

from .server import CHROMIUM, CHROMIUM_ARGS, Server

CAPTIONS = "image captions (Multi30k test_2016_flickr)"


def _tabulate(srv: Server, sentences: int) -> tuple[float, float, float]:
    """Open the Corpus page, pick the captions, wait for their table; returns the seconds it took and when (on the
    server's sampling clock) the click and the table came."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(600_000)
        page.goto(srv.url)
        page.wait_for_selector(".vega-embed svg")
        page.goto(f"{srv.url}/Corpus")
        page.wait_for_selector("[data-testid=stDataFrame]")  # the app's examples, the page's first table
        page.wait_for_timeout(1000)
        clicked, started = srv.samples[-1][0], time.perf_counter()
        page.get_by_text(CAPTIONS, exact=True).click()
        page.get_by_text(f": {sentences:,} sentences").wait_for()
        page.wait_for_selector("[data-testid=stStatusWidget]", state="detached")
        seconds = time.perf_counter() - started
        done = srv.samples[-1][0]
        browser.close()
    return seconds, clicked, done


def _rss_at(srv: Server, t: float) -> float:
    return min(srv.samples, key=lambda s: abs(s[0] - t))[1]


def _rss_mib() -> float:
    return int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) / 1024


def _in_process(data: str) -> None:
    from pathlib import Path

    from models.datasets.sentences import read_folder
    from models.storage.hub import load_model
    from models.tables.rows import sides, stream

    sentences = read_folder(Path(data) / "multi30k", "test_2016_flickr")
    loaded = [load_model("additive"), load_model("dot")]
    chosen = sides(loaded, ["additive", "dot"], [m.reading for m in loaded])
    before, after, started = _rss_mib(), [], time.perf_counter()
    for _, _ in stream(chosen, sentences):
        after.append(_rss_mib())
    print(f"1,000 captions, additive + dot-product, in this process: {time.perf_counter() - started:.1f} s; RSS MiB "
          f"after loading {before:.0f}, after each of the {len(after)} batches "
          + " ".join(f"{r:.0f}" for r in after))


def bench_corpus(data: str) -> None:
    _in_process(data)
    with Server(env={"ATLAS_DATA": data}) as srv:
        seconds, clicked, done = _tabulate(srv, 1000)
        points = [clicked + k * (done - clicked) / 4 for k in range(5)]
        print(f"1,000 captions, additive + dot-product, local: table in {seconds:.1f} s")
        print("server RSS, MiB: before " + ", ".join(f"{_rss_at(srv, t):.0f}" for t in points[:1])
              + " | at ¼, ½, ¾ of the run " + ", ".join(f"{_rss_at(srv, t):.0f}" for t in points[1:4])
              + f" | at the end {_rss_at(srv, done):.0f} | peak {srv.peak_rss_mib():.0f}")
    with Server(env={"ATLAS_DATA": data, "ATLAS_PUBLIC": "1"}) as srv:
        seconds, _, _ = _tabulate(srv, 200)
        print(f"public mode, the first 200 captions: table in {seconds:.1f} s (its limit: 10 s of work)")
