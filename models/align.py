"""Score a model's attention as word alignment against human links (AER, Och & Ney 2003).

    python -m models.align --model additive --data ../shared/data/hansards-en-fr-align
    python -m models.align --model dot --data ../shared/data/hansards-en-fr-align --split trial --out links.txt

Each gold pair is decoded with its French sentence forced (the gold's own tokens joined by spaces, so each of its
words is one word of the app's word view: subwords joined by the ``▁`` rule), and links are read from the word
attention by ``--method`` (:mod:`models.analysis.word_links`): ``argmax`` links each French word to the English word
it attends to most; ``intersection`` and ``union`` combine that with each English word's most attending French
word; ``threshold`` keeps every pair at or above ``--threshold``. Prints AER, precision and recall; ``--out``
writes one line of links per pair in the gold's own format (``i-j``, 1-based, English first).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from .analysis.aer import alignment_score
from .analysis.alignment import word_view
from .analysis.word_links import METHODS, above
from .decoding.greedy import forced
from .network.tokenization import EOS
from .storage.gold import GoldPair, format_links, read_gold
from .storage.hub import CheckpointError, LoadedModel, load_model

THRESHOLD = 0.2  # chosen on the trial set for both bundled attention models (docs/results.md)


def word_attention(loaded: LoadedModel, pair: GoldPair) -> np.ndarray:
    """α [F, E] between the pair's own words under forced decoding (end of sentence left out; a sentence cut at
    the model's length limit has fewer columns than the gold has words)."""
    view = word_view(forced(loaded.model, loaded.tokenizers, " ".join(pair.english), " ".join(pair.french)))
    english = [s for s, word in enumerate(view.columns) if word != EOS][: len(pair.english)]
    french = [t for t, word in enumerate(view.rows) if word != EOS][: len(pair.french)]
    return view.weights[french][:, english]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m models.align", description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True, help="bundled name, local directory or Hub repo id")
    p.add_argument("--data", required=True, help="a folder of {split}.en, {split}.fr and {split}.gold")
    p.add_argument("--split", default="test", help="test, or trial (the set to tune any choice on)")
    p.add_argument("--method", choices=[*METHODS, "threshold"], default="argmax", help="how links are read")
    p.add_argument("--threshold", type=float, default=THRESHOLD, help="for --method threshold: the least weight linked")
    p.add_argument("--out", help="write the predicted links here, one line per sentence pair")
    p.add_argument("--device")
    args = p.parse_args(argv)
    try:
        loaded = load_model(args.model, device=args.device)
        pairs = read_gold(args.data, args.split)
    except (CheckpointError, OSError, ValueError) as e:
        raise SystemExit(f"error: {e}") from e
    if loaded.score == "none":
        raise SystemExit("error: a model without attention has no attention to read links from")
    linker = above(args.threshold) if args.method == "threshold" else METHODS[args.method]
    predicted = [linker(word_attention(loaded, pair)) for pair in pairs]
    if args.out:
        Path(args.out).write_text("".join(format_links(links) + "\n" for links in predicted), encoding="utf-8")
    score = alignment_score(predicted, [q.sure for q in pairs], [q.possible for q in pairs])
    method = f"threshold {args.threshold:g}" if args.method == "threshold" else args.method
    print(json.dumps({"model": loaded.path.name, "split": args.split, "pairs": len(pairs), "method": method,
                      "aer": round(score.aer, 2), "precision": round(score.precision, 2),
                      "recall": round(score.recall, 2), "links": score.links}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
