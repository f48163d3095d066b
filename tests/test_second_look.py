"""The probe's second look (models/nouns/probe.py ``looks``, ``SecondLook``; probe_fit ``second_look``): what it
reads of a p(link) grid, agreeing with a plain loop; kept where links are a competition between cells that a
per-cell probe cannot read, left out where the first look already reads them; and its record round-trips."""
import numpy as np
import pytest

from models.analysis.probe_fit import Example, fit_probe
from models.nouns.link_rule import LinkRule, rows_argmax
from models.nouns.probe import LOOKS, Feature, looks
from models.storage.records.probe_file import probe_from_json, probe_json

FEATURES = (Feature("attention", "1.1"),)


def test_looks_agree_with_a_plain_loop_over_each_cells_row_and_column():
    p = np.random.default_rng(0).uniform(0.01, 1.0, (4, 6))  # [F, E]
    found = looks(p)
    assert found.shape == (4, 6, len(LOOKS))
    for f in range(4):
        for e in range(6):
            row, column = np.delete(p[f], e), np.delete(p[:, e], f)
            named = dict(zip(LOOKS, found[f, e]))
            assert named["p"] == pytest.approx(np.log(p[f, e]))
            assert named["p ÷ row max"] == pytest.approx(np.log(p[f, e] / p[f].max()))
            assert named["row's strongest rival"] == pytest.approx(np.log(row.max()))
            assert named["column's strongest rival"] == pytest.approx(np.log(column.max()))
            before = p[f - 1, e - 1] if f and e else 0.0
            assert named["p diagonal before"] == pytest.approx(np.log(max(before, 1e-6)))
            assert named["both maxima"] == (p[f, e] == p[f].max() and p[f, e] == p[:, e].max())


def test_a_one_word_sentence_has_no_rival():
    assert np.isfinite(looks(np.array([[0.7]]))).all()


def competing(n: int, seed: int) -> list[Example]:
    """One feature per cell; people link a target word to its row's highest only where that clearly beats the row's
    next: a competition neither a threshold on one cell nor an argmax rule reads (a row's clear best may score below
    another row's runner-up; an argmax links every row)."""
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(n):
        F, E = rng.integers(4, 9, 2)
        x = rng.normal(size=(F, E, 1)) + rng.normal(size=(F, 1, 1))  # each row shifted by its own amount
        ranked = np.sort(x[..., 0], 1)
        links = frozenset((e, f) for e, f in rows_argmax(x[..., 0]) if ranked[f, -1] - ranked[f, -2] > 0.7)
        found.append(Example(x, links, links))
    return found


def thresholded(n: int, seed: int) -> list[Example]:
    """People link every cell whose feature is high, and the feature is either high or low, far apart: the first
    look reads them whole (AER 0), so a second cannot read them better."""
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(n):
        shape = (*rng.integers(4, 9, 2), 1)
        x = rng.choice([-1.5, 2.0], size=shape, p=[0.8, 0.2]) + rng.normal(scale=0.1, size=shape)
        links = frozenset((int(e), int(f)) for f, e in zip(*np.nonzero(x[..., 0] > 0)))
        found.append(Example(x, links, links))
    return found


def test_a_second_look_is_kept_where_the_links_are_a_competition_and_reads_them_better():
    probe = fit_probe(competing(30, 1), FEATURES, "toy", "trial")
    assert probe.second is not None
    assert probe.final.aer < probe.chosen.aer - 5, (probe.chosen, probe.final)
    held_out = competing(30, 2)
    first = [probe.chosen.rule.read(probe.first_look(e.x)) for e in held_out]
    both = [probe.final.rule.read(probe.probability(e.x)) for e in held_out]
    right = lambda found: sum(len(links & e.sure) for links, e in zip(found, held_out))  # noqa: E731
    assert right(both) > right(first)


def test_no_second_look_where_the_first_reads_the_links_whole():
    probe = fit_probe(thresholded(20, 3), FEATURES, "toy", "trial")
    assert probe.chosen.aer == 0
    assert probe.second is None and probe.final == probe.chosen


def test_a_probe_with_a_second_look_round_trips_and_a_short_one_is_refused():
    probe = fit_probe(competing(20, 4), FEATURES, "toy", "trial")
    found = probe_json(probe)
    assert probe_from_json(found) == probe and "second" in found
    broken = {**found, "second": {**found["second"], "weights": found["second"]["weights"][:-1]}}
    with pytest.raises(ValueError, match="second look"):
        probe_from_json(broken)
    assert probe.final.rule == probe.second.chosen.rule and isinstance(probe.final.rule, LinkRule)
