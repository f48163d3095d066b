"""The matrix registry (models/nouns/matrix.py for what a matrix is, models/analysis/recipes.py for how it is
computed): a matrix registered with its recipe, with no other edit, is offered by the Show
picker and drawn under its own title, scored by ``models.align --matrix all`` and ``models.faithfulness``, and
drawn on the “Which matrix to believe?” page; a model it needs more of is told why in the picker's help."""
import json

import numpy as np
import pytest

from models import align, faithfulness as faithfulness_command
from models.analysis import recipes
from models.analysis.contributions import Layered
from models.analysis.recipes import WEIGHTS, Need, Recipe
from models.nouns import matrix as nouns
from models.nouns.matrix import Matrix
from models.storage.hub import save_checkpoint

from .helpers import make_transformer, write_gold
from .pages_helpers import APP, figures, page, run_page, title_of


def first_piece(sentence, progress) -> Layered:
    """Every step's whole weight on the first source piece, at every layer."""
    L = sentence.model.attention_shape[0]
    weights = np.zeros((L, len(sentence.trace.target_ids), len(sentence.trace.source.ids)), np.float32)
    weights[..., 0] = 1
    return Layered(weights)


TOY = Matrix("toy first piece", "Toy: all on the first source piece", "share", "a test's matrix, every step on the "
             "first source piece", "layer")
HEADLESS = Need(lambda model, _: model.attention_shape[1] > 8, "the toy wants more than eight heads")


@pytest.fixture
def registered():
    """TOY registered for one test, the registry as it was afterwards (whatever the test registers too)."""
    matrices, cooked = dict(nouns.MATRICES), dict(recipes.RECIPES)
    recipes.register(TOY, Recipe(first_piece, (WEIGHTS,)))
    yield TOY
    nouns.MATRICES.clear()
    nouns.MATRICES.update(matrices)
    recipes.RECIPES.clear()
    recipes.RECIPES.update(cooked)


def test_the_show_picker_offers_a_registered_matrix_and_draws_it_under_its_title(registered):
    at = run_page(APP, model="transformer", text="A dog runs.", read=registered.slug)
    assert not at.exception and not at.error
    assert registered.name in at.selectbox(key="matrix").options
    assert f"- {registered.name}: {registered.about}" in at.selectbox(key="matrix").help
    assert title_of(figures(at)[0]).startswith(registered.title)
    assert at.query_params["matrix"] == registered.slug


def test_a_model_without_what_a_matrix_needs_is_told_why(registered):
    recipes.register(TOY, Recipe(first_piece, (WEIGHTS, HEADLESS)))  # the fixture puts it all back
    at = run_page(APP, model="transformer", text="A dog runs.")
    picker = at.selectbox(key="matrix")
    assert not any(TOY.name in o for o in picker.options)
    assert f"Not for this model — {TOY.name}: the toy wants more than eight heads." in picker.help


def test_models_align_matrix_all_scores_a_registered_matrix(registered, tiny_tokenizers, tmp_path, capsys):
    gold = write_gold(tmp_path / "gold", ("test", "trial"))  # the rules are chosen on trial: here the same pairs
    save_checkpoint(tmp_path / "transformer", make_transformer(tiny_tokenizers), tiny_tokenizers)
    assert align.main(["--model", str(tmp_path / "transformer"), "--data", str(gold), "--matrix", "all"]) == 0
    rows = [r for r in map(json.loads, capsys.readouterr().out.splitlines()) if r["matrix"] == TOY.name]
    assert {r["row"] for r in rows} == {"toy-first-piece.1.mean", "toy-first-piece.2.mean",
                                        "toy-first-piece.1.mean.shifted", "toy-first-piece.2.mean.shifted"}


def test_the_faithfulness_table_scores_a_registered_matrix(registered, tiny_tokenizers, tiny_corpus, tmp_path,
                                                           capsys):
    save_checkpoint(tmp_path / "t", make_transformer(tiny_tokenizers), tiny_tokenizers)
    assert faithfulness_command.main(["--model", str(tmp_path / "t"), "--data", str(tiny_corpus),
                                      "--sentences", "2"]) == 0
    rows = {r["row"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert {"toy-first-piece.1.mean", "toy-first-piece.2.mean"} <= set(rows)
    assert rows["toy-first-piece.1.mean"]["matrix"] == TOY.name


def test_which_reading_draws_a_registered_matrix(registered):
    at = run_page(page("Which_matrix"), model="transformer", text="A dog runs.")
    assert not at.exception and not at.error
    assert TOY.name in list(at.dataframe[0].value["matrix"])
