"""Attention Atlas below the UI: the network, decoding, analysis and storage layers, and the command-line tools.

Imports only go down the layers::

    the user's commands (train/, align/, evaluate, translate, neighbours, heads)
      ├── analysis/  alignment, compare, geometry, anatomy, aer, …  ── reads traces
      ├── storage/   hub, card, data, examples, timeline, gold      ── files and the Hub (timeline: traces on disk)
      │     └── decoding/  trace, greedy, beam, what_if, lines       ── writes traces
      └────────── network/  translator, architectures, seq2seq, transformer, multihead, attention, tokenization, …

The lab (``bench/`` at the repository's top) measures all this from outside; nothing here imports it.
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository: app.py, assets/, models/
