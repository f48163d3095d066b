"""This deployment's settings, read from the environment, else Streamlit's secrets, and what they allow
(:mod:`models.views.deployment` decides); the torch threads a server process uses, and the optional log of script
runs the benchmarks read."""
from __future__ import annotations

import os
import time

import streamlit as st
import torch

from models.views.deployment import Deployment, deployment


def setting(name: str) -> str:
    """A deployment setting: the environment variable ``name``, else a root-level Streamlit secret ("" if unset)."""
    if name in os.environ:
        return os.environ[name].strip()
    try:
        return str(st.secrets.get(name, "")).strip()
    except Exception:  # no secrets file: Streamlit raises its own not-found error, which varies by version
        return ""


def now() -> Deployment:
    """What this deployment allows, as its settings say now."""
    return deployment(setting)


def log_run(page: str, started: tuple[float, float]) -> None:
    """With ``ATLAS_RUN_LOG=FILE`` set, append this script run's wall-clock and CPU seconds since ``started``
    (``time.perf_counter()``, ``time.thread_time()``: each session's script runs in a thread of its own, so the CPU
    time is the server's own work, whatever else shares the processor). ``python -m bench open`` and
    ``load`` read the file."""
    path = os.environ.get("ATLAS_RUN_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"{page}\t{time.perf_counter() - started[0]:.4f}\t{time.thread_time() - started[1]:.4f}\n")


def set_serving_threads() -> None:
    """Torch's intra-op threads (``ATLAS_TORCH_THREADS``): sessions run in parallel threads of one process."""
    torch.set_num_threads(now().torch_threads)
