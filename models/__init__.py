"""Attention Atlas below the UI: the network, decoding, analysis and storage layers, and the command-line tools.

Imports only go down the layers::

    tools (models/*.py: train, evaluate, translate, bench, app_bench, rehearsal)
      ├── analysis/  alignment, compare, geometry, anatomy        ── reads traces
      ├── storage/   hub, card, data, examples, timeline          ── files and the Hub (timeline: traces on disk)
      │     └── decoding/  greedy, beam, lines                    ── writes traces
      └────────── network/  attention, seq2seq, tokenization, device, training
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository: app.py, assets/, models/
