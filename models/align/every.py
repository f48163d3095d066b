"""``python -m models.align --matrix all`` (or several matrices): every matrix a model has
(:mod:`models.analysis.recipes`), at every reading it has (each layer, each head where it has its own, each read
one step later too), each row's link rule chosen on the trial set and scored once on the test set.

A row is named ``MATRIX.READING`` (``attention-norm.2.mean.shifted``; an attribution's by its matrix alone); with
``--out DIR`` each row's test links go to ``DIR/<row>.txt``, one line per pair in the gold's own format, so any
row can be rescored by any AER tool to the figure printed on it. The row with each matrix's lowest trial AER (the
one the matrix is known by) keeps each test pair's counts, for a paired test against the floor or an aligner.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import numpy as np
from tqdm import tqdm

from ..analysis.aer import alignment_score
from ..analysis.recipes import applicable, own_choice, why_not
from ..analysis.word_links import word_matrices
from ..datasets.gold_sets import gold_name, load_gold
from ..nouns.attention_map import Reading
from ..nouns.link_rule import METHODS, LinkRule
from ..nouns.matrix import Matrix, matrix_named
from ..storage.gold import GoldPair, write_links
from ..storage.loaded import LoadedModel
from ..storage.records.alignment_rows import AlignmentRow

#: The thresholds ``--sweep`` tries; with every method, the rules each row of ``--matrix all`` chooses from.
SWEEP = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
SWEPT = [*METHODS.values(), *(LinkRule.at_least(t) for t in SWEEP)]


def rows_of(loaded: LoadedModel, matrices: list[str]) -> dict[Matrix, list[Reading | None]]:
    """``{matrix: readings}`` of ``matrices`` named (``["all"]``: every one the model has); exits on one it lacks."""
    chosen = (applicable(loaded.model, loaded.fitted) if matrices == ["all"]
              else [matrix_named(m) for m in dict.fromkeys(matrices)])
    for matrix in chosen:
        if reason := why_not(matrix, loaded.model, loaded.fitted):
            raise SystemExit(f"error: --matrix {matrix.name}: {reason}")
    return {m: m.readings(loaded.model.attention_shape, shifted=True) for m in chosen}


def matrices_of(loaded: LoadedModel, rows: dict[Matrix, list[Reading | None]], pairs: list[GoldPair], written: bool,
                desc: str) -> dict[str, list[np.ndarray]]:
    """Every row's word matrix [F, E] for each pair, ``{row name: [pair]}``, each pair read from one pass."""
    found: dict[str, list[np.ndarray]] = {}
    for pair in tqdm(pairs, desc=desc, leave=False):
        weights = word_matrices(loaded.model, loaded.tokenizers, pair.source, pair.target, rows, written, loaded.fitted)
        for matrix, chosen in rows.items():
            for reading, w in zip(chosen, weights[matrix]):
                found.setdefault(matrix.row_name(reading), []).append(w)
    return found


def _score(weights: list[np.ndarray], rule: LinkRule, pairs: list[GoldPair]):
    predicted = [rule.read(w) for w in weights]
    return alignment_score(predicted, [p.sure for p in pairs], [p.possible for p in pairs]), predicted


def every_row(args: argparse.Namespace, loaded: LoadedModel, matrices: list[str],
              command: str) -> list[AlignmentRow]:
    """Score every row of ``matrices``; print each as a JSON line and return them; write links files under
    ``args.out``."""
    trial, _ = load_gold(args.data, loaded.languages, "trial")
    test, _ = load_gold(args.data, loaded.languages, "test")
    written, rows = args.french == "written", rows_of(loaded, matrices)
    on_trial = matrices_of(loaded, rows, trial, written, "trial")
    on_test = matrices_of(loaded, rows, test, written, "test")
    out = Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    results = []
    for matrix, chosen in rows.items():
        scored = []  # (row, its per-pair counts) of each reading
        for reading in chosen:
            name = matrix.row_name(reading)
            own = own_choice(matrix, loaded.fitted)  # chosen with the matrix itself (a probe's)
            tried = ({own.rule: own.aer} if own else
                     {rule: _score(on_trial[name], rule, trial)[0].aer for rule in SWEPT})
            rule = min(tried, key=tried.get)
            score, predicted = _score(on_test[name], rule, test)
            result = AlignmentRow(loaded.path.name, "test", len(test), matrix, rule, round(score.aer, 2),
                                  round(score.precision, 2), round(score.recall, 2), score.links,
                                  reading=reading and reading.key, row=name, trial_aer=round(tried[rule], 2),
                                  french=args.french, data=gold_name(args.data))
            print(json.dumps(result.to_json(), ensure_ascii=False), flush=True)
            scored.append((dataclasses.replace(result, command=command), score.per_pair))
            if out:
                write_links(out / f"{name}.txt", predicted)
        best = min(range(len(scored)), key=lambda n: scored[n][0].trial_aer)  # the row the matrix is known by
        results += [dataclasses.replace(row, per_pair=counts) if n == best else row
                    for n, (row, counts) in enumerate(scored)]
    return results
