"""Attention Atlas below the UI: the network, decoding, analysis and storage layers, and the command-line tools.

Imports only go down the layers::

    the user's commands (train/, align/, corpus/, evaluate, translate, neighbours, heads)
      ├── tables/    a corpus's table: rows, column names, scores, files ── for commands and the Corpus page
      ├── analysis/  alignment, compare, geometry, anatomy, aer, …  ── reads traces
      ├── storage/   hub, card, data, examples, timeline, gold      ── files and the Hub (timeline: traces on disk)
      │     └── decoding/  trace, greedy, beam, what_if, lines       ── writes traces
      └────────── network/  translator, architectures, seq2seq, transformer, multihead, attention, tokenization, …

``extras.py`` (the optional extras) is a leaf every layer may ask. The lab (``bench/`` at the repository's top)
measures all this from outside; nothing here imports it.
"""
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository: app.py, assets/, models/


def _assets() -> Path:
    """The bundled checkpoints, examples and records: ``assets/`` beside the package in a clone (or an editable
    install), else the copy a wheel installs in its environment's data folder (pyproject's ``data-files``)."""
    beside = ROOT / "assets"
    return beside if beside.is_dir() else Path(sysconfig.get_path("data")) / "share" / "attention-atlas" / "assets"


ASSETS = _assets()
