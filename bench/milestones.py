"""Where a visitor's first wait goes, read from the browser itself: when each part of the page appeared, when the
chart scripts arrived (Resource Timing), and how long the main thread was blocked before and after (Long Tasks).

``MILESTONES`` is an init script: it runs before any of the page's own scripts, so a ``MutationObserver`` sees each
element the moment React puts it in the page and a ``PerformanceObserver`` sees every long task (≥ 50 ms of main
thread work: compiling a script, running Vega, laying out). All times are ms from navigation start
(``performance.now()``), the same clock for every page, bare or app.
"""
from __future__ import annotations

import statistics

MARKS = {  # milestone → the element that says it has happened (the first match wins)
    # the session runs: the script's first output is drawn (a title, the Translate page's caption, a text)
    "first element": "h1, [data-testid=stCaptionContainer], [data-testid=stText]",
    "chart mounted": "[data-testid=stVegaLiteChart]",  # the chart's delta arrived and its component loaded
    "heatmap drawn": ".vega-embed .mark-rect.role-mark path",  # Vega has drawn the cells
}
CHUNKS = {"chart component": "/ArrowVegaLiteChart.", "vega-embed": "/embed."}  # scripts fetched on first use

MILESTONES = """
(() => {
  const marks = %s, seen = {}, tasks = [];
  window.__atlas = {seen, tasks};
  new PerformanceObserver(list => list.getEntries().forEach(e => tasks.push([e.startTime, e.duration])))
    .observe({type: 'longtask', buffered: true});
  const look = () => { for (const [name, css] of Object.entries(marks))
    if (!(name in seen) && document.querySelector(css)) seen[name] = performance.now(); };
  new MutationObserver(look).observe(document, {childList: true, subtree: true});
})();
""" % repr(MARKS).replace("'", '"')

READ = """chunks => ({seen: window.__atlas.seen, tasks: window.__atlas.tasks,
  requests: performance.getEntriesByType('resource').map(r => [r.name, r.startTime]),
  chunks: Object.fromEntries(Object.entries(chunks).map(([name, part]) => {
    const e = performance.getEntriesByType('resource').find(r => r.name.includes(part));
    return [name, e ? [e.startTime, e.responseEnd] : null]; }))})"""
SESSION_START = "/_stcore/host-config"  # fetched just before the session opens; what comes after, elements ask for


def read(page) -> dict:
    """The page's milestones, long tasks and chart chunks, once it has drawn what the visit waited for."""
    return page.evaluate(READ, CHUNKS)


def blocked(tasks: list, start: float, end: float) -> float:
    """ms of long tasks (their part) between ``start`` and ``end``."""
    return sum(max(0.0, min(s + d, end) - max(s, start)) for s, d in tasks)


def phases(found: dict) -> dict[str, float]:
    """One visit cut into what a reader can act on: ms in each phase, and the main thread's long tasks in it."""
    seen, tasks = found["seen"], found["tasks"]
    first, mounted, drawn = (seen.get(name) for name in MARKS)
    out = {"first element": first, "→ chart mounted": mounted - first, "→ heatmap drawn": drawn - mounted,
           "long tasks before first element": blocked(tasks, 0, first),
           "long tasks first → mounted": blocked(tasks, first, mounted),
           "long tasks mounted → drawn": blocked(tasks, mounted, drawn)}
    for name, entry in found["chunks"].items():
        if entry:  # requested when the first chart's delta arrives; compiled in the long tasks after it arrived
            out[f"{name} requested"], out[f"{name} arrived"] = entry[0], entry[1]
    opened = next((t for url, t in found["requests"] if SESSION_START in url), None)
    if opened is not None:  # the scripts the page's elements asked for, and how many of them the chart's queue behind
        asked = [t for url, t in found["requests"] if t > opened and url.endswith(".js")]
        out["scripts the elements asked for"] = len(asked)
        chart = found["chunks"].get("chart component")
        if chart:
            out["of them asked for before the chart component"] = sum(t < chart[0] for t in asked)
    return out


def table(*pages: list[dict]) -> str:
    """Medians over each page's visits of each phase, as a Markdown table (one column a page; – where a page's
    visits do not all have it)."""
    medians = [{n: statistics.median(p[n] for p in visits) for n in visits[0] if all(n in p for p in visits)}
               for visits in ([phases(v) for v in page] for page in pages)]
    names = list(dict.fromkeys(n for m in medians for n in m))  # every page's phases, in order
    return (f"| phase |{' median ms |' * len(pages)}\n|---|{'---|' * len(pages)}\n" + "\n".join(
        f"| {n} | " + " | ".join(f"{m[n]:.0f}" if n in m else "–" for m in medians) + " |" for n in names))
