"""A statistical aligner on the same gold: eflomal (Östling & Tiedemann 2017), the baseline attention is read against.

    python -m models.align.statistical --data ../shared/data/hansards-en-fr-align \\
        --corpus ../shared/data/multi30k ../shared/data/tatoeba-en-fr
    python -m models.align.statistical --data gold:en-fr --corpus multi30k opus:Tatoeba   # everything by name

As such aligners are run, eflomal learns without supervision from the training corpora *plus* the gold sentences
themselves (it never sees the gold links), all tokenised the way the gold was (Moses tokeniser, lower case, French
elisions and contractions written out: "l'" → "le", "au" → "à le", "des" → "de les"). It prints the AER of its
forward links (each French word to at most one English word: the direction the translator's attention is read
in), of its reverse links, of their intersection, and of both grown diagonally (grow-diag, as attention's two
directions are).
"""
from __future__ import annotations

import dataclasses
import json

from ..analysis.aer import alignment_score
from ..checks import command_parser, data_given, file_out, run
from ..datasets.gold_sets import GoldSetError, check_gold, gold_name, load_gold
from ..extras import MissingExtra
from ..nouns.link_rule import grown_diagonally
from ..nouns.matrix import ALIGNER
from ..storage.commands import command_line
from ..storage.languages import EN_FR
from ..storage.records.alignment_rows import AlignmentRow, record_alignment
from .eflomal import eflomal_links, read_corpora

def main(argv=None) -> int:
    p = command_parser("python -m models.align.statistical", __doc__.split("\n")[0])
    p.add_argument("--data", required=True,
                   help="gold:en-fr, or the gold folder ({split}.en, {split}.fr, {split}.gold)")
    p.add_argument("--split", default="test")
    p.add_argument("--corpus", nargs="*", default=[], help="parallel training corpora: folders of train.en/.fr, or "
                   "by name (multi30k, opus:CORPUS)")
    p.add_argument("--save", help="record the results in this JSON file (the bundled one: assets/eflomal.json)")
    args = p.parse_args(argv)
    file_out("--save", args.save)
    data_given("--corpus", args.corpus, ("multi30k",))
    try:
        check_gold(args.data, (args.split,))
    except GoldSetError as e:
        raise SystemExit(f"error: --data {e}") from e
    try:
        pairs, _ = load_gold(args.data, EN_FR, args.split)
        corpora = read_corpora(args.corpus)
    except (OSError, ValueError) as e:
        raise SystemExit(f"error: {e}") from e
    try:
        [(forward, reverse)] = eflomal_links([pairs], corpora)
    except MissingExtra as e:
        raise SystemExit(f"error: {e}") from e
    forward, reverse = [set(f) for f in forward], [set(r) for r in reverse]  # one run: every share is 1
    training = sum(len(en) for en, _ in corpora) + len(pairs)
    sure, possible = [q.sure for q in pairs], [q.possible for q in pairs]
    for name, links in (("forward", forward), ("reverse", reverse),
                        ("intersection", [f & r for f, r in zip(forward, reverse)]),
                        ("grow-diag", [grown_diagonally(f, r) for f, r in zip(forward, reverse)])):
        score = alignment_score(links, sure, possible)
        result = AlignmentRow(ALIGNER.name, args.split, len(pairs), ALIGNER, name, round(score.aer, 2),
                              round(score.precision, 2), round(score.recall, 2), score.links,
                              training_pairs=training, data=gold_name(args.data))
        print(json.dumps(result.to_json()))
        if args.save:
            command = command_line("models.align.statistical", argv)
            record_alignment(args.save, [dataclasses.replace(result, command=command, per_pair=score.per_pair)])
    return 0


if __name__ == "__main__":
    run(main)
