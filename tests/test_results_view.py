"""models/views/results.py: what the Models & results page draws of the bundled models, named as the page names
them, without Streamlit."""
from models.storage.hub import bundled_models
from models.views.naming import model_name
from models.views.results import bundled_results, figure_2, results_page


def test_the_page_names_each_bundled_model_and_splits_bleu_by_length_per_test_set():
    results = bundled_results()
    found = results_page(results)
    names = {model_name(m) for m in bundled_models()}
    assert found.tests and {row["model"] for row in found.tests} <= names
    assert {name for name, _ in found.trained} <= names and not found.problems
    expected = {point["test set"] for r in results for point in r.lengths}
    assert set(found.lengths) == expected
    for test, (points, finding) in found.lengths.items():
        assert points and {p["test set"] for p in points} == {test} and {p["model"] for p in points} <= names
        assert finding == figure_2(results, test)
    assert all(row["model"] in names for row in found.curves + found.believed)


def test_each_grid_has_a_key_of_its_own_and_says_whose_it_is():
    found = results_page(bundled_results())
    keys = [key for key, _, _ in found.aer_grids + found.importance]
    assert len(keys) == len(set(keys))
    for key, title, _ in found.aer_grids:
        assert ("read one step later" in title) == key.endswith("_shifted")
        assert title.split(":")[0] in {model_name(m) for m in bundled_models()}
