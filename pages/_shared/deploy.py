"""How this deployment is set up: its settings (environment or Streamlit secrets), who may load what, the torch
threads a server process uses, and the optional log of script runs the benchmarks read."""
from __future__ import annotations

import os
import time
from pathlib import Path

import streamlit as st
import torch

from models.storage.hub import DEFAULT_MODEL, LoadPolicy
from models.storage.load_limits import (
    DOWNLOAD_SETTING,
    PARAMETERS_SETTING,
    PUBLIC_MAX_DOWNLOAD_MB,
    PUBLIC_MAX_PARAMETERS,
)


def setting(name: str, default: str = "") -> str:
    """A deployment setting: the environment variable ``name``, else a root-level Streamlit secret."""
    if name in os.environ:
        return os.environ[name].strip()
    try:
        return str(st.secrets.get(name, default)).strip()
    except Exception:  # no secrets file: Streamlit raises its own not-found error, which varies by version
        return default


def public() -> bool:
    """Public mode (``ATLAS_PUBLIC=1``): strangers share this server."""
    return setting("ATLAS_PUBLIC").lower() in {"1", "true", "yes", "on"}


def _number(name: str, default: float) -> float:
    try:
        return float(setting(name, str(default)))
    except ValueError:
        return default


PUBLIC_HUB_DISK_MB = 2000.0  # six opus-mt models of 301 MB beside the two kept in memory, the rest deleted


def load_policy() -> LoadPolicy:
    """Public mode: bundled models and Hub ids only, optionally an allow-list of Hub ids, the Hub downloads' disk
    bounded (``ATLAS_HUB_DISK_MB``: on a public server :data:`PUBLIC_HUB_DISK_MB` unless set), and a translator's
    parameters and download within the public caps unless set (``ATLAS_MAX_PARAMETERS``,
    ``ATLAS_MAX_DOWNLOAD_MB``). On one's own machine the caps follow its memory (:mod:`models.storage.load_limits`)."""
    allow = {r.strip() for r in setting("ATLAS_HUB_ALLOW").split(",") if r.strip()}
    disk = PUBLIC_HUB_DISK_MB if public() else None
    if setting("ATLAS_HUB_DISK_MB"):
        disk = _number("ATLAS_HUB_DISK_MB", PUBLIC_HUB_DISK_MB)
    own = LoadPolicy()  # one's own machine's caps, from its memory and environment
    parameters, download_mb = ((PUBLIC_MAX_PARAMETERS, PUBLIC_MAX_DOWNLOAD_MB) if public()
                               else (own.max_parameters, own.max_download_mb))
    return LoadPolicy(local_paths=not public(), hub_allow=frozenset(allow) if allow else None,
                      max_download_mb=_number(DOWNLOAD_SETTING, download_mb),
                      max_parameters=int(_number(PARAMETERS_SETTING, parameters)), max_cache_mb=disk,
                      dtype=own.dtype)


HUB_MODELS_KEPT = 2  # Hub models a server holds at once, the least recently used let go first


def hub_models_kept() -> int:
    """How many Hub models this server keeps loaded (``ATLAS_HUB_MODELS``, default :data:`HUB_MODELS_KEPT`)."""
    return max(1, int(_number("ATLAS_HUB_MODELS", HUB_MODELS_KEPT)))


PUBLIC_ATTRIBUTION_S = 10.0  # the most one request's attribution may take on a public server, one thread


def attribution_limit_s() -> float | None:
    """The seconds of attribution one request may ask for (``ATLAS_ATTRIBUTION_LIMIT_S``): on a public server
    :data:`PUBLIC_ATTRIBUTION_S` unless set, so no visitor holds it for long; on one's own machine, no limit
    unless set (a progress bar shows how far it is)."""
    if setting("ATLAS_ATTRIBUTION_LIMIT_S"):
        return _number("ATLAS_ATTRIBUTION_LIMIT_S", PUBLIC_ATTRIBUTION_S)
    return PUBLIC_ATTRIBUTION_S if public() else None


#: The data folder beside the project (``../shared/data``): test sets and the human-aligned gold, never bundled.
DEFAULT_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
PUBLIC_CORPUS = (200, 10.0)  # sentences, seconds of work: what one visitor's corpus table may take on a public server


def data_folder() -> Path:
    """Where test sets are found (``ATLAS_DATA``, else :data:`DEFAULT_DATA`)."""
    return Path(setting("ATLAS_DATA") or DEFAULT_DATA)


def corpus_limits() -> tuple[int | None, float | None]:
    """The most sentences one corpus table holds and the seconds of work one request may spend on it
    (``ATLAS_CORPUS_SENTENCES``, ``ATLAS_CORPUS_SECONDS``): on a public server :data:`PUBLIC_CORPUS` unless set;
    on one's own machine, none unless set (a progress bar and a Stop button instead)."""
    sentences, seconds = PUBLIC_CORPUS if public() else (None, None)
    if setting("ATLAS_CORPUS_SENTENCES"):
        sentences = max(1, int(_number("ATLAS_CORPUS_SENTENCES", sentences or PUBLIC_CORPUS[0])))
    if setting("ATLAS_CORPUS_SECONDS"):
        seconds = max(0.0, _number("ATLAS_CORPUS_SECONDS", seconds or PUBLIC_CORPUS[1]))
    return sentences, seconds


PUBLIC_TEST_SET_MB = 20.0  # the largest download of a test set a public server makes (its tarball)


def test_set_mb() -> float | None:
    """The most a test set's download may take (``ATLAS_TEST_SET_MB``): on a public server
    :data:`PUBLIC_TEST_SET_MB` unless set; on one's own machine, any size unless set."""
    if setting("ATLAS_TEST_SET_MB"):
        return _number("ATLAS_TEST_SET_MB", PUBLIC_TEST_SET_MB)
    return PUBLIC_TEST_SET_MB if public() else None


def default_model() -> str:
    """The model a fresh visitor sees: ``ATLAS_HUB_REPO`` if the deployment sets one, else the bundled default."""
    return setting("ATLAS_HUB_REPO") or DEFAULT_MODEL


def log_run(page: str, started: tuple[float, float]) -> None:
    """With ``ATLAS_RUN_LOG=FILE`` set, append this script run's wall-clock and CPU seconds since ``started``
    (``time.perf_counter()``, ``time.thread_time()``: each session's script runs in a thread of its own, so the CPU
    time is the server's own work, whatever else shares the processor). ``python -m bench open`` and
    ``load`` read the file."""
    path = os.environ.get("ATLAS_RUN_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"{page}\t{time.perf_counter() - started[0]:.4f}\t{time.thread_time() - started[1]:.4f}\n")


SERVING_THREADS = 1  # torch threads per server process; chosen with `python -m bench load --threads N`


def set_serving_threads() -> None:
    """Torch's intra-op threads (``ATLAS_TORCH_THREADS``): sessions run in parallel threads of one process."""
    try:
        torch.set_num_threads(max(1, int(setting("ATLAS_TORCH_THREADS", str(SERVING_THREADS)))))
    except ValueError:
        torch.set_num_threads(SERVING_THREADS)
