"""How a deployment of the app is set up, decided from its settings: who may load what, how much one request may
take (and whether a matrix or a sentence's deletion scores fit in it), where test sets and human links are found,
the torch threads a server process uses.

A setting is text by name (the page side reads the environment, else Streamlit's secrets). A public server
(``ATLAS_PUBLIC=1``: strangers share it) is bounded by the public caps below unless a setting says otherwise; one's
own machine by its memory (:mod:`models.storage.loading.limits`), with a progress bar and a Stop button instead of a
time limit.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from ..analysis.deletion import estimated_seconds as deletion_seconds
from ..analysis.recipes import cheaper, seconds
from ..decoding.trace import Trace
from ..network.translator import Translator
from ..nouns.matrix import Matrix
from ..storage.hub import DEFAULT_MODEL, LoadPolicy
from ..storage.loading.limits import DOWNLOAD_SETTING, PARAMETERS_SETTING, PUBLIC_MAX_DOWNLOAD_MB, PUBLIC_MAX_PARAMETERS

Setting = Callable[[str], str]  # a setting's text by name, "" where it is not set

PUBLIC_HUB_DISK_MB = 2000.0  # six opus-mt models of 301 MB beside the two kept in memory, the rest deleted
HUB_MODELS_KEPT = 2  # Hub models a server holds at once, the least recently used let go first
PUBLIC_ATTRIBUTION_S = 10.0  # the most one request's attribution may take on a public server, one thread
PUBLIC_CORPUS = (200, 10.0)  # sentences, seconds of work: what one visitor's corpus table may take on a public server
PUBLIC_TEST_SET_MB = 20.0  # the largest download of a test set a public server makes (its tarball)
SERVING_THREADS = 1  # torch threads per server process; chosen with `python -m bench load --threads N`
#: The data folder beside the project (``../shared/data``): test sets and the human-aligned gold, never bundled.
DEFAULT_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
GOLD_FOLDER = "hansards-en-fr-align"  # the English→French gold of the data folder, with its trial set


@dataclass(frozen=True)
class Deployment:
    """What this deployment allows, each from its setting (in brackets) or its default."""

    public: bool  # ATLAS_PUBLIC
    default_model: str  # the model a fresh visitor sees (ATLAS_HUB_REPO, else the bundled default)
    load_policy: LoadPolicy  # who may load what, and how big (ATLAS_HUB_ALLOW, ATLAS_HUB_DISK_MB, the load caps)
    hub_models_kept: int  # Hub models kept loaded at once (ATLAS_HUB_MODELS)
    attribution_limit_s: float | None  # seconds of attribution one request may ask for (ATLAS_ATTRIBUTION_LIMIT_S)
    corpus_sentences: int | None  # the most sentences one corpus table holds (ATLAS_CORPUS_SENTENCES)
    corpus_seconds: float | None  # the seconds one request may spend on a table (ATLAS_CORPUS_SECONDS)
    test_set_mb: float | None  # the most a test set's download may take (ATLAS_TEST_SET_MB)
    data_folder: Path  # where test sets are found (ATLAS_DATA)
    gold_folder: Path  # the Hansards human links with their trial set (ATLAS_GOLD), read for either direction
    torch_threads: int  # torch's intra-op threads: sessions run in parallel threads of one process

    def set_threads(self) -> None:
        """Give this server process's torch its threads (``ATLAS_TORCH_THREADS``), before a model runs."""
        torch.set_num_threads(self.torch_threads)


def deployment(setting: Setting) -> Deployment:
    """The deployment ``setting`` describes."""
    public = setting("ATLAS_PUBLIC").lower() in {"1", "true", "yes", "on"}

    def number(name: str, default: float | None) -> float | None:
        try:
            return float(setting(name)) if setting(name) else default
        except ValueError:
            return default

    corpus, seconds = PUBLIC_CORPUS if public else (None, None)
    sentences = number("ATLAS_CORPUS_SENTENCES", corpus)
    spent = number("ATLAS_CORPUS_SECONDS", seconds)
    data = Path(setting("ATLAS_DATA") or DEFAULT_DATA)
    return Deployment(
        public=public,
        default_model=setting("ATLAS_HUB_REPO") or DEFAULT_MODEL,
        load_policy=_load_policy(setting, public, number),
        hub_models_kept=max(1, int(number("ATLAS_HUB_MODELS", HUB_MODELS_KEPT))),
        attribution_limit_s=number("ATLAS_ATTRIBUTION_LIMIT_S", PUBLIC_ATTRIBUTION_S if public else None),
        corpus_sentences=None if sentences is None else max(1, int(sentences)),
        corpus_seconds=None if spent is None else max(0.0, spent),
        test_set_mb=number("ATLAS_TEST_SET_MB", PUBLIC_TEST_SET_MB if public else None),
        data_folder=data,
        gold_folder=Path(setting("ATLAS_GOLD") or DEFAULT_DATA / GOLD_FOLDER),
        torch_threads=max(1, int(number("ATLAS_TORCH_THREADS", SERVING_THREADS))),
    )


def log_run(page: str, started: tuple[float, float]) -> None:
    """With ``ATLAS_RUN_LOG=FILE`` set, append this script run's wall-clock and CPU seconds since ``started``
    (``time.perf_counter()``, ``time.thread_time()``: each session's script runs in a thread of its own, so the CPU
    time is the server's own work, whatever else shares the processor). ``python -m bench open`` and
    ``load`` read the file."""
    path = os.environ.get("ATLAS_RUN_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"{page}\t{time.perf_counter() - started[0]:.4f}\t{time.thread_time() - started[1]:.4f}\n")


def _load_policy(setting: Setting, public: bool, number: Callable[[str, float | None], float | None]) -> LoadPolicy:
    """Public: bundled models and Hub ids only, optionally an allow-list of Hub ids, the Hub downloads' disk bounded
    (:data:`PUBLIC_HUB_DISK_MB` unless set), a translator's parameters and download within the public caps unless
    set. One's own machine: its paths too, and the caps its memory sets."""
    allow = frozenset(r.strip() for r in setting("ATLAS_HUB_ALLOW").split(",") if r.strip())
    own = LoadPolicy()  # one's own machine's caps, from its memory and environment
    parameters, download_mb = ((PUBLIC_MAX_PARAMETERS, PUBLIC_MAX_DOWNLOAD_MB) if public
                               else (own.max_parameters, own.max_download_mb))
    return LoadPolicy(local_paths=not public, hub_allow=allow or None,
                      max_download_mb=number(DOWNLOAD_SETTING, download_mb),
                      max_parameters=int(number(PARAMETERS_SETTING, parameters)),
                      max_cache_mb=number("ATLAS_HUB_DISK_MB", PUBLIC_HUB_DISK_MB if public else None),
                      dtype=own.dtype)


def affordable(model: Translator, trace: Trace, matrix: Matrix, limit_s: float | None) -> str | None:
    """Why a request given ``limit_s`` seconds cannot read ``matrix`` of ``trace``, in a sentence; None when it
    can (or sets no limit)."""
    if limit_s is None or (needed := seconds(matrix, model, trace)) <= limit_s:
        return None
    instead = f" {cheaper(matrix)};" if cheaper(matrix) else ""
    return (f"{matrix.named} of this sentence would take about {needed:.0f} s on this shared server, which gives one "
            f"request at most {limit_s:.0f} s.{instead} a shorter sentence is quicker. Run the app on your own "
            "machine for any length (README).")


def deletions_refused(trace: Trace, matrices: int, limit_s: float | None) -> str | None:
    """Why a server giving a request ``limit_s`` seconds leaves out the deletion scores of ``matrices`` matrices
    of ``trace``, in a sentence; None when it affords them."""
    if limit_s is None or (needed := deletion_seconds(trace, matrices)) <= limit_s:
        return None
    return (f"Masking this sentence's words for every matrix would take about {needed:.0f} s on this shared server, "
            f"which gives one request at most {limit_s:.0f} s: the matrices are drawn without their deletion scores. "
            "A shorter sentence, or the app on your own machine, has them.")
