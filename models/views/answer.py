"""Is attention an alignment? What the answer page shows of the bundled translators, read from the records beside
each checkpoint: each model's bars (its raw attention, its best other matrix, its heads fit to people), the floor
and the statistical aligners beside them, and one verdict a generation, each "better" held by a paired test over the
gold's test pairs (:func:`~models.analysis.aer.paired_difference`)."""
from __future__ import annotations

from dataclasses import dataclass

from ..analysis.aer import Difference, paired_difference
from ..network.family import FAMILIES, family
from ..nouns.attention_map import Reading
from ..nouns.matrix import ATTENTION, FITTED, FLOOR, RANDOM, matrix_named
from ..nouns.probe import Probe
from ..storage.commands import for_people
from ..storage.hub import bundled_pairs, bundled_variants, resolve
from ..storage.languages import pair_name
from ..storage.records.alignment_rows import BUNDLED_BASELINE, PUBLISHED, AlignmentRow, read_alignment
from ..storage.records.matrix_scores import aligned, explained, read_faithfulness
from ..storage.records.probe_file import read_probe
from .naming import model_name

GENERATIONS = tuple(dict.fromkeys(f.generation for f in FAMILIES.values()))  # the three, oldest first
GIZA = "GIZA++ (Mgiza), same direction (published)"
SYMMETRISED = "grow-diag"  # the statistical aligner's links a verdict compares with: both directions, as attention's


@dataclass(frozen=True)
class Answer:
    """Is attention an alignment? Is it an explanation? Each bundled model's test AER on the Hansards gold at its
    raw attention, its best other matrix and fit to people (each chosen on the trial pairs), beside the floor and
    the statistical aligners, with each matrix's deletion score beside random: rows by column title."""

    bars: tuple[dict, ...]  # generation, model, bar (its label), which, matrix, AER, at, head, comprehensiveness
    references: tuple[dict, ...]  # what, AER, label, line (of the names above the chart): the position floor,
    # eflomal's links, GIZA++ (published)
    random: tuple[dict, ...]  # bar, comprehensiveness: each model's random ranking
    verdicts: tuple[str, ...]  # one line a generation, composed from the rows and their paired tests
    commands: tuple[str, ...]

    def link(self, picked: dict) -> dict | None:
        """The Translate page's URL parameters of a clicked bar (``model``, ``matrix``): that model, that matrix at
        its head."""
        bar = next((b for b in self.bars if (b["model"], b["matrix"]) == (picked.get("model"), picked.get("matrix"))),
                   None)
        return bar and {"model": bar["model"], "matrix": matrix_named(bar["matrix"]).slug,
                        **({"head": bar["head"]} if bar["head"] else {})}


@dataclass(frozen=True)
class Measured:
    """One bundled model's rows the answer reads: each bar's (by which matrix it is), its floor's, and its probe
    (its heads fit to people's links)."""

    name: str
    generation: str
    rows: dict[str, AlignmentRow]  # "raw attention", "best other matrix", "fit to human links": where measured
    floor: AlignmentRow | None
    probe: Probe | None


def measured(name: str, generation: str) -> Measured:
    """The rows of the bundled model ``name`` (:func:`~models.storage.records.matrix_scores.aligned`: each matrix's
    row chosen on the trial pairs)."""
    path = resolve(name)
    best, probe = aligned(path), read_probe(path)
    # its best other matrix: neither the weights themselves nor the matrix fit to people
    others = sorted((r for m, r in best.items() if not (m.weights or m.fit)), key=lambda r: r.trial_aer)[:1]
    picked = {"raw attention": best.get(ATTENTION), "best other matrix": others[0] if others else None,
              "fit to human links": best.get(FITTED)}
    return Measured(name, generation, {k: r for k, r in picked.items() if r is not None}, best.get(FLOOR), probe)


def _bars(found: Measured) -> tuple[list[dict], list[dict]]:
    """A model's bars and its random deletion score, by column title."""
    path, label, generation = resolve(found.name), model_name(found.name), found.generation
    said, probe = explained(read_faithfulness(path)), found.probe
    label = label if label.lower().startswith(generation.lower()) else f"{generation}: {label}"
    both = probe and probe.reads_partner and f"its heads and the {pair_name(bundled_pairs()[found.name][::-1])} model's"
    bars = [{"generation": generation, "model": found.name, "bar": label, "which": which, "matrix": r.matrix.name,
             "AER": r.aer, "head": r.reading or "", "at": r.reading and r.matrix.label(
                 Reading.from_key(r.reading)) or (r.matrix is FITTED and both or ""), "comprehensiveness":
             said[r.matrix].comprehensiveness if r.matrix in said else None} for which, r in found.rows.items()]
    noise = said.get(RANDOM) if bars else None
    return bars, [{"bar": label, "comprehensiveness": noise.comprehensiveness}] if noise else []


def _test(row: AlignmentRow, other: AlignmentRow | None) -> Difference | None:
    """``row``'s AER against ``other``'s on the same pairs; None where either lacks its pairs' counts."""
    same = other is not None and row.per_pair and other.per_pair and len(row.per_pair) == len(other.per_pair)
    return paired_difference(row.per_pair, other.per_pair) if same else None


def compared(tests: list[Difference | None], name: str, aer: float) -> str:
    """How a generation's matrices (one paired test a model) stand against ``name`` at ``aer``, in words: better
    or worse only where the tests say so, "no better than" where none does."""
    found = [t for t in tests if t is not None]
    better, worse, done = sum(t.lower for t in found), sum(t.higher for t in found), len(found)
    against = f"{name} ({aer:.1f})"
    if not done:
        return f"not yet compared with {against}"
    if better == len(tests):
        return f"better than {against}"
    if worse == len(tests):
        return f"worse than {against}"
    if better:
        return f"better than {against} for {better} of {len(tests)} models"
    return f"no better than {against}"


def _span(rows: list[AlignmentRow]) -> str:
    found = sorted(r.aer for r in rows)
    return f"{found[0]:.1f}" + (f"–{found[-1]:.1f}" if found[-1] != found[0] else "")


def verdict(generation: str, models: list[Measured], aligner: AlignmentRow | None) -> str:
    """One generation's answer in a sentence: yes where every model's raw attention is better than its floor (the
    words' positions alone, read on the same pairs) and none worse than the statistical aligner; partly where some
    or all are better than the floor but not that; no where none is. Then its heads fit to people, said for what
    they are (fit to a few pairs of people's links: weakly supervised)."""
    def against(which: str) -> tuple[list[AlignmentRow], str] | None:
        rows = [(m.rows[which], m.floor) for m in models if which in m.rows]
        if not rows:
            return None
        floors = [floor for _, floor in rows if floor is not None]
        parts = [compared([_test(r, floor) for r, floor in rows], "where the words sit alone",
                          min(f.aer for f in floors))] if floors else []
        if aligner is not None:
            parts.append(compared([_test(r, aligner) for r, _ in rows], "eflomal", aligner.aer))
        return [r for r, _ in rows], ", ".join(parts)

    attention, fitted = against("raw attention"), against("fit to human links")
    if attention is None:
        return f"{generation}: not measured yet."
    floors = [_test(m.rows["raw attention"], m.floor) for m in models if "raw attention" in m.rows]
    worse = [_test(m.rows["raw attention"], aligner) for m in models if "raw attention" in m.rows]
    word = ("" if all(t is None for t in floors) else  # nothing to answer with
            "no. " if not any(t is not None and t.lower for t in floors) else
            "yes. " if all(t is not None and t.lower for t in floors) and not any(t and t.higher for t in worse) else
            "partly. ")
    said = f"{generation}: {word}Its attention {_span(attention[0])} AER, {attention[1]}"
    if fitted:
        pairs = {m.probe.data.pairs for m in models if m.probe} or {None}
        fit = f"fit to the links of {min(pairs)} pairs people aligned" if min(pairs) else "fit to people's links"
        said += f"; its heads {fit} (weakly supervised) {_span(fitted[0])}, {fitted[1]}"
    return said + "."


def answer(names: list[str]) -> Answer:
    """The answer for the bundled models ``names`` (:func:`~models.storage.hub.bundled_models`), by generation."""
    kind = {n: family(bundled_variants()[n]).generation for n in names}
    order = lambda n: GENERATIONS.index(kind[n]) if kind[n] in GENERATIONS else len(GENERATIONS)  # noqa: E731
    models = [measured(name, kind[name]) for name in sorted(names, key=order)]
    bars, random = [], []
    for found in models:
        more = _bars(found)
        bars, random = bars + more[0], random + more[1]
    baseline = {r.method: r for r in read_alignment(BUNDLED_BASELINE)}
    aligners = [(f"eflomal, {m}", baseline[m].aer) for m in ("forward", "grow-diag", "intersection") if m in baseline
                ] + [("GIZA++ (published)", PUBLISHED[GIZA])]
    low = min(a for _, a in aligners)
    every = sorted(m.floor.aer for m in models if m.floor)  # one rule, at the lowest; its label, all
    span = every and f"{every[0]:.1f}" + (f"–{every[-1]:.1f}" if every[-1] != every[0] else "")
    eflomal = [aer for what, aer in aligners if what.startswith("eflomal")]
    named = (f"eflomal {min(eflomal):.1f}–{max(eflomal):.1f}, " if eflomal else "") + f"GIZA++ {PUBLISHED[GIZA]:.1f}"
    floor = [{"what": "position floor", "AER": every[0], "label": f"floor: positions alone {span}", "line": 0}
             ] if every else []
    references = floor + [{"what": what, "AER": aer, "label": named if aer == low else "", "line": 1}
                          for what, aer in aligners]
    verdicts = tuple(verdict(g, [m for m in models if m.generation == g and m.rows], baseline.get(SYMMETRISED))
                     for g in dict.fromkeys(b["generation"] for b in bars))
    commands = dict.fromkeys(for_people(r.command) for n in names for r in aligned(resolve(n)).values() if r.command)
    return Answer(tuple(bars), tuple(references), tuple(random), verdicts, tuple(commands))
