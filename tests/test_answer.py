"""The answer at a glance (models/views/results.answer, pages/Answer.py): each generation's bars read from the records
beside the bundled models — each the row chosen on the trial pairs, its test AER — beside the floor and the aligners,
verdicts composed from those numbers, and a click that opens the model and reading."""
import json

import pytest

from models.storage.hub import BUNDLED_DIR, bundled_models, resolve
from models.storage.records.alignment import ALIGNMENT_FILE, AlignmentRow
from models.views import results
from models.views.results import answer

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
    assert {b["reading"] for b in found.bars} == {"raw attention", "best other reading", "fit to human links"}
    floors = sorted(chosen_on_trial(name, "position floor")["aer"] for name in bundled_models())
    assert found.references[0] == {"what": "position floor", "AER": floors[0], "line": 0,
                                   "label": f"floor: positions alone {floors[0]:.1f}–{floors[-1]:.1f}"}
    named = " ".join(r["label"] for r in found.references)
    assert "eflomal" in named and "GIZA++" in named  # the aligners named on the chart, not in a tooltip alone
    assert len(found.references) == 5 and f"above the floor ({floors[-1]:.1f})" in found.verdicts[-1]
    assert [v.split(":")[0] for v in found.verdicts] == ["RNN", "Transformer", "decoder-only"]
    assert not any(".shifted" in b["at"] or "../" in c for b in found.bars for c in found.commands)


def test_a_verdict_changes_when_a_records_number_changes(monkeypatch):
    real = results.aligned

    def changed(directory):  # every Transformer's raw attention made worse than the floor
        found = dict(real(directory))
        if "transformer" in directory.name and "attention" in found:  # either direction's
            found["attention"] = AlignmentRow(**{**found["attention"].__dict__, "aer": 51.23})
        return found

    best = min(chosen_on_trial(n, "attention")["aer"] for n in ("transformer", "transformer-align", "fr-en-transformer"))
    before = {v.split(":")[0]: v for v in answer(bundled_models()).verdicts}["Transformer"]
    monkeypatch.setattr(results, "aligned", changed)
    after = {v.split(":")[0]: v for v in answer(bundled_models()).verdicts}["Transformer"]
    assert f"attention {best:.1f}" in before and "behind eflomal" in before.split(";")[0]
    assert after.startswith("Transformer: attention 51.2 AER, no better than where the words sit alone")


def test_a_bar_opens_its_model_and_reading_on_the_translate_page():
    found = answer(bundled_models())
    bar = next(b for b in found.bars if b["model"] == "transformer" and b["reading"] == "raw attention")
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


@pytest.mark.parametrize("name", ["Answer", "Models_and_results", "Human_links", "Which_reading"])
def test_no_page_shows_a_server_path(name):
    """A data folder is named as what it is (gold:en-fr, multi30k), never by the server's folders."""
    from models import ROOT

    at = run_page(page(name), model="transformer", text="A dog runs on the beach.")
    assert not at.exception
    said = [str(e.value) for kind in ("markdown", "caption", "code", "info", "warning", "text", "dataframe")
            for e in getattr(at, kind)]
    found = [s for s in said if "../shared" in s or str(ROOT) in s]
    assert not found, found[:2]
