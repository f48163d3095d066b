"""The position floor: what the words' positions alone give against people's links, the floor every reading of a
model is read beside.

    python -m models.align.floor --data gold:en-fr --save assets/position_floor.json --out floor-links.txt

A probe (:mod:`models.analysis.probe_fit`: the same L1 logistic regression, labels, strength and link rule chosen
by the same cross-validation) is fit on the gold's trial pairs to three features of each word cell and nothing of
any model: how far the cell lies from the diagonal, whether both words are the same punctuation mark, whether they
are the same word (:data:`~models.nouns.probe.POSITIONS`). It is scored once on the test pairs; the test split
plays no part in the fit. Saved (``--save``), every model carries it as the matrix ``position floor``
(:mod:`models.analysis.recipes`), so ``models.align --model NAME --matrix "position floor"`` scores it on that
model's own reading of the words, and every table of AER shows it.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..analysis.aer import alignment_score
from ..analysis.fitted import position
from ..analysis.probe_fit import Example, fit_probe
from ..checks import command_parser, file_out, run
from ..datasets.gold_sets import GoldSetError, check_gold, gold_name, load_gold

from ..nouns.probe import POSITIONS, Feature, Probe
from ..storage.gold import GoldPair, write_links
from ..storage.records.probe_file import write_probe

FEATURES = tuple(map(Feature, POSITIONS))


def examples(pairs: list[GoldPair]) -> list[Example]:
    """Each pair's word cells [F, E, K] read by position alone, with people's links."""
    return [Example(np.stack([position(name, list(p.target), list(p.source)) for name in POSITIONS], -1),
                    p.sure, p.possible) for p in pairs]


def fit_floor(trial: list[GoldPair], gold: str) -> Probe:
    """The floor's probe, fit and chosen on ``trial`` alone."""
    return fit_probe(examples(trial), FEATURES, gold, "trial")


def main(argv=None) -> int:
    p = command_parser("python -m models.align.floor", __doc__.split("\n")[0])
    p.add_argument("--data", required=True, help="gold:SRC-TGT, or a gold folder with trial and test splits")
    p.add_argument("--save", help="write the floor's probe here (the bundled one: assets/position_floor.json)")
    p.add_argument("--out", help="write its test links here, one line per pair in the gold's own format")
    args = p.parse_args(argv)
    file_out("--save", args.save)
    file_out("--out", args.out)
    try:
        check_gold(args.data, ("trial", "test"))
        trial, test = (load_gold(args.data, (None, None), split)[0] for split in ("trial", "test"))
    except (GoldSetError, OSError, ValueError) as e:
        raise SystemExit(f"error: --data {e}") from e
    floor = fit_floor(trial, gold_name(args.data))
    links = [floor.final.rule.read(floor.probability(e.x)) for e in examples(test)]
    score = alignment_score(links, [q.sure for q in test], [q.possible for q in test])
    print(json.dumps({"floor": "position floor", "fit on": f"{gold_name(args.data)} trial ({len(trial)} pairs)",
                      "cross-validated AER": floor.final.aer, "rule": str(floor.final.rule),
                      "weights": {f.name: round(w, 3) for f, w in zip(FEATURES, floor.weights)},
                      "test AER": round(score.aer, 2), "precision": round(score.precision, 2),
                      "recall": round(score.recall, 2), "links": score.links, "pairs": len(test)}, ensure_ascii=False))
    if args.out:
        write_links(Path(args.out), links)
    if args.save:
        write_probe(Path(args.save).parent, floor, Path(args.save).name)
    return 0


if __name__ == "__main__":
    run(main)
