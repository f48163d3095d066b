"""Attention Atlas below the UI: the network, decoding, analysis and storage layers, and the command-line tools.

Imports only go down the layers::

    tools (models/*.py: train, evaluate, translate, bench, app_bench, rehearsal)
      ├── analysis/  alignment, compare, geometry, anatomy   ── reads traces
      │     └── decoding/  greedy, beam, lines               ── writes traces
      ├── storage/   hub, card, data, examples               ── files and the Hub
      └─────────── network/  attention, seq2seq, tokenization, device, training
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository: app.py, assets/, models/
