"""Build the nearest-neighbour index of a checkpoint's decoder states from a sample of training pairs.

    python -m models.neighbours --model additive --data ../shared/data/multi30k ../shared/data/tatoeba-en-fr
    python -m models.neighbours --model my-model --data multi30k opus:Tatoeba   # corpora by name, fetched once

writes ``neighbours.safetensors`` beside the checkpoint (or into ``--out``), which
the app's step explorer searches (:mod:`models.analysis.nearest_states`).
"""
from __future__ import annotations

import random
import sys
import time
from pathlib import Path

from .analysis.nearest_states import build_index, save_index
from .checks import at_least, command_parser, data_given, folder_out, run
from .datasets.named_corpora import NamedCorpusError, resolve
from .storage.data import Corpus, read_parallel
from .storage.hub import DEFAULT_MODEL, CheckpointError, load_model
from .storage.languages import EN_FR, Languages, assumed


def sample_pairs(specs: list[str], per_corpus: int, seed: int, languages: Languages = EN_FR) -> list[tuple[str, str]]:
    """``per_corpus`` random non-empty training pairs from each ``DIR[:train=SPLIT]`` or corpus by name (``multi30k``,
    ``opus:CORPUS``), in a fixed order, each read in the model's direction (``languages``: source, target)."""
    rng, pairs = random.Random(seed), []
    for spec in specs:
        corpus = Corpus.parse(resolve(spec, languages))
        found = [(s, t) for s, t in zip(*read_parallel(corpus.path, corpus.train_split, *languages))
                 if s.strip() and t.strip()]
        pairs += rng.sample(found, min(per_corpus, len(found)))
    return pairs


def main(argv=None) -> int:
    p = command_parser("python -m models.neighbours", __doc__.split("\n")[0])
    p.add_argument("--model", default=DEFAULT_MODEL, help="bundled name, local directory or Hub repo id")
    p.add_argument("--data", required=True, nargs="+", metavar="DIR[:train=SPLIT] | multi30k | opus:CORPUS",
                   help="corpora to sample training pairs from")
    p.add_argument("--sentences", type=int, default=1000, help="pairs sampled from each corpus")
    p.add_argument("--dim", type=int, default=64, help="dimensions kept (principal components)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="directory to write to (default: the checkpoint's own)")
    args = p.parse_args(argv)
    at_least("--sentences", args.sentences, 1)
    at_least("--dim", args.dim, 1)
    folder_out("--out", args.out)
    data_given("--data", args.data, ("multi30k",))
    try:
        loaded = load_model(args.model, device="cpu")
        pairs = sample_pairs(args.data, args.sentences, args.seed, assumed(loaded.languages))
    except (CheckpointError, NamedCorpusError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    index = build_index(loaded.model, loaded.tokenizers, pairs, args.dim)
    path = save_index(index, Path(args.out) if args.out else loaded.path)
    print(f"{path}: {len(index.vectors):,} states from {len(index.sources):,} sentences, {index.vectors.shape[1]} "
          f"dimensions keeping {index.explained:.0%} of the variance, {path.stat().st_size / 1e6:.1f} MB, built in "
          f"{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    run(main)
