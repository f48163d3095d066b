"""The answer at a glance (models/views/answer.py, pages/Answer.py): each generation's bars read from the records
beside the bundled models — each the row chosen on the trial pairs, its test AER — beside the floor and the aligners,
verdicts that answer yes, no or partly, each "better" held by a paired test, and a click that opens the model and
reading."""
import dataclasses
import json

import numpy as np
import pytest

from models.nouns.link_rule import LinkRule
from models.nouns.matrix import ALIGNER, ATTENTION, FITTED, FLOOR, Matrix
from models.storage.hub import BUNDLED_DIR, bundled_models, resolve
from models.storage.records.alignment_rows import ALIGNMENT_FILE, BUNDLED_BASELINE, AlignmentRow, read_alignment
from models.storage.records.probe_file import read_probe
from models.views import answer as answers
from models.views.answer import Measured, answer, verdict

from .pages_helpers import figures, page, run_page


def chosen_on_trial(name: str, matrix: str) -> dict | None:
    """Read here from the file alone: the model's row of ``matrix`` chosen on the trial pairs (lowest trial AER)."""
    rows = [r for r in json.loads((resolve(name) / ALIGNMENT_FILE).read_text()) if r["matrix"] == matrix
            and r.get("trial aer") is not None]
    return min(rows, key=lambda r: r["trial aer"]) if rows else None


def test_each_bar_is_its_models_row_chosen_on_trial_and_all_three_generations_are_named():
    found = answer(bundled_models())
    assert [g for g in dict.fromkeys(b["generation"] for b in found.bars)] == ["RNN", "Transformer", "decoder-only"]
    for bar in found.bars:
        row = chosen_on_trial(bar["model"], bar["matrix"])
        assert row is not None and bar["AER"] == row["aer"] and bar["head"] == row.get("reading", "")
    assert {b["which"] for b in found.bars} == {"raw attention", "best other matrix", "fit to human links"}
    floors = sorted(chosen_on_trial(name, "position floor")["aer"] for name in bundled_models())
    assert found.references[0] == {"what": "position floor", "AER": floors[0], "line": 0,
                                   "label": f"floor: positions alone {floors[0]:.1f}–{floors[-1]:.1f}"}
    named = " ".join(r["label"] for r in found.references)
    assert "eflomal" in named and "GIZA++" in named  # the aligners named on the chart, not in a tooltip alone
    assert len(found.references) == 5
    assert [v.split(":")[0] for v in found.verdicts] == ["RNN", "Transformer", "decoder-only"]
    for said in found.verdicts:  # each answers, and an error rate is better or worse, never above or below
        assert said.split(": ", 1)[1].split(". ")[0] in ("yes", "no", "partly"), said
        assert not any(word in said for word in ("above", "below", "behind", "not yet compared")), said
    assert not any(".shifted" in b["at"] or "../" in c for b in found.bars for c in found.commands)


def pairs_like(agreed_share: float, seed: int, pairs: int = 447) -> tuple[tuple[int, int], ...]:
    rng = np.random.default_rng(seed)
    return tuple((int(rng.binomial(t, agreed_share)), int(t)) for t in rng.integers(4, 40, pairs))


def row(matrix: Matrix, share: float, seed: int) -> AlignmentRow:
    counts = pairs_like(share, seed)
    aer = round(100 * (1 - sum(a for a, _ in counts) / sum(t for _, t in counts)), 2)
    return AlignmentRow("m", "test", len(counts), matrix, LinkRule.parse("union"), aer, 0.0, 0.0, 0, trial_aer=aer,
                        per_pair=counts)


def model(attention: float, floor: float = 0.5, fitted: float | None = None, seed: int = 0) -> Measured:
    rows = {"raw attention": row(ATTENTION, attention, seed)}
    if fitted is not None:
        rows["fit to human links"] = row(FITTED, fitted, seed + 1)
    probe = read_probe(resolve("transformer"))  # a real record, said to be fit to 37 pairs
    probe = dataclasses.replace(probe, data=dataclasses.replace(probe.data, pairs=37))
    return Measured(f"m{seed}", "G", rows, row(FLOOR, floor, seed + 2), probe)


def test_a_verdict_says_yes_no_or_partly_from_paired_tests_against_the_floor_and_the_aligner():
    aligner = row(ALIGNER, 0.93, 99)
    assert verdict("G", [model(0.94), model(0.95, seed=3)], aligner).startswith("G: yes. Its attention")
    partly = verdict("G", [model(0.85, fitted=0.96), model(0.88, fitted=0.95, seed=3)], aligner)
    assert partly.startswith("G: partly. ") and "better than where the words sit alone" in partly
    assert "worse than eflomal (7." in partly.split(";")[0]
    assert "fit to the links of 37 pairs people aligned (weakly supervised)" in partly
    assert "better than eflomal (7." in partly.split(";")[1]
    no = verdict("G", [model(0.5, floor=0.5), model(0.4, floor=0.5, seed=3)], aligner)
    assert no.startswith("G: no. ") and "no better than where the words sit alone" in no
    mixed = verdict("G", [model(0.94), model(0.5, floor=0.5, seed=3)], aligner)
    assert mixed.startswith("G: partly. ") and "better than where the words sit alone (" in mixed
    assert "sit alone (49.7) for 1 of 2 models" in mixed  # the floor said at the generation's lowest


def resampled_difference(one, other, draws: int = 4000) -> tuple[float, float]:
    """An independent paired bootstrap (numpy alone): the 2.5th and 97.5th percentiles of AER(one) − AER(other)."""
    one, other = np.array(one, dtype=float), np.array(other, dtype=float)
    picks = np.random.default_rng(11).integers(0, len(one), (draws, len(one)))
    aer = [100 * (1 - a[picks, 0].sum(1) / a[picks, 1].sum(1)) for a in (one, other)]
    return tuple(np.percentile(aer[0] - aer[1], [2.5, 97.5]))


def test_every_better_said_of_a_bundled_model_holds_on_an_independent_resampling():
    aligner = {r.method: r for r in read_alignment(BUNDLED_BASELINE)}["grow-diag"]
    for name in bundled_models():
        found = answers.measured(name, "G")
        for which, r in found.rows.items():
            if which == "best other matrix" or found.floor is None:
                continue
            for other in (found.floor, aligner):
                low, high = resampled_difference(r.per_pair, other.per_pair)
                said = answers.compared([answers._test(r, other)], "x", other.aer)
                margin = 0.3  # the two resamplings' interval ends agree to about 0.1 point
                if said.startswith("better"):
                    assert high < margin, (name, which, other.matrix, low, high)
                elif said.startswith("worse"):
                    assert low > -margin, (name, which, other.matrix, low, high)
                else:
                    assert low < margin and high > -margin, (name, which, other.matrix, low, high)


def test_a_verdict_changes_when_a_records_number_changes(monkeypatch):
    real = answers.aligned

    def changed(directory):  # every Transformer's raw attention made as bad as no links at all
        found = dict(real(directory))
        if "transformer" in directory.name and ATTENTION in found:  # either direction's
            counts = tuple((0, t) for _, t in found[ATTENTION].per_pair)
            found[ATTENTION] = dataclasses.replace(found[ATTENTION], aer=100.0, per_pair=counts)
        return found

    before = {v.split(":")[0]: v for v in answer(bundled_models()).verdicts}["Transformer"]
    monkeypatch.setattr(answers, "aligned", changed)
    after = {v.split(":")[0]: v for v in answer(bundled_models()).verdicts}["Transformer"]
    assert before.startswith("Transformer: partly. ")
    assert after.startswith("Transformer: no. Its attention 100.0 AER, worse than where the words sit alone")


def test_a_bar_opens_its_model_and_reading_on_the_translate_page():
    found = answer(bundled_models())
    bar = next(b for b in found.bars if b["model"] == "transformer" and b["which"] == "raw attention")
    assert found.link({"model": "transformer", "matrix": "attention"}) == {
        "model": "transformer", "matrix": "attention", "head": bar["head"]}
    assert found.link({"model": "nowhere", "matrix": "attention"}) is None


def test_the_page_draws_both_charts_with_every_generation_and_no_key_or_shell_line_above_them():
    at = run_page(page("Answer"))
    assert not at.exception and not at.error
    aer, deletion = figures(at)[:2]
    names = {row["bar"] for rows in aer["datasets"].values() for row in rows if "bar" in row}
    assert any(n.startswith("RNN") for n in names) and any(n.startswith("Transformer") for n in names)
    assert any(n.startswith("Decoder-only") for n in names)
    above = " ".join(c.value for c in at.caption) + at.title[0].value
    assert "python -m" not in above and ".shifted" not in above and str(BUNDLED_DIR) not in above


@pytest.mark.parametrize("name", ["Answer", "Models_and_results", "Human_links", "Which_matrix"])
def test_no_page_shows_a_server_path(name):
    """A data folder is named as what it is (gold:en-fr, multi30k), never by the server's folders."""
    from models import ROOT

    at = run_page(page(name), model="transformer", text="A dog runs on the beach.")
    assert not at.exception
    said = [str(e.value) for kind in ("markdown", "caption", "code", "info", "warning", "text", "dataframe")
            for e in getattr(at, kind)]
    found = [s for s in said if "../shared" in s or str(ROOT) in s]
    assert not found, found[:2]
