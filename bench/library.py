"""The atlas as a library (:mod:`models.atlas`): what a notebook waits for, each step in a fresh Python process.

    python -m bench library --repeats 5

Rows: ``from models import atlas`` alone (the goal: ≤ 2 s, no Streamlit); then README's five lines on the default
model (load, translate, heatmap, a matrix's links), the import included. Each process is timed from its start to
its last line (``time.perf_counter`` inside, so the interpreter's own start is left out), so the figures compare
only within one run on one machine.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys

from models import ROOT

IMPORT = "from models import atlas"
FIVE = (IMPORT + "; model = atlas.load('transformer'); seen = model.translate('A dog runs on the beach.'); "
        "seen.heatmap().to_dict(); seen.read('fit to human links').links()")
STEPS = {"import the library": IMPORT, "the five lines": FIVE}


def timed(code: str) -> tuple[float, bool]:
    """Seconds ``code`` takes in a fresh interpreter, and whether it imported Streamlit."""
    probe = (f"import time, sys, json; start = time.perf_counter(); {code}; "
             "print(json.dumps([time.perf_counter() - start, 'streamlit' in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    seconds, streamlit = json.loads(out.stdout.strip().splitlines()[-1])
    return seconds, streamlit


def bench_library(repeats: int) -> None:
    print(f"| step | median s | slowest s | of {repeats} fresh processes | imports Streamlit |")
    print("|---|---|---|---|---|")
    for name, code in STEPS.items():
        runs = [timed(code) for _ in range(repeats)]
        seconds = [s for s, _ in runs]
        print(f"| {name} | {statistics.median(seconds):.2f} | {max(seconds):.2f} | {repeats} | "
              f"{'yes' if any(s for _, s in runs) else 'no'} |")
