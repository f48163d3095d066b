"""A Streamlit server and the browser that visits it, for the lab's measurements.

``Server`` runs ``streamlit run app.py`` (or another script) in a subprocess on a free port and samples its
resident memory, CPU time and threads from ``/proc`` every 0.2 s; the constants say where Debian's Chromium is,
how it is started (never a downloaded browser), and how a page tells that it has drawn. ``script_runs`` reads the
log ``app.py`` writes with ``ATLAS_RUN_LOG``.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from models import ROOT

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
                 "--disable-component-update", "--disable-sync"]
TRANSLATION = "[...document.querySelectorAll('[data-testid=stText]')].map(e => e.innerText.trim())"
HEATMAP = ".vega-embed .mark-rect.role-mark path"  # the first heatmap's cells, drawn (Vega-Lite, SVG)
HEATMAP_ROWS = ("(() => { const svg = document.querySelector('.vega-embed svg'); const y = svg && [...svg"
                ".querySelectorAll('g.role-axis')].find(a => (a.getAttribute('aria-label') || '')"
                ".startsWith('Y-axis')); return y ? [...y.querySelectorAll('g.role-axis-label text')]"
                ".filter(t => t.textContent).length : -1; })()")
IDLE = "!document.querySelector('[data-testid=stStatusWidget]')"


@dataclass
class Server:
    """``streamlit run app.py`` (or another ``script``) in a subprocess, its memory, CPU and threads sampled every
    0.2 s."""

    python: str = sys.executable
    cpus: str | None = None  # e.g. "0": pin the server with taskset, as on a one-CPU host
    env: dict = field(default_factory=dict)
    script: str = "app.py"  # relative to the repository, or an absolute path
    samples: list = field(default_factory=list)  # (seconds, rss MiB, cpu seconds, threads)

    def __enter__(self) -> Server:
        self.port = _free_port()
        command = [self.python, "-m", "streamlit", "run", self.script, "--server.port", str(self.port),
                   "--server.address", "127.0.0.1", "--server.headless", "true"]
        if self.cpus is not None:
            command = ["taskset", "-c", self.cpus, *command]
        self.proc = subprocess.Popen(command, cwd=ROOT, env={**os.environ, **self.env},
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}"
        self._wait_healthy()
        self._stop = threading.Event()
        threading.Thread(target=self._sample, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self.proc.terminate()
        self.proc.wait(timeout=30)

    def _wait_healthy(self, seconds: float = 90) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                if urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2).read() == b"ok":
                    return
            except OSError:
                time.sleep(0.3)
        self.proc.kill()
        raise RuntimeError("streamlit did not start")

    def _sample(self) -> None:
        ticks = os.sysconf("SC_CLK_TCK")
        start = time.monotonic()
        while not self._stop.is_set():
            try:
                status = Path(f"/proc/{self.proc.pid}/status").read_text()
                stat = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                return
            fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
            self.samples.append((time.monotonic() - start, int(fields["VmRSS"].split()[0]) / 1024,
                                 (int(stat[11]) + int(stat[12])) / ticks, int(fields["Threads"])))
            time.sleep(0.2)

    def peak_rss_mib(self) -> float:
        return max(s[1] for s in self.samples)

    def summary(self) -> str:
        (t0, _, c0, _), (t1, _, c1, _) = self.samples[0], self.samples[-1]
        cpu = 100 * (c1 - c0) / max(t1 - t0, 1e-9)  # percent of one CPU over the whole visit
        return (f"server: peak RSS {self.peak_rss_mib():.0f} MiB, mean CPU {cpu:.0f}%, "
                f"up to {max(s[3] for s in self.samples)} threads")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def script_runs(log: Path, column: int = 1) -> list[float]:
    """Seconds of each finished script run, in order (the log ``app.py`` appends to): wall-clock (column 1) or
    the script thread's CPU time (column 2)."""
    if not log.exists():
        return []
    return [float(line.split("\t")[column]) for line in log.read_text().splitlines() if "\t" in line]
