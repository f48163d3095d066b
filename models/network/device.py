"""The one device picker: CUDA when available, else CPU; a name given by the user wins."""
from __future__ import annotations

import torch


def pick_device(device: str | None = None) -> torch.device:
    """``device`` if given (``cpu``, ``cuda``, ``cuda:1`` …), else CUDA when available, else CPU."""
    if device:
        return torch.device(device)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")
