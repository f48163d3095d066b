"""Translate stdin to stdout, one sentence a line.

    echo "A dog runs on the beach." | python -m models.translate --model additive

Blank lines stay blank; ``--json`` writes one decoding trace per line instead.
"""
from __future__ import annotations

import argparse
import json
import sys

from .decoding.beam import beam_search
from .decoding.lines import translate_lines
from .decoding.trace import Trace
from .storage.hub import DEFAULT_MODEL, CheckpointError, load_model


def trace_json(trace: Trace) -> dict:
    """A trace as plain JSON types (lists of floats)."""
    def arr(a):
        return None if a is None else a.round(6).tolist()

    return {
        "source_pieces": trace.source.pieces,
        "source_unknown": trace.source.unknown,
        "truncated": trace.source.truncated,
        "target_pieces": trace.target_pieces,
        "translation": trace.translation,
        "logprob": trace.logprob,
        "cross_attention": arr(trace.cross_attention),  # [L, heads, T, S]
        "energies": arr(trace.energies),  # [L, heads, T, S]
        "top_k": trace.top_k,
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m models.translate", description=__doc__.split("\n")[0])
    p.add_argument("--model", default=DEFAULT_MODEL, help="bundled name, local directory or Hub repo id")
    p.add_argument("--revision", help="Hub revision (branch, tag or commit)")
    p.add_argument("--beam", type=int, default=1)
    p.add_argument("--device")
    p.add_argument("--json", action="store_true", help="one JSON trace per line")
    args = p.parse_args(argv)
    try:
        loaded = load_model(args.model, args.revision, args.device)
    except CheckpointError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    lines = sys.stdin.read().splitlines()
    if not args.json:
        print("\n".join(translate_lines(loaded.model, loaded.tokenizers, lines, args.beam)))
        return 0
    for line in lines:
        trace = beam_search(loaded.model, loaded.tokenizers, line, args.beam).hypotheses[0] if line.strip() else None
        print(json.dumps(trace_json(trace) if trace else None, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
