"""The matrices in the app: every matrix on the Translate page, the contrastive step (``foil=``), the “Which matrix to
believe?” page, the Models page's table, and a public server refusing what it cannot afford."""
import pytest

from models.decoding.greedy import greedy
from models.nouns.matrix import MATRICES
from models.storage.hub import load_model

from .pages_helpers import APP, cells, figures, page, run_page, title_of

TEXT = "A dog runs on the beach."


@pytest.mark.parametrize("matrix", [m for m in MATRICES if m != "integrated gradients"])
def test_the_translate_page_draws_every_matrix_at_a_layer_it_has(matrix):
    at = run_page(APP, model="transformer", text=TEXT, matrix=MATRICES[matrix].slug, head="2.3")
    assert not at.exception and not at.error
    assert title_of(figures(at)[0]).startswith(MATRICES[matrix].title)
    assert at.query_params["matrix"] == MATRICES[matrix].slug
    if matrix in ("ALTI", "ALTI+ rollout", "attention rollout", "value zeroing"):  # a layer, not a head
        assert at.query_params["head"] == "2.mean"
    prefix = [c.value for c in at.caption if "target prefix" in c.value]
    assert bool(prefix) == (matrix in ("ALTI", "ALTI+ rollout", "attention rollout"))


def runner_up(step: int) -> str:
    loaded = load_model("transformer")
    return greedy(loaded.model, loaded.tokenizers, TEXT).top_k[step][1][0]


def test_a_contrastive_step_draws_why_this_piece_and_not_the_foil():
    foil = runner_up(1)
    at = run_page(APP, model="transformer", text=TEXT, read="gradient-x-input", step="2", foil=foil)
    assert not at.exception
    contrast = [f for f in figures(at) if "log p(" in title_of(f)]
    assert len(contrast) == 1 and "Gradient×input" in title_of(contrast[0])
    assert sum(c["weight"] for c in cells(contrast[0])) == pytest.approx(1, abs=1e-3)
    assert at.query_params["foil"] == foil


def test_an_old_link_to_which_reading_opens_which_matrix_to_believe_with_its_query_string():
    at = run_page("pages/Which_reading.py", model="additive", text=TEXT)
    assert not at.exception and at.title[0].value == "Which matrix to believe?"
    assert at.query_params["model"] == "additive" and at.query_params["text"] == TEXT


def test_a_foil_that_is_no_candidate_is_dropped():
    at = run_page(APP, model="transformer", text=TEXT, step="2", foil="<script>x</script>")
    assert not at.exception and not [f for f in figures(at) if "log p(" in title_of(f)]
    assert "foil" not in at.query_params


@pytest.mark.parametrize(("model", "panels"), [("transformer", 12), ("additive", 7), ("none", 4)])
def test_which_matrix_sets_every_matrix_beside_the_position_and_random_floors_in_plain_words(model, panels):
    at = run_page(page("Which_matrix"), model=model, text=TEXT)
    assert not at.exception and not at.error
    grid = figures(at)[0]
    assert len({c["head"] for c in cells(grid)}) == panels
    assert max(c["weight"] for c in cells(grid)) <= 1 + 1e-6  # the random panel on the scale its legend shows
    table = at.dataframe[0].value
    assert list(table["matrix"])[-2:] == ["position floor", "random"] and len(table) == panels
    assert table["comprehensiveness"].notna().all()
    words = " ".join(map(str, [*table["reading"], *table["aligned at"], *{c["label"] for c in cells(grid)}]))
    assert ".shifted" not in words and ".mean" not in words and "None" not in words and "deletion" not in words


def test_a_public_server_leaves_out_value_zeroing_it_cannot_afford(monkeypatch):
    monkeypatch.setenv("ATLAS_PUBLIC", "1")
    monkeypatch.setattr("models.analysis.recipes.ZEROING_CELLS_PER_SECOND", 1)
    at = run_page(APP, model="transformer", text=TEXT, read="value-zeroing")
    assert not at.exception
    assert any("Value zeroing of this sentence" in w.value and "shared server" in w.value for w in at.warning)
    assert title_of(figures(at)[0]).startswith("Attention α")


def test_the_models_page_says_which_matrix_to_believe():
    at = run_page(page("Models_and_results"))
    assert not at.exception
    believed = [d.value for d in at.dataframe if "comprehensiveness" in d.value.columns]
    assert len(believed) == 1 and {"model", "matrix", "AER %", "sufficiency"} <= set(believed[0].columns)
    transformer = believed[0][believed[0]["model"].str.contains("Transformer")]
    assert {"ALTI", "ALTI+ rollout", "value zeroing", "random"} <= set(transformer["matrix"])
    assert any("models.faithfulness" in c.value for c in at.code)


def test_the_matrices_an_rnn_lacks_are_named_with_the_reason():
    at = run_page(APP, model="additive", text=TEXT)
    assert not at.exception
    said = [p for p in at.selectbox(key="matrix").help.split("\n\n") if p.startswith("Not for this model")]
    whole, stack = said  # one note for each reason, each naming the matrices it keeps out
    assert "ALTI, ALTI+ rollout, attention rollout, value zeroing" in stack and "no residual stream" in stack
    assert "full-context attention" in whole and "future mask" in whole
    assert not [c for c in at.caption if "Not for this model" in c.value]  # in the picker's help, not above the chart


def test_a_public_server_contrasts_by_gradient_x_input_where_integrated_gradients_cost_too_much(monkeypatch):
    monkeypatch.setenv("ATLAS_PUBLIC", "1")
    monkeypatch.setattr("models.analysis.attribution.CELLS_PER_SECOND", 1)
    at = run_page(APP, model="transformer", text=TEXT, step="2", foil=runner_up(1), read="attention")
    contrast = [f for f in figures(at) if "log p(" in title_of(f)]
    assert not at.exception and len(contrast) == 1 and title_of(contrast[0]).startswith("Gradient×input")


def test_a_public_server_draws_the_readings_without_deletion_scores_it_cannot_afford(monkeypatch):
    monkeypatch.setenv("ATLAS_PUBLIC", "1")
    monkeypatch.setattr("models.analysis.deletion.CELLS_PER_SECOND", 1)
    at = run_page(page("Which_matrix"), model="additive", text=TEXT)
    assert not at.exception
    assert any("without their deletion scores" in i.value for i in at.info)
    assert at.dataframe[0].value["comprehensiveness"].isna().all()


def test_which_reading_leaves_out_a_matrix_over_its_budget_and_says_so(monkeypatch):
    """The page reads a sentence every way in about 10 s: a matrix estimated over ``PANEL_S`` (the decoder-only's
    integrated gradients, which re-read its whole prompt at every path point) is left out, and said so."""
    from models.views import matrix_views as views

    text = "The little girl in the red dress is playing with her dog."
    loaded, transformer = load_model("decoder-only"), load_model("transformer")
    trace = greedy(loaded.model, loaded.tokenizers, text)
    chosen, slow = views.panel_readings(loaded, trace)
    assert MATRICES["integrated gradients"] not in chosen and slow.startswith("Left out here, as slow for this page: integrated")
    own = greedy(transformer.model, transformer.tokenizers, text)
    assert views.panel_readings(transformer, own)[1] is None  # its integrated gradients (about 2 s) fit the budget
    monkeypatch.setattr(views, "PANEL_S", 1e9)
    assert MATRICES["integrated gradients"] in views.panel_readings(loaded, trace)[0]
