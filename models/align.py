"""Score a model's attention as word alignment against human links (AER, Och & Ney 2003).

    python -m models.align --model additive --data ../shared/data/hansards-en-fr-align
    python -m models.align --model dot --data ../shared/data/hansards-en-fr-align --split trial --out links.txt

Each gold pair is decoded with its French sentence forced (the gold's own tokens joined by spaces, so each of its
words is one word of the app's word view: subwords joined by the ``▁`` rule), and each French word is linked to
the English word it attends to most, end-of-sentence left out. Prints AER, precision and recall; ``--out`` writes
one line of links per pair in the gold's own format (``i-j``, 1-based, English first).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from .analysis.aer import alignment_score
from .analysis.alignment import word_view
from .decoding.greedy import forced
from .network.tokenization import EOS
from .storage.gold import GoldPair, format_links, read_gold
from .storage.hub import LoadedModel, load_model


def attention_links(loaded: LoadedModel, pair: GoldPair) -> set[tuple[int, int]]:
    """Each French word's most attended English word, as 0-based ``(english, french)`` links."""
    view = word_view(forced(loaded.model, loaded.tokenizers, " ".join(pair.english), " ".join(pair.french)))
    english = [s for s, word in enumerate(view.columns) if word != EOS]  # the gold's words, in order
    french = [t for t, word in enumerate(view.rows) if word != EOS]
    links = set()
    for j, t in enumerate(french[: len(pair.french)]):
        i = int(np.argmax(view.weights[t, english]))
        if i < len(pair.english):
            links.add((i, j))
    return links


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m models.align", description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True, help="bundled name, local directory or Hub repo id")
    p.add_argument("--data", required=True, help="a folder of {split}.en, {split}.fr and {split}.gold")
    p.add_argument("--split", default="test", help="test, or trial (the set to tune any choice on)")
    p.add_argument("--out", help="write the predicted links here, one line per sentence pair")
    p.add_argument("--device")
    args = p.parse_args(argv)
    loaded = load_model(args.model, device=args.device)
    if loaded.score == "none":
        raise SystemExit("error: a model without attention has no attention to read links from")
    pairs = read_gold(args.data, args.split)
    predicted = [attention_links(loaded, pair) for pair in pairs]
    if args.out:
        Path(args.out).write_text("".join(format_links(links) + "\n" for links in predicted), encoding="utf-8")
    score = alignment_score(predicted, [q.sure for q in pairs], [q.possible for q in pairs])
    print(json.dumps({"model": loaded.path.name, "split": args.split, "pairs": len(pairs), "method": "attention argmax",
                      "aer": round(score.aer, 2), "precision": round(score.precision, 2),
                      "recall": round(score.recall, 2), "links": score.links}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
