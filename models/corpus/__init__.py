"""Translate a whole corpus with one or two models and tabulate, sentence by sentence, how each one's attention
behaves and where the two disagree.

    python -m models.corpus --model additive --compare dot --data sacrebleu:multi30k/2016 --out table.csv
    python -m models.corpus --model additive --compare dot --data ../shared/data/multi30k --out table.csv
    python -m models.corpus --model transformer --data ../shared/data/hansards-en-fr-align --out gold.json
    python -m models.corpus --model additive --data my-sentences.tsv --out table.csv

``--data`` is a test set by name (``sacrebleu:NAME``, in the first model's language pair), a data folder's test
split (``DIR[:split=SPLIT]``, as ``models.evaluate`` reads it; a folder of
``{split}.en``, ``.fr`` and ``.gold`` brings human links, so AER too) or a file: one source sentence a line, or
``source TAB reference``. The table (:mod:`models.tables`) is written as CSV, or JSON with the corpus figures beside it,
by ``--out``'s extension; the corpus figures are printed. Its translations are ``models.evaluate``'s greedy ones,
so its corpus BLEU is that command's.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tqdm import tqdm

from ..checks import chosen_languages, command_parser, data_given, file_out, language_options
from ..datasets.sentences import read_named
from ..nouns.attention_map import Reading
from ..storage.commands import command_line
from ..storage.hub import CheckpointError, load_model
from ..storage.languages import assumed
from ..tables.files import table_csv, table_json
from ..tables.rows import corpus_rows, language_refusal, sides, summary


def arguments() -> argparse.ArgumentParser:
    p = command_parser("python -m models.corpus", __doc__.split("\n")[0])
    p.add_argument("--model", required=True, help="bundled name, local directory or Hub repo id")
    p.add_argument("--compare", help="a second model, set beside the first")
    p.add_argument("--data", required=True, metavar="sacrebleu:NAME | DIR[:split=SPLIT] | FILE")
    p.add_argument("--split", default="test_2016_flickr", help="the split of a --data folder that names none")
    p.add_argument("--reading", help="the first model's reading of its attention (LAYER.HEAD, LAYER.mean, either "
                   "with .shifted; default: the one its card chose)")
    p.add_argument("--compare-reading", help="the same for --compare")
    p.add_argument("--out", required=True, help="table.csv, or table.json (the table and the corpus figures)")
    language_options(p)
    p.add_argument("--device")
    return p


def _reading(loaded, key: str | None) -> Reading | None:
    if key is None or not loaded.model.has_attention:
        return loaded.reading
    return Reading.parse(key, loaded.model.attention_shape)


def main(argv=None) -> int:
    args = arguments().parse_args(argv)
    if Path(args.out).suffix not in (".csv", ".json"):
        raise SystemExit(f"error: --out {args.out}: a table is written as .csv, or .json with the corpus figures")
    file_out("--out", args.out)
    data_given("--data", [args.data])
    refs = [args.model] + ([args.compare] if args.compare else [])
    keys = [args.reading, args.compare_reading]
    try:
        loaded = [load_model(ref, device=args.device, languages=chosen_languages(args)) for ref in refs]
        languages = assumed(loaded[0].languages)
        sentences = read_named(args.data, languages, args.split, strict=False)  # refused below, in its words
        chosen = sides(loaded, refs, [_reading(m, k) for m, k in zip(loaded, keys)])
    except (CheckpointError, OSError, ValueError) as e:  # SentencesError and a bad reading are ValueErrors
        raise SystemExit(f"error: {e}") from e
    if reason := language_refusal(chosen, sentences):
        raise SystemExit(f"error: {reason}")
    if sentences.skipped:
        print(sentences.skipped, file=sys.stderr)
    with tqdm(total=len(sentences), unit="sentence", desc=sentences.name, disable=None) as bar:
        rows = corpus_rows(chosen, sentences, lambda done: bar.update(done - bar.n))
    figures = {**summary(chosen, sentences, rows), "data": sentences.name,
               "command": command_line("models.corpus", argv)}
    out = Path(args.out)
    out.write_text(table_json(rows, figures) if out.suffix == ".json" else table_csv(rows), encoding="utf-8")
    print(json.dumps({name: {k: v for k, v in entry.items() if k in ("reading", "scores", "means")}
                      for name, entry in figures["models"].items()} | {"pair": figures["pair"]}, indent=1,
                     ensure_ascii=False))
    return 0
