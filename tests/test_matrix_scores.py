"""models/storage/records/matrix_scores: one row per matrix, its reading chosen on the trial set against people and its
best layer against the model."""
import json

from models.storage.records.matrix_scores import FAITHFULNESS_FILE, matrix_scores, matrix_table


def row(matrix, reading, trial, test):
    return {"model": "m", "split": "test", "pairs": 3, "matrix": matrix, "reading": reading, "method": "union",
            "trial aer": trial, "aer": test, "precision": 50.0, "recall": 50.0, "links": 4,
            "command": "python -m models.align --matrix all"}


def test_each_matrix_is_aligned_at_its_trial_best_and_explained_at_its_best(tmp_path):
    (tmp_path / "alignment.json").write_text(json.dumps([
        row("ALTI", "1.mean", 20.0, 30.0), row("ALTI", "2.mean", 25.0, 10.0),  # test's best is not trial's
        {**row("attention", "1.1", None, 5.0), "command": "x"}]))
    (tmp_path / FAITHFULNESS_FILE).write_text(json.dumps({
        "model": "m", "data": "multi30k", "sentences": 3, "deletions": 5, "command": "python -m models.faithfulness",
        "rows": [{"row": "ALTI.1.mean", "matrix": "ALTI", "reading": "1.mean", "comprehensiveness": 2.0,
                  "sufficiency": 1.0, "steps": 9},
                 {"row": "ALTI.2.mean", "matrix": "ALTI", "reading": "2.mean", "comprehensiveness": 3.0,
                  "sufficiency": 0.5, "steps": 9},
                 {"row": "random", "matrix": "random", "comprehensiveness": 1.0, "sufficiency": 3.0, "steps": 9}]}))
    found = {r.matrix.name: r.table_row() for r in matrix_scores(tmp_path)}
    assert list(found) == ["ALTI", "random"]  # a plain --matrix attention result is not a --matrix all row
    assert found["ALTI"]["AER %"] == 30.0 and found["ALTI"]["aligned at"] == "1.mean, union"
    assert found["ALTI"]["explained at"] == "2.mean" and found["ALTI"]["comprehensiveness"] == 3.0
    assert found["random"]["AER %"] is None and found["random"]["explained at"] == "—"
    table = matrix_table(tmp_path)
    assert "python -m models.faithfulness" in table and "first 3 sentences of multi30k" in table


def test_nothing_measured_says_how(tmp_path):
    assert matrix_scores(tmp_path) == [] and "models.align --matrix all --save" in matrix_table(tmp_path)
