"""models/tables/columns.py: the corpus table's one column grammar, built and read back whatever the models'
names hold (spaces, brackets, one name the start of another)."""
import pytest

from models.tables.columns import MODEL_STATS, PAIR_STATS, SENTENCE, column, order, parse

NAMES = ["Additive (Bahdanau)", "Additive (Bahdanau) 2", "transformer 1.4.shifted"]


@pytest.mark.parametrize("model", NAMES)
@pytest.mark.parametrize("stat", MODEL_STATS)
def test_a_models_column_is_read_back_as_its_model_and_statistic(model, stat):
    assert parse(column(model, stat), NAMES) == (model, stat)


@pytest.mark.parametrize("name", [*SENTENCE, *PAIR_STATS])
def test_the_sentences_and_the_pairs_columns_belong_to_no_model(name):
    assert parse(name, NAMES) == (None, name)


def test_an_unknown_statistic_is_neither_built_nor_read():
    with pytest.raises(ValueError, match="unknown statistic 'speed'"):
        column("additive", "speed")
    assert parse("additive speed", ["additive"]) == (None, "additive speed")


def test_the_table_shows_the_sentence_and_the_disagreement_first_the_reference_last():
    a, b = "additive", "dot"
    columns = ["#", "source", "reference", "words", *(column(m, s) for m in (a, b) for s in MODEL_STATS), "JSD",
               "agreement"]
    shown = order(columns, [a, b])
    assert shown[:6] == ["#", "source", "JSD", "agreement", column(a, "translation"), column(b, "translation")]
    assert shown[-2:] == ["words", "reference"] and sorted(shown) == sorted(columns)
