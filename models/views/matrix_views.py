"""What the pages draw of one sentence's matrices, each whole from one call: a matrix at one reading, in words or
pieces, labelled and titled, with the target prefix's share and what was drawn in its place and why (Translate); why
the model wrote one piece and not another (the step's contrast); every matrix side by side with its scores (“Which
matrix to believe?”); a human-aligned pair under one matrix, scored (Human links); which heads the matrix fit to
people singles out. :mod:`models.analysis.recipes` holds every matrix's record; the server's time limit is passed in,
never read here.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..analysis.heatmaps import Heatmap, heatmap_at, reading_heatmap, steps_heatmap
from ..analysis.attribution import ATTRIBUTIONS, contrast_seconds, contrastive
from ..analysis.compare import Comparison, compare_views, same_cells
from ..analysis.contributions import Layered, Sentence
from ..analysis.recipes import Progress, applicable, of, own_rule, read_layered, seconds
from ..analysis.side_by_side import Panel, side_by_side
from ..analysis.word_links import pair_scores, word_matrix
from ..datasets import gold_sets
from ..decoding.trace import Trace
from ..network.translator import Translator
from ..nouns.attention_map import Reading
from ..nouns.link_rule import LinkRule
from ..nouns.matrix import ATTENTION, GRADIENT_X_INPUT, Matrix
from ..nouns.probe import Probe
from ..storage.gold import GoldPair
from ..storage.languages import EN_FR, Languages, assumed, may_translate, pair_name
from ..storage.loaded import LoadedModel
from ..storage.records.alignment_rows import AlignmentRow, aer_by_head, recorded, trial_best
from ..storage.records.matrix_scores import aligned
from .deployment import affordable


class Unaffordable(ValueError):
    """A matrix this server cannot give the time it takes, on a model without attention to draw in its place."""


@dataclass(frozen=True, eq=False)
class MatrixView:
    """One matrix of one sentence at one reading, ready to draw."""

    matrix: Matrix  # what is drawn: the one asked for, or the attention in its place (see ``instead``)
    reading: Reading | None  # as the matrix has it (a layer's whole for a layer-wise one); None: one matrix
    steps: Heatmap  # [T, S] a row a step ([T − 1, S] shifted), a column a source piece: what a step's bars read
    heatmap: Heatmap  # the same as drawn, in words or pieces
    title: str  # the chart's: "Attention α (layer 1, head 4)"
    prefix: np.ndarray | None  # [T] the target prefix's share of each step at the reading's layer, where seen
    instead: str | None  # why the matrix asked for is not the one drawn, in a sentence; None when it is


def matrix_view(loaded: LoadedModel, trace: Trace, matrix: Matrix, reading: Reading | None, words: bool,
                limit_s: float | None = None, progress: Progress = None,
                found: dict[Matrix, Layered] | None = None) -> MatrixView:
    """``matrix`` of ``trace`` at ``reading`` (the model's own reading; ignored by a one-matrix reading), between
    words or pieces. One the server cannot afford (:func:`.deployment.affordable`) gives way to the attention at the same
    reading; :class:`Unaffordable` where the model has none. ``progress`` hears a slow matrix's share done;
    ``found`` keeps each matrix read of this sentence (:attr:`Sentence.found`) across calls."""
    model = loaded.model
    sentence = Sentence(model, trace, {} if found is None else found, loaded.fitted)
    instead = affordable(model, trace, matrix, limit_s)
    if instead and (reading is None or not model.has_attention):
        raise Unaffordable(instead)
    found = ATTENTION if instead else matrix
    at = None if reading is None else found.at(reading)
    layers = of(found, sentence, progress)
    weights = read_layered(layers, at)  # [T, S]
    energies = trace.attention.read_energies(at) if found.own and not words else None
    several = at is not None and (not found.own or trace.attention.several_heads)
    title = found.title + (f" ({found.label(at)})" if several else "")
    prefix = None if at is None or layers.prefix is None else layers.prefix[at.layer]
    return MatrixView(found, at, steps_heatmap(trace, weights), heatmap_at(trace, weights, energies, words), title,
                      prefix, instead)


def contrast(model: Translator, trace: Trace, matrix: Matrix, step: int, foil: int,
             limit_s: float | None = None) -> tuple[Matrix, np.ndarray]:
    """Why step ``step`` wrote its piece and not ``foil`` (:func:`models.analysis.attribution.contrastive`): the
    attribution used — the one shown, else gradient×input, also where a server giving a request ``limit_s`` seconds
    cannot afford integrated gradients' — and its shares [S] of the source pieces."""
    used = matrix if matrix in ATTRIBUTIONS else GRADIENT_X_INPUT
    if limit_s is not None and contrast_seconds(trace, used, step) > limit_s:
        used = GRADIENT_X_INPUT
    return used, contrastive(model, trace, used, step, foil)


#: The most one matrix may take on the “Which matrix to believe?” page, so that a sentence is read every way in
#: about 10 s: a slower one (the decoder-only's integrated gradients: 12 of its 18 s) is left out there, and said so.
PANEL_S = 5.0


def panel_readings(loaded: LoadedModel, trace: Trace,
                   limit_s: float | None = None) -> tuple[dict[Matrix, Reading | None], str | None]:
    """Each matrix the model has that :data:`PANEL_S` (and a server giving a request ``limit_s`` seconds) affords on
    ``trace``, at the reading it aligns best with (its ``--matrix all`` row chosen on the trial set, read at the
    writing step), else at the model's own layer; and which were left out, in a sentence (None: none)."""
    best, chosen, slow = aligned(loaded.path), {}, []
    for matrix in applicable(loaded.model, loaded.fitted):
        if affordable(loaded.model, trace, matrix, min(PANEL_S, limit_s or PANEL_S)):
            slow.append(f"{matrix.name} (about {seconds(matrix, loaded.model, trace):.0f} s)")
            continue
        key = best[matrix].reading if matrix in best else None
        own = Reading.from_key(key).plain if key else loaded.reading.plain if loaded.reading else None
        chosen[matrix] = None if own is None else matrix.at(own)
    said = f"Left out here, as slow for this page: {', '.join(slow)}; the Translate page draws it." if slow else None
    return chosen, said


@dataclass(frozen=True, eq=False)
class EveryWay:
    """One sentence read as every matrix chosen, side by side (Which matrix to believe?)."""

    panels: tuple[Panel, ...]  # each matrix at its reading, then the random floor
    titles: tuple[str, ...]  # a panel's: the matrix and its layer (and head)
    table: tuple[dict, ...]  # a row a panel, by column title: its reading, recorded AER, deletion scores
    links: tuple[dict | None, ...]  # a panel's URL parameters on the Translate page (matrix=, head=); None: the floor
    recorded: bool  # whether the model records any matrix's AER (``models.align --matrix all --save``)

    def heatmaps(self, trace: Trace, words: bool) -> list[Heatmap]:
        """Each panel labelled as the page draws it: between ``words``, else pieces."""
        return [heatmap_at(trace, p.steps.weights, None, words) for p in self.panels]


def every_way(loaded: LoadedModel, trace: Trace, chosen: dict[Matrix, Reading | None], scored: bool) -> EveryWay:
    """``trace`` read at each of the ``chosen`` readings (:func:`models.analysis.side_by_side.side_by_side`: one
    hooked pass), each beside the AER its best ``--matrix all`` row recorded; deletion scores when ``scored``."""
    panels = side_by_side(loaded.model, trace, chosen, scored, loaded.fitted)
    recorded = aligned(loaded.path)

    def at(p: Panel) -> str:
        return "" if p.reading is None else p.matrix.label(p.reading)

    def title(p: Panel) -> str:  # plain words, short enough for three panels a row; its scores are the table's
        return ", ".join(filter(None, (p.matrix.name, at(p))))

    def aligned_at(row: AlignmentRow) -> str:  # "layer 1, head 4, read one step later · grow-diag"
        reading = row.matrix.label(Reading.from_key(row.reading)) if row.reading else ""
        return " · ".join(filter(None, (reading, str(row.method))))

    missing = float("nan")  # a number column holds numbers: no score is NaN, which the table shows as a dash
    table = [{"matrix": p.matrix.name, "reading": at(p),
              "AER % (gold test set)": recorded[p.matrix].aer if p.matrix in recorded else missing,
              "aligned at": aligned_at(recorded[p.matrix]) if p.matrix in recorded else "",
              "comprehensiveness": missing if p.comprehensiveness is None else p.comprehensiveness,
              "sufficiency": missing if p.sufficiency is None else p.sufficiency} for p in panels]
    links = [None if p.matrix.random else {"matrix": p.matrix.slug,
                                               **({"head": p.reading.key} if p.reading else {})} for p in panels]
    return EveryWay(tuple(panels), tuple(map(title, panels)), tuple(table), tuple(links), bool(recorded))


@dataclass(frozen=True, eq=False)
class GoldView:
    """One human-aligned pair under one matrix: the word matrix labelled with the gold's words, and its scores."""

    heatmap: Heatmap  # [F, E] between the gold's own words
    scores: tuple[dict, ...]  # a row per rule, by column title: AER, precision, recall, links


def gold_view(loaded: LoadedModel, pair: GoldPair, matrix: Matrix, reading: Reading | None) -> GoldView:
    """``pair``'s target forced through the model, ``matrix`` at ``reading`` (the model's own when None) between
    its words, scored against people's links under each rule people compare — the attention's chosen on the trial
    set where the model records one."""
    weights = word_matrix(loaded.model, loaded.tokenizers, pair.source, pair.target, matrix,
                          reading or loaded.reading, fitted=loaded.fitted)  # [F, E]
    F, E = weights.shape
    heatmap = Heatmap(rows=pair.target[:F], columns=pair.source[:E], unknown=(False,) * E, weights=weights)
    return GoldView(heatmap, tuple(pair_scores(weights, pair.sure, pair.possible, matrix, link_rule(loaded, matrix))))


def link_rule(loaded: LoadedModel, matrix: Matrix) -> LinkRule:
    """How ``matrix``'s word links are read on ``loaded``: the rule chosen with it on the trial pairs (a probe's
    own, or the attention's best recorded beside the model), else the matrix's default."""
    best = trial_best(loaded.path, loaded.model.attention_shape) if matrix.own else None
    return own_rule(matrix, loaded.fitted) or (best.method if best else None) or matrix.rule


def gold_source(languages: Languages, folder: Path | None) -> tuple[str, list[str]] | str:
    """Where human links for a model translating ``languages`` come from, and their splits: between English and
    French (either way) the Hansards ``folder``, if it holds any split (None: none), else the set of the pair by
    name (:mod:`models.datasets.gold_sets`); why there are none, in a sentence, when no set links those languages."""
    splits = [s for s in ("test", "trial") if folder and (folder / f"{s}.gold").exists()]
    if splits and (may_translate(languages, EN_FR) or may_translate(languages, EN_FR[::-1])):
        return str(folder), splits
    gold_set = gold_sets.gold_for(assumed(languages))
    if gold_set:
        return gold_set.name, ["test", "trial"]
    names = ", ".join(pair_name(g.languages) for g in gold_sets.GOLD_SETS)
    return (f"People's links come by name for {names} (either way); this model translates {pair_name(languages)}, "
            "so there is nothing of its to lay over them.")


def to_fetch(spec: str) -> gold_sets.GoldSet | None:
    """The gold set ``spec`` names if it must still be fetched (a first visit takes seconds); None otherwise."""
    gold_set = gold_sets.find_gold(spec) if spec.startswith(gold_sets.PREFIX) else None
    return None if gold_set is None or gold_sets.is_cached(gold_set) else gold_set


def gold_pairs(spec: str, languages: Languages, split: str) -> list[GoldPair]:
    """The pairs of ``split`` of the gold ``spec`` names, in ``languages``' direction; OSError or ValueError where
    they cannot be read (:func:`unavailable` tells a set not to be had here from a broken one)."""
    return gold_sets.load_gold(spec, languages, split)[0]


def unavailable(error: Exception) -> bool:
    """Whether a :func:`gold_pairs` error says a named set cannot be had here (offline, say): no fault of the
    page's, unlike a folder that cannot be read."""
    return isinstance(error, gold_sets.GoldSetError)


def unavailable_said(spec: str, error: Exception) -> str:
    """What a visitor reads when the set ``spec`` names cannot be had (:func:`unavailable`): where it could not be
    fetched from, a sentence without an address or a setting (the command line's error says those); any other
    fault of the set as it is."""
    cause = error.__cause__
    while cause is not None and not isinstance(cause, OSError):  # the fetch's own error, then the network's
        cause = cause.__cause__
    if cause is None:
        return str(error)
    return (f"People's links ({gold_sets.gold_title(spec)}) are fetched once from their public source, which this "
            "server cannot reach right now, so there is no pair to draw. What the model's own files say of its "
            "heads is below.")


#: A grid as the charts take it: row labels (layers), column labels (heads, then the layer's whole), a value a cell.
Grid = tuple[list[str], list[str], list[list[float | None]]]


@dataclass(frozen=True)
class FittedHeads:
    """The probe's head grids, by "read one step later", each with the heads' own test AER where recorded."""

    weights: dict[str, Grid]  # by title: the probe's weight a head (summed over the matrices and scalings reading it)
    aer: dict[str, Grid | None]  # by title: each head's own attention AER on the gold test set; None: not recorded
    bound: float  # the largest weight's size: one colour scale, ±bound, for every grid
    summary: str  # what it was fit on and how well it reads, in a line
    about: str  # what weighs beside the heads, and how to read the grids (the help)


def fitted_summary(probe: Probe, other_way: str = "the other way") -> tuple[str, str]:
    """A line above the grids (what it was fit on, how well it reads) and, for the help, what weighs beside the
    heads in plain words: the positions, and a head's cell read at its diagonal neighbour."""
    data, used, gold = probe.data, probe.used(), gold_sets.gold_title(probe.data.gold)
    beside = [f"{f.source}{f.head and ', ' + f.head.label or ''}{f.at != 'cell' and f' ({f.at})' or ''} {w:+.2f}"
              for f, w in used if f.head is None or f.at != "cell"][:4]
    fit = "Cross-fitted on all" if data.cross_fitted else f"Fit on {data.split}"
    both = f" (its own heads and, as Reverse, those of a model translating {other_way}, read with the roles " \
           "swapped)" if probe.reads_partner else ""
    second = " Then a second look weighs each pair against its row's and column's rivals." * bool(probe.second)
    return (f"{fit} {data.pairs} pairs of {gold}{both}: {len(used)} of {len(probe.features)} features weigh; "
            f"cross-validated AER {probe.final.aer:.1f} %.",
            f"Beside the heads: {'; '.join(beside)}. " * bool(beside) + f"Links read by {probe.final.rule}.{second} ")


FITTED_ABOUT = ("Red: more of that head's attention makes a link likelier; blue: less likely; white: not weighed; one "
                "scale for both grids. A column a head, and 'all': the layer's heads together. A cell sums the weights "
                "of every reading of its head (as read, ÷ its row's or column's largest); its own AER is its tooltip.")


def fitted_heads(loaded: LoadedModel) -> FittedHeads | None:
    """The grids of ``loaded``'s fitted probe; None where it has none, or no heads to grid."""
    probe: Probe | None = loaded.fitted.probe
    layers, heads = loaded.model.attention_shape
    if probe is None or not layers:
        return None
    results, partner = recorded(loaded.path), loaded.fitted.partner if probe.reads_partner else None
    weights, aer = {}, {}
    for reverse, model in ((False, loaded.model), *(((True, partner.model),) if partner else ())):
        L, H = model.attention_shape
        for shifted in (False, True):
            step = "one step later" if shifted else "writing step"
            title = f"Reverse, {step}" if reverse else step.capitalize()  # short: the grids stand in a narrow column
            grid = probe.head_grid(L, H, shifted, reverse)
            weights[title] = ([f"layer {n + 1}" for n in range(L)], [str(h + 1) for h in range(H)] + ["all"],
                              [[round(float(w), 3) for w in row] for row in grid])
            aer[title] = None if reverse else aer_by_head(results, "test", shifted)
    bound = max((abs(w) for _, _, grid in weights.values() for row in grid for w in row), default=0.0) or 1.0
    summary, about = fitted_summary(probe, pair_name(loaded.languages[::-1]))
    return FittedHeads(weights, aer, bound, summary, about + FITTED_ABOUT)


@dataclass(frozen=True)
class Compared:
    """Two readings of one sentence forced to one target, set side by side cell by cell."""

    views: tuple[Heatmap, Heatmap]
    by_words: bool  # compared word by word, as asked or because the two cut the sentences into other pieces
    comparison: Comparison | None  # None: their words differ too, so no cell has a twin


def compared(traces: tuple[Trace, Trace], readings: tuple[Reading, Reading], words: bool,
             names: tuple[str, str]) -> Compared:
    """``traces`` (one sentence forced to one target by two models) each at its reading, compared piece by piece
    where both cut the sentences alike and ``words`` is not asked for, else word by word."""
    def views(by_words: bool) -> tuple[Heatmap, Heatmap]:
        return tuple(reading_heatmap(t, r, by_words) for t, r in zip(traces, readings))

    found, by_words = views(words), words
    if not same_cells(*found) and not words:  # e.g. a Hub model with tokenizers of its own
        found, by_words = views(True), True
    return Compared(found, by_words, compare_views(*found, names=names) if same_cells(*found) else None)

