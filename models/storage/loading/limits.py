"""How large a Hugging Face translator may be loaded: a parameter cap and a download cap, settings a user can raise.

On one's own machine the parameter cap follows its memory: the weights (4 bytes a parameter in float32, 2 in
bfloat16) up to an eighth of physical memory, since loading briefly holds the weights twice and the app, its bundled
model and the decoding need the rest; a machine of 8 GiB admits an opus-mt-tc-big model (about 235 M parameters) in
float32. ``ATLAS_DTYPE=bfloat16`` loads a Hugging Face translator's weights in bfloat16, half the memory (the
many-to-many models of 418–615 M parameters). ``ATLAS_MAX_PARAMETERS`` and ``ATLAS_MAX_DOWNLOAD_MB`` set either cap
outright. A public server keeps its own, smaller caps
(``pages/_shared/deploy.py``).
"""
from __future__ import annotations

import os

import torch

PUBLIC_MAX_PARAMETERS = 100_000_000  # a shared server's cap: opus-mt-en-fr has 75.1 M
PUBLIC_MAX_DOWNLOAD_MB = 400.0  # likewise: opus-mt-en-fr's weights are 301 MB
BYTES_PER_PARAMETER = 4  # float32, as a Hub repo stores its weights
MEMORY_SHARE = 8  # the weights may take this fraction (1 / MEMORY_SHARE) of the machine's memory
PARAMETERS_SETTING, DOWNLOAD_SETTING, DTYPE_SETTING = "ATLAS_MAX_PARAMETERS", "ATLAS_MAX_DOWNLOAD_MB", "ATLAS_DTYPE"
DTYPES = {"float32": 4, "bfloat16": 2}  # the dtypes a Hugging Face translator's weights are loaded in: bytes each


def physical_memory() -> int | None:
    """This machine's memory in bytes, None where the system does not say (``sysconf`` is POSIX's)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def _setting(name: str) -> float | None:
    try:
        return float(os.environ[name]) if os.environ.get(name, "").strip() else None
    except ValueError:
        return None  # a malformed value leaves the default in force


def machine_dtype() -> str:
    """``ATLAS_DTYPE`` (float32 or bfloat16) if set to one of them, else float32."""
    value = os.environ.get(DTYPE_SETTING, "").strip().lower()
    return value if value in DTYPES else "float32"


def machine_max_parameters() -> int:
    """``ATLAS_MAX_PARAMETERS`` if set, else what this machine's memory allows in :func:`machine_dtype` (the public
    cap where it does not say how much it has)."""
    if (set_to := _setting(PARAMETERS_SETTING)) is not None:
        return int(set_to)
    memory = physical_memory()
    return memory // (MEMORY_SHARE * DTYPES[machine_dtype()]) if memory else PUBLIC_MAX_PARAMETERS


def machine_max_download_mb() -> float:
    """``ATLAS_MAX_DOWNLOAD_MB`` if set, else the float32 size of :func:`machine_max_parameters`' weights, with a
    tenth more for tokenizers, vocabularies and cards."""
    if (set_to := _setting(DOWNLOAD_SETTING)) is not None:
        return set_to
    return machine_max_parameters() * BYTES_PER_PARAMETER * 1.1 / 1e6


def too_many_parameters(name: str, count: int, cap: int) -> str:
    """The refusal of a model of ``count`` parameters over ``cap``, naming the setting that raises it."""
    weights_gb = count * BYTES_PER_PARAMETER / 1e9
    return (f"{name} has {count:,} parameters; this app loads at most {cap:,} here ({weights_gb:.1f} GB of float32 "
            f"weights). On your own machine, set {PARAMETERS_SETTING} to raise the cap if it has the memory, or "
            f"{DTYPE_SETTING}=bfloat16 to load its weights in half the memory.")


def read_in(model: torch.nn.Module) -> None:
    """Read the weights of ``model`` into memory once. The library maps a safetensors file whose dtype is the one
    asked, and a page is read only when a pass first touches it: the first visitor's first pass would read the
    whole file (3.3 GB for a EuroLLM-1.7B in bfloat16). Loading reads it instead, behind its spinner; the pages
    stay the file's, so memory holds the weights once. An input embedding is left to its lookups, which read only
    their tokens' rows (EuroLLM's, untied, is 0.5 GB); one tied to the output layer is read as that layer's."""
    with torch.inference_mode():
        for module in model.modules():
            if isinstance(module, torch.nn.Embedding):
                continue
            for tensor in (*module.parameters(recurse=False), *module.buffers(recurse=False)):
                flat = tensor.reshape(-1)
                flat[:: max(1, 4096 // flat.element_size())].sum()  # a value from every 4 KiB page
