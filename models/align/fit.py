"""``python -m models.align --fit-on trial`` (or ``folds``): fit a model's reading to human links
(:mod:`models.analysis.probe_fit`). With ``--save`` it is kept beside the model (``probe.json``), where the loader,
the app and every command read it as the matrix ``fit to human links``; with ``--out DIR`` in that folder
(``probe.json``, and the links it read); with neither it is only printed. A bundled model's probe is never
rewritten unless asked.

``trial`` fits on the gold's trial split alone (the Hansards' 37 pairs, or the first tenth of a set by name); the
test split is never read. ``folds`` is for a folder with no trial split: its pairs are cross-fitted — each fold's
links read by a probe chosen and fit on the other folds — and that AER is printed, said to be cross-fitted; the
probe kept is fit on every pair and says so wherever it is shown.

``--external eflomal`` adds the statistical aligner's forward and reverse links (learnt from ``--corpus`` and the
gold's sentences, never its links) as two features, each cell's share of :data:`EFLOMAL_RUNS` runs: fit on trial,
scored on test at once and printed, not saved.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from tqdm import tqdm

from ..analysis.aer import alignment_score
from ..analysis.contributions import Sentence
from ..analysis.fitted import word_grid
from ..analysis.probe_fit import Example, cross_fitted, features_of, fit_probe
from ..analysis.recipes import of
from ..datasets.gold_sets import load_gold
from ..decoding.greedy import forced
from ..extras import MissingExtra

from ..nouns.matrix import matrix_named
from ..nouns.probe import EXTERNAL, LOOKS, Feature, Probe
from ..storage.gold import GoldPair, write_links
from ..storage.hub import load_model
from ..storage.languages import EN_FR, pair_name
from ..storage.loaded import LoadedModel
from ..storage.records.probe_file import write_probe
from .eflomal import Shares, eflomal_links, read_corpora

FIT_ON = ("trial", "folds")
#: eflomal samples, so one run's links differ from the next's: over four single runs the bundled Transformers'
#: two-direction probe read the test pairs at 4.13–4.48 AER. Each link's share of three runs is steadier and tells
#: the probe how sure the aligner is (trial CV 5.28, against 5.34–5.74 for each of those runs alone).
EFLOMAL_RUNS = 3


def examples_of(loaded: LoadedModel, pairs: list[GoldPair], desc: str,
                partner: LoadedModel | None = None) -> list[Example]:
    """Each pair's word-cell features [F, E, K] under forced decoding of its target, with people's links; and, with
    ``partner`` (translating the other way), its features on the pair with the roles swapped, transposed."""
    features, found = features_of(loaded.model, partner and partner.model), []
    for pair in tqdm(pairs, desc=desc, leave=False):
        sentence = _sentence(loaded, pair.source, pair.target)
        reverse = None
        if partner is not None:
            turned = _sentence(partner, pair.target, pair.source)
            reverse = turned, lambda name, s=turned: of(matrix_named(name), s)
        x = word_grid(sentence, lambda name, s=sentence: of(matrix_named(name), s), features, reverse).x
        found.append(Example(x[: len(pair.target), : len(pair.source)], pair.sure, pair.possible))
    return found


def _sentence(loaded: LoadedModel, source: list[str], target: list[str]) -> Sentence:
    return Sentence(loaded.model, forced(loaded.model, loaded.tokenizers, " ".join(source), " ".join(target)))


def reverse_partner(args: argparse.Namespace, loaded: LoadedModel) -> LoadedModel | None:
    """``--partner``, loaded, where it translates the other way (SystemExit, saying so, where it does not)."""
    if args.partner is None:
        return None
    partner = load_model(args.partner, device=args.device)
    known = None not in (*partner.languages, *loaded.languages)  # a folder with no training record says none
    if known and partner.languages != loaded.languages[::-1]:
        raise SystemExit(f"error: --partner {args.partner} translates {pair_name(partner.languages)}, not the "
                         f"other way of {pair_name(loaded.languages)}")
    return partner


def summary(probe: Probe, where: str) -> dict:
    used, first = probe.used(), probe.chosen
    second = {"cross-validated AER": probe.final.aer, "labels": probe.final.labels, "C": probe.final.strength,
              "weights": {n: round(w, 2) for n, w in zip(LOOKS, probe.second.weights) if w}} if probe.second \
        else "none (no better on cross-validation)"
    return {"probe": where, "fit on": f"{probe.data.gold} {probe.data.split} ({probe.data.pairs} pairs)",
            "cross-validated AER": probe.final.aer, "rule": str(probe.final.rule),
            "first look's cross-validated AER": first.aer, "labels": first.labels, "C": first.strength,
            "features used": f"{len(used)} of {len(probe.features)}",
            "largest": [f"{f.name}: {w:+.2f}" for f, w in used[:5]], "second look": second,
            "fitting seconds": probe.seconds}


def kept(args: argparse.Namespace, loaded: LoadedModel, probe: Probe, links: list[set] | None) -> str:
    """Where the probe (and links) went: beside the model with ``--save``, into ``--out``'s folder, or nowhere."""
    places = []
    if args.save:
        places.append(str(write_probe(loaded.path, probe)))
    if args.out:
        out = Path(args.out)
        out.mkdir(exist_ok=True)
        places.append(str(write_probe(out, probe)))
        if links is not None:
            places.append(str(write_links(out / "links.txt", links)))
    return ", ".join(places) or "not saved (--save keeps it beside the model, --out DIR in a folder)"


def fit_command(args: argparse.Namespace, loaded: LoadedModel) -> int:
    """Fit, print what was fit (and, cross-fitted, the set's AER), keep it where asked."""
    if args.external:
        return external_command(args, loaded)
    partner = reverse_partner(args, loaded)
    features = features_of(loaded.model, partner and partner.model)
    if args.fit_on == "trial":
        pairs, _ = load_gold(args.data, loaded.languages, "trial")
        probe = fit_probe(examples_of(loaded, pairs, "trial", partner), features, args.data, "trial",
                          partner=args.partner)
        links = None
    else:
        pairs, _ = load_gold(args.data, loaded.languages, "test")
        links, probe = cross_fitted(examples_of(loaded, pairs, "test", partner), features, args.data,
                                    partner=args.partner)
        score = alignment_score(links, [p.sure for p in pairs], [p.possible for p in pairs])
        print(json.dumps({"cross-fitted AER": round(score.aer, 2), "precision": round(score.precision, 2),
                          "recall": round(score.recall, 2), "links": score.links, "pairs": len(pairs)}))
    print(json.dumps(summary(probe, kept(args, loaded, probe, links)), ensure_ascii=False))
    return 0


def with_links(examples: list[Example], found: tuple[list[Shares], list[Shares]]) -> list[Example]:
    """Each example with an aligner's forward and reverse links as two more features [F, E, K + 2]: each cell the
    share of the aligner's runs that linked it."""
    extended = []
    for example, *links in zip(examples, *found):
        F, E = example.x.shape[:2]
        grid = np.zeros((F, E, len(links)))
        for k, these in enumerate(links):
            for (e, f), share in these.items():
                if f < F and e < E:
                    grid[f, e, k] = share
        extended.append(Example(np.concatenate([example.x, grid], -1), example.sure, example.possible))
    return extended


def external_command(args: argparse.Namespace, loaded: LoadedModel) -> int:
    """Fit on the trial pairs with eflomal's links (their shares of :data:`EFLOMAL_RUNS` runs) as two more features,
    score the test pairs once; print both.
    Not saved: a sentence the app is given has no such links."""
    trial, languages = load_gold(args.data, loaded.languages, "trial")
    test, _ = load_gold(args.data, loaded.languages, "test")
    if languages not in (EN_FR, EN_FR[::-1]):
        raise SystemExit(f"error: --external eflomal learns from English–French corpora; {args.data} links "
                         f"{pair_name(languages)} words")
    try:
        on_trial, on_test = eflomal_links([trial, test], read_corpora(args.corpus), EFLOMAL_RUNS,
                                          french_first=languages == EN_FR[::-1])
    except MissingExtra as e:
        raise SystemExit(f"error: {e}") from e
    partner = reverse_partner(args, loaded)
    features = (*features_of(loaded.model, partner and partner.model), *map(Feature, EXTERNAL))
    probe = fit_probe(with_links(examples_of(loaded, trial, "trial", partner), on_trial), features, args.data,
                      "trial", partner=args.partner)
    rule = probe.final.rule
    links = [rule.read(probe.probability(e.x))
             for e in with_links(examples_of(loaded, test, "test", partner), on_test)]
    score = alignment_score(links, [p.sure for p in test], [p.possible for p in test])
    print(json.dumps({**summary(probe, "not saved (a new sentence has no eflomal links)"),
                      "external": f"eflomal (its links as two features, each cell's share of {EFLOMAL_RUNS} runs)",
                      "test AER": round(score.aer, 2), "precision": round(score.precision, 2),
                      "recall": round(score.recall, 2), "links": score.links, "pairs": len(test)},
                     ensure_ascii=False))
    if args.out:
        Path(args.out).mkdir(exist_ok=True)
        write_links(Path(args.out) / "links.txt", links)
    return 0
