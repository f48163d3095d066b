"""A Streamlit Community Cloud rehearsal on this machine.

    python -m bench.rehearsal            # needs uv (pip install uv) and Debian's chromium

Does what Community Cloud does, as closely as one machine can: a fresh virtual
environment installed with ``uv pip install -r requirements.txt``, then
``streamlit run serve.py`` (the deploy's main file) pinned to one CPU (``taskset -c 0``) in public mode,
then Chromium visiting every page (Compare scoring loads both models). Prints
the install's size and time, the time to the first heatmap, and the server's
peak resident memory with every page visited.

Where PyTorch's CPU index cannot be reached (this project's machines reach
PyPI only), the rehearsal says so and installs the same ``torch 2.13.0+cpu``
wheel from the local folders in ``PIP_FIND_LINKS`` instead.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from .server import CHROMIUM, CHROMIUM_ARGS, HEATMAP, IDLE, ROOT, Server

PAGES = ("", "Compare_scoring", "Context_vectors", "Score_anatomy", "Learning", "Human_links", "Models_and_results")
INDEX_OPTION = "--extra-index-url"


def uv_command() -> list[str]:
    if shutil.which("uv"):
        return ["uv"]
    try:
        import uv  # noqa: F401  (the PyPI package ships the binary)

        return [sys.executable, "-m", "uv"]
    except ImportError:
        raise SystemExit("the rehearsal installs with uv, as Community Cloud does: pip install uv") from None


def reachable(url: str) -> bool:
    try:
        urllib.request.urlopen(url, timeout=10)
        return True
    except OSError:
        return False


def requirements_for_here(workdir: Path) -> tuple[Path, list[str]]:
    """requirements.txt, or a copy whose unreachable extra indexes give way to PIP_FIND_LINKS folders."""
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    indexes = [line.split()[1] for line in lines if line.startswith(INDEX_OPTION)]
    unreachable = [url for url in indexes if not reachable(url.rstrip("/") + "/torch/")]
    if not unreachable:
        return ROOT / "requirements.txt", []
    folders = [f for f in os.environ.get("PIP_FIND_LINKS", "").split() if Path(f).is_dir()]
    print(f"note: {', '.join(unreachable)} cannot be reached from here; installing torch from "
          f"{', '.join(folders) or 'PyPI (no local wheel folder in PIP_FIND_LINKS)'} instead")
    copy = workdir / "requirements.txt"
    kept = [line for line in lines if not (line.startswith(INDEX_OPTION) and line.split()[1] in unreachable)]
    copy.write_text("\n".join(line.replace("-r ", f"-r {ROOT}/", 1) if line.startswith("-r ") else line
                              for line in kept))
    return copy, [arg for f in folders for arg in ("--find-links", f)]


def install(venv: Path, workdir: Path) -> float:
    """Seconds to create the venv and install the deploy requirements with uv."""
    requirements, extra = requirements_for_here(workdir)
    uv = uv_command()
    start = time.perf_counter()
    subprocess.run([*uv, "venv", "--quiet", "--python", sys.executable, str(venv)], check=True)
    subprocess.run([*uv, "pip", "install", "--quiet", "--no-cache", "--python", str(venv / "bin" / "python"), "-r",
                    str(requirements), *extra], check=True, cwd=ROOT)
    return time.perf_counter() - start


def size_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink()) / 1e6


def visit_every_page(url: str) -> float:
    """Open each page in Chromium; returns seconds from opening the home page to its first heatmap."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(180_000)
        start = time.perf_counter()
        page.goto(url)
        page.wait_for_selector(HEATMAP)
        first_heatmap = time.perf_counter() - start
        for name in PAGES:
            page.goto(f"{url}/{name}")
            page.wait_for_selector("h1")
            page.wait_for_timeout(500)
            page.wait_for_function(IDLE)
            if page.locator("[data-testid='stException']").count():
                raise SystemExit(f"page {name or 'Home'} raised an exception")
        browser.close()
    return first_heatmap


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.rehearsal", description=__doc__.split("\n")[0])
    p.add_argument("--keep", action="store_true", help="keep the virtual environment (its path is printed)")
    args = p.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="atlas-rehearsal-"))
    venv = workdir / "venv"
    try:
        seconds = install(venv, workdir)
        print(f"install: {seconds:.0f} s, {size_mb(venv):,.0f} MB in the virtual environment", flush=True)
        with Server(python=str(venv / "bin" / "python"), cpus="0", env={"ATLAS_PUBLIC": "1"},
                    script="serve.py") as server:
            first = visit_every_page(server.url)
        print(f"time to first heatmap (cold server, one CPU): {first:.1f} s")
        print(f"with every page visited: {server.summary()}")
    finally:
        if args.keep:
            print(f"kept {venv}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
