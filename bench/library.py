"""The atlas as a library (:mod:`models.atlas`): what a notebook waits for, each step in a fresh Python process;
and README's pip line in a fresh virtual environment.

    python -m bench library --repeats 5
    python -m bench install      # pip install "attention-atlas @ git+file://<this clone>": its time, its size, and
                                 # the five lines there, offline, on every bundled model

Rows: ``from models import atlas`` alone (the goal: ≤ 2 s, no Streamlit); then README's five lines on the default
model (load, translate, heatmap, a matrix's links), the import included. Each process is timed from its start to
its last line (``time.perf_counter`` inside, so the interpreter's own start is left out), so the figures compare
only within one run on one machine.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from models import ROOT
from models.storage.hub import bundled_models

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


def five_lines_in(python: str | Path, cwd: str | Path, refs: list[str]) -> list[tuple[str, float, str]]:
    """README's five lines on each model of ``refs`` in the interpreter ``python`` (run from ``cwd``, the Hub
    offline): each model, its seconds (load to links) and its translation."""
    code = ("import json, sys, time; from models import atlas; rows = []\n"
            "for ref in sys.argv[1:]:\n"
            "    s = time.perf_counter(); model = atlas.load(ref)\n"
            "    seen = model.translate('Un chien court sur la plage.' if model.languages[0] == 'fr' else "
            "'A dog runs on the beach.')\n"
            "    seen.heatmap().to_dict(); seen.read(model.matrices[0]).links()\n"
            "    rows.append([ref, time.perf_counter() - s, seen.translation])\n"
            "print(json.dumps(rows))")
    out = subprocess.run([str(python), "-c", code, *refs], cwd=cwd, capture_output=True, text=True,
                         check=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    return [tuple(row) for row in json.loads(out.stdout.strip().splitlines()[-1])]


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) / 2**20


def bench_install() -> None:
    """README's pip line against this clone's last commit (git+file://, as git+https fetches a repository), in a
    fresh venv whose pip is first brought up to date: its wall time and the venv's size; then the five lines."""
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
        subprocess.run([*pip, "-U", "pip"], check=True, capture_output=True)
        start = time.perf_counter()
        subprocess.run([*pip, f"attention-atlas @ git+file://{ROOT}"], check=True, cwd=tmp, capture_output=True)
        print(f"| pip line | {time.perf_counter() - start:.0f} s | venv {size_mb(venv):,.0f} MB |")
        for ref, seconds, translation in five_lines_in(venv / "bin" / "python", tmp, bundled_models()):
            print(f"| {ref} | {seconds:.1f} s | {translation} |")
