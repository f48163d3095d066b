"""pages/Human_links.py: a gold pair's human links over the model's attention or attribution.

Tiny gold data made here: the tests never read ../shared."""
import json

import pytest

from models.analysis.aer import alignment_score
from models.analysis.word_links import rows_argmax, word_matrix
from models.storage.gold import parse_links
from models.storage.hub import load_model
from models.storage.records.alignment_rows import trial_best

from .pages_helpers import figures, heat_shape, page, records, run_page, title_of

PAIRS = [("a dog runs .", "un chien court .", "1-1 2-2 3-3 4p4"),
         ("the black cat sleeps", "le chat noir dort", "1-1 2-3 3-2 4-4 3p3")]


@pytest.fixture
def gold(tmp_path, monkeypatch):
    for ext, column in (("en", 0), ("fr", 1), ("gold", 2)):
        (tmp_path / f"test.{ext}").write_text("\n".join(p[column] for p in PAIRS) + "\n")
    monkeypatch.setenv("ATLAS_GOLD", str(tmp_path))
    return tmp_path


def overlay(chart: dict) -> dict[str, set[tuple[int, int]]]:
    """People's links drawn over the heatmap, by kind: {"Sure": {(s, t), …}, "Possible": …}."""
    found = {}
    for link in records(chart, "link"):
        found.setdefault(link["link"].split()[0], set()).add((link["s"], link["t"]))
    return found


def test_the_pair_from_the_url_is_drawn_with_its_human_links(gold):
    at = run_page(page("Human_links"), pair="2")
    assert not at.exception, [e.message for e in at.exception]
    heat = figures(at)[0]
    loaded = load_model("additive")
    expected = word_matrix(loaded.model, loaded.tokenizers, PAIRS[1][0].split(), PAIRS[1][1].split())
    assert heat_shape(heat) == expected.shape == (4, 4)
    assert overlay(heat) == {"Sure": {(0, 0), (1, 2), (2, 1), (3, 3)}, "Possible": {(2, 2)}}
    table = at.dataframe[0].value  # the argmax row is the heatmap read as people read it: scored by aer.py
    sure, possible = parse_links(PAIRS[1][2])
    score = alignment_score([rows_argmax(expected)], [sure], [possible])
    assert list(table.columns) == ["links read as", "AER %", "precision %", "recall %", "links"]
    assert table["AER %"][0] == round(score.aer, 1) and table["links"][0] == score.links


def test_attribution_can_be_laid_under_the_same_links(gold):
    at = run_page(page("Human_links"), pair="1", read="integrated-gradients")
    assert not at.exception
    heat = figures(at)[0]
    assert "attribution" in title_of(heat)
    assert overlay(heat)["Sure"] == {(0, 0), (1, 1), (2, 2)}


@pytest.mark.parametrize("pair", ["0", "99", "abc"])
def test_any_pair_number_in_the_url_shows_a_pair(gold, pair):
    at = run_page(page("Human_links"), pair=pair)
    assert not at.exception
    assert heat_shape(figures(at)[0]) == (4, 4)  # both pairs are four words by four


@pytest.mark.parametrize("model", ["transformer", "fr-en-transformer"])
def test_without_a_gold_folder_or_a_reachable_set_it_says_so_plainly_and_draws_the_heads_fit_to_people(
        tmp_path, monkeypatch, model):
    import streamlit as st

    st.cache_data.clear()  # no set's pairs cached by an earlier page run
    monkeypatch.setenv("ATLAS_GOLD", str(tmp_path / "nowhere"))  # and ATLAS_GOLD_URL: a port nothing listens on
    at = run_page(page("Human_links"), model=model)
    assert not at.exception and not at.error
    said = " ".join(i.value.replace("\\", "") for i in at.info)
    assert "fetched once from their public source" in said and "cannot reach" in said, said
    assert "ATLAS_GOLD" not in said and "http" not in said and "urlopen" not in said  # no setting, address, error
    grids = [f for f in figures(at) if "its own AER %" in json.dumps(f.get("layer", []))]  # weight_grid's
    assert len(grids) >= 2  # the probe's heads at the writing step and one step later, from the model's own files


def test_a_broken_gold_file_is_a_message(gold):
    (gold / "test.gold").write_text("1-1 9-9\n1-1\n")  # a link past the end of its sentence
    at = run_page(page("Human_links"))
    assert not at.exception
    assert any("cannot be read" in e.value for e in at.error)


def test_the_pair_table_scores_the_trial_chosen_rule(gold):
    at = run_page(page("Human_links"), pair="1")
    rules = list(at.dataframe[0].value["links read as"])
    chosen = trial_best(load_model("additive").path, (1, 1)).method  # the bundled card's trial record
    assert rules[1] == f"{chosen} (chosen on the trial set)" and len(rules) == 3


def test_a_probes_grids_share_one_colour_scale_with_a_legend_and_name_the_set_never_a_path(gold):
    at = run_page(page("Human_links"), model="transformer")
    assert not at.exception
    grids = [f for f in figures(at) if title_of(f) in ("Writing step", "One step later", "Reverse, writing step",
                                                       "Reverse, one step later")]
    assert len(grids) == 4  # its own heads and its reverse partner's (the French→English model's)
    scales = [next(layer["encoding"]["color"] for layer in g["layer"] if "color" in layer["encoding"]) for g in grids]
    assert scales[0]["scale"]["domain"] == scales[1]["scale"]["domain"]  # one scale: +0.2 as dark in both
    bound = scales[0]["scale"]["domain"][1]
    weights = [abs(r["value"]) for g in grids for rows in g["datasets"].values() for r in rows if "value" in r]
    assert max(weights) == pytest.approx(bound)  # the scale reaches the largest weight of either grid
    assert sum(s.get("legend") is not None for s in scales) == 1  # one legend for both
    said = " ".join(c.value for c in at.caption)
    assert "Fit on trial 37 pairs of Canadian Hansards, Och & Ney (2000)" in said  # the set by name
    heads = next(m for m in at.markdown if "Heads fit to people" in m.value)
    assert "Beside the heads: same punctuation" in heads.help  # plain words, no key
    assert "layer 1, head 3, read one step later (diagonal after)" in heads.help
    assert "a second look weighs each pair against its row's and column's rivals" in heads.help
    assert ".shifted" not in heads.help + said
    assert "../" not in said and "/shared" not in said
