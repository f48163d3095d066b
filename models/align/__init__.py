"""Score a model's attention or attribution as word alignment against human links (AER, Och & Ney 2003).

    python -m models.align --model additive --data gold:en-fr
    python -m models.align --model Helsinki-NLP/opus-mt-ro-en --data gold:ro-en --reading all --split trial
    python -m models.align --model additive --data ../shared/data/hansards-en-fr-align
    python -m models.align --model none --data ../shared/data/hansards-en-fr-align --matrix "integrated gradients"
    python -m models.align --model dot --data ../shared/data/hansards-en-fr-align --split trial --out links.txt
    python -m models.align --model transformer --data DIR --split trial --reading all --method union --save
    python -m models.align --model transformer --data ../shared/data/hansards-en-fr-align --matrix all --out DIR
    python -m models.align.statistical --data ../shared/data/hansards-en-fr-align --corpus …   # eflomal baseline

``--data`` names a human-aligned set (``gold:en-fr``, the Hansards; ``gold:ro-en``, ``gold:ja-en``, ``gold:zh-en``;
fetched once, read in the model's direction: :mod:`models.datasets.gold_sets`) or gives a folder of the Hansards
gold. Each gold pair is decoded with its target sentence (of the Hansards, French) forced (the gold's own tokens
joined by spaces, so each of its words is one word of the app's word view: subwords joined by the ``▁`` rule).
``--matrix`` picks what is read (:mod:`models.analysis.recipes`): the attention α, what it adds (its norm, ALTI,
value zeroing), a rollout through the layers, or a gradient attribution of each forced piece to the source
(:mod:`models.analysis.attribution`, which also gives the no-attention model an alignment); ``all`` scores every
one the model has at every reading, each with its rule chosen on the trial set (:mod:`.every`). Links are read from that
word matrix by ``--method`` (:mod:`models.analysis.word_links`): ``argmax`` links each French word to the English
word it weighs most; ``intersection``, ``union`` and ``grow-diag`` (lilt/alignment-scripts' definition) combine that
with each English word's most weighing French word; ``threshold`` keeps every pair at or above ``--threshold``. The
attention is read as ``--reading``: one head (``2.3``: layer 2, head 3), a layer's mean of heads (``2.mean``),
either read one step later (``2.mean.shifted``: each French piece at the step where it is the decoder's input,
SHIFT-ATT), or ``all`` of them, each scored; the one with the lowest AER on the trial set, saved, becomes the
model's default reading and rule; a head its card says was trained to align (OPUS-MT's transformer-align) is marked
so beside the emergent ones. Prints AER, precision and recall; ``--out`` writes one line of links per pair in the
gold's own format (``i-j``, 1-based, English first).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

from tqdm import tqdm

from ..analysis.aer import alignment_score
from ..analysis.recipes import own_choice, own_rule, why_not
from ..analysis.word_links import WRITTEN, word_matrices
from ..checks import chosen_languages, command_parser, file_out, folder_out, language_options
from ..datasets.gold_sets import GoldSetError, check_gold, gold_name, load_gold
from ..nouns.attention_map import Reading
from ..nouns.link_rule import METHODS, LinkRule
from ..nouns.matrix import MATRICES, matrix_named
from ..storage.cards.render import write_card
from ..storage.commands import command_line
from ..storage.gold import write_links
from ..storage.hub import CheckpointError, load_model
from ..storage.languages import language_key
from ..storage.records.alignment_rows import ALIGNMENT_FILE, AlignmentRow, record_alignment, trial_best
from ..storage.records.probe_file import PROBE_FILE
from .every import SWEPT, every_row
from .fit import FIT_ON, fit_command


def arguments() -> argparse.ArgumentParser:
    p = command_parser("python -m models.align", __doc__.split("\n")[0])
    p.add_argument("--model", required=True, help="bundled name, local directory or Hub repo id")
    p.add_argument("--data", required=True, help="gold:SRC-TGT (en-fr, ro-en, ja-en, zh-en, either direction), or "
                   "a folder of {split}.en, {split}.fr and {split}.gold")
    p.add_argument("--split", default="test", help="test, or trial (the set to tune any choice on)")
    p.add_argument("--matrix", nargs="+", choices=[*MATRICES, "all"], help="what the links are read from (default: "
                   "the attention, or the full-context attention where the model's card says its head was trained "
                   "to align with the whole translation in view); all (every matrix the model has) or several: each "
                   "reading and rule chosen on the trial set")
    p.add_argument("--french", choices=["written", "tokens"], default="written" if WRITTEN else "tokens",
                   help="force the French as written ('au', \"l'ordre\") and give each word's links to the gold tokens "
                   "it stands for, or force the gold's own tokens ('à le', 'le ordre')")
    p.add_argument("--method", choices=[*METHODS, "threshold"], help="how links are read (default: with the "
                   "model's default reading, the rule chosen for it on the trial set, as its card says; else argmax)")
    p.add_argument("--threshold", type=float, help="for --method threshold: the least weight linked "
                   "(default: the one chosen on the trial set for the matrix)")
    p.add_argument("--sweep", action="store_true", help="score every method and thresholds 0.05–0.5 on one pass "
                   "(to choose a rule on --split trial)")
    p.add_argument("--reading", help="LAYER.HEAD or LAYER.mean (a multi-head model), either with .shifted (read "
                   "one step later), or all (default: the model's default reading)")
    p.add_argument("--out", help="write the predicted links here, one line per sentence pair (with --matrix all: a "
                   "folder, one file per row; with --fit-on: a folder, for the probe and its links)")
    p.add_argument("--save", action="store_true", help=f"record the result in the model's {ALIGNMENT_FILE} "
                   "(shown by its card's table and the app's Models page); with --fit-on, the probe as its "
                   f"{PROBE_FILE}, which the app and every command then read")
    p.add_argument("--fit-on", choices=FIT_ON, help="fit the model's heads to the gold's links instead of scoring: "
                   "on its trial split (the test split never read), or folds (a folder with no trial split, "
                   "cross-fitted); kept with --save (beside the model) or --out (a folder), else only printed")
    p.add_argument("--partner", metavar="MODEL", help="with --fit-on: a model translating the other way (bundled "
                   "name or folder) whose heads the probe reads too, on each pair with the roles swapped; the app "
                   "loads it beside the model wherever the probe weighs its heads")
    p.add_argument("--external", choices=["eflomal"], help="with --fit-on trial: the aligner's links as two more "
                   "features, each cell's share of three runs (it learns from --corpus and the gold's sentences, "
                   "never their links); scored on the test split at once and printed, not saved (a new sentence has "
                   "no such links)")
    p.add_argument("--corpus", nargs="*", default=[], help="with --external: its training corpora (folders, or by "
                   "name: multi30k, opus:CORPUS)")
    language_options(p)
    p.add_argument("--device")
    return p


def default_rule(args: argparse.Namespace, loaded) -> str:
    """The rule of ``--method`` left out: for the model's own matrix (its card's) at its default reading, the one
    chosen with it on the trial set (``trial_best``, what its card and the pages read links with); else argmax."""
    if args.matrix not in MATRICES:  # all: each row's rule is chosen on the trial set
        return "argmax"
    matrix = MATRICES[args.matrix]
    if fitted := own_rule(matrix, loaded.fitted):  # a probe's, on trial
        return str(fitted)
    best = trial_best(loaded.path, loaded.model.attention_shape, matrix)
    own = loaded.reading and loaded.reading.key
    default = matrix is loaded.card.aligning_matrix and args.reading in (None, own)
    return str(best.method) if best and default else "argmax"


def rules(args: argparse.Namespace) -> list[LinkRule]:
    """The link-reading rules to score: the one asked for, or every one with ``--sweep``."""
    if args.sweep:
        return SWEPT
    if args.method != "threshold":  # a method, or a trial set's choice with its weight in its name
        return [LinkRule.parse(args.method)]
    return [LinkRule.at_least(matrix_named(args.matrix).least_weight if args.threshold is None else args.threshold)]


def chosen_readings(args: argparse.Namespace, loaded) -> list[Reading | None]:
    """The readings of the matrix to score (None: an attribution, which has one matrix)."""
    matrix = matrix_named(args.matrix)
    if reason := why_not(matrix, loaded.model, loaded.fitted):
        raise SystemExit(f"error: --matrix {args.matrix}: {reason} (--matrix gradient×input or integrated gradients)")
    if matrix.per == "sentence":
        return [None]
    if args.reading == "all":
        return matrix.readings(loaded.model.attention_shape, shifted=True)
    try:
        reading = Reading.parse(args.reading, loaded.model.attention_shape) if args.reading else loaded.reading
    except ValueError as e:
        raise SystemExit(f"error: {e}") from e
    return [matrix.at(reading)]


def checked(args: argparse.Namespace) -> argparse.Namespace:
    """Every argument that can be checked before the model is loaded or a pair is read, refused with its reason."""
    several = args.matrix is not None and (len(args.matrix) > 1 or args.matrix == ["all"])
    if args.sweep and (args.out or args.save or several):
        raise SystemExit("error: --sweep scores many rules; --out, --save and --matrix all take one per row")
    if args.external and args.fit_on != "trial":
        raise SystemExit("error: --external fits on the trial split and scores the test split: --fit-on trial")
    if args.partner and not args.fit_on:
        raise SystemExit("error: --partner is read by a probe: give --fit-on")
    if args.reading == "all" and args.out and not several:
        raise SystemExit("error: --out writes the links of one reading; --reading all scores many")
    if several and args.split != "test":
        raise SystemExit("error: --matrix all chooses each row's rule on the trial set and scores the test set; "
                         "leave --split out")
    if args.fit_on:
        splits = ("trial", "test") if args.external else (("trial",) if args.fit_on == "trial" else ("test",))
    else:
        splits = ("trial", "test") if several else (args.split,)
    try:
        check_gold(args.data, splits)
    except GoldSetError as e:
        raise SystemExit(f"error: --data {e}") from e
    (folder_out if args.fit_on or several else file_out)("--out", args.out)
    return args


def main(argv=None) -> int:
    args = checked(arguments().parse_args(argv))
    try:
        loaded = load_model(args.model, device=args.device, languages=chosen_languages(args))
        if args.fit_on:  # reads the split it fits on, and nothing else
            return fit_command(args, loaded)
        pairs, languages = load_gold(args.data, loaded.languages, args.split)
    except (CheckpointError, OSError, ValueError) as e:  # GoldSetError is a ValueError
        raise SystemExit(f"error: {e}") from e
    args.matrix = args.matrix or [loaded.card.aligning_matrix.name]
    several = args.matrix == ["all"] or len(args.matrix) > 1  # every row of each, its rule chosen on trial
    matrices, args.matrix = (args.matrix, "all") if several else (None, args.matrix[0])
    if args.french == "written" and language_key(languages[1]) != "fr":
        raise SystemExit("error: --french written rewrites French contractions; this set's targets are not French")
    if args.method is None:
        args.method = default_rule(args, loaded)
    command = command_line("models.align", argv)
    results = (every_row(args, loaded, matrices, command) if args.matrix == "all"
               else one_matrix(args, loaded, pairs, command))
    if args.save:
        record_alignment(loaded.path / ALIGNMENT_FILE, results)
        if loaded.origin.trained:  # a checkpoint this project trained has a card to refresh
            write_card(loaded.path)
    return 0


def one_matrix(args: argparse.Namespace, loaded, pairs: list, command: str) -> list[AlignmentRow]:
    """Score ``--matrix`` at the readings and rules asked for; print each result and return them."""
    matrix, chosen = matrix_named(args.matrix), chosen_readings(args, loaded)
    if args.out and len(chosen) > 1:  # known once the model says how many readings it has
        raise SystemExit("error: --out writes the links of one reading; --reading all scores many")
    per_pair = [word_matrices(loaded.model, loaded.tokenizers, pair.source, pair.target, {matrix: chosen},
                              args.french == "written", loaded.fitted)[matrix]
                for pair in tqdm(pairs, desc=args.split, leave=False)]  # [pair][reading] → [F, E]
    results, own = [], own_choice(matrix, loaded.fitted)  # a probe's rule, chosen on its trial pairs
    for n, reading in enumerate(chosen):
        for rule in rules(args):
            chosen_on_trial = own is not None and rule == own.rule and args.split == "test"
            predicted = [rule.read(m[n]) for m in per_pair]
            score = alignment_score(predicted, [q.sure for q in pairs], [q.possible for q in pairs])
            result = AlignmentRow(loaded.path.name, args.split, len(pairs), matrix, rule, round(score.aer, 2),
                                  round(score.precision, 2), round(score.recall, 2), score.links,
                                  reading=reading and reading.key, french=args.french,
                                  trained_to_align=reading is not None and reading == loaded.supervised
                                  and matrix is loaded.card.aligning_matrix,
                                  row=matrix.row_name(reading) if chosen_on_trial else None,
                                  trial_aer=own.aer if chosen_on_trial else None, data=gold_name(args.data))
            print(json.dumps(result.to_json(), ensure_ascii=False))
            results.append(dataclasses.replace(result, command=command,
                                               per_pair=score.per_pair if chosen_on_trial else None))
    if args.out:
        write_links(Path(args.out), predicted)
    return results
