"""Score a checkpoint with sacreBLEU on one or more test sets.

    python -m models.evaluate --model additive --data sacrebleu:multi30k/2016 sacrebleu:wmt14
    python -m models.evaluate --model my-model --data ../shared/data/multi30k ../shared/data/tatoeba-en-fr:split=test

A test set is named as sacreBLEU names it (``sacrebleu:NAME``, fetched into sacreBLEU's cache on first use, in the
model's language pair) or given as a data folder's split (``DIR[:split=SPLIT]``).

Reports, for each test set separately, BLEU (cased and lowercased) and chrF
with their signatures, for greedy decoding and beam search, plus BLEU by source
length (Bahdanau et al. 2015, Figure 2). A split with ``{split}.refs.jsonl.gz``
is scored against every reference it lists. Results go to ``--out`` (default: merged by test set into
``evaluation.json`` inside the checkpoint directory, whose card is then refreshed: the other sets' scores, and the
commands that measured them, are kept).
"""
from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from .checks import at_least, chosen_languages, command_parser, data_given, file_out, language_options, run
from .datasets.sentences import Sentences, read_named
from .decoding.lines import translate_lines
from .storage.cards.render import write_card
from .storage.commands import command_line
from .storage.hub import load_model
from .storage.languages import assumed, may_translate, pair_name
from .storage.loaded import LoadedModel
from .storage.records.evaluation import (
    EVALUATION_FILE,
    EvaluationRecord,
    Example,
    LengthBucket,
    Scores,
    TestScores,
    write_evaluation,
)
from .storage.records.strict import read_record
from .tables.scores import by_length, scores


def evaluate(loaded: LoadedModel, test_set: Sentences, beam: int, command: str,
             sentences: int | None = None) -> TestScores:
    """The scores of one test set, or of its first ``sentences``, measured by ``command``."""
    test_set = test_set.first(sentences or len(test_set))
    sources, refs = list(test_set.sources), [list(r) for r in test_set.references or ()]
    if len(refs) != len(sources):
        raise ValueError(f"{test_set.name} has no reference translations to score against")
    hyps = {"greedy": translate_lines(loaded.model, loaded.tokenizers, sources, 1)}
    if beam > 1:
        hyps["beam"] = translate_lines(loaded.model, loaded.tokenizers, sources, beam)
    data, _, split = test_set.name.rpartition(" ")
    scored = {mode: scores(h, refs) for mode, h in hyps.items()}  # mode -> (scores, signatures)
    beam_scores = Scores(**scored["beam"][0]) if "beam" in scored else None
    return TestScores(data, split, len(sources), max(len(r) for r in refs), Scores(**scored["greedy"][0]),
                      scored["greedy"][1], tuple(read_record(LengthBucket, b, "a length bucket")
                                                 for b in by_length(sources, hyps, refs)),
                      tuple(Example(s, tuple(r), h) for s, r, h in zip(sources[:5], refs, hyps["greedy"])),
                      beam, command, beam_scores)


def arguments() -> argparse.ArgumentParser:
    p = command_parser("python -m models.evaluate", __doc__.split("\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--data", required=True, nargs="+", metavar="sacrebleu:NAME | DIR[:split=SPLIT]",
                   help="test sets, each scored apart")
    p.add_argument("--split", default="test_2016_flickr", help="the split of a --data folder that names none")
    p.add_argument("--src", help="the source language (default: the model's, else en)")
    p.add_argument("--tgt", help="the target language (default: the model's, else fr)")
    language_options(p)
    p.add_argument("--beam", type=int, default=5, help="beam size (1: greedy only)")
    p.add_argument("--device")
    p.add_argument("--sentences", type=int, help="score only the first N sentences of each set (a quick look; the "
                   "default, every sentence, is what a card reports)")
    p.add_argument("--out", help="JSON file to write (default: the checkpoint's evaluation.json, into which each set "
                   "scored is merged, replacing that set's earlier scores and keeping every other set's)")
    return p


def main(argv=None) -> int:
    args = arguments().parse_args(argv)
    at_least("--beam", args.beam, 1)
    at_least("--sentences", args.sentences, 1)
    out = file_out("--out", args.out)
    data_given("--data", args.data)
    if args.sentences and not out:
        raise SystemExit("error: --sentences scores part of each set; give --out so the card's evaluation stays whole")
    loaded = load_model(args.model, device=args.device, languages=chosen_languages(args))
    languages = assumed((args.src or loaded.languages[0], args.tgt or loaded.languages[1]))
    if not may_translate(loaded.languages, languages):
        raise SystemExit(f"error: {args.model} translates {pair_name(loaded.languages)}, not "
                         f"{pair_name(languages)}; give --src and --tgt of its languages")
    command = command_line("models.evaluate", argv)
    try:
        test_sets = [read_named(spec, languages, args.split) for spec in args.data]  # every set read before any work
        scored = [evaluate(loaded, t, args.beam, command, args.sentences) for t in test_sets]
    except (OSError, ValueError) as e:
        raise SystemExit(f"error: {e}") from e
    result = EvaluationRecord(loaded.path.name, loaded.variant, tuple(scored))
    checkpoint = loaded.path
    out = out or checkpoint / EVALUATION_FILE
    write_evaluation(result, out)
    if out == checkpoint / EVALUATION_FILE and loaded.origin.trained:
        write_card(checkpoint)
    print(json.dumps({f"{t.data} {t.split}": {mode: asdict(s) for mode, s in (("greedy", t.greedy), ("beam", t.beam))
                                              if s} for t in result.test_sets}, indent=1))
    return 0


if __name__ == "__main__":
    run(main)
