"""The running app measured from real browsers, as Streamlit's own load tests do.

    python -m bench load --sessions 1 4 8     # concurrent sessions typing sentences
    python -m bench step                      # step slider: key press → settled

One ``streamlit run app.py`` server; one Debian Chromium (Playwright, never a
downloaded browser) with a fresh context per session. While sessions run, the
server's resident memory, CPU and thread count are sampled from ``/proc``.
Each session opens the home page (load time: navigation → first heatmap), then
types its own sentences one after another (rerun time: Enter → the
translation and a heatmap with one row per output word on screen). Every
translation a browser shows must equal what ``python -m models.translate``
writes for that sentence, else the session counts as failed.

Nothing here imports Streamlit: the app runs in its own process, as users run it.
"""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from models import ROOT

from .server import CHROMIUM, CHROMIUM_ARGS, HEATMAP, HEATMAP_ROWS, IDLE, TRANSLATION, Server, script_runs


def expected_translations(sentences: list[str], model: str = "additive") -> dict[str, str]:
    """What the command-line translator writes for each sentence (greedy, as the app's default)."""
    done = subprocess.run([sys.executable, "-m", "models.translate", "--model", model], cwd=ROOT, check=True,
                          input="\n".join(sentences) + "\n", capture_output=True, text=True, timeout=600)
    return dict(zip(sentences, done.stdout.splitlines()))


def heatmap_rows(sentences: list[str], model: str = "additive") -> dict[str, int]:
    """Rows of the word-level heatmap (output words and EOS) the page must draw for each sentence."""
    from models.analysis.heatmaps import word_heatmap
    from models.decoding.greedy import greedy
    from models.storage.hub import load_model

    loaded = load_model(model, device="cpu")
    traces = [greedy(loaded.model, loaded.tokenizers, s) for s in sentences]
    return {s: len(word_heatmap(t, t.read(loaded.reading)).rows) for s, t in zip(sentences, traces)}


@dataclass
class SessionResult:
    load_ms: float | None = None
    rerun_ms: list = field(default_factory=list)
    error: str | None = None


async def _session(browser, url: str, sentences: list[str], expected: dict, rows: dict, out: SessionResult) -> None:
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    page.set_default_timeout(120_000)
    try:
        start = time.perf_counter()
        await page.goto(url)
        await page.wait_for_selector(HEATMAP)
        out.load_ms = 1000 * (time.perf_counter() - start)
        await page.wait_for_function(IDLE)
        box = page.get_by_label("English sentence")
        for sentence in sentences:
            await box.fill(sentence)
            start = time.perf_counter()
            await box.press("Enter")
            await page.wait_for_function(f"([text, rows]) => {TRANSLATION}.includes(text) && ({HEATMAP_ROWS}) === rows",
                                         arg=[expected[sentence], rows[sentence]])
            out.rerun_ms.append(1000 * (time.perf_counter() - start))
            await page.wait_for_function(IDLE)  # the rest of the page, before the next sentence
    except Exception as e:  # a timeout here means the page never showed the CLI's translation
        shown = await page.evaluate(TRANSLATION) if not page.is_closed() else []
        typed = await page.get_by_label("English sentence").input_value() if not page.is_closed() else ""
        out.error = (f"{type(e).__name__} (page shows {shown[:1]} for {typed[:80]!r}): "
                     f"{str(e).splitlines()[0][:200]}")
    finally:
        await context.close()


#: What the attributing visitor asks for, one new sentence after another (each computed afresh): 16 words,
#: integrated gradients inside the public limit.
ATTRIBUTED = "A young man in sneakers number {} is sitting on a bench beside a river in the old town"


async def _attributor(browser, url: str, stop: asyncio.Event, done: list[float]) -> None:
    """A visitor asking for integrated gradients of new sentences until ``stop``; ``done`` gets each one's ms."""
    import urllib.parse

    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    page.set_default_timeout(300_000)
    n = 0
    while not stop.is_set():
        n += 1
        start = time.perf_counter()
        await page.goto(f"{url}/?read=integrated-gradients&text={urllib.parse.quote(ATTRIBUTED.format(n))}")
        await page.wait_for_selector(HEATMAP)
        await page.wait_for_function(IDLE)
        done.append(1000 * (time.perf_counter() - start))
    await context.close()


async def _sessions(url: str, plans: list[list[str]], expected: dict, rows: dict,
                    attribution: bool = False) -> tuple[list[SessionResult], list[float]]:
    """The typing sessions at once, and with ``attribution`` one more visitor asking for integrated gradients
    all the while; returns the sessions' results and the attributions' times."""
    from playwright.async_api import async_playwright

    results, attributed, stop = [SessionResult() for _ in plans], [], asyncio.Event()
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        beside = asyncio.create_task(_attributor(browser, url, stop, attributed)) if attribution else None
        await asyncio.gather(*(_session(browser, url, plan, expected, rows, r) for plan, r in zip(plans, results)))
        stop.set()
        if beside is not None:
            await beside
        await browser.close()
    return results, attributed


def sentence_plans(sessions: int, per_session: int) -> list[list[str]]:
    """Different curated sentences for every session (the first example is the page's default, so it is skipped)."""
    from models.storage.examples import load_examples

    pool = [e.text for e in load_examples()][1:]
    if sessions * per_session > len(pool):
        raise ValueError(f"at most {len(pool)} distinct sentences: lower --sessions or --sentences")
    return [pool[i * per_session:(i + 1) * per_session] for i in range(sessions)]


def load_test(sessions: int, per_session: int = 3, server: Server | None = None,
              attribution: bool = False) -> tuple[list[SessionResult], Server, list[float]]:
    """Run ``sessions`` browser sessions at once against one server (with ``attribution``, beside a visitor asking
    for integrated gradients); returns their results, the server and the attributions' times."""
    plans = sentence_plans(sessions, per_session)
    flat = [s for plan in plans for s in plan]
    expected, rows = expected_translations(flat), heatmap_rows(flat)
    with server or Server() as srv:
        results, attributed = asyncio.run(_sessions(srv.url, plans, expected, rows, attribution))
    return results, srv, attributed


def percentiles(values: list[float]) -> str:
    """p50 / p95 / p99 by nearest rank."""
    if not values:
        return "–"
    ordered = sorted(values)
    pick = [ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))] for q in (50, 95, 99)]
    return " / ".join(f"{v:.0f}" for v in pick)


def bench_load(session_counts: list[int], per_session: int, threads: str | None, cpus: str | None,
               attribution: bool = False) -> None:
    import tempfile

    env = {"ATLAS_TORCH_THREADS": threads, "ATLAS_PUBLIC": "1"} if threads else {"ATLAS_PUBLIC": "1"}
    print(f"load test: {per_session} sentences per session; server torch threads: {threads or 'app default'}; "
          f"server CPUs: {cpus or 'all'} of {os.cpu_count()}; times in ms, p50 / p95 / p99; script: each script "
          "run on the server (the first, cold one left out), wall-clock and its thread's CPU time")
    print("| sessions | failed | load (open → heatmap) | rerun (submit → heatmap) | script wall | script CPU | server "
          "peak RSS MiB | mean server CPU | max threads | integrated gradients beside |\n"
          "|---|---|---|---|---|---|---|---|---|---|")
    for n, beside in [(n, b) for n in session_counts for b in ((False, True) if attribution else (False,))]:
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "runs.log"
            results, srv, attributed = load_test(n, per_session, Server(cpus=cpus, env={**env, "ATLAS_RUN_LOG":
                                                                                         str(log)}), beside)
            scripts = [1000 * seconds for seconds in script_runs(log)[1:]]
            cpu_ms = [1000 * seconds for seconds in script_runs(log, column=2)[1:]]
        failed = [r.error for r in results if r.error]
        reruns = [ms for r in results for ms in r.rerun_ms]
        cpu = srv.summary().split("mean CPU ")[1].split(",")[0]
        asked = f"{len(attributed)} done, {percentiles(attributed)} ms" if beside else "none"
        print(f"| {n} | {len(failed)} | {percentiles([r.load_ms for r in results if r.load_ms])} | "
              f"{percentiles(reruns)} | {percentiles(scripts)} | {percentiles(cpu_ms)} | {srv.peak_rss_mib():.0f} | "
              f"{cpu} | {max(s[3] for s in srv.samples)} | {asked} |", flush=True)
        for error in failed:
            print(f"  failed session: {error}")


async def _step_presses(url: str, presses: int) -> list[float]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = await browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(60_000)
        await page.goto(f"{url}/?text=A%20little%20girl%20in%20a%20red%20dress%20is%20playing%20with%20a%20ball.")
        await page.wait_for_selector(HEATMAP)
        await page.wait_for_function(IDLE)
        slider, times = page.get_by_role("slider").first, []
        await slider.focus()
        for i in range(presses):
            key, step = ("ArrowRight", i % 8 + 2) if (i // 8) % 2 == 0 else ("ArrowLeft", 8 - i % 8)
            start = time.perf_counter()
            await slider.press(key)
            await page.wait_for_function(f"document.body.innerText.includes('Step {step} wrote')")
            shown = 1000 * (time.perf_counter() - start)
            await page.wait_for_function(IDLE)
            times.append((shown, 1000 * (time.perf_counter() - start)))
        await browser.close()
    return times


def bench_step(presses: int) -> None:
    with Server() as srv:
        times = asyncio.run(_step_presses(srv.url, presses))
    shown, settled = zip(*times)
    print(f"step slider over {presses} key presses, ms p50 / p95 / p99: new step shown {percentiles(shown)}; "
          f"step explorer and what-if settled {percentiles(settled)}; {srv.summary()}")
