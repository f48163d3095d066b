"""Score every matrix a model has as an explanation of its own translations: how far the written word's
log-probability falls when the source words a matrix ranks highest are masked (:mod:`models.analysis.deletion`).

    python -m models.faithfulness --model transformer --data ../shared/data/multi30k --sentences 100
    python -m models.faithfulness --model additive --data sacrebleu:wmt14 --sentences 50 --save

Each matrix is scored at every layer as a whole (for the attention, its heads' mean) and at the model's own head,
each attribution once, and a random ranking as the floor, on the model's greedy translations of the first
``--sentences`` of ``--data``. One JSON line per row: comprehensiveness (AOPC, nats, higher is better) and
sufficiency (lower is better), averaged over every scored step. ``--save`` writes ``faithfulness.json`` beside the
checkpoint, which its card and the app's Models page show beside the alignment table.
"""
from __future__ import annotations

import argparse
import json

import numpy as np
from tqdm import tqdm

from .analysis.contributions import Sentence
from .analysis.deletion import DELETIONS, faithfulness, random_matrix
from .analysis.recipes import applicable, read, why_not
from .checks import at_least, chosen_languages, command_parser, data_given, language_options, run
from .datasets.sentences import read_named
from .decoding.greedy import greedy_batch
from .nouns.attention_map import Reading
from .nouns.matrix import MATRICES, RANDOM, Matrix
from .storage.cards.render import write_card
from .storage.commands import command_line
from .storage.hub import CheckpointError, load_model
from .storage.languages import assumed
from .storage.loaded import LoadedModel
from .storage.records.matrix_scores import FAITHFULNESS_FILE, Faithfulness, FaithfulnessRow, write_faithfulness
from .storage.records.strict import record_json

def rows_of(loaded: LoadedModel, matrices: list[Matrix] | None = None) -> dict[Matrix, list[Reading | None]]:
    """``{matrix: readings}`` scored, of ``matrices`` (None: every one the model has): every layer's
    whole, and the model's own head of a head-wise matrix."""
    own = loaded.reading.plain if loaded.reading else None
    return {m: [r for r in m.readings(loaded.model.attention_shape) if r is None or r.head is None or r == own]
            for m in applicable(loaded.model, loaded.fitted) if matrices is None or m in matrices}


def sentence_rows(loaded: LoadedModel, trace, seed: int, matrices: list[Matrix] | None = None) -> dict:
    """Every row's scores on one translation, ``{row name: Faithfulness}``."""
    weights, sentence = {}, Sentence(loaded.model, trace, fitted=loaded.fitted)
    for matrix, chosen in rows_of(loaded, matrices).items():
        for reading, w in zip(chosen, read(matrix, sentence, chosen)):
            weights[matrix.row_name(reading)] = (matrix, reading, w)
    weights[RANDOM.name] = (RANDOM, None, random_matrix(trace, seed))
    found = faithfulness(loaded.model, trace, {name: w for name, (_, _, w) in weights.items()})
    return {name: (weights[name][:2], f) for name, f in found.items()}


def arguments() -> argparse.ArgumentParser:
    p = command_parser("python -m models.faithfulness", __doc__.split("\n")[0])
    p.add_argument("--model", required=True, help="bundled name, local directory or Hub repo id")
    p.add_argument("--data", required=True, help="sacrebleu:NAME, gold:SRC-TGT or DIR[:split=SPLIT]")
    p.add_argument("--split", default="test_2016_flickr", help="the split of a --data folder that names none")
    p.add_argument("--sentences", type=int, default=100, help="how many of its first sentences (default 100)")
    p.add_argument("--matrix", nargs="+", choices=list(MATRICES), help="score only these (default: every one the "
                   "model has), each beside the random floor")
    p.add_argument("--save", action="store_true", help=f"write {FAITHFULNESS_FILE} beside the checkpoint (every "
                   "matrix's rows: not with --matrix)")
    language_options(p)
    p.add_argument("--device")
    return p


def main(argv=None) -> int:
    args = arguments().parse_args(argv)
    at_least("--sentences", args.sentences, 1)
    data_given("--data", [args.data])
    if args.save and args.matrix:
        raise SystemExit("error: --save writes every matrix's rows; leave --matrix out")
    try:
        loaded = load_model(args.model, device=args.device, languages=chosen_languages(args))
        sources = list(read_named(args.data, assumed(loaded.languages), args.split).first(args.sentences).sources)
    except (CheckpointError, OSError, ValueError) as e:
        raise SystemExit(f"error: {e}") from e
    args.matrix = [MATRICES[name] for name in args.matrix] if args.matrix else None
    for matrix in args.matrix or ():
        if reason := why_not(matrix, loaded.model, loaded.fitted):
            raise SystemExit(f"error: --matrix {matrix.name}: {reason}")
    record = measured(loaded, args, greedy_batch(loaded.model, loaded.tokenizers, sources), argv)
    for row in record_json(record)["rows"]:
        print(json.dumps(row, ensure_ascii=False))
    if args.save:
        write_faithfulness(loaded.path, record)
        if loaded.origin.trained:
            write_card(loaded.path)
    return 0


def measured(loaded, args: argparse.Namespace, traces: list, argv) -> Faithfulness:
    """Every row's comprehensiveness and sufficiency over ``traces``, averaged over their steps."""
    found: dict[str, tuple] = {}
    for n, trace in enumerate(tqdm(traces, desc="sentences", leave=False)):
        for name, (what, f) in sentence_rows(loaded, trace, n, args.matrix).items():
            _, comp, suff = found.setdefault(name, (what, [], []))
            comp.append(f.comprehensiveness)
            suff.append(f.sufficiency)
    return Faithfulness(loaded.path.name, args.data, len(traces), DELETIONS, tuple(
        FaithfulnessRow(name, matrix, round(float(np.concatenate(comp).mean()), 3),
                        round(float(np.concatenate(suff).mean()), 3), int(sum(map(len, comp))), reading and reading.key)
        for name, ((matrix, reading), comp, suff) in found.items()), command_line("models.faithfulness", argv))

if __name__ == "__main__":
    run(main)
