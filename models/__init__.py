"""Attention Atlas below the UI: the network, decoding, analysis and storage layers, and the command-line tools.

Imports only go down the layers::

    the user's commands (train/, evaluate, translate, neighbours)        bench/ — the lab, which nothing imports
      ├── analysis/  alignment, compare, geometry, anatomy, aer, …  ── reads traces
      ├── storage/   hub, card, data, examples, timeline, gold      ── files and the Hub (timeline: traces on disk)
      │     └── decoding/  greedy, beam, lines                      ── writes traces
      └────────── network/  attention, seq2seq, tokenization, device, training, schedule
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository: app.py, assets/, models/
